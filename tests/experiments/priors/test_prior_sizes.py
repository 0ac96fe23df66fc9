"""The size law of real tool results (issue 31): every fitted law is rejected by its
KS test at the numbers the source strings state, the critical values agree with
their textbook forms, the test accepts a sample that does follow the law, and
``size_sd`` is the empirical ln-size spread."""

import math

import numpy as np
import pytest
from scipy import stats

from experiments.priors.sizes import (LAWS, format_sample_sizes, gof, ks_critical,
                                      ks_floor_continuous, lilliefors_critical,
                                      log_spread)
from experiments.vista.size_law import tool_result_sizes
from sim.world import TABLE


@pytest.fixture(scope="module")
def sizes():
    return tool_result_sizes()


@pytest.fixture(scope="module")
def result(sizes):
    return gof(sizes)


def test_critical_values_match_their_reference_forms():
    for n in (50, 418, 2_000):
        # the asymptotic value against the exact finite-n one (scipy kstwo)
        assert ks_critical(n) == pytest.approx(stats.kstwo.ppf(0.95, n), rel=0.03)
        # Lilliefors (1967): 0.886 / sqrt(n) for large n at 5%
        assert lilliefors_critical(n, reps=3_000) * math.sqrt(n) == pytest.approx(
            0.886, rel=0.04)
    with pytest.raises(ValueError, match="0 < alpha < 1"):
        ks_critical(10, alpha=1.5)


def test_every_law_is_rejected_at_the_stated_statistics(result):
    assert result["n"] == 418
    assert not any(r["passes"] for r in result["laws"].values())
    src = TABLE["task.size_sd"].source
    crit_ln = result["critical_lognormal_estimated"]
    assert f"vs {crit_ln:.3f} with its parameters" in src
    assert f"vs {result['critical_asymptotic']:.3f}" in src
    labels = {"lognorm": "lognormal D", "fisk": "log-logistic", "genpareto":
              "generalized Pareto", "weibull_min": "Weibull", "gamma": "gamma"}
    for name, label in labels.items():
        assert f"{label} {result['laws'][name]['ks']:.3f}" in src, name
    assert set(labels) == set(LAWS)
    assert f"D {result['laws']['lognorm']['ks']:.3f}" in TABLE["browse.size_sd"].source


def test_no_continuous_law_can_pass(sizes, result):
    """The ties put a floor under D for every continuous law, and every fitted law
    respects it; the floor is above the critical value of a two-parameter fit."""
    floor = ks_floor_continuous(sizes)
    values, counts = np.unique(sizes, return_counts=True)
    assert values[counts.argmax()] == 22 and counts.max() == 43
    assert floor == pytest.approx(43 / 418 / 2)
    assert floor > result["critical_lognormal_estimated"]
    assert all(r["ks"] >= floor - 1e-12 for r in result["laws"].values())
    # a fitted continuous CDF at the jump: both one-sided gaps, the larger >= floor
    sd, _, scale = result["laws"]["lognorm"]["params"]
    F = stats.lognorm.cdf(22, sd, 0, scale)
    below, at = (sizes < 22).mean(), (sizes <= 22).mean()
    assert max(F - below, at - F) >= floor
    assert f"force D >= {floor:.3f} for any continuous" in TABLE["task.size_sd"].source


def test_the_test_accepts_a_sample_that_follows_the_law(sizes, result):
    """A lognormal sample of the same size and fitted parameters passes its own test
    in about 95% of draws (40 draws: at least 33, a binomial 5-sigma floor)."""
    sd, _, scale = result["laws"]["lognorm"]["params"]
    rng = np.random.default_rng([31, 5])
    crit = result["critical_lognormal_estimated"]
    passed = 0
    for _ in range(40):
        x = rng.lognormal(math.log(scale), sd, sizes.size)
        s, _, sc = stats.lognorm.fit(x, floc=0)
        passed += stats.kstest(x, "lognorm", (s, 0, sc)).statistic <= crit
    assert passed >= 33


def test_size_sd_is_the_empirical_log_spread(sizes):
    sp = log_spread(sizes)
    # independent route: the lognormal MLE's shape is the population sd of ln s
    assert sp["sd"] == pytest.approx(stats.lognorm.fit(sizes, floc=0)[0], rel=1e-3)
    lo, hi = sp["sd_ci95"]
    assert lo < sp["sd"] < hi
    row = TABLE["task.size_sd"]
    assert row.default == round(sp["sd"], 3) == TABLE["browse.size_sd"].default
    assert f"CI {lo:.2f}-{hi:.2f}" in row.source
    assert row.low < lo and hi < row.high and "guess" in row.source


def test_format_samples_are_reported_apart(sizes):
    samples = format_sample_sizes()
    assert samples.size == 17 and (samples > 0).all()
    # pooled, the verdict does not move: every law is still rejected
    pooled = gof(np.concatenate([sizes, samples]))
    assert pooled["n"] == 435 and not any(r["passes"] for r in pooled["laws"].values())
    with pytest.raises(ValueError, match="all > 0"):
        gof([1.0, 0.0])
