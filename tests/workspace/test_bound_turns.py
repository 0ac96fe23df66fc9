"""The registration bound across a new root turn (sim.workspace.accounting,
``TotalBound.turn_shift``; issue 35): a tool result registered right after its call
(which starts a turn) is decided without an exact what-if where the dashboard's
growth from a turn is known (none, ledger with flat age counts, bounded ledger at
its cap), and still measured where it is not (status board, an age that costs more
than ``0r``). The bound's soundness after random sessions is checked in
``test_incremental.py`` (every dashboard, turns included)."""

from __future__ import annotations

import pytest

from sim.workspace.memory import scratch_workspace


def _session(dashboard: str, budget: int, steps: int, tokenizer: str = "cl100k_base"):
    """A call (new turn) and its result, ``steps`` times, far below ``budget``; the
    number of exact what-if measures the guard ran."""
    ws = scratch_workspace(budget=budget, dashboard=dashboard, strict=False,
                           tokenizer=tokenizer)
    measured = []
    real = ws._measure_with
    ws._measure_with = lambda op, data: measured.append(op["id"]) or real(op, data)
    ws.register({"role": "user", "content": "the task"}, pinned=True)
    ws.assemble()
    for i in range(steps):
        ws.register({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "read",
                                                              "arguments": "{}"}}]})
        ws.register({"role": "tool", "tool_call_id": f"c{i}", "content": "a result " * 20})
        assert ws.bound.total is None or ws.bound.total >= ws.assembler.measure()
    ws.close()
    return measured


@pytest.mark.parametrize("dashboard", ["none", "ledger", "bounded_ledger:300"])
def test_a_new_turn_keeps_the_bound(dashboard):
    """After one exact assembly no result needs a measure: the bound survives each
    call's new turn (before issue 35 every result was measured)."""
    assert _session(dashboard, 200_000, 12) == []


def test_the_status_board_still_measures_after_a_turn():
    """Its lines show ages counted inside the line: the bound does not survive a
    turn, so every result after its call's turn is measured exactly."""
    assert len(_session("status_board", 200_000, 5)) == 5


def test_an_age_that_costs_more_drops_the_ledger_bound():
    """With the char tokenizer ``10r`` costs more than ``0r``: from turn 10 on the
    ledger's shift is unknown and each result is measured again."""
    measured = _session("ledger", 200_000, 14, tokenizer="char")
    assert measured == [f"B{2 * i + 3}" for i in range(9, 14)]


def test_the_bounded_ledger_shift_is_its_cap_less_the_last_dashboard():
    ws = scratch_workspace(budget=200_000, dashboard="bounded_ledger:300", strict=False)
    ws.register({"role": "user", "content": "the task"}, pinned=True)
    req = ws.assemble()
    assert ws.bound.turn_shift(ws.turn + 1) == 300 - req.dashboard
    ws.next_turn()
    assert ws.bound.total == req.total + 300 - req.dashboard
    assert ws.bound.turn_shift(ws.turn + 1) == 0  # counted at its cap from here on
    ws.close()


@pytest.mark.parametrize("dashboard", ["ledger", "bounded_ledger:1200", "status_board",
                                       "none"])
def test_turns_alone_never_take_the_request_past_the_bound(dashboard):
    """After one exact assembly, turns alone move every row's age past 9r and 99r
    (the char tokenizer: each costs one more token); the bound, where it is kept,
    covers every later request (a bounded ledger's by its cap)."""
    from sim.workspace.assembly import Assembler

    ws = scratch_workspace(budget=None, dashboard=dashboard, strict=False,
                           tokenizer="char")
    for i in range(6):
        ws.register({"role": "user", "content": f"note {i} " * (5 + 20 * i)})
    first = ws.assemble()
    kept = 0
    for _ in range(120):
        ws.next_turn()
        exact = Assembler(ws, dashboard).assemble(incremental=False).total
        if ws.bound.total is not None:
            kept += 1
            assert ws.bound.total >= exact
    assert exact > first.total or dashboard == "none"  # the ages did cost more
    # kept: always for none and the bounded ledger, up to turn 9 for the ledger
    assert kept == {"none": 120, "bounded_ledger:1200": 120, "ledger": 9,
                    "status_board": 0}[dashboard]
    ws.close()
