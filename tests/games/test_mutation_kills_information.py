"""The rate estimators' arithmetic and input checks at their boundaries (issue 38:
the first mutmut run over ``sim/games/information.py`` left these edits alive).

The control-variate estimator is checked against ordinary least squares
(``numpy.linalg.lstsq`` on ``[1, c]``: the regression estimator's intercept at c = 0
and its residual standard error with n - 2 degrees of freedom), the Monte Carlo
rate's plain standard error against the same draws taken from the kernel directly,
and the n = 2 quadrature's error guard on both sides of its 1e-9 limit."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate

from sim.games import information, kernels
from sim.games.eviction import seed_chunks
from sim.games.information import (content_rate_mc, content_rate_n2,
                                   control_variate_mean, validate_rate_args)


def _ols(x, c):
    """(mean, SE) of the regression estimator by least squares on [1, c - mean c]:
    mean(x) - b mean(c) is the fitted value at c = 0."""
    x, c = np.asarray(x, float), np.asarray(c, float)
    design = np.column_stack([np.ones_like(c), c - c.mean()])
    (a, b), *_ = np.linalg.lstsq(design, x, rcond=None)
    resid = x - b * c
    se = math.sqrt(np.sum((resid - resid.mean()) ** 2) / (len(x) - 2) / len(x))
    return a - b * c.mean(), se


@pytest.mark.parametrize("scale,offset", [(1.0, 0.0), (1e-3, 0.0), (2.0, 3.0), (1e-3, -5.0)])
def test_control_variate_mean_is_the_least_squares_estimator(scale, offset):
    # a control whose sample mean is far from 0 (offset) and whose sum of squares is
    # below 1 (scale 1e-3) both matter: b must use the centred control and any
    # positive variance, however small
    rng = np.random.default_rng(7)
    c = offset + scale * rng.standard_normal(50)
    x = 4.0 + 3.0 * (c - offset) / scale + 0.5 * rng.standard_normal(50)
    mean, se = control_variate_mean(x, c)
    want_mean, want_se = _ols(x, c)
    assert mean == pytest.approx(want_mean, rel=1e-12, abs=1e-12)
    assert se == pytest.approx(want_se, rel=1e-12)


@pytest.mark.parametrize("value", [0.0, 0.5, -2.0])
def test_a_constant_control_gives_the_plain_mean_and_its_se(value):
    # a constant control carries no information: b = 0, so the estimate is mean(x)
    # and the SE uses n - 2 degrees of freedom (one spent on b, as documented)
    x = np.array([1.0, 2.0, 4.0, 7.0, 11.0])
    mean, se = control_variate_mean(x, np.full(5, value))
    assert mean == pytest.approx(5.0, rel=1e-15)
    ss = float(np.sum((x - 5.0) ** 2))
    assert se == pytest.approx(math.sqrt(ss / 3 / 5), rel=1e-14)


def test_control_variate_mean_converts_exact_numbers_to_float():
    # array-likes of real numbers (ints, Fractions) are read as float64
    x = [Fraction(1), Fraction(2), Fraction(4), Fraction(8)]
    c = [Fraction(1, 2), Fraction(-1, 2), Fraction(3, 2), Fraction(-3, 2)]
    mean, se = control_variate_mean(x, c)
    want = control_variate_mean(np.array([1.0, 2.0, 4.0, 8.0]),
                                np.array([0.5, -0.5, 1.5, -1.5]))
    assert (mean, se) == want and isinstance(mean, float) and isinstance(se, float)


@pytest.mark.parametrize("x,c", [
    (np.zeros(3), np.zeros(4)),          # 1-D, different lengths
    (np.zeros((3, 2)), np.zeros((3, 2))),  # same shape, not 1-D
    (np.zeros(2), np.zeros(2)),          # fewer than 3
])
def test_control_variate_mean_refuses_bad_shapes_naming_them(x, c):
    with pytest.raises(ValueError, match=r"samples and control must be 1-D of equal "
                                         r"length >= 3, got"):
        control_variate_mean(x, c)


def test_control_variate_mean_accepts_three_samples():
    mean, se = control_variate_mean([1.0, 2.0, 6.0], [1.0, 0.0, -1.0])
    want_mean, want_se = _ols([1.0, 2.0, 6.0], [1.0, 0.0, -1.0])
    assert mean == pytest.approx(want_mean) and se == pytest.approx(want_se)


@pytest.mark.parametrize("n", [2.0, True, np.float64(4.0), "4", 1, 0])
def test_rate_n_must_be_an_integer_at_least_two(n):
    with pytest.raises(ValueError, match=r"n must be an integer number of blocks >= 2"):
        validate_rate_args(n, 2)


def test_rate_n_two_and_numpy_integers_are_accepted():
    assert validate_rate_args(2, 2) == (2, 2)
    assert validate_rate_args(np.int64(5), 3) == (5, 3)


# -- the Monte Carlo rate ----------------------------------------------------------------
def _draws(n, kappa, sigma, trials, seed):
    """The per-trial rates and controls, from the kernel with the same seeding."""
    seeds, chunk, _ = seed_chunks(seed, trials, n)
    _, rate, eps = kernels.brute_content(n, math.log(kappa) / sigma, seeds, chunk,
                                         trials, True)
    return rate, eps


def test_mc_rate_without_control_is_the_plain_mean_and_its_se():
    n, kappa, sigma, trials = 16, 4, 1.0, 400
    est = content_rate_mc(n, kappa, sigma, trials=trials, seed=3, control_variate=False)
    rate, _ = _draws(n, kappa, sigma, trials, 3)
    assert est.bits == pytest.approx(float(np.mean(rate)), rel=1e-13)
    assert est.se_bits == pytest.approx(float(np.std(rate, ddof=1)) / math.sqrt(trials),
                                        rel=1e-12)
    assert (est.trials, est.method) == (trials, "monte-carlo")


def test_mc_rate_chunks_its_trials_by_the_work_of_one_trial():
    # n draws a trial: at n = 1024 a chunk holds 2^19 / 1024 = 512 trials, so 600
    # trials take two streams (a layout that ignored n would take one of 4096)
    n, kappa, sigma, trials = 1024, 4, 1.0, 600
    est = content_rate_mc(n, kappa, sigma, trials=trials, seed=5, control_variate=False)
    seeds, chunk, _ = seed_chunks(5, trials, n)
    assert (len(seeds), chunk) == (2, 512)
    rate, _ = _draws(n, kappa, sigma, trials, 5)
    assert est.bits == pytest.approx(float(np.mean(rate)), rel=1e-13)


def test_mc_rate_with_control_regresses_on_the_noise_of_j_star():
    n, kappa, sigma, trials = 16, 4, 1.0, 400
    est = content_rate_mc(n, kappa, sigma, trials=trials, seed=3)
    rate, eps = _draws(n, kappa, sigma, trials, 3)
    want_mean, want_se = _ols(rate, eps)
    assert est.bits == pytest.approx(want_mean, rel=1e-12)
    assert est.se_bits == pytest.approx(want_se, rel=1e-12)


def test_mc_rate_defaults_are_2000_trials_seed_0_and_the_control_variate():
    d = content_rate_mc(8, 2, 1.0)
    assert d.trials == 2000
    assert d == content_rate_mc(8, 2, 1.0, trials=2000, seed=0, control_variate=True)
    assert d != content_rate_mc(8, 2, 1.0, trials=2000, seed=1)


def test_mc_rate_is_reproducible_from_its_seed():
    a = content_rate_mc(8, 2, 1.0, trials=50, seed=11)
    assert a == content_rate_mc(8, 2, 1.0, trials=50, seed=11)


@pytest.mark.parametrize("trials", [True, 3.0, 2, 0, "10"])
def test_mc_rate_trials_must_be_an_integer_at_least_three(trials):
    with pytest.raises(ValueError, match=r"trials must be an integer >= 3, got"):
        content_rate_mc(8, 2, 1.0, trials=trials)


def test_mc_rate_accepts_three_trials():
    assert content_rate_mc(8, 2, 1.0, trials=3, seed=0).trials == 3


# -- the n = 2 quadrature's error guard ---------------------------------------------------
def _quad_with_error(err):
    real = integrate.quad

    def fake(*args, **kwargs):
        value, _ = real(*args, **kwargs)
        return value, err
    return fake


def test_n2_quadrature_error_at_the_limit_is_accepted(monkeypatch):
    want = content_rate_n2(3, 1.0)
    monkeypatch.setattr(information.integrate, "quad", _quad_with_error(1e-9))
    assert content_rate_n2(3, 1.0) == want


@pytest.mark.parametrize("err", [1.0000001e-9, 1e-8, 0.5])
def test_n2_quadrature_error_above_the_limit_raises_naming_it(monkeypatch, err):
    monkeypatch.setattr(information.integrate, "quad", _quad_with_error(err))
    with pytest.raises(RuntimeError, match=r"n = 2 rate quadrature error .* for kappa=3, "
                                           r"sigma=1.0"):
        content_rate_n2(3, 1.0)
