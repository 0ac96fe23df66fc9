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


# --- Sobol' indices on the metamodel (issue 30: the deciding parameters come from
# the effect's own indices, with intervals) ---

def _known_indices():
    """S1 and ST of f over the uniform prior, by sympy's exact integrals (an
    independent route: no sampling, no estimator)."""
    import sympy as sp

    x = sp.symbols("x1:5")
    g = sp.Rational(4, 5) * (x[0] - sp.Rational(3, 5)) + 2 * (x[1] - sp.Rational(1, 2)) \
        * (x[2] - sp.Rational(1, 2))

    def mean(h, over):
        for v in over:
            h = sp.integrate(h, (v, 0, 1))
        return h

    V = mean(g**2, x) - mean(g, x) ** 2
    s1, st = [], []
    for v in x:
        rest = [u for u in x if u != v]
        cond = mean(g, rest)  # E[f | x_v]
        s1.append(float((mean(cond**2, [v]) - mean(g, x) ** 2) / V))
        # ST_v = E[Var(f | x_~v)] / V
        st.append(float(mean(mean(g**2, [v]) - mean(g, [v]) ** 2, rest) / V))
    return s1, st


def _indices_run(seed, n=100):
    from experiments.claims.robustness.metamodel import sobol_indices

    rng = np.random.default_rng(seed)
    X = rng.random((n, D))
    se = rng.uniform(0.02, 0.08, n)
    y = f(X) + se * rng.standard_normal(n)
    return sobol_indices(Metamodel(X, y, se, seed=seed), np.random.default_rng(seed),
                         base=256, blocks=4, draws=50)


def test_pathwise_draws_have_the_posteriors_mean_and_covariance():
    rng = np.random.default_rng(1)
    X = rng.random((100, D))
    se = rng.uniform(0.02, 0.08, 100)
    m = Metamodel(X, f(X) + se * rng.standard_normal(100), se, seed=0)
    Z = rng.random((6, D))
    mu, C = m.posterior(Z)
    n = 20_000
    F = m.mean + m.scale * m.pathwise(n, np.random.default_rng(2), features=4096)(Z)
    sd = np.sqrt(np.diag(C))
    # the mean is exact in expectation: within 4 Monte Carlo SEs
    assert np.all(np.abs(F.mean(axis=1) - mu) < 4 * sd / np.sqrt(n))
    # the covariance up to the features' approximation of the prior
    Fs = F.std(axis=1)
    assert np.allclose(Fs, sd, rtol=0.1), (Fs, sd)
    R = C / np.outer(sd, sd)
    assert np.abs(np.corrcoef(F) - R).max() < 0.1


def test_sobol_indices_on_the_metamodel_cover_the_exact_ones():
    s1, st = _known_indices()
    # the closed form: x1 a main effect only, x2 and x3 an interaction only
    assert s1[0] == pytest.approx(st[0]) and s1[1] == pytest.approx(0, abs=1e-12)
    assert st[1] == pytest.approx(st[2]) and st[3] == 0
    ix = _indices_run(7)
    # one run: each estimate within its interval's full width of the truth (about
    # 4 SDs: 10 intervals, each a 95% one, all cover only about 60% of the time;
    # their rate is the next test's)
    for j in range(D):
        for est, true in ((ix[j].ST, st[j]), (ix[j].S1, s1[j])):
            assert abs(est.value - true) <= est.hi - est.lo + 1e-4, (j, est, true)
    assert ix[3].ST.hi < 0.01  # the parameter f ignores
    assert ix[0].ST.lo > 0.5 and ix[1].ST.lo > 0.2  # informative, not [0, 1]


@pytest.mark.long
def test_sobol_intervals_cover_the_exact_indices_at_their_rate():
    _, st = _known_indices()
    reps = 20
    hits = sum(ix[j].ST.lo <= st[j] <= ix[j].ST.hi
               for r in range(reps) for ix in [_indices_run(100 + r, n=60)]
               for j in (0, 1))
    assert hits >= _lowest_acceptable(2 * reps), (hits, 2 * reps)
    print(f"ST intervals covering the exact index: {hits} of {2 * reps}")


def test_sobol_indices_of_a_constant_effect_are_none_and_bad_sizes_are_named():
    from experiments.claims.robustness.metamodel import sobol_indices

    X = np.random.default_rng(0).random((10, 2))
    m = Metamodel(X, np.ones(10), np.full(10, 0.1))
    assert sobol_indices(m, np.random.default_rng(0), base=8, blocks=1, draws=2) is None
    for kw, match in (({"base": 12}, "power of two >= 2, got 12"),
                      ({"base": 1}, "got 1"),
                      ({"blocks": 0}, "at least one block and one draw, got 0 and")):
        with pytest.raises(ValueError, match=match):
            sobol_indices(m, np.random.default_rng(0), **kw)


def test_indices_are_reported_only_when_the_points_show_the_effect_to_vary():
    """On pure noise (no parameter matters) every one of 41 parameters got ST 0.24
    [0.19, 0.30] from the kernel's prior alone; the evidence gate reports none. The
    known function, at the same noise, passes it."""
    from experiments.claims.robustness.metamodel import EVIDENCE_MIN

    rng = np.random.default_rng(0)
    n, d = 127, 41
    X = rng.integers(0, 4, (n, d)) / 3  # a Morris-like 4-level grid
    se = rng.uniform(0.04, 0.06, n)
    noise = summarise(X, 0.1 + se * rng.standard_normal(n), se, 0, np.inf,
                      prior_points=200, draws=50, indices=True, length_min=1 / 3)
    assert noise.evidence < EVIDENCE_MIN and noise.indices is None
    X = rng.random((100, D))
    se = rng.uniform(0.02, 0.08, 100)
    real = summarise(X, f(X) + se * rng.standard_normal(100), se, 0, np.inf,
                     prior_points=200, draws=50, indices=True)
    assert real.evidence > 10 * EVIDENCE_MIN and len(real.indices) == D
    assert max(range(D), key=lambda j: real.indices[j].ST.value) == 0
