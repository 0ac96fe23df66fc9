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
