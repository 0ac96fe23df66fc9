"""Read-only pictures of a workspace's state: group transcripts (what a group's
payload holds) and a full comparable snapshot (for "nothing changed" checks)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from .errors import CorruptPayloadError

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace


def transcript(ws: "Workspace", items: Iterable[str]) -> bytes:
    """The exact bytes of blocks/groups as one readable transcript: each member
    headed by ``=== B<n> <type> (turn t) ===`` (groups expanded in place)."""
    out = bytearray()
    stack = list(reversed(list(items)))
    while stack:
        ident = stack.pop()
        if ident[0] == "G":
            g = ws.groups[ident]
            out += f"=== {ident} group of {','.join(g.members)} ===\n".encode()
            stack.extend(reversed(g.members))
        else:
            b = ws.blocks[ident]
            if ident in ws.corrupt:  # never write a marker in place of its bytes
                raise CorruptPayloadError(f"{ident} is corrupt: {ws.corrupt[ident]}")
            out += f"=== {ident} {b.type.value} (turn {b.turn}) ===\n".encode()
            out += b.data + b"\n"
    return bytes(out)


def snapshot(ws: "Workspace") -> dict[str, Any]:
    """A full, comparable picture of the state: every block and group field,
    counters, turn, journal length, stored payload files and the top-level items
    (for "nothing changed" checks)."""
    return {
        "blocks": {k: (b.type.value, b.data, b.tokens, b.turn, b.parent, b.level,
                       b.status.value, b.handle, b.message, b.recovered_from,
                       b.call_block, b.replacement, b.reason)
                   for k, b in ws.blocks.items()},
        "groups": {k: (g.members, g.handle, g.replacement, g.turn, g.level,
                       g.parent, g.status, g.tokens) for k, g in ws.groups.items()},
        "group_of": dict(ws.group_of), "turn": ws.turn,
        "next": (ws.state.next_block, ws.state.next_group), "refs": dict(ws.state.refs),
        "journal": ws.journal.path.stat().st_size,
        "files": sorted(ws.store.files()),
        "packed": ws.store.packed(),
        "top": list(ws.top),
    }



def recovered_from(ws: "Workspace", source: str) -> Any:
    """Every block recovered from ``source``, in id order (all blocks of a plain
    dict; of a reopened workspace's lazy blocks, only those: its table finds them,
    :meth:`~sim.workspace.lazy.LazyBlocks.recovered_from`)."""
    from .columns import ODD, link
    from .lazy import LazyBlocks

    blocks = ws.blocks
    code = link(source)
    if isinstance(blocks, LazyBlocks) and code != ODD:
        return blocks.recovered_from(source, code)
    return [b for b in blocks.values() if b.recovered_from == source]
