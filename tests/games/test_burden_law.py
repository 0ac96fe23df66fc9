"""The exact law of the recovery burden Z (sim.games.burden_law): moments against
sympy summation and enumeration of tau's law, against large Monte Carlo runs of the
simulators, and the Bernstein half-width's coverage in rare-event rows."""

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from scipy import stats

from sim.games.burden_law import Z_moments, Z_variance, mc_halfwidth, uniform_Z_moments
from sim.games.channels import Blind, Content, Ledger, ListChannel, WindowedLedger
from sim.games.content_burden import content_EZ
from sim.games.eviction import play
from theory.bounds import blind_EZ, list_achievability_EZ_m, windowed_EZ


def test_uniform_moments_equal_sympy_summation_and_enumeration():
    # sympy: the Faulhaber sums over u = 0..K, K = min(M - 1, kappa), symbolically in K;
    # enumeration: every u of Uniform{0..M-1} as an exact fraction.
    u, K, M, k = sp.symbols("u K M k", integer=True, nonnegative=True)
    forms = [(sp.summation(u**p, (u, 0, K)) + (M - 1 - K) * k**p) / M for p in (1, 2)]
    for Mv in (1, 2, 3, 5, 17, 64, 1000):
        for kv in (0, 1, 2, 4, 16, 999, 2000):
            Kv = min(Mv - 1, kv)
            for p, form in zip((1, 2), forms):
                symbolic = form.subs({K: Kv, M: Mv, k: kv})
                enumerated = Fraction(sum(min(x, kv) ** p for x in range(Mv)), Mv)
                assert symbolic == sp.Rational(enumerated.numerator, enumerated.denominator)
                assert uniform_Z_moments(Mv, kv)[p - 1] == pytest.approx(float(enumerated),
                                                                          rel=1e-14, abs=0)


def _enumerated(n, kappa, channel):
    """(E[Z], E[Z^2]) as exact fractions by enumerating tau's law (THEORY.md §2)."""
    if isinstance(channel, Ledger):
        law = {1: Fraction(1)}
    elif isinstance(channel, Blind):
        law = {t: Fraction(1, n) for t in range(1, n + 1)}
    elif isinstance(channel, ListChannel):
        m = channel.list_size(n)
        law = {t: Fraction(1, m) for t in range(1, m + 1)}
    else:
        w = channel.w
        law = {t: Fraction(n - w, n) / (n - w) for t in range(1, n - w + 1)} if w < n else {}
        law[1] = law.get(1, 0) + Fraction(w, n)
    m1 = sum(p * min(t - 1, kappa) for t, p in law.items())
    m2 = sum(p * min(t - 1, kappa) ** 2 for t, p in law.items())
    return m1, m2


