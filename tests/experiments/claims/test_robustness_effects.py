"""Each claim's paired effect and SE (:mod:`experiments.claims.robustness.effects`)
against an independent computation from the episode rows, the SEs against scipy
and a bootstrap, and the per-point design seeds (:func:`~experiments.claims.
robustness.model.point_seed`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.claims.registry import REGISTRY
from experiments.claims.robustness.effects import (Effect, effect, log_ratio_se,
                                                  mean_se, supported)
from experiments.claims.robustness.model import (Design, agent_claims, point_seed,
                                                point_specs, write_csvs)


@pytest.fixture(scope="module")
def point(tmp_path_factory):
    """One world point's rows and CSVs (4 tasks, 2 queries x 3 windows)."""
    from experiments.sweep import run_sweep

    d = Design.for_claims(agent_claims(), tasks=4, queries=2,
                          windows=(4000, 12000, 64000), seed=3)
    rows = run_sweep(point_specs(d, {}), progress=False)
    out = tmp_path_factory.mktemp("effects")
    write_csvs(d, rows, out)
    return rows, out


def _values(rows, program, level, column):
    hit = sorted((r["task_id"], float(r[column])) for r in rows
                 if r["program"] == program and int(r["level"]) == level)
    return np.array([v for _, v in hit])


def test_every_agent_claim_has_an_effect(point):
    _, out = point
    for c in agent_claims():
        assert supported(c)
        e = effect(c, out)
        # a ratio over a zero sum (few tasks, no recoveries) is undefined, not 0
        undefined = e.scale == "log ratio" and math.isnan(e.value)
        assert undefined or (math.isfinite(e.se) and e.se >= 0), c.id
        assert e.low < e.high, c.id
        assert e.n in (4, 2), c.id
    with pytest.raises(ValueError, match="has no effect"):
        effect(REGISTRY["T1-sum"], out)


def test_a_paired_difference_is_the_rows_mean_difference(point):
    rows, out = point
    a = _values(rows, "vista", 128_000, "solved")
    b = _values(rows, "react", 128_000, "solved")
    e = effect(REGISTRY["Fig4-128K"], out)
    assert e.value == pytest.approx(np.mean(a - b))
    k, n = np.count_nonzero(a - b), len(a)
    floor = np.sqrt(((k + 1) / (n + 2) - np.mean(a - b) ** 2) / n)
    assert e.se == pytest.approx(max(np.std(a - b, ddof=1) / np.sqrt(n), floor))
    assert (e.low, e.high) == (0.0, math.inf)            # the paper's +28 points
    assert e.paper == pytest.approx(0.28) and e.tolerance == 0.05
    # the gap's growth pairs each task at 128K with itself at 8K
    a8, b8 = _values(rows, "vista", 8_000, "solved"), _values(rows, "react", 8_000,
                                                               "solved")
    g = effect(REGISTRY["Fig4-gap-grows"], out)
    assert g.value == pytest.approx(np.mean((a - b) - (a8 - b8)))


def test_a_ratio_is_the_log_of_the_ratio_of_sums(point):
    rows, out = point
    a = _values(rows, "vista_no_dashboard", 128_000, "agent_archives")
    b = _values(rows, "vista", 128_000, "agent_archives")
    e = effect(REGISTRY["Fig8b-archives"], out)
    assert e.scale == "log ratio"
    if a.sum() > 0 and b.sum() > 0:
        assert e.value == pytest.approx(math.log(a.sum() / b.sum()))
    assert e.paper == pytest.approx(math.log(255 / 69))
    assert e.tolerance == pytest.approx(math.log(1.5))


def test_a_rank_is_the_smallest_margin_and_a_tie_is_a_band(point):
    rows, out = point
    from sim.policies import MAIN_PROGRAMS

    v = _values(rows, "vista", 128_000, "cost_usd")
    margins = [np.mean(_values(rows, p, 128_000, "cost_usd") - v)
               for p in MAIN_PROGRAMS if p != "vista"]
    assert effect(REGISTRY["Tab2-cheapest"], out).value == pytest.approx(min(margins))
    tie = effect(REGISTRY["Fig4-8K"], out)
    assert (tie.low, tie.high) == (-0.1, 0.1)


def test_a_peak_is_the_best_interior_gain_over_the_better_end(point):
    rows, out = point
    gain = {w: np.mean(_values(rows, "vista", w, "solved")
                       - _values(rows, "react", w, "solved"))
            for w in (4000, 12000, 64000)}
    e = effect(REGISTRY["Fig6-peak"], out)
    assert e.value == pytest.approx(gain[12000] - max(gain[4000], gain[64000]))


def test_mean_se_against_scipy_and_its_edges():
    from scipy.stats import sem

    d = np.random.default_rng(1).normal(size=50)
    m, se, n = mean_se(d)
    assert (m, n) == (pytest.approx(d.mean()), 50) and se == pytest.approx(sem(d))
    assert mean_se([2.0]) == (2.0, 0.0, 1)
    with pytest.raises(ValueError, match="no paired values"):
        mean_se([])


