"""Bad input: a clear error naming the value, and nothing changed (invariant 5).

A table of malformed block-id specs and hostile handles; each raises the right
:class:`WorkspaceError` subclass and leaves a full snapshot of the workspace equal.
"""

import os
import tempfile
from pathlib import Path

import pytest

from sim.workspace import (BlockIdError, BlockStateError, BudgetWarning, ConfigError,
                           ConfinementError, CorruptPayloadError, DeletedHandleError,
                           Handle, HandleError,
                           PinnedBlockError, ToolCallError, UnknownBlockError,
                           Workspace, WorkspaceError, parse_spec)
from tests.workspace.helpers import flip_byte, payload_span, with_offloads

MALFORMED = [
    "", " ", "\t", ",", ",,", "B", "b3", "X7", "B-1", "B0", "B01", "B3,,B4", "B3,",
    ",B3", "B3 B4", "B3;B4", "B10-B3", "B5-B4", "B3-", "-B3", "B3--B5", "B3-B", "B3-G4",
    "G", "G0", "G-1", "G1-G3", "G1-2", "BB3", "B3B4", "B3.0", "B+3", "B 3", "B３",
    "B٣", "B3\x00", "B1e3", "B0x1", "B3-B4-B5", "B3:B4", "B*", "*", "all", "B3,B4,",
    "B3,,", "B3 ,, B4", "GB1", "BG1", "B1,G", "B-", "B−3", "B3–B5", "'B3'", "\"B3\"",
    "[B3]", "(B3)", "B3\n,B4,", "B1000000000000000000000000000000x", "null", "None",
    "B3-0", "B3-B0", "G01", "B3,B4,,B5", "B3 - B", "B 1-B2",
]
UNKNOWN = ["B10", "B999", "B3,B999", "B1-B10", "B9-B12", "G1", "G7", "B3,G2",
           "B100000000000000000000", "B8-B1000"]
NOT_STRINGS = [None, 3, 3.5, b"B3", ["B3"], {"B3": 1}]


@pytest.mark.parametrize("spec", MALFORMED)
def test_malformed_specs_raise_block_id_error(ws, spec):
    before = ws.snapshot()
    with pytest.raises(BlockIdError) as err:
        ws.archive(spec, "x")
    assert err.value.token is not None
    with pytest.raises(BlockIdError):
        ws.delete(spec, "x")
    assert ws.snapshot() == before


@pytest.mark.parametrize("spec", UNKNOWN)
def test_unknown_ids_raise_and_name_the_id(ws, spec):
    before = ws.snapshot()
    with pytest.raises(UnknownBlockError) as err:
        ws.archive(spec)
    assert err.value.ident and err.value.ident in str(err.value)
    with pytest.raises(UnknownBlockError):
        ws.delete(spec, "x")
    assert ws.snapshot() == before


@pytest.mark.parametrize("spec", NOT_STRINGS)
def test_non_string_specs(ws, spec):
    before = ws.snapshot()
    with pytest.raises(BlockIdError):
        ws.archive(spec)
    assert ws.snapshot() == before


def _hostile(ws):
    root = str(ws.store.root.absolute())
    return [
        ("../journal.jsonl", ConfinementError), ("../../etc/passwd", ConfinementError),
        ("/etc/passwd", ConfinementError), ("/", ConfinementError),
        (root + "/../journal.jsonl", ConfinementError), ("ab/../../x", ConfinementError),
        (os.path.dirname(root) + "/journal.jsonl", ConfinementError),
        ("", HandleError), (".", HandleError), ("ab", HandleError),
        ("ab/" + "0" * 64, HandleError), ("zz/" + "0" * 64, HandleError),
        ("00/" + "0" * 63, HandleError), ("00/" + "0" * 64 + "/x", HandleError),
        ("00\\" + "0" * 64, HandleError), ("journal.jsonl", HandleError),
        ("0" * 64, HandleError), ("00/" + "0" * 64 + "\x00", HandleError),
        ("~/x", HandleError), ("00/" + "G" * 64, HandleError),
    ]


def test_hostile_paths_table(ws):
    before = ws.snapshot()
    cases = _hostile(ws)
    for path, exc in cases:
        with pytest.raises(exc) as err:
            ws.read_payload(path)
        assert repr(path)[1:-1][:20] in str(err.value) or path == ""
        with pytest.raises(exc):
            ws.recover(path)
        with pytest.raises(exc):
            ws.recover(Handle(path, 1, path.rsplit("/", 1)[-1]))
    assert ws.snapshot() == before


