"""The tabulated content-channel moments (sim.games.content_burden) against the plain
adaptive quadrature they replaced (sim.games.reference.content_moment_quad), against
the blind law in the sigma -> oo limit, and the table's own normalisation."""

import math

import numpy as np
import pytest

from sim.games import content_burden
from sim.games.content_burden import (content_EZ, content_Z_moments,
                                      content_Z_moments_with_error)
from sim.games.reference import content_moment_quad
from theory.bounds import blind_EZ

# Small and huge n, every kappa and sigma of the theorem1 grid's range.
POINTS = [(3, 2, 0.5), (16, 4, 0.25), (17, 16, 2.0), (64, 8, 4.0), (1000, 16, 0.25),
          (2**12, 2, 1.0), (10**6, 16, 1.0), (2**20, 16, 0.5), (2**24, 8, 0.5), (2**32, 2, 0.5),
          (2**40, 16, 1.0), (2**40, 4, 4.0)]


@pytest.mark.parametrize("n,kappa,sigma", POINTS)
def test_moments_equal_the_plain_quadrature(n, kappa, sigma):
    # The old path's own tolerance is epsabs 1e-11 (times kappa for power 2) plus
    # epsrel 1e-10; the tabulated values must sit inside it.
    m1, m2 = content_Z_moments(n, kappa, sigma)
    for p, m in ((1, m1), (2, m2)):
        ref = content_moment_quad(n, kappa, sigma, p)
        assert abs(m - ref) <= 1e-11 * kappa ** (p - 1) + 1e-10 * ref, (p, m, ref)
    assert content_EZ(n, kappa, sigma) == m1
    assert content_EZ(n, kappa, sigma, power=2) == m2


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
@pytest.mark.parametrize("n,kappa,sigma", [(2**32, 2, 0.5), (2**40, 16, 1.0),
                                           (2**24, 8, 0.5)])
def test_moments_equal_a_tight_quadrature(n, kappa, sigma):
    # At the points where the two paths differ most (~1e-11), a 1000x tighter
    # reference sides with the table to ~1e-13.
    ref = content_moment_quad(n, kappa, sigma, 1, epsabs=1e-15, epsrel=1e-14)
    assert content_EZ(n, kappa, sigma) == pytest.approx(ref, abs=1e-12 * kappa, rel=0)


@pytest.mark.parametrize("n,kappa", [(3, 2), (17, 16), (2**10, 8), (2**40, 16)])
def test_each_order_statistic_density_integrates_to_one(n, kappa):
    # a1 = sum_t f_t and a2 = sum_t (2t - 1) f_t with each f_t the density of an
    # order statistic: the integrals are kappa and sum_t (2t - 1) = kappa^2.
    v, a1, a2 = content_burden._table(n, kappa)
    h = v[1] - v[0]
    assert h * a1.sum() == pytest.approx(kappa, rel=1e-13)
    assert h * a2.sum() == pytest.approx(kappa * kappa, rel=1e-13)


@pytest.mark.parametrize("n,kappa", [(5, 2), (100, 4), (2**16, 16)])
def test_large_sigma_tends_to_the_blind_law(n, kappa):
    # c = ln(kappa)/sigma -> 0: J* is one of n exchangeable blocks, tau uniform, so
    # E[Z] is the blind channel's closed form; the gap is O(c) (first order in c).
    sigma = 1e6
    c = math.log(kappa) / sigma
    ez = content_EZ(n, kappa, sigma)
    assert ez == pytest.approx(blind_EZ(n, kappa), abs=2 * kappa * c)
    assert ez < blind_EZ(n, kappa)      # any size signal helps


def test_moments_are_ordered_and_in_range():
    for n, kappa, sigma in POINTS:
        m1, m2, err = content_Z_moments_with_error(n, kappa, sigma)
        assert 0.0 <= m1 <= kappa and m1 * m1 <= m2 <= kappa * m1 + 1e-12
        assert err < 1e-12


def test_a_coarse_grid_is_refused(monkeypatch):
    # The error estimate (step h against 2h) must be able to fail: a step far too
    # coarse for the sharp transition at n = 2^40 is refused, not returned.
    monkeypatch.setattr(content_burden, "_STEP", 0.4)
    content_burden._table.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="quadrature error"):
            content_Z_moments(2**40, 16, 1.0)
    finally:
        content_burden._table.cache_clear()


@pytest.mark.parametrize("args,match", [((10, 2, 0.5, 3), "power"), ((2, 2, 0.5, 1), "n"),
                                        ((10, 1, 0.5, 1), "kappa"), ((10, 2, -1.0, 1), "sigma")])
def test_bad_input_names_the_value(args, match):
    n, kappa, sigma, power = args
    with pytest.raises(ValueError, match=match):
        content_EZ(n, kappa, sigma, power=power)


def test_one_table_serves_every_sigma():
    content_burden._table.cache_clear()
    for sigma in (0.25, 0.5, 1.0, 2.0, 4.0):
        content_Z_moments(2**16, 8, sigma)
    info = content_burden._table.cache_info()
    assert (info.misses, info.hits) == (1, 4)
    assert np.all(np.isfinite(content_burden._table(2**16, 8)[1]))


def test_quadrature_error_exactly_at_the_limit_is_accepted_and_above_refused(monkeypatch):
    # issue 38: the documented rule is "refused when the estimate exceeds" the limit
    from sim.games import content_burden as cb

    m1, m2, err = cb.content_Z_moments_with_error(4096, 4, 0.5)
    assert 0.0 < err < 1e-10
    monkeypatch.setattr(cb, "_MAX_ERROR", err)
    assert cb.content_Z_moments_with_error(4096, 4, 0.5) == (m1, m2, err)
    monkeypatch.setattr(cb, "_MAX_ERROR", err * (1 - 1e-9))
    with pytest.raises(RuntimeError, match=r"content-channel E\[Z\] quadrature error .* "
                                           r"too large for n=4096, kappa=4, sigma=0.5"):
        cb.content_Z_moments_with_error(4096, 4, 0.5)
