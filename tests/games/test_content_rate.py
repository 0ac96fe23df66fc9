"""The exact content-channel rate (sim.games.content_rate) against independent
routes: the n = 2 one-dimensional quadrature (two implementations), the brute-force
Monte Carlo estimator with SE-derived tolerances, nested scipy quadrature of the same
reduction, its c -> 0 limit, and the Proposition 2 bounds (THEORY.md §3)."""

import math

import numpy as np
import pytest
from scipy import integrate

from sim.games.content_rate import content_rate_exact
from sim.games.information import content_rate_mc, content_rate_n2, rate_bits
from sim.games.channels import Content
from sim.games.reference import numpy_brute_content
from theory.bounds import prop2_centroid_bound_bits
from theory.proposition2 import _exact_rate_n2

Z5 = 5.0

GRID = [(2, 0.25), (2, 4.0), (4, 1.0), (8, 0.5), (16, 0.25), (16, 2.0)]


@pytest.mark.parametrize("kappa,sigma", GRID)
def test_n2_equals_both_one_dimensional_quadratures(kappa, sigma):
    bits, err = content_rate_exact(2, kappa, sigma)
    assert err < 1e-10
    assert bits == pytest.approx(content_rate_n2(kappa, sigma), abs=1e-9)
    assert bits == pytest.approx(_exact_rate_n2(kappa, sigma), abs=1e-9)


@pytest.mark.parametrize("n", [3, 16, 100])
@pytest.mark.parametrize("kappa,sigma", [(2, 0.25), (4, 1.0), (16, 0.5), (8, 4.0)])
def test_matches_brute_force_monte_carlo(n, kappa, sigma):
    # The numba brute force draws all n observations and evaluates the exact
    # posterior; no control variate, so its SE is the plain sample SE.
    mc = content_rate_mc(n, kappa, sigma, trials=max(4000, 400_000 // n), seed=n + kappa,
                         control_variate=False)
    bits, _ = content_rate_exact(n, kappa, sigma)
    assert abs(bits - mc.bits) <= Z5 * mc.se_bits + 1e-12, (bits, mc)


def test_matches_plain_numpy_brute_force(rng):
    n, kappa, sigma = 64, 4, 1.0
    samples = numpy_brute_content(n, kappa, sigma, 20_000, rng)[1]
    se = samples.std(ddof=1) / math.sqrt(samples.size)
    assert abs(content_rate_exact(n, kappa, sigma)[0] - samples.mean()) <= Z5 * se


@pytest.mark.parametrize("n,kappa,sigma", [(5, 4, 1.0), (1000, 2, 0.5), (2**30, 16, 0.5)])
def test_trapezoid_grids_match_adaptive_nested_quadrature(n, kappa, sigma):
    # The same reduction evaluated by scipy's adaptive quad (inner and outer): checks
    # the grids, the ranges and the log1p/expm1 handling, not the reduction itself.
    c = math.log(kappa) / sigma

    def omega(x):         # 1 - psi(x), relative accuracy kept by -expm1
        f = lambda e: -math.expm1(-math.exp(x + c * e)) * math.exp(-e * e / 2)
        return integrate.quad(f, -12, c + 12, points=[-x / c], limit=200,
                              epsabs=0, epsrel=1e-12)[0] / math.sqrt(2 * math.pi)

    def psi(x):
        f = lambda e: math.exp(-math.exp(x + c * e) - e * e / 2)
        return integrate.quad(f, -12, 12, points=[-x / c], limit=200,
                              epsabs=1e-16)[0] / math.sqrt(2 * math.pi)

    def integrand(x):
        om = omega(x)
        if om >= 1.0:
            return psi(x + c * c)
        return -math.expm1((n - 1) * math.log1p(-om)) * psi(x + c * c)

    lo = -math.log(n) - c * c / 2 - 40
    hi = -c * c + 9.5 * c + 40
    edges = np.linspace(lo, hi, 9)
    loss = sum(integrate.quad(integrand, a, b, limit=200, epsabs=1e-12)[0]
               for a, b in zip(edges[:-1], edges[1:]))
    ref = math.log2(n) - loss / math.log(2)
    assert content_rate_exact(n, kappa, sigma)[0] == pytest.approx(ref, abs=1e-7)


def test_no_information_limit_is_zero_bits():
    # c -> 0: psi(x) = exp(-e^x) and the loss is Frullani's ln n.
    for n in (2, 17, 2**20):
        assert content_rate_exact(n, 2, 1e4)[0] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("kappa,sigma", GRID)
def test_rate_is_below_the_bounds_for_every_n(kappa, sigma):
    for e in (2, 4, 8, 16, 24, 40, 62):
        n = 2**e
        if n <= kappa:
            continue
        bits, err = content_rate_exact(n, kappa, sigma)
        assert err < 1e-9
        cap = min(prop2_centroid_bound_bits(n, kappa, sigma), math.log2(n))
        assert 0.0 <= bits <= cap + 1e-9


def test_rate_bits_uses_the_exact_rate():
    est = rate_bits(4096, 4, Content(1.0))
    assert est.method == "quadrature" and est.trials == 0 and est.se_bits < 1e-9
    assert est.bits == content_rate_exact(4096, 4, 1.0)[0]


@pytest.mark.parametrize("args,name", [((1, 4, 1.0), "n"), ((2**63, 4, 1.0), "n"),
                                       ((8, 1, 1.0), "kappa"), ((8, 4, 0.0), "sigma")])
def test_bad_parameters(args, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        content_rate_exact(*args)
