"""Applying journal operations to a workspace's state (event sourcing).

One function per journal operation, each over a :class:`~sim.workspace.state.
WorkspaceState`, chosen by :data:`APPLY` from the entry's ``"op"``. Live operations
and :meth:`Workspace.open`'s replay run the same functions, so a reopened workspace
is the one that crashed. Every operation was validated before it was journaled;
nothing here raises on a valid journal. The journal's format (the entries read
here) is fixed: ``tests/workspace/test_journal_compat.py`` replays one written
before these functions existed.

The functions change only the state record; the one effect outside it, removing
the payload files a delete leaves unreferenced, is :func:`apply_op`'s (and never
during replay: a later line may reference the payload again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .blocks import Block, BlockStatus, BlockType, Group, GroupStatus, Handle
from .state import WorkspaceState
from .toplevel import position

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

_LIVE = (BlockStatus.VISIBLE, BlockStatus.PINNED, BlockStatus.ARCHIVED,
         BlockStatus.OFFLOADED)
_OUT = (BlockStatus.ARCHIVED, BlockStatus.OFFLOADED)

def _touch(st: WorkspaceState, ident: str) -> None:
    """Bump ``ident``'s version (its rendering may change), and its call's: a
    result's state shows in its call's rendering."""
    versions = st.versions
    versions[ident] = versions.get(ident, 0) + 1
    b = st.blocks.get(ident)
    if b is not None and b.call_block:
        versions[b.call_block] = versions.get(b.call_block, 0) + 1


def _ref(st: WorkspaceState, sha: str, delta: int) -> None:
    """Count one more (``delta`` 1) or one fewer (-1) live owner of payload ``sha``."""
    n = st.refs.get(sha, 0) + delta
    if n > 0:
        st.refs[sha] = n
    else:
        st.refs.pop(sha, None)


def _index(st: WorkspaceState, ident: str, sha: str) -> None:
    """Record that ``ident`` has payload ``sha`` (the recover-by-handle index)."""
    owners = st.by_sha.get(sha)
    if owners is None:
        st.by_sha[sha] = [ident]
    else:
        owners.append(ident)


def _relevel(st: WorkspaceState, ident: str) -> None:
    """Recompute levels and parents below ``ident`` (a block's level = archive layers
    above it). Iterative: hierarchies may nest hundreds deep."""
    group_of, blocks, groups = st.group_of, st.blocks, st.groups
    base, cur = 0, ident
    while cur in group_of:
        cur = group_of[cur]
        base += 1
    stack = [(ident, base)]
    while stack:
        cur, depth = stack.pop()
        if cur[0] == "B":
            b = blocks[cur]
            b.level = max(depth, 1) if b.status in _OUT else 0
            b.parent = group_of.get(cur, b.call_block)
        else:
            g = groups[cur]
            g.parent = group_of.get(cur)
            stack.extend((m, depth + 1) for m in g.members)
        _touch(st, cur)
    if ident[0] == "G":
        g = groups[ident]
        g.level = 1 + max((groups[m].level for m in g.members if m[0] == "G"),
                          default=0)


def apply_init(st: WorkspaceState, op: dict[str, Any], data: bytes | None) -> None:
    """``init`` (the journal's head: version, tokenizer, budget) changes nothing."""


# member by value (the enum call costs more than the rest of a registration's
# lookups): an op's values are checked when its journal line is read
# (journal.check_entry), and a live op carries a member's value
_STATUS_OF = {m.value: m for m in BlockStatus}
_TYPE_OF = {m.value: m for m in BlockType}


def apply_register(st: WorkspaceState, op: dict[str, Any], data: bytes | None) -> None:
    """``register``: block ``op["id"]`` enters with ``data`` as its bytes, answering
    its call (if a tool result) and top-level at its number."""
    bid = op["id"]
    status = _STATUS_OF[op["status"]]
    handle = Handle.from_json(op["handle"])
    call_block = op.get("call_block")
    btype = _TYPE_OF[op["type"]]
    b = Block(id=bid, type=btype, data=data or b"",
              tokens=int(op["tokens"]), turn=int(op["turn"]), parent=call_block,
              status=status, handle=handle, message=dict(op["message"]),
              recovered_from=op.get("recovered_from"), call_block=call_block,
              level=1 if status is BlockStatus.OFFLOADED else 0)
    st.blocks[bid] = b
    st.versions[bid] = 0
    number = int(bid[1:])
    st.next_block = max(st.next_block, number + 1)
    st.turn = max(st.turn, b.turn)
    message = b.message
    if "tool_calls" in message:
        for call in message["tool_calls"]:
            st.call_owner[call["id"]] = bid
        st.results[bid] = {}
    if call_block:
        st.results[call_block][message["tool_call_id"]] = bid
        _touch(st, call_block)
    _ref(st, handle.sha256, 1)
    _index(st, bid, handle.sha256)
    st.top.add(number, bid)


def apply_turn(st: WorkspaceState, op: dict[str, Any], data: bytes | None) -> None:
    """``turn``: the root turn moves to ``op["turn"]`` (never back)."""
    st.turn = max(st.turn, int(op["turn"]))


def apply_archive(st: WorkspaceState, op: dict[str, Any], data: bytes | None) -> None:
    """``archive``: one block (``group`` None) becomes a placeholder; several items
    become group ``op["group"]`` at its first block's place, one level above them.
    An offloaded member keeps its status (membership is ``group_of``), so expand
    gives it back as the placeholder it was, never visible."""
    items = op["items"]
    gid = op["group"]
    blocks, groups = st.blocks, st.groups
    if gid is None:
        b = blocks[items[0]]
        b.status = BlockStatus.ARCHIVED
        b.replacement = op["replacement"]
        _relevel(st, b.id)
        return
    handle = Handle.from_json(op["handle"])
    members = [blocks[m] if m[0] == "B" else groups[m] for m in items]
    g = Group(id=gid, members=list(items), handle=handle, replacement=op["replacement"],
              turn=max(m.turn for m in members),
              first=min(m.number if isinstance(m, Block) else m.first for m in members),
              tokens=sum(m.tokens for m in members))
    groups[gid] = g
    st.next_group = max(st.next_group, int(gid[1:]) + 1)
    for m in members:
        st.group_of[m.id] = gid
        if isinstance(m, Block) and m.status is BlockStatus.VISIBLE:
            m.status = BlockStatus.ARCHIVED
            m.replacement = ""
    for m in items:
        st.top.remove(position(st, m))
    st.top.add(g.first, gid)
    _relevel(st, gid)
    _ref(st, handle.sha256, 1)
    _index(st, gid, handle.sha256)


def apply_delete(st: WorkspaceState, op: dict[str, Any], data: bytes | None
                 ) -> set[str]:
    """``delete``: blocks ``op["blocks"]`` and groups ``op["groups"]`` are deleted
    (bytes dropped, ``reason`` kept); returns the payloads no live item references
    any more."""
    blocks, groups = st.blocks, st.groups
    for bid in op["blocks"]:
        b = blocks[bid]
        if b.status in _LIVE:
            _ref(st, b.handle.sha256, -1)
        if bid not in st.group_of:
            st.top.remove(b.number)
        b.status = BlockStatus.DELETED
        b.reason = op["reason"]
        b.data = b""
        _touch(st, bid)
    for gid in op["groups"]:
        g = groups[gid]
        if g.status is not GroupStatus.DELETED:
            _ref(st, g.handle.sha256, -1)
        if g.status is GroupStatus.ARCHIVED and not g.parent:
            st.top.remove(g.first)
        g.status = GroupStatus.DELETED
        _touch(st, gid)
    shas = {blocks[b].handle.sha256 for b in op["blocks"]}
    shas.update(groups[g].handle.sha256 for g in op["groups"])
    return {sha for sha in shas if sha not in st.refs}


def apply_expand(st: WorkspaceState, op: dict[str, Any], data: bytes | None) -> None:
    """``expand``: top-level group ``op["group"]`` dissolves; its members are
    top-level again, each at its own place and level."""
    g = st.groups[op["group"]]
    g.status = GroupStatus.EXPANDED
    st.top.remove(g.first)
    for m in g.members:
        st.group_of.pop(m, None)
        _relevel(st, m)
        st.top.add(position(st, m), m)
    _touch(st, g.id)


def apply_ids(st: WorkspaceState, op: dict[str, Any], data: bytes | None) -> None:
    """``ids``: the next block id moves up to ``op["next"]`` (never back): repair
    skips ids that lost journal lines may have issued (:mod:`sim.workspace.reserve`)."""
    st.next_block = max(st.next_block, int(op["next"]))


def apply_pin(st: WorkspaceState, op: dict[str, Any], data: bytes | None) -> None:
    """``pin``: visible blocks ``op["ids"]`` become pinned."""
    _set_status(st, op["ids"], BlockStatus.PINNED)


def apply_unpin(st: WorkspaceState, op: dict[str, Any], data: bytes | None) -> None:
    """``unpin``: pinned blocks ``op["ids"]`` become visible."""
    _set_status(st, op["ids"], BlockStatus.VISIBLE)


def _set_status(st: WorkspaceState, ids: list[str], status: BlockStatus) -> None:
    for bid in ids:
        st.blocks[bid].status = status
        _touch(st, bid)


#: journal operation name -> the function applying it
APPLY: dict[str, Callable[[WorkspaceState, dict[str, Any], bytes | None],
                          "set[str] | None"]] = {
    "init": apply_init, "register": apply_register, "turn": apply_turn,
    "archive": apply_archive, "delete": apply_delete, "expand": apply_expand,
    "pin": apply_pin, "unpin": apply_unpin, "ids": apply_ids,
}


def apply_op(ws: "Workspace", op: dict[str, Any], data: bytes | None = None,
             replay: bool = False) -> None:
    """Apply one validated operation to ``ws.state`` (:data:`APPLY`); live, remove
    the payload files it left unreferenced. Raises :class:`ValueError` for an
    operation name not in :data:`APPLY`."""
    if op["op"] == "restore":  # repair's rebuild of lost lines from a checkpoint
        from .checkpoint import restore

        restore(ws, dict(op["state"], blob=memoryview(b"")))
        return
    try:
        apply = APPLY[op["op"]]
    except KeyError:
        raise ValueError(f"unknown journal operation {op['op']!r}; expected one of "
                         f"{', '.join(APPLY)}") from None
    freed = apply(ws.state, op, data)
    if freed and not replay:
        from .errors import WorkspaceIOError

        failed = None
        for sha in sorted(freed):  # try every one: a file left is quarantined later
            try:
                ws.store.remove(Handle(f"{sha[:2]}/{sha}", 0, sha))
            except WorkspaceIOError as exc:
                failed = failed or exc
        if failed is not None:
            raise WorkspaceIOError(
                f"the {op['op']} took effect (journaled and applied), but freeing its "
                f"payload failed: {failed}; the next writer open moves the file to "
                "quarantine", failed.errno, applied=True, call=failed.call)


def unapply_register(ws: "Workspace", bid: str, saved: tuple[int, int]) -> None:
    """Undo a register op that was applied only to measure a request (the
    workspace's what-if budget check); ``saved`` = (next block number, turn)."""
    st = ws.state
    b = st.blocks.pop(bid)
    st.versions.pop(bid, None)
    ws.assembler.forget(bid)
    if b.call_block:
        st.results[b.call_block].pop(b.message["tool_call_id"], None)
        st.versions[b.call_block] += 1
    for call in b.message.get("tool_calls", []):
        if st.call_owner.get(call["id"]) == bid:
            del st.call_owner[call["id"]]
    st.results.pop(bid, None)
    st.top.remove(b.number)
    owners = st.by_sha[b.handle.sha256]
    owners.pop()  # the tried block was the last owner indexed
    if not owners:
        del st.by_sha[b.handle.sha256]
    _ref(st, b.handle.sha256, -1)
    st.next_block, st.turn = saved
