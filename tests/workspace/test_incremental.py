"""The scratch workspace's incremental assembly (sim.workspace.incremental) against a
full re-render: after random sequences of every operation (register, tool calls and
results under a budget that offloads, archive, nested archive, delete, recover,
pin, unpin, expand, new turns, refused operations), the kept renderings give the
request a fresh plain assembly gives, message for message and token for token; the
registration bound (sim.workspace.accounting) never undercounts it, across turns
too; and the program's memoised view (entries rebuilt only for the ids an operation,
a hiding or a call text changed: issue 35) equals the view built afresh."""

from __future__ import annotations

import types
import warnings

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from sim.program_context import ProgramContext
from sim.workspace.assembly import Assembler
from sim.workspace.errors import BudgetExceededError, WorkspaceError
from sim.workspace.memory import scratch_workspace

TEXT = st.one_of(st.text(max_size=40),
                 st.sampled_from(["", "word " * 120, "word " * 400, "é✓\ud800"]))
DASHBOARDS = ["ledger", "status_board", "none", "bounded_ledger:300"]


def _fields(req):
    # item_tokens as pairs: their order is the stream's (the cost ledger's cached
    # prefix reads it), which dict equality would not compare
    return (req.messages, req.tools, req.overhead, req.conversation, req.dashboard,
            req.total, req.dashboard_text, list(req.item_tokens.items()), req.dropped)


@settings(max_examples=20, stateful_step_count=30, deadline=None,
          suppress_health_check=list(HealthCheck))
class IncrementalMachine(RuleBasedStateMachine):
    """Random operations on a scratch workspace; the invariant compares requests."""

    @initialize(dashboard=st.sampled_from(DASHBOARDS),
                budget=st.sampled_from([None, 700, 1500]),
                tokenizer=st.sampled_from(["cl100k_base", "char"]))
    def start(self, dashboard, budget, tokenizer):
        # char: an age's count grows with its digits (10r > 9r), so a turn can grow
        # every dashboard that shows ages, which the bound must cover
        # (its fixed overhead is about 2,300 characters: budgets scaled to match)
        if budget is not None and tokenizer == "char":
            budget *= 4
        self.ws = scratch_workspace(budget=budget, dashboard=dashboard, strict=False,
                                    tokenizer=tokenizer)
        self.dashboard = dashboard
        self.open_calls: list[str] = []
        self.n = 0
        self.ws.register({"role": "user", "content": "the task"}, pinned=True)
        # a program showing handles, with the dashboard: every field of an entry
        program = types.SimpleNamespace(show_handles=True, dashboard=dashboard,
                                        agent_tools=frozenset({"recover"}))
        self.ctx = ProgramContext(self.ws, program, None, budget, None, None, memo=True)
        self.plain_ctx = ProgramContext(self.ws, program, None, budget, None, None)

    def _ids(self):
        return list(self.ws.blocks) + list(self.ws.groups)

    def _try(self, fn, *args):
        try:
            fn(*args)
        except WorkspaceError:
            pass  # a refused operation changes nothing; the invariant checks that too

    @rule(text=TEXT, role=st.sampled_from(["user", "assistant"]))
    def message(self, text, role):
        self._try(self.ws.register, {"role": role, "content": text})

    @rule(k=st.integers(1, 2), text=TEXT)
    def call(self, k, text):
        ids = []
        for _ in range(k):
            self.n += 1
            ids.append(f"c{self.n}")
        self.ws.register({"role": "assistant", "content": text, "tool_calls": [
            {"id": c, "type": "function", "function": {"name": "read", "arguments": "{}"}}
            for c in ids]})
        self.open_calls += ids

    @rule(text=TEXT, pick=st.integers(0, 5))
    def result(self, text, pick):
        if self.open_calls:
            cid = self.open_calls.pop(pick % len(self.open_calls))
            self.ws.register({"role": "tool", "tool_call_id": cid, "content": text})

    @rule(pick=st.lists(st.integers(0, 60), min_size=1, max_size=3), text=TEXT)
    def archive(self, pick, text):
        ids = self._ids()
        if ids:
            spec = ",".join(sorted({ids[p % len(ids)] for p in pick}))
            self._try(self.ws.archive, spec, text)

    @rule(pick=st.integers(0, 60))
    def delete(self, pick):
        ids = self._ids()
        self._try(self.ws.delete, ids[pick % len(ids)], "gone")

    @rule(pick=st.integers(0, 60))
    def recover(self, pick):
        ids = self._ids()
        self._try(self.ws.recover, ids[pick % len(ids)])

    @rule(pick=st.integers(0, 60), pin=st.booleans())
    def pin(self, pick, pin):
        ids = self._ids()
        self._try(self.ws.pin if pin else self.ws.unpin, ids[pick % len(ids)])

    @rule(pick=st.integers(0, 60))
    def expand(self, pick):
        ids = self._ids()
        self._try(self.ws.expand, ids[pick % len(ids)])

    @rule()
    def turn(self):
        self.ws.next_turn()

    @rule(pick=st.integers(0, 60), hide=st.booleans())
    def hide(self, pick, hide):
        """A program hides (or a later one shows) an item's handle: mostly one the
        view shows a handle of (a top-level archived or offloaded item)."""
        ids = [i for i in self.ws.top if i[0] == "G"
               or not self.ws.blocks[i].in_stream] or self._ids()
        for ctx in (self.ctx, self.plain_ctx):
            (ctx.hidden.add if hide else ctx.hidden.discard)(ids[pick % len(ids)])

    @rule(pick=st.integers(0, 60), text=st.sampled_from([None, "read(a)", "grep(b)"]))
    def call_text(self, pick, text):
        """The harness names (or forgets) the call an item came from."""
        ident = self._ids()[pick % len(self._ids())]
        for ctx in (self.ctx, self.plain_ctx):
            if text is None:
                ctx.calls.pop(ident, None)
            else:
                ctx.calls[ident] = text

    @invariant()
    def same_request_as_a_full_render(self):
        if not hasattr(self, "ws"):
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = Assembler(self.ws, self.dashboard).assemble(incremental=False)
            bound = self.ws.bound.total  # before the assembly makes it exact
            assert bound is None or bound >= plain.total
            fast = self.ws.assemble(strict=False)
        assert _fields(fast) == _fields(plain)

    @invariant()
    def same_view_as_a_fresh_one(self):
        """The memoised view (entries kept, rebuilt for changed ids) equals the view
        a context without the memo builds from every item."""
        if not hasattr(self, "ws"):
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = self.ctx.view()[0]
            want = self.plain_ctx.view()[0]
        assert got == want

    @invariant()
    def same_stream_as_a_full_walk(self):
        """The program's stream from the touched-id log equals the walk over every
        block (:meth:`ProgramContext._stream`), for each filter the programs use."""
        if not hasattr(self, "ws"):
            return
        for types, statuses, unpinned in ((None, None, False), (None, ("visible",), True),
                                          (("tool_result",), ("visible",), True)):
            got = self.ctx.stream(types, statuses, unpinned)
            want = self.ctx._stream(types, statuses, unpinned)
            assert [vars(i) for i in got] == [vars(i) for i in want]


