"""Paired differences: the bootstrap interval against the closed-form standard error,
and the pairing against hand-made rows."""

import numpy as np
import pytest

from experiments.paired import bootstrap_mean_ci, paired_differences


def test_bootstrap_interval_matches_the_normal_interval():
    # an independent route: for a mean of n iid values the interval is about
    # mean +- 1.96 sd/sqrt(n); the bootstrap's Monte Carlo error on the width is a
    # few percent at 4000 resamples
    rng = np.random.default_rng(4)
    d = rng.choice([-1.0, 0.0, 0.0, 1.0, 1.0], size=400)
    mean, lo, hi = bootstrap_mean_ci(d, seed=1)
    se = d.std() / np.sqrt(d.size)
    assert mean == pytest.approx(d.mean())
    assert (hi - lo) == pytest.approx(2 * 1.96 * se, rel=0.08)
    assert lo < mean < hi


def test_constant_difference_has_a_zero_width_interval():
    assert bootstrap_mean_ci([1.0] * 20) == (1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="no paired values"):
        bootstrap_mean_ci([])


def _rows(level, prog, solved):
    return [{"level": level, "program": prog, "task_id": f"t{i}", "solved": s}
            for i, s in enumerate(solved)]


def test_pairing_is_by_task():
    rows = (_rows(1, "vista", [1, 1, 0, 1]) + _rows(1, "react", [0, 1, 0, 0])
            + _rows(2, "vista", [1, 1]) + _rows(2, "react", [1, 1]))
    out = paired_differences(rows, "vista")
    assert out[(1, "react")][0] == pytest.approx(-0.5)
    assert out[(1, "vista")] == (0.0, 0.0, 0.0)
    assert out[(2, "react")] == (0.0, 0.0, 0.0)   # a tie: an interval of zero width
    # rows in another order pair the same way
    assert paired_differences(rows[::-1], "vista") == out


def test_partial_pairing_is_an_error():
    rows = _rows(1, "vista", [1, 0, 1]) + _rows(1, "react", [1, 0])
    with pytest.raises(ValueError, match="react"):
        paired_differences(rows, "vista")
