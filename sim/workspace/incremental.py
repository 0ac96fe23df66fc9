"""Incremental request assembly for scratch workspaces: re-render only the top-level
items an operation changed, not every item of the stream.

The workspace bumps ``versions[id]`` of every block or group an operation touches
(and of a result's call block: :func:`sim.workspace.ops._touch`); the plain
:class:`~sim.workspace.assembly.Assembler` compares every item's version on every
request. Here :class:`DirtyVersions` records which ids were touched since the last
request, so :class:`IncrementalAssembler` keeps each top-level item's rendering
(its messages, their exact token count and its dashboard row) and re-renders only
those ids, plus the results of a touched call (a result renders as plain context
once its call leaves the stream). Everything else of a request (order, totals,
dashboard) is gathered from the kept renderings, so every count stays exact: the
same :meth:`Assembler._render_block` / :meth:`Assembler._render_group` produce
each item, and ``tests/workspace/test_incremental.py`` checks the request equals a
fresh assembly after random operation sequences.

Used by :class:`sim.workspace.memory.ScratchWorkspace` only (the durable path keeps
the plain assembler). A workspace with corrupt items, and ``incremental=False``,
fall back to the plain assembly.
"""

from __future__ import annotations

from itertools import chain, compress, repeat
from operator import is_not, itemgetter
from typing import Any

from .blocks import IN_STREAM, BlockStatus
from .assembly import _STATUS, _TYPE, Request
from .dashboard import BudgetFacts, Row
from .memory import FrameCachingAssembler


