"""Paired bootstrap comparison of two programs (issue 14): the CI agrees with the
normal approximation on many tasks, degenerate differences give a point interval,
pairing is by task, and the cache-hit rate is cached / input tokens."""

import numpy as np
import pytest

from experiments.paired import compare, paired_ci


def test_bootstrap_ci_matches_normal_approximation():
    rng = np.random.default_rng(4)
    d = rng.choice([-1, 0, 0, 0, 1, 1], size=3000).astype(float)
    lo, hi = paired_ci(d, seed=1)
    se = d.std(ddof=1) / np.sqrt(d.size)
    assert lo == pytest.approx(d.mean() - 1.96 * se, abs=0.25 * se)
    assert hi == pytest.approx(d.mean() + 1.96 * se, abs=0.25 * se)


def test_identical_programs_have_a_point_interval():
    assert paired_ci(np.zeros(20)) == (0.0, 0.0)
    with pytest.raises(ValueError):
        paired_ci(np.array([]))


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
