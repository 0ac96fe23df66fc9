"""The workspace facade (``sim/workspace/workspace.py``) where its mutmut runs (issue
38) found edits no test saw. The guard at its two equalities: a result of exactly
``guard_threshold`` tokens is not over it, and a result that brings the request to
exactly the budget fits (one token more and it is offloaded); totals are measured
with the guard bypassed (tests/workspace/test_guard_boundaries.py's helpers), an
independent route to the decision. The entry points' refusals with their messages
and attributes; ``resolve``'s order and its reserved gaps; a call id found by its
wire form; ``recover``'s reuse of a visible copy, its refusals, and a strict
recovery over the budget that changes nothing."""

from __future__ import annotations

import pytest

from sim.workspace import BlockStatus, Workspace
from sim.workspace import workspace as workspace_module
from sim.workspace.journal import decode_line

from .test_guard_boundaries import _call, _guarded, _measured, _result

OFF, VISIBLE = BlockStatus.OFFLOADED, BlockStatus.VISIBLE


def _one_result(d, chars, threshold):
    ws = Workspace(d, tokenizer="char", sync=False, guard_threshold=threshold)
    ws.register({"role": "user", "content": "task"})
    ws.register(_call("c1"))
    b = ws.register(_result("c1", chars))
    ws.close()
    return b


def test_a_result_of_exactly_the_threshold_is_not_over_it(tmp_path):
    tokens = _one_result(tmp_path / "probe", 900, None).tokens
    assert _one_result(tmp_path / "at", 900, tokens).status is VISIBLE
    assert _one_result(tmp_path / "below", 900, tokens - 1).status is OFF


def test_a_result_that_brings_the_request_to_exactly_the_budget_fits(tmp_path):
    chars = 400
    budget = 4000
    for k in range(8):      # the budget's digits are in the request: find the fixed point
        inline = _measured(tmp_path / f"m{k}", budget, chars)["inline"]
        if inline == budget:
            break
        budget = inline
    else:
        pytest.fail("no budget equal to its own request")
    b, total, _ = _guarded(tmp_path / "fits", budget, chars)
    assert b.status is VISIBLE and total == budget          # over by 0: fits
    b, total, _ = _guarded(tmp_path / "over", budget - 1, chars)
    assert b.status is OFF and total <= budget - 1          # over by 1: offloaded


@pytest.fixture
def ws(tmp_path):
    """B1 visible, B2 pinned, B3-B4 archived as G1, B5 deleted; G2 archives G1 and B6."""
    w = Workspace(tmp_path / "w", tokenizer="char", sync=False)
    for i in range(6):
        w.register({"role": "user", "content": f"block {i + 1}"})
    w.pin("B2")
    w.archive("B3-B4", "pair")
    w.delete("B5", "")
    w.archive("G1,B6", "outer")
    yield w
    w.close()


def _refused(call, error, message, **attrs):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message
    for name, value in attrs.items():
        assert getattr(info.value, name) == value


def test_each_entry_point_names_what_it_refuses(ws):
    from sim.workspace.errors import BlockIdError, BlockStateError, UnknownBlockError

    _refused(lambda: ws.block("B99"), UnknownBlockError, "unknown block 'B99'", ident="B99")
    _refused(lambda: ws.block(7), UnknownBlockError, "unknown block 7", ident="7")
    _refused(lambda: ws.group("G9"), UnknownBlockError, "unknown group 'G9'", ident="G9")
    _refused(lambda: ws.expand("B1"), BlockIdError, "expected a group id, got 'B1'",
             token="B1")
    _refused(lambda: ws.expand("G1"), BlockStateError, "cannot expand G1: it is inside G2")
    _refused(lambda: ws.pin("G2"), BlockStateError, "cannot pin group G2; recover it first")
    _refused(lambda: ws.pin("B5"), BlockStateError, "cannot pin B5: it is deleted")
    _refused(lambda: ws.unpin("B1"), BlockStateError, "cannot unpin B1: it is not pinned")
    _refused(lambda: ws.unpin("G2"), BlockStateError, "cannot unpin G2: it is not pinned")
    assert ws.unpin("B2") == ["B2"] and ws.pin("B1,B2") == ["B1", "B2"]
    assert ws.expand("G2") == ["G1", "B6"]
    _refused(lambda: ws.expand("G2"), BlockStateError, "cannot expand G2: it is expanded")


