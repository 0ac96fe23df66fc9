"""``agent.sigma`` re-derived from VISTA Table 5 (issue 31): the declared range is the
inverse of the lognormal model's median relative error at 0.43 and 0.84, checked by
root-finding on a closed form written here and by Monte Carlo."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from experiments.priors import outward
from experiments.priors.sigma import TABLE5_MEDIAN_ERRORS, median_error, sigma_range
from sim.world import TABLE


def _mass_within(m, sigma):
    """P(|exp(sigma Z) - 1| <= m): Z between ln(1 - m) / sigma and ln(1 + m) / sigma."""
    lo = norm.cdf(math.log(1 - m) / sigma) if m < 1 else 0.0
    return norm.cdf(math.log1p(m) / sigma) - lo


def _density(m, sigma):
    """Density of |exp(sigma Z) - 1| at m (both branches of the absolute value)."""
    f = norm.pdf(math.log1p(m) / sigma) / (sigma * (1 + m))
    if m < 1:
        f += norm.pdf(math.log(1 - m) / sigma) / (sigma * (1 - m))
    return f


def test_declared_range_is_the_inverse_of_table5():
    lo, hi = sigma_range()
    row = TABLE["agent.sigma"]
    assert (row.low, row.high) == outward(lo, hi, 2) == (0.67, 1.7)
    # an independent root-finding on the closed form of the median
    for m, s in zip(TABLE5_MEDIAN_ERRORS, (lo, hi)):
        root = brentq(lambda x: _mass_within(m, x) - 0.5, 0.05, 5.0, xtol=1e-12)
        assert s == pytest.approx(root, rel=1e-6)
    assert lo == pytest.approx(0.674, abs=5e-4) and hi == pytest.approx(1.698, abs=5e-4)
    # the numbers in the source string are these
    assert f"{lo:.3f}" in row.source and f"{hi:.3f}" in row.source


def test_monte_carlo_median_error_at_the_ends(rng):
    n = 400_000
    z = rng.standard_normal(n)
    for m, s in zip(TABLE5_MEDIAN_ERRORS, sigma_range()):
        mc = float(np.median(np.abs(np.exp(s * z) - 1)))
        # sd of a sample median: 1 / (2 f(m) sqrt(n))
        se = 1 / (2 * _density(m, s) * math.sqrt(n))
        assert abs(mc - m) < 4 * se, (s, mc, m, se)


def test_old_range_missed_the_source_and_the_profiles_are_inside():
    # the previous prior 0.55-1.2 gives medians 0.36-0.69, short of 0.43-0.84
    assert median_error(0.55) < TABLE5_MEDIAN_ERRORS[0]
    assert median_error(1.2) < TABLE5_MEDIAN_ERRORS[1]
    row = TABLE["agent.sigma"]
    assert TABLE5_MEDIAN_ERRORS[0] <= median_error(row.default) <= TABLE5_MEDIAN_ERRORS[1]


def test_bad_medians_are_named():
    with pytest.raises(ValueError, match="medians must be finite and positive"):
        sigma_range((0.0, 0.5))
    with pytest.raises(ValueError, match="outward needs"):
        outward(-1.0, 1.0)