def test_symlink_handle_is_refused(ws, tmp_path):
    h = ws.archive("B6")
    outside = tmp_path / "secret"
    outside.write_bytes(ws.blocks["B6"].data)
    target = ws.store.root / h.path  # a packed payload has no file: plant one
    target.unlink(missing_ok=True)
    target.parent.mkdir(exist_ok=True)
    target.symlink_to(outside)
    before = ws.snapshot()
    for fn in (lambda: ws.read_payload(h), lambda: ws.recover("B6"),
               lambda: ws.read_payload(str(ws.payload_path(h)))):
        with pytest.raises(ConfinementError):
            fn()
    assert ws.snapshot() == before
    # a symlinked fan-out directory is refused too
    sub = ws.store.root / h.path.split("/")[0]
    for f in sub.iterdir():
        f.unlink()
    sub.rmdir()
    sub.symlink_to(tmp_path)
    with pytest.raises(ConfinementError):
        ws.read_payload(h)


def test_corrupt_payload_is_reported_never_returned(ws):
    h = ws.archive("B6", "file a.py")
    path, offset, length = payload_span(ws, h)  # packed: B6 is small
    flip_byte(path, offset + length - 1)
    before = ws.snapshot()
    with pytest.raises(CorruptPayloadError) as err:
        ws.read_payload(h)
    assert h.sha256 in str(err.value)
    with pytest.raises(CorruptPayloadError):
        ws.recover("B6")
    with pytest.raises(CorruptPayloadError):
        ws.read_payload(str(ws.payload_path(h)))
    assert ws.snapshot() == before


@pytest.mark.parametrize("spec,exc", [
    ("B1", PinnedBlockError), ("B2", PinnedBlockError), ("B1,B3", PinnedBlockError),
    ("B3,B2", PinnedBlockError), ("B1-B9", PinnedBlockError)])
def test_pinned_blocks_are_never_archived_or_deleted(ws, spec, exc):
    before = ws.snapshot()
    with pytest.raises(exc) as err:
        ws.archive(spec, "x")
    assert "pinned" in str(err.value)
    with pytest.raises(exc):
        ws.delete(spec, "x")
    assert ws.snapshot() == before


def test_state_errors_change_nothing(ws):
    ws.archive("B6")
    ws.delete("B8", "chatter")
    g = ws.archive("B3-B4", "listing")  # G1
    cases = [
        (lambda: ws.archive("B6"), BlockStateError),           # already archived
        (lambda: ws.archive("B6,B9"), BlockStateError),
        (lambda: ws.archive("B8"), BlockStateError),           # deleted
        (lambda: ws.archive("B3"), BlockStateError),           # inside G1
        (lambda: ws.archive("G1"), BlockStateError),           # lone group
        (lambda: ws.delete("B8", "again"), BlockStateError),
        (lambda: ws.delete("B4", "member"), BlockStateError),  # inside G1
        (lambda: ws.recover("B8"), DeletedHandleError),
        (lambda: ws.recover("B9"), BlockStateError),           # visible
        (lambda: ws.recover("B99"), UnknownBlockError),
        (lambda: ws.recover("G9"), UnknownBlockError),
        (lambda: ws.recover(3), HandleError),
        (lambda: ws.archive("B9", replacement=7), ToolCallError),
        (lambda: ws.delete("B9", reason=None), ToolCallError),
        (lambda: ws.pin("B6"), BlockStateError),
        (lambda: ws.unpin("B9"), BlockStateError),
        (lambda: ws.expand("B3"), BlockIdError),
        (lambda: ws.register({"role": "tool", "tool_call_id": "nope", "content": ""}),
         UnknownBlockError),
        (lambda: ws.register({"role": "tool", "tool_call_id": "c1", "content": "2nd"}),
         ToolCallError),
        (lambda: ws.register({"role": "wizard", "content": ""}), ToolCallError),
        (lambda: ws.register("hello"), ToolCallError),
        (lambda: ws.register({"role": "assistant", "tool_calls": [{"id": "c1", "type":
          "function", "function": {"name": "x", "arguments": "{}"}}]}), ToolCallError),
        (lambda: ws.register({"role": "assistant", "tool_calls": "x"}), ToolCallError),
    ]
    for fn, exc in cases:
        before = ws.snapshot()
        with pytest.raises(exc):
            fn()
        assert ws.snapshot() == before
    # a deleted group's handle: DeletedHandleError by handle, path and id
    ws.delete("G1", "done with listing")
    for target in (g, str(ws.payload_path(g)), "G1"):
        before = ws.snapshot()
        with pytest.raises(DeletedHandleError):
            ws.recover(target)
        assert ws.snapshot() == before


