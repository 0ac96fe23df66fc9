"""Which blocks and groups a context tool may touch (archive/delete preconditions).

Pure checks over a workspace's state: each raises the error the tool documents and
changes nothing, so a refused call leaves the workspace as it was (invariant 5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .blocks import Block, BlockStatus, GroupStatus
from .errors import BlockStateError, ConfigError, PinnedBlockError

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace


def refuse_pinned(ws: "Workspace", items: list[str], verb: str) -> None:
    """Pins come first: a spec touching a pinned block is a :class:`PinnedBlockError`."""
    for ident in items:
        if ident[0] == "B" and ws.blocks[ident].status is BlockStatus.PINNED:
            raise PinnedBlockError(f"cannot {verb} {ident}: it is pinned")


def check_archivable(ws: "Workspace", b: Block, verb: str, grouped: bool = False) -> None:
    """Raise unless ``b`` may be archived; ``grouped``: into a new group, which a
    top-level offloaded placeholder may join (alone it gains nothing)."""
    if b.status is BlockStatus.PINNED:
        raise PinnedBlockError(f"cannot {verb} {b.id}: it is pinned")
    if b.status is BlockStatus.DELETED:
        raise BlockStateError(f"cannot {verb} {b.id}: it is deleted")
    if b.status is BlockStatus.VISIBLE or (
            grouped and b.status is BlockStatus.OFFLOADED and b.id not in ws.group_of):
        return
    where = f" in {ws.group_of[b.id]}" if b.id in ws.group_of else ""
    if b.status is BlockStatus.OFFLOADED and not where:
        where = "; only a group archive (2+ items) may bundle it"
    raise BlockStateError(f"cannot {verb} {b.id}: it is already "
                          f"{b.status.value}{where}")


def check_archive(ws: "Workspace", items: list[str]) -> None:
    """Raise unless every item of an archive call may be archived together: visible
    blocks, top-level offloaded placeholders (in a group) and top-level groups."""
    refuse_pinned(ws, items, "archive")
    for ident in items:
        if ident[0] == "G":
            g = ws.groups[ident]
            if g.status != "archived":
                raise BlockStateError(f"group {ident} is {g.status}")
            if g.parent:
                raise BlockStateError(f"group {ident} is already archived inside "
                                      f"{g.parent}")
            continue
        check_archivable(ws, ws.blocks[ident], "archive", len(items) > 1)
    if len(items) == 1 and items[0][0] == "G":
        raise BlockStateError(f"group {items[0]} is already archived")


def delete_targets(ws: "Workspace", items: list[str]) -> tuple[list[str], list[str]]:
    """The block and group ids a delete of ``items`` removes (groups take their
    members), or the refusal: :class:`PinnedBlockError`, :class:`BlockStateError`."""
    blocks: list[str] = []
    groups: list[str] = []
    refuse_pinned(ws, items, "delete")
    for ident in items:
        if ident[0] == "G":
            g = ws.groups[ident]
            if g.status is GroupStatus.EXPANDED:  # only its transcript is left to delete
                groups.append(ident)
                continue
            if g.status != "archived":
                raise BlockStateError(f"cannot delete group {ident}: it is {g.status}")
            if g.parent:
                raise BlockStateError(f"cannot delete group {ident}: it is inside "
                                      f"{g.parent}; delete or expand that group first")
            collect(ws, ident, blocks, groups)
            continue
        b = ws.blocks[ident]
        if b.status is BlockStatus.PINNED:
            raise PinnedBlockError(f"cannot delete {ident}: it is pinned")
        if b.status is BlockStatus.DELETED:
            raise BlockStateError(f"cannot delete {ident}: it is already deleted")
        if ident in ws.group_of:
            raise BlockStateError(f"cannot delete {ident}: it is inside archived "
                                  f"group {ws.group_of[ident]}; delete or expand it")
        blocks.append(ident)
    return blocks, groups


def collect(ws: "Workspace", gid: str, blocks: list[str], groups: list[str]) -> None:
    """Append group ``gid``, its nested groups and their blocks (a delete's reach)."""
    stack = [gid]
    while stack:
        cur = stack.pop()
        groups.append(cur)
        for m in ws.groups[cur].members:
            (stack.append(m) if m[0] == "G" else blocks.append(m))


def check_budget(budget: object) -> None:
    """Raise :class:`ConfigError` unless ``budget`` is None (unlimited) or an int >= 1
    (tokens; a bool or a numeric string is refused, not converted)."""
    if budget is None:
        return
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise ConfigError(f"budget must be None or an int >= 1 (tokens), got "
                          f"{budget!r} ({type(budget).__name__})")
    if budget < 1:
        raise ConfigError(f"budget must be None or an int >= 1 (tokens), got {budget!r}")
