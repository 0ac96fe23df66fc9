"""Stateful property test of the block workspace (DESIGN.md's eight invariants).

A plain-Python model (ids -> bytes, status, group membership) runs beside a real
:class:`Workspace`; rules register, archive, delete, recover, pin, expand, assemble
and reopen in random order, and every invariant is checked after every step.
Steps: ``stateful_step_count`` x ``max_examples`` (dev profile 25, ci 60).
"""

from __future__ import annotations

import shutil
from pathlib import Path
import tempfile
import warnings

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant,
                                 precondition, rule)

from sim.workspace.messages import decode_call_message
from sim.workspace.packs import record
from sim.workspace import (BlockStatus, BudgetExceededError, BudgetWarning,
                           ConfinementError, PinnedBlockError, Workspace,
                           WorkspaceError)
from tests.workspace.helpers import check_lossless, check_request

TEXT = st.one_of(st.text(max_size=120),
                 st.binary(max_size=80),
                 st.sampled_from(["", "\x00nul\x00", "hello world " * 40, "é✓ü"]))


class WorkspaceMachine(RuleBasedStateMachine):
    """Model: ``data`` id -> exact bytes; ``status`` id -> status; ``groups`` gid ->
    [members, state: archived/expanded/deleted]; ``inside`` block or group id -> the
    group it is archived in (membership, as the workspace's ``group_of``)."""

    @initialize(budget=st.sampled_from([600, 1500, 5000]))
    def start(self, budget):
        self.dir = tempfile.mkdtemp(prefix="ws-sm-")
        self.ws = Workspace(self.dir, budget=budget, tokenizer="cl100k_base",
                            sync=False, strict=True)
        self.data: dict[str, bytes] = {}
        self.status: dict[str, str] = {}
        self.calls: list[tuple[str, str]] = []  # (call id, block id) awaiting results
        self.groups: dict[str, list] = {}
        self.inside: dict[str, str] = {}
        self.n_calls = 0
        self.torn: dict = {}  # pack -> its bytes after a torn append (by this test)
        b = self.ws.register({"role": "user", "content": "the task"}, pinned=True)
        self._seen(b)

    def teardown(self):
        if hasattr(self, "ws"):
            self.ws.close()
            shutil.rmtree(self.dir, ignore_errors=True)

    def _seen(self, b):
        self.data[b.id] = b.data
        self.status[b.id] = b.status.value

    def _expect_unchanged(self, fn, *exc):
        before = self.ws.snapshot()
        try:
            fn()
        except WorkspaceError as err:
            assert self.ws.snapshot() == before
            if exc:
                assert isinstance(err, exc), (err, exc)
            return err
        return None

    def ids(self):
        return sorted(self.data, key=lambda s: int(s[1:]))

    # ---------------------------------------------------------------- register
    @rule(text=TEXT, role=st.sampled_from(["user", "assistant"]))
    def register_message(self, text, role):
        b = self.ws.register({"role": role, "content": text})
        assert b.data == (text if isinstance(text, bytes) else text.encode())
        self._seen(b)

    @rule(n=st.integers(1, 3), text=st.text(max_size=60),
          args=st.sampled_from(['{"cmd": "ls"}', '{"cmd": "pytest -x \\"é\\""}', ""]))
    def register_call(self, n, text, args):
        calls = []
        for _ in range(n):
            self.n_calls += 1
            calls.append({"id": f"call_{self.n_calls}", "type": "function",
                          "function": {"name": "bash", "arguments": args}})
        b = self.ws.register({"role": "assistant", "content": text, "tool_calls": calls})
        # the block's bytes are the whole message: what archive/recover give back
        assert decode_call_message(b.data) == {"role": "assistant", "content": text or None,
                                      "tool_calls": calls}
        self._seen(b)
        self.calls += [(c["id"], b.id) for c in calls]

    @precondition(lambda self: self.calls)
    @rule(text=TEXT, pick=st.integers(0, 10), big=st.booleans())
    def register_result(self, text, pick, big):
        cid, _ = self.calls.pop(pick % len(self.calls))
        if big:
            text = "observation line with numbers 12345\n" * 400
        b = self.ws.register({"role": "tool", "tool_call_id": cid, "content": text})
        self._seen(b)
        if b.status is BlockStatus.VISIBLE:  # invariant 1: preflight admitted it
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", BudgetWarning)
                total = self.ws.assemble(strict=False).total
            # ... or kept it inline because its placeholder (a ~60-token line with a
            # sha256 path) would cost more: offloading never grows a request
            assert total <= self.ws.budget or b.tokens < 60
        else:
            assert b.status is BlockStatus.OFFLOADED

    # ---------------------------------------------------------------- tools
    def _top_group(self, gid):
        return self.groups[gid][1] == "archived" and gid not in self.inside

    def _valid_archive(self, items):
        """Visible blocks and top-level groups may be archived; a top-level offloaded
        placeholder only together with other items (a new group)."""
        for i in items:
            if i[0] == "G":
                if not self._top_group(i):
                    return False
            elif not (self.status[i] == "visible" or (
                    self.status[i] == "offloaded_placeholder" and len(items) > 1
                    and i not in self.inside)):
                return False
        return not (len(items) == 1 and items[0][0] == "G")

    @rule(data=st.data())
    def archive(self, data):
        pool = self.ids() + sorted(self.ws.groups)
        items = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4,
                                   unique=True))
        self._archive(items)

    def _offloaded(self):
        return [i for i in self.ids()
                if self.status[i] == "offloaded_placeholder" and i not in self.inside]

    @precondition(lambda self: self._offloaded())
    @rule(data=st.data())
    def bundle_offloaded(self, data):
        """An offloaded placeholder with other items (often valid), or alone (never)."""
        first = data.draw(st.sampled_from(self._offloaded()))
        pool = [i for i in self.ids() + sorted(self.ws.groups) if i != first]
        rest = data.draw(st.lists(st.sampled_from(pool), max_size=2, unique=True))
        self._archive([first, *rest])

    def _archive(self, items):
        spec = ",".join(items)
        ordered = self.ws.resolve(spec)
        valid = self._valid_archive(ordered)
        pinned = any(i[0] == "B" and self.status[i] == "pinned" for i in ordered)
        err = self._expect_unchanged(lambda: self.ws.archive(spec, "idx"))
        assert (err is None) == valid, (spec, err)
        if pinned:
            assert isinstance(err, PinnedBlockError)
        if err is None:
            gid = f"G{len(self.groups) + 1}" if len(ordered) > 1 else None
            for i in ordered:
                if i[0] == "B" and self.status[i] == "visible":
                    self.status[i] = "archived"  # offloaded members stay offloaded
                if gid:
                    self.inside[i] = gid
            if gid:
                self.groups[gid] = [ordered, "archived"]
                assert self.ws.read_payload(self.ws.groups[gid].handle) == b"".join(
                    self._transcript(ordered))

    def _transcript(self, items):
        """The model's transcript: headers and exact bytes, groups in place."""
        for i in items:
            if i[0] == "G":
                yield f"=== {i} group of {','.join(self.groups[i][0])} ===\n".encode()
                yield from self._transcript(self.groups[i][0])
            else:
                b = self.ws.blocks[i]
                yield f"=== {i} {b.type.value} (turn {b.turn}) ===\n".encode()
                yield self.data[i] + b"\n"

    @rule(data=st.data())
    def delete(self, data):
        pool = self.ids() + sorted(self.ws.groups)
        items = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3,
                                   unique=True))
        spec = ",".join(items)
        err = self._expect_unchanged(lambda: self.ws.delete(spec, "no value"))
        if err is None:
            for i in self.ws.blocks:
                if self.ws.blocks[i].status is BlockStatus.DELETED:
                    self.status[i] = "deleted"
                    self.data[i] = b""
            for gid, g in self.ws.groups.items():
                if g.status == "deleted":
                    self.groups[gid][1] = "deleted"
        else:
            for i in self.ws.resolve(spec):
                if i[0] == "B" and self.status[i] == "pinned":
                    assert isinstance(err, PinnedBlockError)

    @rule(data=st.data())
    def recover(self, data):
        pool = self.ids() + sorted(self.ws.groups)
        target = data.draw(st.sampled_from(pool))
        before = dict(self.data)
        ids_before = set(self.ws.blocks)
        got = []
        err = self._expect_unchanged(lambda: got.append(self.ws.recover(target)))
        if err is None:
            new = got[0]
            src = before.get(target) if target[0] == "B" else \
                self.ws.transcript(self.ws.groups[target].members)
            assert new.data == src and new.recovered_from == target
            if new.id in ids_before:
                # a repeated recovery returns the copy still visible: nothing is added
                assert set(self.ws.blocks) == ids_before and new.in_stream
            else:
                assert set(self.ws.blocks) == ids_before | {new.id}
            self._seen(new)
        elif target[0] == "B" and self.status[target] in ("archived",
                                                          "offloaded_placeholder"):
            assert isinstance(err, BudgetExceededError), err

    @rule(data=st.data())
    def pin(self, data):
        target = data.draw(st.sampled_from(self.ids()))
        err = self._expect_unchanged(lambda: self.ws.pin(target))
        if err is None:
            self.status[target] = "pinned"
        else:
            assert self.status[target] not in ("visible", "pinned")

    @precondition(lambda self: self.ws.groups)
    @rule(data=st.data())
    def expand(self, data):
        gid = data.draw(st.sampled_from(sorted(self.ws.groups)))
        err = self._expect_unchanged(lambda: self.ws.expand(gid))
        assert (err is None) == self._top_group(gid), (gid, err)
        if err is None:  # members are top-level again, each with its own status
            self.groups[gid][1] = "expanded"
            for m in self.groups[gid][0]:
                del self.inside[m]

    @rule()
    def assemble_strict(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BudgetWarning)
            total = self.ws.assemble(strict=False).total
        err = self._expect_unchanged(lambda: self.ws.assemble(strict=True))
        assert (err is not None) == (total > self.ws.budget)
        if err is not None:
            assert isinstance(err, BudgetExceededError) and err.over == total - self.ws.budget

    @rule(path=st.sampled_from(["../journal.jsonl", "/etc/passwd", "ab/../../x",
                                "", "zz/" + "0" * 64]))
    def hostile_read(self, path):
        err = self._expect_unchanged(lambda: self.ws.read_payload(path))
        assert err is not None
        if ".." in path or path.startswith("/"):
            assert isinstance(err, ConfinementError)

    @rule()
    def reopen(self):
        before = self.ws.snapshot()
        self.ws.close()
        self.ws = Workspace.open(self.dir, sync=False)
        assert self.ws.snapshot() == before

    @rule(checkpoint=st.booleans())
    def reopen_after_crash(self, checkpoint):
        """No close: the checkpoint (if any, maybe stale) plus the journal's tail, or
        the whole journal with the checkpoint gone, give the same state."""
        before = self.ws.snapshot()
        if not checkpoint:
            (Path(self.dir) / "checkpoint.bin").unlink(missing_ok=True)
        reader = Workspace.open(self.dir, read_only=True)  # beside the live writer
        assert reader.snapshot() == before and not reader.corrupt
        self.ws.journal.close()
        self.ws = Workspace.open(self.dir, sync=False)  # takes the lock over
        assert self.ws.snapshot() == before and not self.ws.quarantine.moved

    @rule(cut=st.integers(1, 100))
    def crash_mid_pack_append(self, cut):
        """A writer killed while appending a small payload to a pack (before its
        journal line): the torn record stays in place, is never indexed or read,
        and the reopened writer appends to a new pack, so the state is the same."""
        packs = self.ws.store.packs
        names = packs.names()
        if not names or packs.dir / names[-1] in self.torn:
            return  # a writer never appends after a torn record: nor does a crash
        before = self.ws.snapshot()
        torn = record(bytes(32), b"never journaled " * 6)[:cut]
        with open(packs.dir / names[-1], "ab") as fh:
            fh.write(torn)
        kept = (packs.dir / names[-1]).read_bytes()
        self.ws.journal.close()
        self.ws.store.close()
        self.ws = Workspace.open(self.dir, sync=False)  # takes the lock over
        assert self.ws.snapshot() == before
        self.torn[packs.dir / names[-1]] = kept

    # ---------------------------------------------------------------- invariants
    @invariant()
    def torn_pack_tails_stay(self):
        for path, kept in getattr(self, "torn", {}).items():
            assert path.read_bytes() == kept  # never appended to, cut or moved

    @invariant()
    def model_agrees(self):
        if not hasattr(self, "ws"):
            return
        assert self.ids() == list(self.ws.blocks)  # stable, monotonic ids
        for bid, b in self.ws.blocks.items():
            assert b.status.value == self.status[bid] or (
                self.status[bid] == "archived" and b.status is BlockStatus.DELETED) or (
                self.status[bid] in ("visible", "archived", "offloaded_placeholder")
                and b.status is BlockStatus.DELETED)
            self.status[bid] = b.status.value
            if b.status is not BlockStatus.DELETED:
                assert b.data == self.data[bid]
        assert self.ws.group_of == self.inside
        assert {g: [v.members, v.status] for g, v in self.ws.groups.items()} == \
            self.groups

    @invariant()
    def top_level_and_bound_agree_with_recounts(self):
        if not hasattr(self, "ws"):
            return
        ws = self.ws
        top = [b.id for b in ws.blocks.values()
               if b.id not in ws.group_of and b.status is not BlockStatus.DELETED]
        top += [g.id for g in ws.groups.values() if g.status == "archived" and not g.parent]
        assert list(ws.top) == sorted(top, key=lambda i: int(i[1:]) if i[0] == "B"
                                      else ws.groups[i].first)
        if ws.bound.total is not None:  # the incremental bound never undercounts
            assert ws.bound.total >= ws.assembler.measure()

    @invariant()
    def lossless_valid_truthful(self):
        if hasattr(self, "ws"):
            check_lossless(self.ws, self.data)
            check_request(self.ws)


WorkspaceMachine.TestCase.settings = settings(
    stateful_step_count=50, max_examples=settings().max_examples, deadline=None)
TestWorkspaceState = WorkspaceMachine.TestCase


def test_step_budget_is_thousands():
    """Enough steps for thousands of operations per CI run (measured: ~2,400 steps
    over 60 examples, ~1,000 under the dev profile)."""
    s = WorkspaceMachine.TestCase.settings
    assert s.stateful_step_count * s.max_examples >= 1000