def test_all_errors_share_one_root():
    import sim.workspace.errors as E

    for name in dir(E):
        obj = getattr(E, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and obj is not E.BudgetWarning:
            assert issubclass(obj, WorkspaceError)


def test_table_has_at_least_100_cases(ws):
    assert len(MALFORMED) + len(UNKNOWN) + len(NOT_STRINGS) + len(_hostile(ws)) >= 100


def test_parse_spec_accepts_the_grammar():
    assert [(i.kind, i.start, i.end, i.group) for i in parse_spec(" B3 , B6-9,B10-B12, G2 ")] \
        == [("block", 3, 3, 0), ("block", 6, 9, 0), ("block", 10, 12, 0), ("group", 0, 0, 2)]


def test_offloaded_blocks_are_never_archived_alone(tmp_path):
    """A guard-offloaded block is already externalized: archiving it alone is refused
    (its handle keeps meaning that block); it may only join a group, once."""
    ws = with_offloads(tmp_path / "w")  # B4, B6 offloaded
    ws.archive("B6,B7", "cat c")          # G1 holds offloaded B6
    cases = [("B4", "B4", "only a group archive"), (" B4 ", "B4", "only a group archive"),
             ("B4,B4", "B4", "only a group archive"), ("B4-B4", "B4", "group archive"),
             ("B6", "B6", "in G1"), ("B6,B3", "B6", "in G1"), ("B4,B6", "B6", "in G1"),
             ("B3,B4,B6", "B6", "in G1")]
    for spec, bad, why in cases:
        before = ws.snapshot()
        with pytest.raises(BlockStateError) as err:
            ws.archive(spec, "x")
        assert f"cannot archive {bad}" in str(err.value) and why in str(err.value), spec
        assert ws.snapshot() == before
    for fn, exc in [(lambda: ws.delete("B6", "member"), BlockStateError),
                    (lambda: ws.pin("B4"), BlockStateError),
                    (lambda: ws.pin("B6"), BlockStateError),
                    (lambda: ws.recover("B4,B6"), HandleError),
                    (lambda: ws.expand("B4"), BlockIdError)]:
        before = ws.snapshot()
        with pytest.raises(exc):
            fn()
        assert ws.snapshot() == before


@pytest.mark.parametrize("budget", ["8000", 0, -1, 1.5, True, [8000]])
def test_bad_budget_is_refused_at_construction(budget, tmp_path):
    from sim.workspace import ConfigError

    with pytest.raises(ConfigError, match="budget") as err:
        Workspace(tmp_path / "w", budget=budget)
    assert repr(budget) in str(err.value)
    assert isinstance(err.value, ValueError) and isinstance(err.value, WorkspaceError)
    assert not (tmp_path / "w").exists()          # nothing half-created


def test_good_budgets(tmp_path):
    # the smallest budget a workspace takes is its fixed overhead, measured here by
    # an unlimited twin's first request (an independent route: a real assembly)
    bare = Workspace(tmp_path / "b", budget=None, sync=False, system_prompt="",
                     dashboard="none", context_tools=False)
    assert bare.budget is None
    need = bare.assemble().total
    ws = Workspace(tmp_path / "a", budget=need, sync=False, system_prompt="",
                   dashboard="none", context_tools=False)
    assert ws.budget == need and ws.assemble().total == need


def test_budget_below_the_fixed_overhead_fails_at_construction(tmp_path):
    """Not at the first assemble(): a value below the overhead can never fit."""
    fixed = dict(sync=False, system_prompt="a prompt", dashboard="none")  # no budget text
    with Workspace(None, budget=None, **fixed) as twin:
        need = twin.assemble().total
    for budget in (10, need - 1):
        with pytest.raises(ConfigError) as exc:
            Workspace(tmp_path / "w", budget=budget, **fixed)
        msg = str(exc.value)
        assert "\n" not in msg and f"budget {budget:,} tokens" in msg
        assert msg.count(f"{budget:,}") == 1  # the value named once
        assert f"at least {need:,}" in msg
        assert not (tmp_path / "w").exists()  # nothing half-made on disk
    before = set(Path(tempfile.gettempdir()).glob("ctxsim-ws-*"))
    with pytest.raises(ConfigError):
        Workspace(None, budget=10, sync=False)
    assert set(Path(tempfile.gettempdir()).glob("ctxsim-ws-*")) == before


def test_reopen_refuses_a_given_budget_below_the_overhead_keeps_the_journaled(tmp_path):
    with Workspace(tmp_path / "w", budget=5000, sync=False) as ws:
        ws.register({"role": "user", "content": "hi"})
    journal = (tmp_path / "w" / "journal.jsonl").read_bytes()
    with pytest.raises(ConfigError, match="budget 10 tokens is impossible"):
        Workspace.open(tmp_path / "w", budget=10)
    assert (tmp_path / "w" / "journal.jsonl").read_bytes() == journal
    with Workspace.open(tmp_path / "w") as ws:  # the lock was released
        assert ws.budget == 5000 and len(ws.blocks) == 1


@pytest.mark.parametrize("kwargs", [{"tokenizer": "nosuch"}, {"dashboard": "nosuch"},
                                    {"budget": 0}])
def test_invalid_arguments_create_no_directory(kwargs, tmp_path):
    with pytest.raises(WorkspaceError, match="nosuch|budget"):
        Workspace(tmp_path / "ws4" / "deeper", **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_directory_that_is_a_file_is_a_clean_error(tmp_path):
    from sim.workspace import ConfigError

    (tmp_path / "a_file").write_text("x")
    for d in (tmp_path / "a_file", tmp_path / "a_file" / "sub"):
        with pytest.raises(ConfigError, match="a_file"):
            Workspace(d, budget=5000)
    assert (tmp_path / "a_file").read_text() == "x"


def test_existing_workspace_is_refused_untouched(tmp_path):
    ws = Workspace(tmp_path / "w", budget=5000, sync=False)
    ws.close()
    before = sorted(p.name for p in (tmp_path / "w").iterdir())
    with pytest.raises(WorkspaceError, match="already holds a workspace"):
        Workspace(tmp_path / "w", budget=100)
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == before


# ---------------------------------------------------------------- tool calls register
def _call(cid, name="f", args="{}"):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


#: (tool_calls, text the refusal names): each would make the request invalid
BAD_CALLS = [
    ([_call("c9", "")], "function.name must be a non-empty string, got ''"),
    ([_call("")], "id must be a non-empty string, got ''"),
    ([_call(None)], "id must be a non-empty string, got None"),
    ([_call(7)], "id must be a non-empty string, got 7"),
    ([_call("c9", None)], "function.name must be a non-empty string, got None"),
    ([_call("c9", 3)], "function.name must be a non-empty string, got 3"),
    ([_call("c9"), _call("c10", "")], "tool_calls[1].function.name"),
    ([{"id": "c9", "type": "function", "function": "f"}], "expected an object"),
    ([_call("c9"), _call("c9")], "'c9' is already used by this message"),
    ([_call("c1")], "'c1' is already used by B3"),
    # a lone surrogate is sent as its escape: the two would be one id on the wire
    ([_call("k\ud800"), _call("k\\ud800")], "is already used by this message"),
]


@pytest.mark.parametrize("calls,needle", BAD_CALLS)
def test_register_refuses_tool_calls_a_request_cannot_carry(ws, calls, needle):
    """Issue: an empty function name or call id was stored, and every later request
    failed the package's own validator. Refused now, before anything is journaled."""
    before = ws.snapshot()
    journal = (ws.directory / "journal.jsonl").read_bytes()
    with pytest.raises(ToolCallError) as err:
        ws.register({"role": "assistant", "content": None, "tool_calls": calls})
    assert needle in str(err.value)
    assert ws.snapshot() == before
    assert (ws.directory / "journal.jsonl").read_bytes() == journal


@pytest.mark.parametrize("role", ["user", "system", "tool"])
def test_register_refuses_tool_calls_on_other_roles(ws, role):
    before = ws.snapshot()
    msg = {"role": role, "content": "x", "tool_calls": [_call("c9")]}
    if role == "tool":
        msg["tool_call_id"] = "c9"
    with pytest.raises(ToolCallError, match=f"a {role} message cannot carry tool_calls"):
        ws.register(msg)
    assert ws.snapshot() == before


GOOD_CALLS = [
    [_call("c9")],
    [_call("c9", "bash", '{"cmd": "ls"}'), _call("c10", "read", "")],
    [_call("ü-1", "lesen")],                   # non-ASCII id and name
    [_call("k\\ud800")],                       # a backslash, unique on the wire
    [_call("k\ud800", "f\ud800")],             # lone surrogates: escaped on the wire
    [{"id": "c9", "function": {"name": "f", "arguments": {"a": 1}}}],  # normalised
]


@pytest.mark.parametrize("calls", GOOD_CALLS)
def test_register_accepts_tool_calls_the_validator_accepts(ws, calls):
    from sim.workspace.validate import validate_chat_request

    b = ws.register({"role": "assistant", "content": None, "tool_calls": calls})
    for c in calls:
        ws.register({"role": "tool", "tool_call_id": c["id"], "content": "ok"})
    assert [c["id"] for c in b.message["tool_calls"]] == [c["id"] for c in calls]
    validate_chat_request(ws.assemble().to_openai())
    ws.register({"role": "user", "content": "next", "tool_calls": []})  # no calls: fine
    validate_chat_request(ws.assemble().to_openai())


def test_a_result_for_a_call_id_with_a_lone_surrogate_registers(ws):
    """The budget bound measured the id's UTF-8 bytes, and a lone surrogate has none:
    a UnicodeEncodeError escaped register. The id is measured as sent (escaped)."""
    from sim.workspace.validate import validate_chat_request

    ws.register({"role": "assistant", "content": None, "tool_calls": [_call("k\ud800")]})
    ws.assemble()  # an exact total: the next registration is decided by the bound
    b = ws.register({"role": "tool", "tool_call_id": "k\ud800", "content": "r"})
    assert b.message["tool_call_id"] == "k\ud800"
    validate_chat_request(ws.assemble().to_openai())


# ---------------------------------------------------------------- the least budget
PINS = [{"role": "system", "content": "You fix bugs. " * 80},
        {"role": "user", "content": "The failing test is test_parse (12 lines). " * 40}]


def _holding_pins(budget, **kw):
    """A workspace under ``budget`` (strict off) holding only the pinned blocks."""
    ws = Workspace(None, budget=budget, strict=False, sync=False, **kw)
    for m in PINS:
        ws.register(m, pinned=True)
    return ws


@pytest.mark.parametrize("kw", [{}, {"dashboard": "status_board"}, {"dashboard": "none"},
                                {"dashboard": "bounded_ledger"}, {"tokenizer": "char"},
                                {"system_prompt": "a prompt that states no budget"}])
def test_the_least_budget_is_exact_and_the_same_whatever_budget_is_refused(kw):
    """Issue: the minimum an impossible budget named moved with the budget given
    (the system prompt and the dashboard state the budget, so their counts change
    with its digits), and a budget equal to it was refused in turn. The least
    budget is now one number for every refused budget; a real assembly fits it
    and does not fit one token less (an oracle apart from the floor's count)."""
    from sim.workspace import ImpossibleBudgetError
    from sim.workspace.workspace import check_overhead

    ws = _holding_pins(None, **kw)
    stated = set()
    for budget in (1, 10, 500, 999, 1_000):
        with pytest.raises(ImpossibleBudgetError) as exc:
            check_overhead(ws, budget=budget)
        assert "pinned blocks" in str(exc.value)
        stated.add(exc.value.least)
    (least,) = stated
    assert f"at least {least:,}," in str(exc.value)
    for budget in range(least - 10, least):  # the budgets just below it too
        with pytest.raises(ImpossibleBudgetError):
            check_overhead(ws, budget=budget)
    for budget in (least, least + 1, 10 * least):  # and none from it up
        check_overhead(ws, budget=budget)
    with _holding_pins(least, **kw) as at, _holding_pins(least - 1, **kw) as below:
        assert at.assemble().total <= least
        with pytest.warns(BudgetWarning):
            assert below.assemble().total > least - 1
    ws.close()
