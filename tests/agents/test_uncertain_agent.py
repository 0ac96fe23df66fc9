"""The agent has no certain behaviour (issue 17): each behaviour happens with the
probability its profile parameter gives, checked by Monte Carlo over common-random-
number seeds against the parameter with a tolerance of 4 binomial standard errors,
and a wrong or abstained answer does not say why."""

import math

import pytest

from sim.agents import SyntheticAgent, get_profile
from sim.agents.protocol import Entry, LedgerRow, View
from sim.agents.synthetic import perturb
from sim.tasks.loca import loca_task

N = 1500


def _close(hits: int, n: int, p: float) -> bool:
    se = math.sqrt(p * (1 - p) / n)
    return abs(hits / n - p) <= 4 * se + 1e-12


@pytest.fixture(scope="module")
def task():
    return loca_task(0, 0, 16_000)


def _view(task, tokens: int, visible: bool):
    key, fact = next(iter(task.facts.items()))
    text = fact.line if visible else "row 1 a=1\n"
    entries = (Entry("B1", "user_message", "pinned", task.statement, 100),
               Entry("B2", "tool_result", "visible", text, tokens - 100))
    return View(entries, budget=200_000), key, fact


@pytest.mark.parametrize("tokens", [8_000, 128_000, 400_000])
def test_visible_fact_used_with_p_use_of_the_request_size(task, tokens):
    prof = get_profile("medium")
    view, key, fact = _view(task, tokens, visible=True)
    agent = SyntheticAgent(prof)
    right = 0
    for s in range(N):
        agent.reset(task, s)
        right += agent._use(view, key, fact.value) == fact.value
    assert agent.request_tokens(view) == tokens
    assert _close(right, N, prof.p_use(tokens))


def test_out_of_view_value_confabulated_or_abstained(task):
    prof = get_profile("medium").with_(p_confabulate=0.3)
    view, key, fact = _view(task, 8_000, visible=False)
    agent = SyntheticAgent(prof)
    answers = []
    for s in range(N):
        agent.reset(task, s)
        answers.append(agent._use(view, key, None))
    wrong = [a for a in answers if a != "unknown"]
    assert fact.value not in answers
    assert _close(len(wrong), N, 0.3)
    assert all(len(a) == len(fact.value) for a in wrong)


def test_unknown_does_not_name_its_cause(task):
    """Both a value out of view and a value missed in a long request give wrong
    values and abstentions."""
    agent = SyntheticAgent(get_profile("medium"))
    view, key, fact = _view(task, 400_000, visible=True)
    seen = set()
    for s in range(300):
        agent.reset(task, s)
        a = agent._use(view, key, fact.value)
        seen.add("right" if a == fact.value else "unknown" if a == "unknown" else "wrong")
    assert seen == {"right", "unknown", "wrong"}


def test_index_lists_each_key_with_p_index(task):
    key, fact = next(iter(task.facts.items()))
    prof = get_profile("medium")
    agent = SyntheticAgent(prof)
    hits = 0
    for s in range(N):
        agent.reset(task, s)
        e = Entry("B5", "tool_result", "visible", fact.line, 50, source_call=f"x({s})")
        hits += key in agent._keys_in(e)
    assert _close(hits, N, prof.p_index)


def test_rows_read_with_p_row_read(task):
    prof = get_profile("medium").with_(p_row_read=0.8)
    agent = SyntheticAgent(prof)
    rows = tuple(LedgerRow(f"B{i}", 100, 0, "tool_result", 0, "-", "visible")
                 for i in range(2, 2 + N))
    agent.reset(task, 4)
    got = agent._rows(View((), 10_000, ledger=rows))
    assert _close(len(got), N, 0.8) and all(v == 100 for v in got.values())


def test_notes_copied_exactly_with_p_note_exact(task):
    key, fact = next(iter(task.facts.items()))
    prof = get_profile("medium").with_(p_note=0.5, p_note_exact=0.7)
    agent = SyntheticAgent(prof)
    notes = exact = 0
    for s in range(N):
        agent.reset(task, s)
        agent._notes_from(View((Entry("B3", "tool_result", "visible", fact.line, 20),),
                               10_000))
        for n in agent.pending_notes:
            notes += 1
            exact += n == f"Noted {key}: {fact.value}"
    assert _close(notes, N, 0.5)
    assert _close(exact, notes, 0.7)


@pytest.mark.parametrize("value", ["123.45", "INV-20931", "row12/qty3", "abc"])
def test_perturb_gives_a_different_value_of_the_same_form(value):
    for k in range(50):
        w = perturb(value, k / 50)
        assert w != value
        if any(c.isdigit() for c in value):
            assert len(w) == len(value) and [c.isdigit() for c in w] == \
                [c.isdigit() for c in value]
