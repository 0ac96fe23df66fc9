"""The content rate's exact quadrature at the edges the first mutmut run over
``sim/games/content_rate.py`` left open (issue 38): its error estimate in bits (the
fine and the coarse rule's losses converted from nats), its n check, and a run that
raises no floating-point warning where exp overflows and ln(0) is taken on purpose."""

import math
import warnings

import numpy as np
import pytest

from sim.games import content_rate as cr


@pytest.mark.parametrize("n,kappa,sigma", [(2, 2, 1.0), (4096, 8, 0.5), (2**40, 64, 0.25)])
def test_rate_and_error_are_the_two_rules_losses_in_bits(n, kappa, sigma):
    x, psi, omega, shifted, psi_c, omega_c, shifted_c = cr._tables(kappa, float(sigma))
    fine = cr._loss_nats(n, x, omega, shifted)
    coarse = cr._loss_nats(n, x[::2], omega_c[::2], shifted_c[::2])
    bits, err = cr.content_rate_exact(n, kappa, sigma)
    assert err == abs(fine - coarse) / math.log(2.0)
    assert bits == min(max(math.log2(n) - fine / math.log(2.0), 0.0), math.log2(n))


def test_overflow_and_log_zero_are_silenced_where_they_are_meant():
    # large c: e^(x + c eps) overflows to inf on purpose, and psi = 0 far right gives
    # ln 0 = -inf on purpose; neither may reach the user as a warning
    cr._tables.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bits, err = cr.content_rate_exact(2**40, 1024, 0.2)
    assert 0.0 <= bits <= 40.0 and err < 1e-9


@pytest.mark.parametrize("n", [2.0, True, np.float64(8.0), 1, 2**62 + 1, "8"])
def test_n_must_be_an_integer_in_range(n):
    with pytest.raises(ValueError, match=r"n must be an integer number of blocks in "
                                         r"2\.\.2\^62, got"):
        cr.content_rate_exact(n, 2, 1.0)


def test_n_at_both_ends_of_its_range_is_accepted():
    assert cr.content_rate_exact(2, 2, 1.0)[0] >= 0.0
    assert cr.content_rate_exact(np.int64(2**62), 2, 1.0)[0] <= 62.0


@pytest.mark.parametrize("c", [0.5, 2.77, 5.55, 12.0])
def test_psi_and_its_complement_match_adaptive_quadrature_far_into_the_tails(c):
    # an independent route: scipy's adaptive quad of the defining expectations,
    # 1 - psi(x) = E[1 - exp(-exp(x + c eps))], at x where it is tiny (the tilted
    # mass sits at eps = c) and where it is near 1
    from scipy import integrate, stats

    xs = np.array([-60.0 - 0.5 * c * c, -20.0, -3.0, 0.0, 2.0])
    psi, omega, _, _ = cr._psi_on_grid(xs, c, cr._EPS_STEP / max(c, 1.0))
    for x, p, o in zip(xs, psi, omega):
        f = lambda e: stats.norm.pdf(e) * -np.expm1(-np.exp(x + c * e))  # noqa: E731
        want, _ = integrate.quad(f, -12.0, c + 12.0, points=[0.0, c], limit=400,
                                 epsabs=0.0, epsrel=1e-12)
        assert o == pytest.approx(want, rel=1e-8)
        assert p == pytest.approx(1.0 - want, rel=1e-8, abs=1e-15)


def test_fine_and_coarse_sums_are_the_trapezoid_rules_at_h_and_2h():
    # a plain reference: numpy's trapezoid over the documented eps grid and every
    # other point of it (the coarse rule that gives the error estimate)
    c, step = 2.77, cr._EPS_STEP / 2.77
    xs = np.array([-30.0, -2.0, 0.5, 20.0])
    psi, omega, psi_c, omega_c = cr._psi_on_grid(xs, c, step)
    k = 2 * math.ceil((c + 2 * cr._EPS_TAIL) / (2 * step))
    eps = -cr._EPS_TAIL + step * np.arange(k + 1)
    pdf = np.exp(-0.5 * eps**2) / math.sqrt(2 * math.pi)
    for i, x in enumerate(xs):
        t = np.exp(x + c * eps)
        for got, vals, grid in [(psi[i], np.exp(-t), slice(None)),
                                (omega[i], -np.expm1(-t), slice(None)),
                                (psi_c[i], np.exp(-t), slice(None, None, 2)),
                                (omega_c[i], -np.expm1(-t), slice(None, None, 2))]:
            want = np.trapezoid((pdf * vals)[grid], eps[grid])
            assert got == pytest.approx(want, rel=1e-12, abs=1e-300)
    # where psi is ~1e-12 the two rules differ by ~3e-11 relative: the check can tell
    # the fine sum from the coarse one
    assert abs(psi[3] - psi_c[3]) > 1e-12 * psi[3]


def test_loss_takes_psi_equal_to_zero_without_a_warning():
    # far right 1 - psi may round to exactly 1 (psi = 0): ln 0 = -inf and psi^(n-1)
    # = 0 there, by design, so the integrand is psi(x + c^2) and no warning escapes
    x = np.array([0.0, 0.1, 0.2])
    omega = np.array([0.5, 1.0, 1.0])
    shifted = np.array([0.25, 0.5, 0.75])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = cr._loss_nats(8, x, omega, shifted)
    want = 0.1 * ((1 - 0.5**7) * 0.25 + 0.5 + 0.75)
    assert got == pytest.approx(want, rel=1e-14)