def test_a_tie_on_every_task_is_not_an_exact_zero():
    """45 tied 0/1 outcomes: SE sqrt(1 / 47 / 45) = 0.0217 (Laplace), not 0; one
    discordant task: sqrt((2 / 47 - 1 / 45^2) / 45) = 0.0306, more than none (the
    floor grows with the evidence of discordance); most tasks discordant: the
    sample SE (the floor is below it)."""
    assert mean_se(np.zeros(45), counts=True)[1] == pytest.approx(np.sqrt(1 / 47 / 45))
    assert mean_se(np.zeros(45))[1] == 0.0
    one = np.zeros(45)
    one[0] = 1
    assert mean_se(one, counts=True)[1] == pytest.approx(
        np.sqrt((2 / 47 - 1 / 45**2) / 45))
    many = np.random.default_rng(0).choice([-1.0, 1.0], 45)
    assert mean_se(many, counts=True)[1] == pytest.approx(np.std(many, ddof=1) / np.sqrt(45))


def test_log_ratio_se_against_a_bootstrap(rng):
    """The delta method against the SD of a paired bootstrap of log(sum a / sum b);
    tolerance: 15% (the bootstrap SD's own error at 2,000 resamples is ~2%, the
    delta method's at n = 200 a few %)."""
    n = 200
    b = rng.poisson(4.0, n).astype(float)
    a = b * 2 + rng.poisson(3.0, n)  # positively paired
    r, se = log_ratio_se(a, b)
    idx = rng.integers(0, n, (2000, n))
    boot = np.log(a[idx].sum(1) / b[idx].sum(1))
    assert r == pytest.approx(math.log(a.sum() / b.sum()))
    assert se == pytest.approx(boot.std(), rel=0.15)
    # ignoring the pairing's covariance would overstate it
    naive = math.sqrt(a.var(ddof=1) / (n * a.mean()**2) + b.var(ddof=1) / (n * b.mean()**2))
    assert naive > 1.3 * se
    assert all(math.isnan(x) for x in log_ratio_se([0.0, 0.0], [1.0, 2.0]))


def test_effect_holds_is_strict_at_both_ends():
    e = Effect(0.1, 0.0, -0.1, 0.1)
    assert not e.holds() and Effect(0.0999, 0.0, -0.1, 0.1).holds()
    assert not Effect(0.0, 0.0, 0.0, math.inf).holds()


def test_each_point_draws_its_own_design_seed_reproducibly():
    seeds = [point_seed(0, "sobol", i) for i in range(200)]
    assert len(set(seeds)) == 200
    assert seeds == [point_seed(0, "sobol", i) for i in range(200)]
    assert point_seed(0, "morris", 0) != seeds[0] != point_seed(1, "sobol", 0)
    d = Design(tasks=2, queries=1, windows=(4000, 12000, 64000))
    a, b = point_specs(d, {}, seeds[0]), point_specs(d, {}, seeds[1])
    assert {s.task.base_seed for s in a} == {seeds[0]}
    assert {s.task.base_seed for s in b} == {seeds[1]}
    assert point_specs(d, {}) == point_specs(d, {}, d.seed)


def test_effects_at_the_defaults_agree_with_a_600_task_measurement(tmp_path):
    """At the world's defaults, each claim's effect from the robustness design
    (45 tasks, 6 queries per window, the default point's drawn design seed) agrees
    with a direct measurement on 600 other tasks (60 queries per window) within
    the combined SE: |d45 - d600| <= z sqrt(se45^2 + se600^2), z the two-sided
    normal quantile at 5% familywise over the claims (Bonferroni)."""
    from scipy.stats import norm

    from experiments.settings.robustness import RobustnessSettings
    from experiments.sweep import run_sweep

    claims = agent_claims()
    windows = tuple(RobustnessSettings().windows)
    small = Design.for_claims(claims, tasks=RobustnessSettings().tasks, queries=6,
                              windows=windows, seed=0)
    big = Design.for_claims(claims, tasks=600, queries=60, windows=windows, seed=1)
    effects = []
    for d, seed in ((small, point_seed(0, "default", 0)), (big, None)):
        out = tmp_path / str(d.tasks)
        out.mkdir()
        write_csvs(d, run_sweep(point_specs(d, {}, seed), progress=False), out)
        effects.append({c.id: effect(c, out) for c in claims})
    z = norm.ppf(1 - 0.05 / (2 * len(claims)))
    checked = 0
    for c in claims:
        a, b = effects[0][c.id], effects[1][c.id]
        if not (math.isfinite(a.value) and math.isfinite(b.value)):
            continue  # a ratio over a zero sum at 45 tasks: nothing to compare
        checked += 1
        assert abs(a.value - b.value) <= z * math.hypot(a.se, b.se) + 1e-12, \
            (c.id, a.value, a.se, b.value, b.se)
    assert checked >= len(claims) - 2
