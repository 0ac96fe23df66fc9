"""Format 2 of ``checkpoint.bin`` (the release before issue 35), read for the
migration: a header line ``ctxsim-checkpoint 2 <sha256> <meta bytes>``, the state
as JSON (every block as a row, the derived maps included), the pack index, then the
inline copies. :func:`load` gives the state dict; :func:`restore` puts it into a
fresh workspace eagerly, every inline copy checked (as that release did; the
``restore`` journal line of ``repair`` carries a state of this shape too);
:func:`compare` is ``check``'s cross-check of such a state. A writer that opened one
writes format 3 at its close (:mod:`sim.workspace.checkpoint`).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from .blocks import Block, BlockStatus, BlockType, Group, GroupStatus, Handle

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

MAGIC = b"ctxsim-checkpoint 2"


def decode(rest: bytes, n: int) -> dict[str, Any]:
    """The state of a format-2 checkpoint whose bytes after the header line are
    ``rest`` (verified) with ``n`` bytes of state JSON: the JSON's fields plus
    ``pack_index`` and ``blob`` (views of ``rest``). Raises ValueError, KeyError or
    TypeError for a state that is not one."""
    state = json.loads(bytes(rest[:n]))
    if not isinstance(state, dict):
        raise TypeError("the checkpoint's state is not an object")
    view = memoryview(rest)
    k = n + state.get("pack_index_bytes", 0)
    state["pack_index"], state["blob"] = view[n:k], view[k:]
    return state


def compare(state: dict[str, Any], ws: "Workspace") -> list[str]:
    """Where the verified checkpoint ``state`` disagrees with ``ws``, a workspace
    replayed from the whole journal (``ctxsim workspace check``): the checkpoint
    may cover no line the journal lacks, every block it holds must be the journal's
    block of that id (type, sha256, length) and every inline copy must match that
    sha256. Empty if they agree."""
    out = []
    if state["lines"] > ws.journal_lines:
        out.append(f"the checkpoint covers {state['lines']} journal lines, the journal "
                   f"has {ws.journal_lines}")
    blob, pos = state["blob"], 0
    for (bid, btype, _, _, _, _, _, sha, length, *_, size) in state["blocks"]:
        b = ws.blocks.get(bid)
        if b is None or (b.type.value, b.handle.sha256, b.handle.length) != \
                (btype, sha, length):
            out.append(f"checkpoint block {bid} is not the journal's {bid}")
        if size >= 0:
            data = blob[pos:pos + size]
            pos += size
            if size != length or hashlib.sha256(data).hexdigest() != sha:
                out.append(f"checkpoint copy of {bid} ({size} bytes) fails its sha256")
    journal_blocks = sum(int(b[1:]) < state["next"][0] for b in ws.blocks)
    if journal_blocks != len(state["blocks"]):
        out.append(f"the checkpoint holds {len(state['blocks'])} blocks, the journal's "
                   f"first {state['lines']} lines register {journal_blocks}")
    return out[:20]


def restore(ws: "Workspace", state: dict[str, Any]) -> list[str]:
    """Put the checkpointed state into the fresh ``ws``, bytes of the blocks it
    holds included; returns the live blocks whose bytes it does not hold."""
    from .handles import index_owner

    blob = state["blob"]
    pos = 0
    missing: list[str] = []
    types = {t.value: t for t in BlockType}
    statuses = {s.value: s for s in BlockStatus}
    new = object.__new__  # records built field by field: 100k of them at a reopen
    sha256 = hashlib.sha256  # every inline copy checked: an accelerator, no authority
    blocks, by_sha = ws.blocks, ws.state.by_sha
    for (bid, btype, tokens, turn, parent, level, status, sha, length, message,
         rfrom, cb, replacement, reason, size) in state["blocks"]:
        h = new(Handle)
        h.__dict__.update(path=f"{sha[:2]}/{sha}", length=length, sha256=sha)
        data = b""
        if size >= 0:
            data = blob[pos:pos + size].tobytes()
            pos += size
            if size != length or sha256(data).hexdigest() != sha:
                raise ValueError(f"the checkpoint's copy of {bid} fails its sha256")
        elif status != "deleted":
            missing.append(bid)
        b = new(Block)
        b.__dict__.update(id=bid, type=types[btype], data=data, tokens=tokens, turn=turn,
                          parent=parent, level=level, status=statuses[status],
                          handle=h, message=message, recovered_from=rfrom,
                          call_block=cb, replacement=replacement, reason=reason)
        blocks[bid] = b
        owners = by_sha.get(sha)
        if owners is None:
            by_sha[sha] = [bid]
        else:
            owners.append(bid)
    for (gid, members, sha, length, replacement, turn, level, parent, status,
         tokens, first) in state["groups"]:
        ws.groups[gid] = Group(id=gid, members=members,
                               handle=Handle(f"{sha[:2]}/{sha}", length, sha),
                               replacement=replacement, turn=turn, level=level,
                               parent=parent, status=GroupStatus(status), tokens=tokens,
                               first=first)
        index_owner(ws, gid, sha)
    ws.versions.update(dict.fromkeys(blocks, 0))
    ws.versions.update(dict.fromkeys(ws.groups, 0))
    ws.group_of.update(state["group_of"])
    ws.turn = state["turn"]
    ws.state.next_block, ws.state.next_group = state["next"]
    ws.state.call_owner.update(state["call_owner"])
    ws.results.update(state["results"])
    ws.state.refs.update(state["refs"])
    if "pack_ends" in state:
        ws.store.packs.adopt(state["pack_ends"], state["pack_index"])
    for ident in state["top"]:
        ws.top.add(int(ident[1:]) if ident[0] == "B" else ws.groups[ident].first, ident)
    return missing