@pytest.mark.parametrize("n,kappa,channel", [
    (20, 4, Ledger()), (20, 4, Blind()), (3, 2, Blind()), (64, 16, ListChannel(m=5)),
    (64, 16, ListChannel(m=17)), (64, 4, ListChannel(m=64)), (40, 8, WindowedLedger(w=0)),
    (40, 8, WindowedLedger(w=35)), (40, 8, WindowedLedger(w=39)), (40, 8, WindowedLedger(w=40)),
])
def test_discrete_moments_equal_enumeration_and_closed_forms(n, kappa, channel):
    m1, m2 = Z_moments(n, kappa, channel)
    e1, e2 = _enumerated(n, kappa, channel)
    assert m1 == pytest.approx(float(e1), rel=1e-14, abs=1e-300)
    assert m2 == pytest.approx(float(e2), rel=1e-14, abs=1e-300)
    # the first moment is also theory.bounds' independent closed form
    ref = {Ledger: lambda: 0.0, Blind: lambda: blind_EZ(n, kappa),
           ListChannel: lambda: list_achievability_EZ_m(channel.list_size(n), kappa),
           WindowedLedger: lambda: windowed_EZ(n, kappa, channel.w)}[type(channel)]()
    assert m1 == pytest.approx(ref, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("n,kappa,sigma", [(3, 2, 0.5), (50, 4, 1.0), (1000, 16, 0.25)])
def test_content_moments_equal_summation_over_the_binomial(n, kappa, sigma):
    # Independent route: E[min(C, kappa)^p] = E_eps sum_c min(c, kappa)^p pmf(c), the
    # pmf summed explicitly, eps by Gauss-Hermite quadrature (200 nodes).
    x, w = np.polynomial.hermite_e.hermegauss(200)
    w = w / w.sum()
    q = stats.norm.sf(math.log(kappa) / sigma + x)
    c = np.arange(n)
    pmf = stats.binom.pmf(c[None, :], n - 1, q[:, None])
    for p in (1, 2):
        ref = float(w @ (pmf @ np.minimum(c, kappa) ** p))
        assert Z_moments(n, kappa, Content(sigma))[p - 1] == pytest.approx(ref, rel=1e-6,
                                                                            abs=1e-10)


@pytest.mark.parametrize("n,kappa,channel", [
    (100, 8, Blind()), (2**20, 16, ListChannel(m=2)), (2**20, 16, WindowedLedger(w=2**20 - 2)),
    (1000, 4, Content(1.0)), (2**20, 16, Content(0.5)),
])
def test_variance_matches_large_monte_carlo(n, kappa, channel):
    # 400k draws of Z from the exact sampler: the sample variance's own SE is
    # sqrt((mu4 - var^2) / N) <= kappa^2 / (2 sqrt N); allow 5 of them.
    r = play(n, kappa, channel, trials=400_000, seed=17)
    var = Z_variance(n, kappa, channel)
    z = r.Z.astype(float)
    mu4 = np.mean((z - z.mean()) ** 4)
    se_var = math.sqrt(max(mu4 - var * var, 0.0) / r.trials) + kappa**2 / r.trials
    assert abs(z.var(ddof=1) - var) <= 5 * se_var
    assert r.EZ_se == pytest.approx(math.sqrt(var / r.trials), rel=1e-12)


def test_rare_event_row_has_a_positive_standard_error():
    # content channel with sigma = 0.25, kappa = 16, n = 2^10: P(Z > 0) ~ 1e-14, so a
    # sample of 20000 is all zeros and its plug-in SE is 0, yet Var Z > 0.
    r = play(2**10, 16, Content(0.25), trials=20_000, seed=1)
    assert r.EZ_se_sample == 0.0 and np.all(r.Z == 0)
    assert r.EZ_se > 0.0
    assert r.EZ_halfwidth() >= abs(r.EZ - content_EZ(2**10, 16, 0.25))


def test_halfwidth_covers_rare_binary_means():
    # Bernoulli(p) with N p ~ 1: the normal 4-SE interval fails far more often than
    # 6.3e-5; the Bernstein half-width has coverage >= 1 - alpha exactly. Check the
    # worst case over the whole binomial law (no sampling).
    N = 20_000
    for p in (1e-6, 2.44e-4, 1e-3, 0.3):
        t = mc_halfwidth(p * (1 - p), N, 1.0)
        k = np.arange(N + 1)
        miss = stats.binom.pmf(k, N, p)[np.abs(k / N - p) >= t].sum()
        assert miss <= 6.3e-5, (p, miss)
    # ... while at p = 2.44e-4 the 4-SE normal interval misses with probability > 5e-4,
    # eight times its nominal 6.3e-5
    p = 2.44e-4
    se = math.sqrt(p * (1 - p) / N)
    k = np.arange(N + 1)
    assert stats.binom.pmf(k, N, p)[np.abs(k / N - p) > 4 * se].sum() > 5e-4


@pytest.mark.parametrize("call,name", [
    (lambda: uniform_Z_moments(0, 2), "M"), (lambda: uniform_Z_moments(3, -1), "kappa"),
    (lambda: mc_halfwidth(1.0, 0, 1.0), "trials"), (lambda: mc_halfwidth(-1.0, 5, 1.0), "variance"),
    (lambda: mc_halfwidth(1.0, 5, 1.0, alpha=0.0), "alpha"),
    (lambda: Z_moments(10, 4, Blind(), order="best"), "order"),
])
def test_bad_parameters(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()
