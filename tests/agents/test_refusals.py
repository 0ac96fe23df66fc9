"""``agent.max_refusals`` (issue 31, "Every number in the table"; a constant 3
before): a refused recovery is retried after freeing the overshoot the refusal
states, ``max_refusals`` times per value; the next refusal gives the value up."""

import pytest

from sim.agents.profiles import Profile
from sim.agents.protocol import View
from sim.agents.synthetic import SyntheticAgent
from sim.tasks.loca import loca_task
from sim.world import TABLE

NOTICE = "recovery refused: it would put the request 250 tokens over the budget"


def _refused_until_given_up(max_refusals: int) -> int:
    """Refusals the agent takes for one value before giving it up."""
    agent = SyntheticAgent(Profile(max_refusals=max_refusals))
    task = loca_task(0, 0, 8_000)
    agent.reset(task, seed=1)
    key = next(iter(task.facts))
    view = View((), 10_000, notice=NOTICE)
    for n in range(1, 100):
        agent.attempts[key] = 1
        agent.tried.setdefault(key, set()).add("B3")
        agent.last_recover = (key, "B3")
        agent._after_refusal(view)
        if key in agent.given_up:
            return n
        # a retry is prepared: the stated overshoot plus the recovery margin
        assert agent.make_room == 250 + 60 and agent.attempts[key] == 0
        assert "B3" not in agent.tried[key]
    raise AssertionError("never gave up")


@pytest.mark.parametrize("m", [1, 3, 8])
def test_the_value_is_given_up_at_the_refusal_after_max_refusals(m):
    assert _refused_until_given_up(m) == m + 1


def test_the_default_is_the_former_constant():
    assert TABLE["agent.max_refusals"].default == Profile().max_refusals == 3
    assert TABLE["agent.max_refusals"].integer
