"""``task.max_result_ratio``, the LOCA-like size law's clip (issue 31, "Every number
in the table"): its source's arithmetic from the shipped trajectories, and the
generator reading it (a constant 12 before; the default keeps every task)."""

import numpy as np
import pytest

from sim.tasks.families import TaskParams
from sim.tasks.loca import loca_task
from sim.world import TABLE


@pytest.fixture(scope="module")
def sizes():
    from experiments.vista.size_law import tool_result_sizes

    x = tool_result_sizes()
    return x[x > 0]


def test_the_source_numbers_come_from_the_shipped_trajectories(sizes):
    row = TABLE["task.max_result_ratio"]
    med = float(np.median(sizes))
    over = int((sizes > row.default * med).sum())
    ratio = float(sizes.max() / med)
    assert (sizes.size, med, over) == (418, 24.0, 65)
    assert f"{over} ({100 * over / sizes.size:.1f}%)" in row.source      # 65 (15.6%)
    assert f"{ratio:.0f}x" in row.source                                 # 427x
    # the prior reaches the shipped ratio, and the default is the former constant
    assert row.low < row.default == 12.0 < ratio <= row.high
    assert "guess" in row.source


def _largest(ratio: float, family=0, seed=0, growth=256_000):
    # seed 0 has no value in bulk data (bulk_facts), whose size-biased result is
    # clipped at the ratio times its own, larger median
    task = loca_task(family, seed, growth, params=TaskParams(max_result_ratio=ratio))
    return max(s.tokens for s in task.steps if s.kind == "observe")


def test_the_generator_clips_results_at_the_ratio():
    # family 0: median result 800 tokens; at 256K the growth share cap is far above
    small, default, large = _largest(4.0), _largest(12.0), _largest(430.0)
    assert small <= 4.0 * 800 + 400     # + one evidence line and a few distractors
    assert small < default < large
    assert default > 4.0 * 800 + 400    # the clip at 4x binds where 12x does not