def test_resolve_orders_by_stream_position_and_names_the_first_unknown_id(ws):
    from sim.workspace.errors import UnknownBlockError

    assert ws.resolve("B6,G2,B1,B1") == ["B1", "G2", "B6"]      # G2 sits at B3
    _refused(lambda: ws.resolve("B5-B9"), UnknownBlockError,
             "unknown block B7 in 'B5-B9' (last block is B6)", ident="B7")
    _refused(lambda: ws.resolve("B9"), UnknownBlockError,
             "unknown block B9 in 'B9' (last block is B6)", ident="B9")


def test_resolve_skips_the_ids_repair_reserved_in_a_range_only(ws):
    from sim.workspace.errors import UnknownBlockError

    ws.skip_ids(10)                   # B7-B9 were never issued
    assert ws.register({"role": "user", "content": "after the gap"}).id == "B10"
    assert ws.resolve("B6-B10") == ["B6", "B10"]
    _refused(lambda: ws.resolve("B8"), UnknownBlockError, "unknown block B8", ident="B8")


@pytest.mark.parametrize("stored, asked", [("c\ud800", "c\\ud800"), ("c\\ud800", "c\ud800"),
                                           ("c\ud800", "c\ud800"), ("c\\ud800", "c\\ud800"),
                                           ("plain", "plain")])
