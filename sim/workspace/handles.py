"""Recover-by-handle lookup: which block or group owns a payload, through an index
sha256 -> owners kept by every register and group archive (O(1) per lookup)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .blocks import BlockStatus, GroupStatus, Handle
from .errors import CorruptPayloadError, DeletedHandleError, HandleError
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
    live_group = live_block = deleted = None
    for ident in ws.state.by_sha.get(sha, ()):  # the index: O(owners), not O(blocks)
        if ident[0] == "G":
            g = ws.groups[ident]
            if g.status is GroupStatus.DELETED:
                deleted = ident if deleted is None or deleted[0] == "G" else deleted
            else:
                live_group = live_group or ident
            continue
        b = ws.blocks[ident]
        if b.in_stream:
            continue
        if b.status is BlockStatus.DELETED:
            deleted = deleted or ident
        elif b.recovered_from is None:
            live_block = live_block or ident
    live = live_group or live_block
    if live is None and deleted is not None:
        raise DeletedHandleError(f"payload {path!r} was deleted (was {deleted})")
    if live is None:
        raise HandleError(f"no archived block or group has payload {path!r}")
    if live in ws.corrupt:
        raise CorruptPayloadError(f"cannot recover {live}: {ws.corrupt[live]}")
    ws.store.check(path)  # symlink and existence checks
    return live


def index_owner(ws: "Workspace", ident: str, sha: str) -> None:
    """Record that block or group ``ident`` has the payload ``sha`` (the index
    :func:`owner_of` reads; kept by every register and group archive)."""
    ws.state.by_sha.setdefault(sha, []).append(ident)


def read_named(ws: "Workspace", path: str | Handle) -> bytes:
    """:meth:`Workspace.read_payload`: the verified bytes at ``path``; a damaged or
    missing payload of a known block or group raises :class:`CorruptPayloadError`
    naming its owners; the payload of deleted items only raises
    :class:`DeletedHandleError` (a packed payload's bytes outlive the delete)."""
    if not isinstance(path, Handle):
        sha = ws.store.address(path)
    else:
        sha = path.sha256
    if sha in ws.state.by_sha and sha not in ws.state.refs:
        gone = ws.state.by_sha[sha]
        raise DeletedHandleError(f"payload {getattr(path, 'path', path)!r} was deleted "
                                 f"(was {', '.join(gone)})")
    try:
        if isinstance(path, Handle):
            return ws.store.read(path)
        return ws.store.read_path(path)
    except (CorruptPayloadError, HandleError) as exc:  # name the owners
        sha = path.sha256 if isinstance(path, Handle) else ws.store.address(path)
        owners = ws.state.by_sha.get(sha, [])
        if not isinstance(exc, CorruptPayloadError) and not set(owners) & set(
                ws.corrupt):
            raise
        raise CorruptPayloadError(f"{exc} (payload of {', '.join(owners)})"
                                  ) from None
