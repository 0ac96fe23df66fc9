"""Recover-by-handle lookup: which block or group owns a payload."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .blocks import BlockStatus, Handle
from .errors import DeletedHandleError, HandleError
from .ids import is_block_id, is_group_id

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace


def owner_of(ws: "Workspace", target: Handle | str) -> str:
    """The live block or group whose payload ``target`` names (a block or group id,
    a :class:`Handle` or a payload path). Raises :class:`DeletedHandleError`,
    :class:`HandleError`, :class:`ConfinementError`, :class:`UnknownBlockError`."""
    if isinstance(target, str) and (is_block_id(target) or is_group_id(target)):
        (ws.block if target[0] == "B" else ws.group)(target)
        return target
    if isinstance(target, Handle):
        path = target.path
    elif isinstance(target, (str, Path)):
        path = str(target)
    else:
        raise HandleError(f"cannot recover {target!r:.60}: not a handle, id or path")
    sha = ws.store.address(path)
    if isinstance(target, Handle) and target.sha256 != sha:
        raise HandleError(f"handle {target.path!r} does not match its sha256")
    live = deleted = None
    for g in ws.groups.values():
        if g.handle.sha256 == sha:
            if g.status == "deleted":
                deleted = g.id
            else:
                live = live or g.id
    for b in ws.blocks.values():
        if b.handle is not None and b.handle.sha256 == sha and not b.in_stream:
            if b.status is BlockStatus.DELETED:
                deleted = deleted or b.id
            elif b.recovered_from is None:
                live = live or b.id
    if live is None and deleted is not None:
        raise DeletedHandleError(f"payload {path!r} was deleted (was {deleted})")
    if live is None:
        raise HandleError(f"no archived block or group has payload {path!r}")
    ws.store.resolve(path)  # symlink and existence checks
    return live

