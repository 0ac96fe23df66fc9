"""Paired differences: the bootstrap interval against the closed-form standard error,
and the pairing against hand-made rows."""

import numpy as np
import pytest

from experiments.paired import bootstrap_mean_ci, compare, paired_differences


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


def test_identical_programs_have_a_point_interval():
    assert bootstrap_mean_ci(np.zeros(20)) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        bootstrap_mean_ci(np.array([]))


def _row(prog, task, solved, cached, total, dash, level=1):
    return {"program": prog, "task_id": task, "seed": 0, "level": level, "solved": solved,
            "cached_tokens": cached, "input_tokens": total, "mean_dashboard": dash}


def test_compare_pairs_by_task_and_reports_cache_hits():
    rows = [_row("a", "t1", 1, 50, 100, 10), _row("b", "t1", 1, 0, 100, 40),
            _row("a", "t2", 0, 30, 100, 20), _row("b", "t2", 1, 90, 100, 60),
            _row("a", "t3", 1, 0, 100, 30)]  # t3 has no partner: not paired
    (r,) = compare(rows, "a", "b", "level")
    assert r["n"] == 2 and r["accuracy"] == 0.5 and r["reference_accuracy"] == 1.0
    assert r["difference"] == -0.5 and r["ci_low"] <= -0.5 <= r["ci_high"] <= 0.0
    assert r["cache_hit"] == 0.4 and r["reference_cache_hit"] == 0.45
    assert r["mean_dashboard"] == 15 and r["reference_mean_dashboard"] == 50
    with pytest.raises(ValueError, match="share no task"):
        compare(rows[:1], "a", "b", "level")

