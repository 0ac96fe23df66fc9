"""``task.phase_steps`` and ``browse.phase_steps`` (issue 31, "Every number in the
table"; a constant 6 before): step i of a task lies in phase ``i // phase_steps``,
and the phase length changes what Context-Folding folds."""

import pytest

from sim.agents import SyntheticAgent
from sim.harness import run_episode
from sim.policies import make_program
from sim.tasks.browse import BrowseParams, browse_task
from sim.tasks.families import TaskParams
from sim.tasks.loca import loca_task
from sim.world import TABLE


@pytest.mark.parametrize("p", [3, 6, 24])
def test_step_i_lies_in_phase_i_div_p(p):
    loca = loca_task(3, 1, 64_000, params=TaskParams(phase_steps=p))
    browse = browse_task(2, 0, params=BrowseParams(phase_steps=p))
    for task in (loca, browse):
        assert [s.phase for s in task.steps] == [i // p for i in range(len(task.steps))]


def test_defaults_are_the_former_constant():
    for name in ("task.phase_steps", "browse.phase_steps"):
        row = TABLE[name]
        assert row.default == 6 and row.integer and "guess" in row.source
    assert loca_task(3, 1, 64_000) == loca_task(3, 1, 64_000,
                                                params=TaskParams(phase_steps=6))


def test_folding_reads_the_phase_length():
    def fold(p):
        task = loca_task(0, 0, 128_000, params=TaskParams(phase_steps=p))
        r = run_episode(task, make_program("folding"), SyntheticAgent("medium"),
                        budget=32_000, seed=2, fast=True)
        return r.program_edits, r.input_tokens
    short, long_ = fold(3), fold(24)
    assert short[0] > long_[0]          # more phases end, so more folds
    assert short != long_
