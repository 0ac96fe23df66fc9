"""theory.bounds against plain-Python brute-force references, shapes and errors."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as stg

from theory import bounds, brute


# ----------------------------------------------------------------------------- references

def ref_bound_sum(I, n, kappa):
    """sum_{t=1}^{kappa} max(0, 1 - (I+1)/log2(n/t)), term by term with math."""
    return sum(max(0.0, 1 - (I + 1) / math.log2(n / t)) for t in range(1, kappa + 1))


def ref_uniform_burden(m, kappa):
    """E[min(U - 1, kappa)], U ~ Uniform{1..m}, as an exact Fraction (average over U)."""
    return Fraction(sum(min(u - 1, kappa) for u in range(1, m + 1)), m)


@stg.composite
def games(draw, max_n=5000):
    """(I, n, kappa): integer 2 <= kappa < n, I in [0, log2 n]."""
    kappa = draw(stg.integers(2, 200))
    n = draw(stg.integers(kappa + 1, max(kappa + 1, max_n)))
    I = draw(stg.floats(0, 1)) * math.log2(n)
    return I, n, kappa


# ----------------------------------------------------------------------------- Theorem 1

@given(games())
def test_bound_sum_and_affine_match_brute_force(game):
    """bound_sum / bound_affine equal the termwise sums, and affine <= sum <= kappa."""
    I, n, kappa = game
    s, a = bounds.bound_sum(I, n, kappa), bounds.bound_affine(I, n, kappa)
    assert s == pytest.approx(ref_bound_sum(I, n, kappa), rel=1e-12, abs=1e-12)
    assert a == pytest.approx(kappa * max(0.0, 1 - (I + 1) / math.log2(n / kappa)),
                              rel=1e-12, abs=1e-12)
    assert a <= s + 1e-12 and s <= kappa


@given(games(), stg.floats(0, 1))
def test_bound_sum_non_increasing_in_rate(game, frac):
    """More information never raises the lower bound."""
    I, n, kappa = game
    J = I + frac * (math.log2(n) - I)
    assert bounds.bound_sum(J, n, kappa) <= bounds.bound_sum(I, n, kappa) + 1e-12


def test_bound_sum_blocks_large_kappa():
    """kappa above the internal block size (4096) sums every block."""
    I, n, kappa = 0.5, 10 ** 6, 9000
    assert bounds.bound_sum(I, n, kappa) == pytest.approx(ref_bound_sum(I, n, kappa), rel=1e-12)


@given(stg.integers(2, 60), stg.integers(1, 5))
def test_blind_and_list_burden_match_uniform_average(kappa, extra):
    """blind_EZ and list_achievability_EZ_m equal the exact average over tau."""
    n = kappa + extra
    assert bounds.blind_EZ(n, kappa) == pytest.approx(float(ref_uniform_burden(n, kappa)),
                                                      rel=1e-13)
    for m in range(1, n + 1):
        assert bounds.list_achievability_EZ_m(m, kappa) == pytest.approx(
            float(ref_uniform_burden(m, kappa)), rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("n,m,kappa", [(5, 3, 2), (6, 4, 3), (6, 6, 2), (5, 1, 4)])
def test_list_burden_matches_literal_game(n, m, kappa):
    """Against playing every J*, list and order of the literal game."""
    assert bounds.list_achievability_EZ_m(m, kappa) == pytest.approx(
        float(brute.list_channel_EZ(n, m, kappa)), abs=1e-15)


@given(stg.integers(3, 2 ** 20), stg.integers(2, 40), stg.floats(0, 1))
def test_list_rate_form_at_integer_m(n, kappa, frac):
    """At the integer m of list_size_for_rate, both list forms agree and the rate is log2(n/m)."""
    if kappa >= n:
        return
    m, r_eff = bounds.list_size_for_rate(n, frac * math.log2(n))
    assert 1 <= m <= n and isinstance(m, int)
    assert r_eff == pytest.approx(math.log2(n / m), abs=1e-12)
    assert bounds.list_achievability_EZ(n, kappa, r_eff) == pytest.approx(
        bounds.list_achievability_EZ_m(m, kappa), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("n,kappa", [(4, 2), (5, 3), (6, 2), (6, 4)])
def test_windowed_matches_literal_game_and_joint_pmf(n, kappa):
    """windowed_EZ / windowed_rate_bits against the literal game and the joint pmf."""
    for w in range(n + 1):
        assert bounds.windowed_EZ(n, kappa, w) == pytest.approx(
            float(brute.windowed_EZ(n, w, kappa)), abs=1e-15)
        assert bounds.windowed_rate_bits(n, w) == pytest.approx(
            brute.mutual_information_bits(brute.windowed_joint(n, w)), abs=1e-12)


@given(stg.integers(3, 10 ** 9), stg.floats(0, 1))
def test_windowed_rate_endpoints_and_range(n, frac):
    """Rate in [0, log2 n]: 0 at w = 0, log2 n at w = n - 1 and n."""
    w = int(frac * n)
    rate = bounds.windowed_rate_bits(n, w)
    assert -1e-12 <= rate <= math.log2(n) + 1e-12
    assert bounds.windowed_rate_bits(n, 0) == 0
    assert bounds.windowed_rate_bits(n, n) == pytest.approx(math.log2(n))
    assert bounds.windowed_rate_bits(n, n - 1) == pytest.approx(math.log2(n))


@given(games(), stg.floats(0, 1))
def test_threshold_and_price(game, delta):
    """Threshold = price at Delta = (1 - delta) kappa; the floor meets the target there."""
    _, n, kappa = game
    thr = bounds.threshold_rate_bits(n, kappa, delta)
    assert thr == pytest.approx((1 - delta) * math.log2(n / kappa) - 1, abs=1e-12)
    assert bounds.price_rate_bits(n, kappa, (1 - delta) * kappa) == pytest.approx(thr, abs=1e-12)
    nu = bounds.nu_bits(n, kappa)
    assert kappa * (1 - (thr + 1) / nu) == pytest.approx(delta * kappa, abs=1e-9)


@given(games(max_n=10 ** 6), stg.integers(0, 6))
def test_list_fano_bound(game, log_m):
    """In (0, 1], equal to 1 at m = n, and the formula otherwise."""
    I, n, _ = game
    m = min(n, 2 ** log_m)
    got = bounds.list_fano_bound(I, n, m)
    want = 1.0 if m == n else min(1.0, (I + 1) / math.log2(n / m))
    assert 0 < got <= 1 and got == pytest.approx(want, rel=1e-12)


# ----------------------------------------------------------------------------- Proposition 2

@given(stg.integers(3, 10 ** 6), stg.integers(2, 1000), stg.floats(0.01, 100))
def test_prop2_bounds(n, kappa, sigma):
    """Closed forms in bits; centroid = paper x (n-1)/(2n) < paper."""
    if kappa >= n:
        return
    paper = bounds.prop2_paper_bound_bits(kappa, sigma)
    centroid = bounds.prop2_centroid_bound_bits(n, kappa, sigma)
    assert paper == pytest.approx(math.log(kappa) ** 2 / (sigma ** 2 * math.log(2)), rel=1e-12)
    assert centroid == pytest.approx(paper * (n - 1) / (2 * n), rel=1e-12)
    assert centroid < paper


# ----------------------------------------------------------------------------- shapes and errors

def test_broadcasting_and_scalar_types():
    """Scalars give Python floats; arrays broadcast like numpy."""
    assert isinstance(bounds.bound_sum(1.0, 100, 4), float)
    I = np.linspace(0, 5, 6)[:, None]
    kappa = np.array([2, 3, 10])
    out = bounds.bound_sum(I, 1000, kappa)
    assert out.shape == (6, 3)
    for i in range(6):
        for j in range(3):
            want = ref_bound_sum(I[i, 0], 1000, int(kappa[j]))
            assert out[i, j] == pytest.approx(want, abs=1e-12)
    assert bounds.windowed_EZ(100, 4, np.arange(101)).shape == (101,)
    sigmas = np.array([[1.0], [2.0]])
    assert bounds.prop2_centroid_bound_bits(np.array([10, 100]), 2, sigmas).shape == (2, 2)
    m, r = bounds.list_size_for_rate(np.array([16, 1024]), 2.0)
    assert list(m) == [4, 256] and np.allclose(r, 2.0)
    assert bounds.bound_sum(40.0, 2.0 ** 40, 2) == 0.0          # integral float n accepted


BAD = [
    (bounds.bound_sum, (1.0, 100, 1), "kappa"),
    (bounds.bound_sum, (1.0, 100, 2.5), "kappa"),
    (bounds.bound_sum, (1.0, 4, 4), "n"),
    (bounds.bound_sum, (1.0, 4.5, 3), "n"),
    (bounds.bound_sum, (-0.1, 100, 4), "I_bits"),
    (bounds.bound_sum, (7.0, 100, 4), "I_bits"),
    (bounds.bound_affine, (np.nan, 100, 4), "I_bits"),
    (bounds.blind_EZ, (3, 3), "n"),
    (bounds.list_fano_bound, (1.0, 10, 11), "m"),
    (bounds.list_fano_bound, (1.0, 10, 0), "m"),
    (bounds.list_achievability_EZ, (100, 4, 7.0), "r"),
    (bounds.list_achievability_EZ_m, (0, 4), "m"),
    (bounds.list_size_for_rate, (16, -1.0), "r"),
    (bounds.windowed_rate_bits, (10, 11), "w"),
    (bounds.windowed_rate_bits, (10, -1), "w"),
    (bounds.windowed_EZ, (10, 4, 1.5), "w"),
    (bounds.threshold_rate_bits, (100, 4, 1.5), "delta"),
    (bounds.price_rate_bits, (100, 4, 5.0), "Delta"),
    (bounds.prop2_paper_bound_bits, (4, 0.0), "sigma"),
    (bounds.prop2_paper_bound_bits, (4, -1.0), "sigma"),
    (bounds.prop2_centroid_bound_bits, (3, 4, 1.0), "n"),
    (bounds.prop2_centroid_bound_bits, (10, 1, 1.0), "kappa"),
    (bounds.nu_bits, (np.array([10, 3]), 3), "n"),
]


@pytest.mark.parametrize("func,args,name", BAD, ids=[f"{f.__name__}-{a}" for f, a, _ in BAD])
def test_invalid_arguments_name_the_parameter(func, args, name):
    """ValueError whose message starts with the offending parameter's name."""
    with pytest.raises(ValueError, match=rf"^{name} "):
        func(*args)


@given(stg.integers(2, 2 ** 40), stg.floats(0, 1))
def test_list_size_is_a_nearest_integer(n, frac):
    """Independent route (50-digit arithmetic, not the rint it uses): the list size
    for a rate is a nearest integer in 1..n to n 2^-r, with rate log2(n/m)."""
    from theory.list_channel import _nearest_list_size_gap

    assert _nearest_list_size_gap(bounds.list_size_for_rate, n, frac * math.log2(n)) == 0.0