class DirtyVersions(dict):
    """``ws.versions`` that also logs every id set or removed, in order
    (``log``); each reader keeps its own place in the log (:meth:`since`)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.log: list[str] = list(self)

    def __setitem__(self, key: str, value: int) -> None:
        self.log.append(key)
        dict.__setitem__(self, key, value)

    def pop(self, key: str, *default: Any) -> Any:
        self.log.append(key)
        return dict.pop(self, key, *default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        other = dict(*args, **kwargs)
        self.log.extend(other)
        dict.update(self, other)

    def since(self, cursor: int) -> tuple[set[str], int]:
        """The ids touched after position ``cursor`` of the log, and the new position."""
        log = self.log
        return set(log[cursor:]), len(log)


class NativeMemo:
    """Native messages by everything they are made from, shared by the scratch
    workspaces of a process: the programs of a sweep replay the same task, so they
    register the same calls and results (:func:`~sim.workspace.assembly.native_message`
    is a pure function; a message is never mutated once made). Emptied when the
    bytes it keeps pass ``limit``."""

    def __init__(self, limit: int = 64 << 20) -> None:
        self.limit = limit
        self.size = 0
        self.messages: dict[tuple, dict[str, Any]] = {}

    def get(self, key: tuple) -> dict[str, Any] | None:
        return self.messages.get(key)

    def put(self, key: tuple, message: dict[str, Any], size: int) -> None:
        if self.size + size > self.limit:
            self.messages.clear()
            self.size = 0
        self.messages[key] = message
        self.size += size


NATIVE_MEMO = NativeMemo()

# the fields of a kept rendering (messages, tokens, row, id), read by map() so that
# gathering a request walks the items in C, not in a Python loop per item
_MESSAGES, _TOKENS, _ROW = itemgetter(0), itemgetter(1), itemgetter(2)


class Gathered:
    """The kept renderings of the top-level items in stream order, as one request
    gathers them, kept between requests while the stream only grows at its end
    (registrations) and items change in place (an archived or offloaded block keeps
    its place): then a request updates the items it re-rendered and appends the new
    ones, O(changes), instead of walking every item. Any other change to the order
    (a group replacing its members, a removal) bumps
    :attr:`~sim.workspace.toplevel.TopLevel.generation` and the next request gathers
    afresh."""

    def __init__(self, items: dict[str, tuple], top) -> None:
        self.top, self.generation = top, top.generation
        order = list(top)
        self.pos = {ident: i for i, ident in enumerate(order)}
        self.kept = list(map(items.__getitem__, order))
        self.rows = list(map(_ROW, self.kept))
        self._item_tokens()
        self._messages()

    def _item_tokens(self) -> None:
        # a result answered inside its call has no count of its own (None): left out
        kept = self.kept
        tokens = list(map(_TOKENS, kept))
        counted = list(map(is_not, tokens, repeat(None)))
        self.item_tokens = dict(zip(compress(map(itemgetter(3), kept), counted),
                                    compress(tokens, counted)))

    def _messages(self) -> None:
        self.messages = list(chain.from_iterable(map(_MESSAGES, self.kept)))

    def update(self, items: dict[str, tuple], changed: set[str], new: list[str]) -> None:
        """Take the re-rendered ``changed`` ids (those already gathered) and append
        the ``new`` ids at the end."""
        pos, kept, rows, item_tokens = self.pos, self.kept, self.rows, self.item_tokens
        counts_moved = messages_moved = False
        for ident in changed:
            i = pos.get(ident)
            if i is None:
                continue  # new: appended below
            old, e = kept[i], items[ident]
            kept[i], rows[i] = e, e[2]
            if (e[1] is None) is not (old[1] is None):
                counts_moved = True  # counted now, or no more: a key in mid-order
            elif e[1] is not None:
                item_tokens[ident] = e[1]
            messages_moved |= old[0] is not e[0]
        messages = self.messages
        for ident in new:
            e = items[ident]
            pos[ident] = len(kept)
            kept.append(e)
            rows.append(e[2])
            if e[1] is not None:
                item_tokens[ident] = e[1]
            if not messages_moved:
                messages += e[0]
        if counts_moved:
            self._item_tokens()
        if messages_moved:
            self._messages()


class IncrementalAssembler(FrameCachingAssembler):
    """The assembler with per-item renderings kept between requests and refreshed
    only for ids the workspace touched (see the module doc)."""

    def __init__(self, ws, dashboard: str):
        super().__init__(ws, dashboard)
        #: id -> (messages, tokens or None when answered inside its call, row, id)
        self._items: dict[str, tuple[list[dict], int | None, Row, str]] = {}
        #: ids of kept items that render to no message (an empty assistant message)
        self._empty: set[str] = set()
        #: block id -> (bytes, type, recovered_from, message fields, native message):
        #: made once when the block's tokens are counted at registration
        self._natives: dict[str, tuple] = {}
        self._cursor = 0  # how much of ws.versions.log is rendered
        #: what-ifs of registrations since the last commit: (op, journal lines,
        #: request, bounded-ledger rows shown, remainder)
        self._tries: list[tuple] = []
        self._measured: tuple = ()
        self._gathered: Gathered | None = None

    def _new_native(self, btype, data: bytes, meta: dict[str, Any],
                    recovered_from: str | None, bid: str) -> dict[str, Any]:
        # everything native_message reads: a tool call's calls are in its bytes
        # (the canonical message), the id only in a recovered block's header line
        key = (btype, data, recovered_from, bid if recovered_from else None,
               meta.get("role"), meta.get("name"), meta.get("tool_call_id"),
               "tool_calls" in meta)
        msg = NATIVE_MEMO.get(key)
        if msg is None:
            msg = super()._new_native(btype, data, meta, recovered_from, bid)
            NATIVE_MEMO.put(key, msg, len(data))
        self._natives[bid] = (data, btype, recovered_from, meta, msg)
        return msg

    def _native(self, b) -> dict[str, Any]:
        hit = self._natives.get(b.id)
        # the same bytes object and fields: the message made at registration (a
        # refused what-if may leave a different block's entry under this id)
        if hit is not None and hit[0] is b.data and hit[1] is b.type \
                and hit[2] == b.recovered_from and hit[3] == b.message:
            return hit[4]
        return super()._native(b)

    def _refresh(self) -> set[str]:
        """Render the ids touched since the last request again; returns them (with
        the results of touched calls)."""
        ws = self.ws
        dirty, self._cursor = ws.versions.since(self._cursor)
        if not dirty:
            return dirty
        items, blocks, results, empty = self._items, ws.blocks, ws.results, self._empty
        todo = set(dirty)
        for ident in dirty:  # a result's rendering depends on its call's state
            answers = results.get(ident)
            if answers:
                todo.update(answers.values())
        for ident in todo:
            empty.discard(ident)
            if ident[0] == "G":
                g = ws.groups.get(ident)
                if g is None or g.status != "archived" or g.parent:
                    items.pop(ident, None)
                    continue
                msgs, n = self._render_group(g)
                items[ident] = (msgs, n, Row(ident, g.tokens, g.turn, "group", g.level,
                                             "-", "archived"), ident)
                continue
            b = blocks.get(ident)
            # top-level: neither deleted nor inside a group (sim.workspace.toplevel)
            if b is None or ident in ws.group_of or b.status is BlockStatus.DELETED:
                items.pop(ident, None)
                continue
            row = Row(ident, b.tokens, b.turn, _TYPE[b.type], b.level, b.parent or "-",
                      _STATUS[b.status])
            cb = b.call_block
            if cb is not None and b.recovered_from is None \
                    and blocks[cb].status in IN_STREAM:
                items[ident] = ((), None, row, ident)  # answered right after its call
                continue
            msgs, n = self._render_block(b, False)
            items[ident] = (msgs, n, row, ident)
            if not msgs:
                empty.add(ident)
        return todo

    def measure(self) -> int:
        """Total tokens of the request that would be assembled now; the request is
        kept for :meth:`tried` (a what-if of a registration). Never a kept what-if:
        the state measured holds an operation applied but not journaled, which
        :meth:`_committed_try`'s count of journal lines cannot see (it would take the
        previous registration's request for this one)."""
        req = self._assemble(True, kept=False)
        dash = self.dashboard
        self._measured = (req, getattr(dash, "shown", None), getattr(dash, "remainder", None))
        return req.total

    def tried(self, op: dict[str, Any]) -> None:
        """The last :meth:`measure` was of the state with register ``op`` applied (then
        undone): if ``op`` itself is committed next, that is the next request."""
        if self._tries and self._tries[0][1] != self.ws.journal_lines:
            self._tries.clear()
        self._tries.append((op, self.ws.journal_lines, *self._measured))

    def _committed_try(self) -> Request | None:
        """The request measured for the operation just committed, if it is the only
        change since (the same op object, one journal line later)."""
        tries, self._tries = self._tries, []
        ws = self.ws
        if not tries or tries[0][1] + 1 != ws.journal_lines:
            return None
        last = ws.journal.entries[-1]
        for op, _, req, shown, remainder in tries:
            if op is last:
                if hasattr(self.dashboard, "shown"):  # the rows that request showed
                    self.dashboard.shown, self.dashboard.remainder = shown, remainder
                if op is tries[-1][0]:
                    # the kept renderings are of this very state (its measure was the
                    # last refresh): undoing and committing the op touched ids whose
                    # renderings are unchanged, so they need not be rendered again
                    self._cursor = len(ws.versions.log)
                return req
        return None

    def assemble(self, incremental: bool = True) -> Request:
        """The request of the current state, equal to the plain assembly's."""
        return self._assemble(incremental, kept=True)

    def _assemble(self, incremental: bool, kept: bool) -> Request:
        """:meth:`assemble`; ``kept``: a what-if measured for the operation just
        committed may be returned as is."""
        ws = self.ws
        if kept and self._tries and incremental and not ws.corrupt:
            req = self._committed_try()
            if req is not None:
                return req
        if not incremental or ws.corrupt:
            self._items.clear()
            self._empty.clear()
            self._gathered = None
            # a kept what-if would move the cursor past renderings dropped here
            self._tries.clear()
            self._cursor = 0  # the log names every id: the next request renders all
            return super().assemble(incremental)
        changed = self._refresh()
        items, top, g = self._items, ws.top, self._gathered
        new = top.appended(g.generation, len(g.kept)) \
            if g is not None and g.top is top else None
        if new is None:
            g = self._gathered = Gathered(items, top)
        else:
            g.update(items, changed, new)
        item_tokens = dict(g.item_tokens)
        conversation = sum(item_tokens.values())
        # an item with no message is rare: skip the pass over every item when none is
        dropped = tuple(e[3] for e in g.kept if e[1] is not None and not e[0]) \
            if self._empty else ()
        system, tools = self._frame()
        messages = [system, *g.messages]
        overhead = self.overhead()
        facts = BudgetFacts(ws.budget, overhead, conversation, ws.turn)
        dash = self.dashboard.render(list(g.rows), facts, ws.tokenizer)
        if dash.text:
            messages.append({"role": "user", "content": dash.text})
        return Request(messages, tools, overhead, conversation, dash.tokens, ws.budget,
                       dash.text, item_tokens, dropped)

    def forget(self, ident: str) -> None:
        """Nothing to drop: a tried item's removal is a touched id."""
