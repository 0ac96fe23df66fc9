"""Applying journal operations to a workspace's memory (event sourcing).

Live operations and :meth:`Workspace.open`'s replay run the same code, so a reopened
workspace is the one that crashed. Every operation here was validated before it was
journaled; nothing in this module raises on a valid journal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .blocks import Block, BlockStatus, BlockType, Group, Handle
from .handles import index_owner
from .toplevel import position

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

_LIVE = (BlockStatus.VISIBLE, BlockStatus.PINNED, BlockStatus.ARCHIVED,
         BlockStatus.OFFLOADED)


def _touch(ws: "Workspace", ident: str) -> None:
    ws.versions[ident] = ws.versions.get(ident, 0) + 1
    b = ws.blocks.get(ident)
    if b is not None and b.call_block:  # a result's state shows in its call's render
        ws.versions[b.call_block] = ws.versions.get(b.call_block, 0) + 1


def _ref(ws: "Workspace", sha: str, delta: int) -> None:
    n = ws._refs.get(sha, 0) + delta
    if n > 0:
        ws._refs[sha] = n
    else:
        ws._refs.pop(sha, None)


def _relevel(ws: "Workspace", ident: str) -> None:
    """Recompute levels and parents below ``ident`` (a block's level = archive layers
    above it). Iterative: hierarchies may nest hundreds deep."""
    base, cur = 0, ident
    while cur in ws.group_of:
        cur = ws.group_of[cur]
        base += 1
    stack = [(ident, base)]
    while stack:
        cur, depth = stack.pop()
        if cur[0] == "B":
            b = ws.blocks[cur]
            b.level = max(depth, 1) if b.status in (BlockStatus.ARCHIVED,
                                                    BlockStatus.OFFLOADED) else 0
            b.parent = ws.group_of.get(cur, b.call_block)
            _touch(ws, cur)
        else:
            g = ws.groups[cur]
            g.parent = ws.group_of.get(cur)
            _touch(ws, cur)
            stack.extend((m, depth + 1) for m in g.members)
    if ident[0] == "G":
        g = ws.groups[ident]
        g.level = 1 + max((ws.groups[m].level for m in g.members if m[0] == "G"),
                          default=0)


def apply_op(ws: "Workspace", op: dict[str, Any], data: bytes | None = None,
             replay: bool = False) -> None:
    """Apply one validated operation to ``ws`` in memory."""
    kind = op["op"]
    if kind == "init":
        return
    if kind == "register":
        bid = op["id"]
        status = BlockStatus(op["status"])
        handle = Handle.from_json(op["handle"])
        b = Block(id=bid, type=BlockType(op["type"]), data=data or b"",
                  tokens=int(op["tokens"]), turn=int(op["turn"]),
                  parent=op.get("call_block"), status=status, handle=handle,
                  message=dict(op["message"]), recovered_from=op.get("recovered_from"),
                  call_block=op.get("call_block"),
                  level=1 if status is BlockStatus.OFFLOADED else 0)
        ws.blocks[bid] = b
        ws.versions[bid] = 0
        ws._next_block = max(ws._next_block, int(bid[1:]) + 1)
        ws.turn = max(ws.turn, b.turn)
        for call in b.message.get("tool_calls", []):
            ws._call_owner[call["id"]] = bid
        if "tool_calls" in b.message:
            ws.results[bid] = {}
        if b.call_block:
            ws.results[b.call_block][b.message["tool_call_id"]] = bid
            _touch(ws, b.call_block)
        _ref(ws, handle.sha256, 1)
        index_owner(ws, bid, handle.sha256)
        ws.top.add(b.number, bid)
        return
    if kind == "turn":
        ws.turn = max(ws.turn, int(op["turn"]))
        return
    if kind == "archive":
        items = op["items"]
        gid = op["group"]
        if gid is None:
            b = ws.blocks[items[0]]
            b.status = BlockStatus.ARCHIVED
            b.replacement = op["replacement"]
            _relevel(ws, b.id)
            return
        handle = Handle.from_json(op["handle"])
        g = Group(id=gid, members=list(items), handle=handle,
                  replacement=op["replacement"], turn=0)
        ws.groups[gid] = g
        ws._next_group = max(ws._next_group, int(gid[1:]) + 1)
        for m in items:
            ws.group_of[m] = gid
            # an offloaded member keeps its status: membership is group_of, and
            # expand must give it back as the placeholder it was (never visible)
            if m[0] == "B" and ws.blocks[m].status is BlockStatus.VISIBLE:
                ws.blocks[m].status = BlockStatus.ARCHIVED
                ws.blocks[m].replacement = ""
        g.turn = max(ws.blocks[m].turn if m[0] == "B" else ws.groups[m].turn
                     for m in items)
        g.first = min(int(m[1:]) if m[0] == "B" else ws.groups[m].first for m in items)
        g.tokens = sum(ws.blocks[m].tokens if m[0] == "B" else ws.groups[m].tokens
                       for m in items)
        for m in items:
            ws.top.remove(position(ws, m))
        ws.top.add(g.first, gid)
        _relevel(ws, gid)
        _ref(ws, handle.sha256, 1)
        index_owner(ws, gid, handle.sha256)
        return
    if kind == "delete":
        for bid in op["blocks"]:
            b = ws.blocks[bid]
            if b.status in _LIVE:
                _ref(ws, b.handle.sha256, -1)
            if bid not in ws.group_of:
                ws.top.remove(b.number)
            b.status = BlockStatus.DELETED
            b.reason = op["reason"]
            b.data = b""
            _touch(ws, bid)
        for gid in op["groups"]:
            g = ws.groups[gid]
            if g.status != "deleted":
                _ref(ws, g.handle.sha256, -1)
            if g.status == "archived" and not g.parent:
                ws.top.remove(g.first)
            g.status = "deleted"
            _touch(ws, gid)
        if not replay:  # replay leaves removal to open()'s sweep: a later op may reuse
            shas = {ws.blocks[b].handle.sha256 for b in op["blocks"]}
            shas |= {ws.groups[g].handle.sha256 for g in op["groups"]}
            for sha in shas:
                if sha not in ws._refs:
                    ws.store.remove(Handle(f"{sha[:2]}/{sha}", 0, sha))
        return
    if kind == "expand":
        g = ws.groups[op["group"]]
        g.status = "expanded"
        ws.top.remove(g.first)
        for m in g.members:
            ws.group_of.pop(m, None)
            _relevel(ws, m)
            ws.top.add(position(ws, m), m)
        _touch(ws, g.id)
        return
    if kind in ("pin", "unpin"):
        status = BlockStatus.PINNED if kind == "pin" else BlockStatus.VISIBLE
        for bid in op["ids"]:
            ws.blocks[bid].status = status
            _touch(ws, bid)
        return
    raise ValueError(f"unknown journal operation {kind!r}")


def unapply_register(ws: "Workspace", bid: str, saved: tuple) -> None:
    """Undo a register op that was applied only to measure a request (the
    workspace's what-if budget check); ``saved`` = (next block number, turn)."""
    b = ws.blocks.pop(bid)
    ws.versions.pop(bid, None)
    ws.assembler.forget(bid)
    if b.call_block:
        ws.results[b.call_block].pop(b.message["tool_call_id"], None)
        ws.versions[b.call_block] += 1
    for call in b.message.get("tool_calls", []):
        if ws._call_owner.get(call["id"]) == bid:
            del ws._call_owner[call["id"]]
    ws.results.pop(bid, None)
    ws.top.remove(b.number)
    owners = ws._by_sha[b.handle.sha256]
    owners.pop()  # the tried block was the last owner indexed
    if not owners:
        del ws._by_sha[b.handle.sha256]
    _ref(ws, b.handle.sha256, -1)
    ws._next_block, ws.turn = saved
