"""The workspace's guard (``Workspace._guard``) at the two equalities the first
mutmut run over ``sim/workspace/workspace.py`` (issue 38) found untested: a result
of exactly ``guard_threshold`` tokens is not over it, and a result that brings the
request to exactly the budget fits (one token more and it is offloaded). Totals are
measured with the guard bypassed (tests/workspace/test_guard_boundaries.py's
helpers), an independent route to the decision."""

from __future__ import annotations

import pytest

from sim.workspace import BlockStatus, Workspace

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