def test_a_call_id_is_found_by_its_wire_form(tmp_path, stored, asked):
    # a lone surrogate and its typed-out escape are one id on the wire
    w = Workspace(tmp_path / "w", tokenizer="char", sync=False)
    b = w.register({"role": "assistant", "content": "", "tool_calls": [
        {"id": stored, "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    assert w.call_id_owner(asked) == b.id
    assert w.call_id_owner("c\\ud801") is None and w.call_id_owner("other") is None
    w.close()


def test_recover_returns_a_visible_copy_and_makes_a_new_one_otherwise(ws):
    first = ws.recover("B3")
    assert first.recovered_from == "B3" and first.status is VISIBLE
    assert first.message == {"role": "user"} and first.data == b"block 3"
    assert ws.recover("B3").id == first.id               # still visible: the same copy
    ws.pin(first.id)
    assert ws.recover("B3").id == first.id               # pinned counts as visible
    ws.unpin(first.id)
    ws.archive(first.id)
    again = ws.recover("B3")
    assert again.id != first.id and again.recovered_from == "B3"
    note = ws.recover("G2")
    assert note.type.value == "note" and note.message == {"role": "user"}
    assert note.recovered_from == "G2" and ws.recover("G2").id == note.id


def test_recover_names_what_it_cannot_bring_back(ws):
    from sim.workspace.errors import (BlockStateError, CorruptPayloadError,
                                      DeletedHandleError)

    seven = ws.register({"role": "user", "content": "block 7"})
    ws.delete("B1", "gone")
    _refused(lambda: ws.recover("B5"), DeletedHandleError, "block B5 was deleted (no reason)")
    _refused(lambda: ws.recover("B1"), DeletedHandleError, "block B1 was deleted (gone)")
    _refused(lambda: ws.recover(seven.id), BlockStateError,
             "block B7 is visible; nothing to recover")
    ws.delete("G2", "")
    _refused(lambda: ws.recover("G2"), DeletedHandleError, "group G2 was deleted")
    ws.mark_corrupt("B2", "its bytes fail their sha256")
    _refused(lambda: ws.recover("B2"), CorruptPayloadError,
             "cannot recover B2: its bytes fail their sha256")


@pytest.mark.parametrize("target", ["B1", "G1"])
def test_a_strict_recovery_over_the_budget_is_refused_and_changes_nothing(tmp_path,
                                                                          target):
    from sim.workspace.errors import BudgetExceededError

    w = Workspace(tmp_path / "w", tokenizer="char", sync=False, budget=4000, strict=True)
    w.register({"role": "user", "content": "b" * 1500})
    if target == "G1":                   # the same bytes over two blocks, one group
        w.register({"role": "user", "content": "c"})
    w.archive("B1" if target == "B1" else "B1-B2", "big")
    w.register({"role": "user", "content": "f" * 1000})
    before = (len(w.blocks), w.assemble().total)
    with pytest.raises(BudgetExceededError):
        w.recover(target)
    assert (len(w.blocks), w.assemble().total) == before
    w.close()


def test_register_archive_and_delete_refuse_bad_arguments_by_name(ws):
    from sim.workspace.errors import ToolCallError

    _refused(lambda: ws.register(["not", "a", "dict"]), ToolCallError,
             "a message must be a dict, got ['not', 'a', 'dict']")
    _refused(lambda: ws.register({"role": "robot", "content": "x"}), ToolCallError,
             "unknown message role 'robot'")
    _refused(lambda: ws.archive("B1", 5), ToolCallError, "replacement must be a string, got 5")
    _refused(lambda: ws.delete("B1", None), ToolCallError, "reason must be a string, got None")


def test_defaults_and_encodings_of_what_is_registered(ws, tmp_path):
    b = ws.register({"role": "user", "content": "a\ud800b"})   # a lone surrogate kept
    assert b.data == b"a\xed\xa0\x80b"
    s = ws.register({"role": "user", "content": "short"}, block_type="summary")
    assert s.type.value == "summary"
    ws.archive(s.id)                                # no replacement given: none
    ws.delete(b.id)                                  # no reason given: none
    assert ws.blocks[b.id].reason == ""
    tail = [decode_line(x) for x in (ws.directory / "journal.jsonl").read_bytes().splitlines()]
    archive = [e for e in tail if e["op"] == "archive"][-1]
    assert archive["items"] == [s.id] and archive["replacement"] == ""
    assert [x.id for x in ws.live_blocks()] == [x.id for x in ws.blocks.values()
                                                if x.id not in ("B5", b.id)]
    assert ws.resolve("G1,B3") == ["B3", "G1"]      # a group sorts after its first block
    note = ws.reattach(b"orphaned bytes")
    assert note.message == {"role": "user"} and note.status is OFF
    assert note.data == b"orphaned bytes"


def test_a_budget_warning_points_at_the_caller(tmp_path):
    from sim.workspace.errors import BudgetWarning

    w = Workspace(tmp_path / "w", tokenizer="char", sync=False, budget=3000)
    w.register({"role": "user", "content": "z" * 2000})
    with pytest.warns(BudgetWarning) as record:
        req = w.assemble(strict=False)
    # attributed to the caller (stacklevel 2), not to the line in workspace.py
    # that warns (under mutmut's trampolines the caller is a trampoline frame)
    assert record[0].filename != workspace_module.__file__
    assert str(record[0].message).startswith(f"request is {req.total - 3000} tokens over "
                                             "the budget 3000")
    w.close()


def test_a_workspace_directory_in_use_is_refused_naming_open(tmp_path):
    from sim.workspace.errors import WorkspaceError

    d = tmp_path / "w"
    Workspace(d, tokenizer="char", sync=False).close()
    with pytest.raises(WorkspaceError) as info:
        Workspace(d, tokenizer="char", sync=False)
    assert str(info.value) == (f"{str(d)!r} already holds a workspace (journal.jsonl, "
                               "checkpoint.bin); use Workspace.open")
