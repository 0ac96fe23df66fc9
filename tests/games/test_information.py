"""Rates I(J*; Y) in bits: exact values, the Monte Carlo estimator against the n = 2
quadrature, the numpy reference and the Proposition 2 bounds (THEORY.md §3)."""

import math

import pytest

from sim.games.channels import Blind, Ledger, ListChannel, WindowedLedger
from sim.games.information import (content_rate_mc, content_rate_n2, control_variate_mean,
                                   rate_bits)
from sim.games.reference import numpy_brute_content
from theory.bounds import prop2_centroid_bound_bits, prop2_paper_bound_bits, windowed_rate_bits

Z4 = 4.0


def test_exact_rates():
    assert rate_bits(1024, 4, Ledger()).bits == 10.0
    assert rate_bits(1024, 4, Blind()).bits == 0.0
    assert rate_bits(1024, 4, ListChannel(r=3)).bits == 3.0
    assert rate_bits(1024, 4, ListChannel(m=1000)).bits == pytest.approx(math.log2(1.024))
    for w in (0, 1, 100, 1023, 1024):
        assert rate_bits(1024, 4, WindowedLedger(w=w)).bits == pytest.approx(
            windowed_rate_bits(1024, w), abs=1e-12)
    assert rate_bits(1024, 4, WindowedLedger(w=0)).bits == 0.0
    assert rate_bits(1024, 4, WindowedLedger(w=1024)).bits == 10.0


def test_windowed_rate_from_posterior_entropy():
    # Independent route: I = H(J*) - H(J*|Y), H(J*|Y) = (1 - w/n) log2(n - w).
    n = 300
    for w in range(0, n + 1, 37):
        h_post = 0.0 if w == n else (1 - w / n) * math.log2(n - w)
        assert rate_bits(n, 2, WindowedLedger(w=w)).bits == pytest.approx(math.log2(n) - h_post)


@pytest.mark.parametrize("kappa,sigma", [(2, 0.25), (2, 1.0), (4, 0.5), (8, 2.0), (16, 4.0)])
def test_monte_carlo_rate_matches_n2_quadrature(kappa, sigma):
    est = content_rate_mc(2, kappa, sigma, trials=100_000, seed=kappa)
    assert abs(est.bits - content_rate_n2(kappa, sigma)) <= Z4 * est.se_bits


def test_n2_quadrature_limits():
    # sigma -> 0: Y reveals J* (1 bit); sigma -> inf: nothing (0 bits).
    assert content_rate_n2(4, 1e-3) == pytest.approx(1.0, abs=1e-9)
    assert content_rate_n2(4, 1e3) == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("n,kappa,sigma", [(8, 2, 0.5), (64, 4, 1.0), (512, 16, 2.0)])
def test_kernel_rate_matches_numpy_reference(n, kappa, sigma, rng):
    ref = numpy_brute_content(n, kappa, sigma, 20_000, rng)[1]
    ref_mean, ref_se = ref.mean(), ref.std(ddof=1) / math.sqrt(ref.size)
    plain = content_rate_mc(n, kappa, sigma, trials=20_000, seed=1, control_variate=False)
    cv = content_rate_mc(n, kappa, sigma, trials=20_000, seed=2)
    assert abs(plain.bits - ref_mean) <= Z4 * math.hypot(plain.se_bits, ref_se)
    assert abs(cv.bits - ref_mean) <= Z4 * math.hypot(cv.se_bits, ref_se)


@pytest.mark.parametrize("n", [17, 64, 4096])
@pytest.mark.parametrize("kappa,sigma", [(2, 0.5), (4, 1.0), (16, 0.25), (16, 4.0)])
def test_rate_below_centroid_bound_and_log2n(n, kappa, sigma):
    est = content_rate_mc(n, kappa, sigma, trials=max(200, 400_000 // n), seed=3)
    cap = min(prop2_centroid_bound_bits(n, kappa, sigma), math.log2(n))
    # 1e-12: floating round-off of log2 when the posterior is a point mass (se = 0).
    assert est.bits <= cap + Z4 * est.se_bits + 1e-12
    assert prop2_centroid_bound_bits(n, kappa, sigma) <= prop2_paper_bound_bits(kappa, sigma)


def test_control_variate_is_unbiased_and_tighter(rng):
    x0 = rng.standard_normal(20_000)
    c = x0 + 0.1 * rng.standard_normal(20_000)
    samples = 3.0 + x0
    mean, se = control_variate_mean(samples, c - 0.0)
    assert abs(mean - 3.0) <= Z4 * se
    assert se < 0.2 * samples.std() / math.sqrt(samples.size)
    with pytest.raises(ValueError):
        control_variate_mean(samples[:2], c[:2])


@pytest.mark.parametrize("call,name", [
    (lambda: content_rate_mc(1, 4, 1.0), "n"),
    (lambda: content_rate_mc(8, 1, 1.0), "kappa"),
    (lambda: content_rate_mc(8, 4, 0.0), "sigma"),
    (lambda: content_rate_mc(8, 4, 1.0, trials=2), "trials"),
    (lambda: content_rate_n2(4, -1.0), "sigma"),
    (lambda: rate_bits(8, 4, ListChannel(r=3.5)), "r"),
])
def test_bad_rate_parameters(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()
