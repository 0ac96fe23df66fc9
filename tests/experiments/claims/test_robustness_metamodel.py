"""The estimator of :mod:`experiments.claims.robustness.metamodel` validated before
it is trusted (issue 30, item 2): on test functions with a known share of the
prior where the effect has its sign and known heteroscedastic noise, its 95%
interval covers the truth at its stated rate over repeated runs (fresh points,
fresh noise), where counting the noisy points' signs does not; its held-out check
is calibrated; tolerance bands and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from experiments.claims.robustness.metamodel import (Metamodel, cross_validate,
                                                    prior_resample, share_draws,
                                                    summarise)

D = 4  # parameters; x4 does not enter f (an irrelevant parameter, as most are)


def f(X):
    """effect = a x1 + b x2 x3 (centred): a main effect and an interaction."""
    return 0.8 * (X[:, 0] - 0.6) + 2.0 * (X[:, 1] - 0.5) * (X[:, 2] - 0.5)


@pytest.fixture(scope="module")
def truth():
    """The share where f > 0 over the uniform prior, by 2 million draws (SE 3.5e-4,
    far below the intervals tested)."""
    X = np.random.default_rng(12345).random((2_000_000, D))
    return float(np.mean(f(X) > 0))


def one_run(seed, n, share_sizes):
    rng = np.random.default_rng(seed)
    X = rng.random((n, D))
    se = rng.uniform(0.05, 0.25, n)  # per-point noise, known, as big as f's spread
    y = f(X) + se * rng.standard_normal(n)
    s = summarise(X, y, se, 0.0, np.inf, seed=seed, **share_sizes)
    naive = float(np.mean(y > 0))
    return s, naive


def coverage(truth, reps, n, sizes):
    hits, naive_hits, widths = 0, 0, []
    for r in range(reps):
        s, naive = one_run(1000 + r, n, sizes)
        hits += s.sign_share.lo <= truth <= s.sign_share.hi
        widths.append(s.sign_share.hi - s.sign_share.lo)
        # the naive count, given the same interval width around it
        w = (s.sign_share.hi - s.sign_share.lo) / 2
        naive_hits += naive - w <= truth <= naive + w
    return hits, naive_hits, float(np.mean(widths))


def _lowest_acceptable(reps, rate=0.95, alpha=0.005):
    """The smallest hit count not rejected at ``alpha`` for a true rate of 0.95."""
    return int(binom.ppf(alpha, reps, rate))


def test_the_interval_covers_the_known_share_at_its_rate(truth):
    reps = 10
    hits, naive_hits, width = coverage(truth, reps, 40,
                                       {"prior_points": 300, "draws": 150})
    assert hits >= _lowest_acceptable(reps), (hits, reps)
    assert width < 0.35  # informative, not [0, 1]
    # the noisy points' sign count (what a verdict count estimates) misses it
    assert naive_hits < hits


def test_the_interval_covers_the_known_share_at_its_rate_many_runs(truth):
    reps = 100
    hits, naive_hits, width = coverage(truth, reps, 80,
                                       {"prior_points": 1000, "draws": 400})
    assert hits >= _lowest_acceptable(reps), (hits, reps)
    assert width < 0.25
    assert naive_hits < hits


def test_a_constant_effect_under_noise_has_its_sign_everywhere():
    """f = 0.1 everywhere with noise SD 0.2: a third of the points have the wrong
    sign, the expected effect none."""
    rng = np.random.default_rng(7)
    X = rng.random((60, D))
    se = np.full(60, 0.2)
    y = 0.1 + se * rng.standard_normal(60)
    s = summarise(X, y, se, 0.0, np.inf, seed=1, prior_points=300, draws=200)
    # covers the truth (1) where the naive count sits far below it; the plug-in
    # fit may read some noise as structure, which widens the interval downward
    assert s.sign_share.hi >= 0.99 and s.sign_share.value > 0.85
    assert np.mean(y > 0) < 0.8
    assert s.mean.lo <= 0.1 <= s.mean.hi


def test_a_band_and_the_mean_and_spread_of_a_linear_effect():
    """f = x1: the share in (0.2, 0.5) is 0.3; mean 1/2, spread 1/sqrt(12); each
    95% interval covers its truth in most of 8 runs (fewer than 6 has probability
    4e-4 at the stated rate)."""
    rng = np.random.default_rng(3)
    X = rng.random((80, 2))
    se = np.full(80, 0.02)
    y = X[:, 0] + se * rng.standard_normal(80)
    hits = np.zeros(4, int)
    for seed in range(8):
        s = summarise(X, y, se, 0.2, 0.5, paper=0.35, tolerance=0.15, seed=seed,
                      prior_points=800, draws=200)
        hits += [s.sign_share.lo <= 0.3 <= s.sign_share.hi,
                 s.tolerance_share.lo <= 0.3 <= s.tolerance_share.hi,
                 s.mean.lo <= 0.5 <= s.mean.hi,
                 s.spread.lo <= 1 / np.sqrt(12) <= s.spread.hi]
    assert (hits >= 6).all(), hits


def test_the_held_out_check_is_calibrated_and_catches_understated_noise():
    rng = np.random.default_rng(11)
    X = rng.random((100, D))
    se = rng.uniform(0.05, 0.2, 100)
    y = f(X) + se * rng.standard_normal(100)
    cv = cross_validate(Metamodel(X, y, se, seed=0))
    assert 0.75 < cv["z_sd"] < 1.3 and cv["coverage"] >= 0.88
    # SEs 10x too small and no room for white noise would show as z_sd >> 1; the
    # fitted white term absorbs part, so the check stays near 1 only if it is used
    m = Metamodel(X, y, se / 10, seed=0)
    assert m.white > 0.01 or cross_validate(m)["z_sd"] > 1.5


def test_the_prior_resample_adds_the_prior_sampling_error():
    """Draws that are +-1 at random have share 1/2; over 100 prior draws the share
    varies by the binomial 0.05 within a row, and by sqrt(2) x 0.05 once each row
    is also resampled (the error of having used only 100 prior draws)."""
    rng = np.random.default_rng(0)
    F = np.where(rng.random((4000, 100)) < 0.5, 1.0, -1.0)
    assert 0.045 < share_draws(F, 0.0, np.inf).std() < 0.055
    s = share_draws(prior_resample(F, rng), 0.0, np.inf)
    assert 0.065 < s.std() < 0.077 and abs(s.mean() - 0.5) < 0.01
    assert share_draws(np.array([[0.0, 0.1, 0.2]]), 0.0, 0.2)[0] == pytest.approx(1 / 3)


@pytest.mark.parametrize("args,match", [
    ((np.zeros((2, 2)), np.zeros(2), np.zeros(2)), "at least 3"),
    ((np.zeros((3, 2)), np.zeros(4), np.zeros(3)), "need X"),
    ((np.zeros((3, 2)), np.array([0, 1, np.nan]), np.zeros(3)), "finite"),
    ((np.zeros((3, 2)), np.zeros(3), -np.ones(3)), "finite and >= 0"),
    ((np.full((3, 2), 2.0), np.zeros(3), np.zeros(3)), "unit cube")])
def test_bad_input_is_named(args, match):
    with pytest.raises(ValueError, match=match):
        Metamodel(*args)


def test_an_effect_that_is_exactly_zero_has_no_sign():
    """Where a world makes both arms fail every task the effect is 0 with SE 0;
    past a threshold it grows: f = -0.4 clip((x1 - 0.4) / 0.2, 0, 1) has the
    negative sign in 0.6 of the prior, not in 0.8 (the zero region split by the
    posterior's jitter). Most of 4 runs cover 0.6 (a sharp step instead of a ramp
    is smeared by the smooth kernel and overstates the share: a known limit)."""
    hits = 0
    for seed in range(4):
        rng = np.random.default_rng(5 + seed)
        X = rng.random((80, 2))
        f = -0.4 * np.clip((X[:, 0] - 0.4) / 0.2, 0, 1)
        se = np.where(f == 0, 0.0, 0.05)
        s = summarise(X, f + se * rng.standard_normal(80), se, -np.inf, 0.0, seed=0,
                      prior_points=600, draws=200)
        hits += s.sign_share.lo <= 0.6 <= s.sign_share.hi
        assert s.sign_share.hi < 0.7
    assert hits >= 3