TestIncremental = IncrementalMachine.TestCase


def test_dirty_versions_log_every_touched_id():
    """A new block, a result (and so its call), an archive and a what-if measure that
    is undone all leave their ids to re-render; nothing else is re-rendered."""
    ws = scratch_workspace(budget=None, strict=False)
    ws.assemble()
    cursor = len(ws.versions.log)
    assert ws.versions.since(cursor) == (set(), cursor)
    ws.register({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    touched, cursor = ws.versions.since(cursor)
    assert touched == {"B1"}
    ws.register({"role": "tool", "tool_call_id": "c1", "content": "r"})
    touched, cursor = ws.versions.since(cursor)
    assert touched == {"B1", "B2"}
    ws.archive("B1-B2", "x")
    touched, cursor = ws.versions.since(cursor)
    assert touched == {"B1", "B2", "G1"}


def test_a_committed_what_if_is_the_next_request():
    """A tool result near the budget is measured inline and offloaded; the request of
    the variant committed is returned as is (same object) and equals a full render,
    bounded-ledger rows shown included; after any other change it is not reused."""
    for dashboard in ("status_board", "bounded_ledger:300"):
        ws = scratch_workspace(budget=700, dashboard=dashboard, strict=False)
        ws.register({"role": "user", "content": "task"}, pinned=True)
        ws.register({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
        ws.register({"role": "tool", "tool_call_id": "c1", "content": "word " * 900})
        tries = list(ws.assembler._tries)
        assert tries, "the guard measured the result"
        committed = next(t for t in tries if t[0] is ws.journal.entries[-1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            req = ws.assemble(strict=False)
            plain_dash = Assembler(ws, dashboard)
            plain = plain_dash.assemble(incremental=False)
        assert req is committed[2]
        assert _fields(req) == _fields(plain)
        assert getattr(ws.assembler.dashboard, "shown", None) == \
            getattr(plain_dash.dashboard, "shown", None)
        # a refused recovery is measured but never committed: the next operation
        # is another one, so that measure is not the next request
        ws.strict = True
        try:
            ws.recover("B3")
        except BudgetExceededError:
            pass
        assert ws.assembler._tries
        ws.register({"role": "user", "content": "more"})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _fields(ws.assemble(strict=False)) == _fields(
                Assembler(ws, dashboard).assemble(incremental=False))


def test_native_memo_is_the_pure_message_and_bounded():
    """Two scratch workspaces registering the same messages share the message the
    first one made, equal to a fresh native_message; the memo empties past its byte
    limit."""
    from sim.workspace.assembly import native_message
    from sim.workspace.incremental import NATIVE_MEMO, NativeMemo

    msgs = [{"role": "user", "content": "hello", "name": "ann"},
            {"role": "assistant", "content": "x", "tool_calls": [
                {"id": "k1", "type": "function", "function": {"name": "f",
                                                              "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "k1", "content": "é\ud800 r"}]
    a, b = scratch_workspace(budget=None), scratch_workspace(budget=None)
    for ws in (a, b):
        for m in msgs:
            ws.register(m)
        ws.archive("B3", "")
        ws.recover("B3")
    for bid in ("B1", "B2", "B3", "B4"):
        x, y = a.blocks[bid], b.blocks[bid]
        assert a.assembler._native(x) is b.assembler._native(y)
        assert a.assembler._native(x) == native_message(x.type, x.content, x.message,
                                                        x.recovered_from, bid)
    assert NATIVE_MEMO.size <= NATIVE_MEMO.limit
    small = NativeMemo(limit=10)
    small.put(("a",), {}, 6)
    small.put(("b",), {}, 6)
    assert small.get(("a",)) is None and small.get(("b",)) == {} and small.size == 6


def _plain(ws, dashboard):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Assembler(ws, dashboard).assemble(incremental=False)


def test_gathered_items_follow_appends_and_rebuild_on_reorder():
    """The kept gathering (sim.workspace.incremental.Gathered) is updated in place
    while the stream only grows at its end or items change in place, and gathered
    afresh after a group replaces its members; each request equals a full render.
    A result answered inside its call is counted again, in mid-stream, once its call
    is archived alone (its key keeps its stream place: the cost ledger reads the
    order)."""
    ws = scratch_workspace(budget=None, dashboard="ledger", strict=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    call = ws.register({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    result = ws.register({"role": "tool", "tool_call_id": "c1", "content": "hello"})
    ws.register({"role": "user", "content": "more"})
    first = ws.assemble()
    gathered = ws.assembler._gathered
    assert result.id not in first.item_tokens  # answered inside its call
    ws.archive(call.id, "x")  # in place: the call's id keeps its place
    req = ws.assemble()
    assert ws.assembler._gathered is gathered
    assert list(req.item_tokens) == ["B1", call.id, result.id, "B4"]
    assert _fields(req) == _fields(_plain(ws, "ledger"))
    ws.register({"role": "user", "content": "again"})  # appended
    assert _fields(ws.assemble()) == _fields(_plain(ws, "ledger"))
    assert ws.assembler._gathered is gathered
    ws.archive(f"{result.id},B4", "both")  # a group: the order changes
    req = ws.assemble()
    assert ws.assembler._gathered is not gathered
    assert _fields(req) == _fields(_plain(ws, "ledger"))


def _near_budget_with_calls(calls):
    """A scratch workspace near its budget (1,600 tokens), with one open tool call
    per id in ``calls``: each result registered next is measured (a what-if)."""
    ws = scratch_workspace(budget=1600, dashboard="ledger", strict=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    ws.register({"role": "user", "content": "word " * 900})
    ws.register({"role": "assistant", "content": None, "tool_calls": [
        {"id": c, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for c in calls]})
    ws.assemble(strict=False)
    return ws


def test_back_to_back_what_ifs_each_measure_their_own_state():
    """Two results registered with no request between them: the second what-if
    measures the state with the second result, not the request kept for the first
    (the operation being measured is applied but not journaled, so the kept one
    looks committed); the guard's totals and every later request are exact."""
    ws = _near_budget_with_calls(("c1", "c2"))
    totals = []
    measure = ws.assembler.measure
    ws.assembler.measure = lambda: totals.append(measure()) or totals[-1]
    ws.register({"role": "tool", "tool_call_id": "c1", "content": "first result " * 5})
    after_first = _plain(ws, "ledger").total
    ws.register({"role": "tool", "tool_call_id": "c2", "content": "second result " * 5})
    assert totals == [after_first, _plain(ws, "ledger").total]
    assert _fields(ws.assemble(strict=False)) == _fields(_plain(ws, "ledger"))
    ws.register({"role": "user", "content": "next"})
    assert _fields(ws.assemble(strict=False)) == _fields(_plain(ws, "ledger"))


def test_a_full_assembly_drops_the_kept_what_if():
    """assemble(incremental=False) re-renders everything next time: a what-if kept
    from before it is not returned (it would skip renderings the full assembly
    dropped), and the requests after it are exact."""
    ws = _near_budget_with_calls(("c1",))
    ws.register({"role": "tool", "tool_call_id": "c1", "content": "first result " * 5})
    assert ws.assembler._tries
    ws.assemble(strict=False, incremental=False)
    assert _fields(ws.assemble(strict=False)) == _fields(_plain(ws, "ledger"))
    ws.register({"role": "user", "content": "next"})
    assert _fields(ws.assemble(strict=False)) == _fields(_plain(ws, "ledger"))
