"""The empirical size shape the generators draw from (issue 31,
:mod:`sim.tasks.size_shape`): its quantile against numpy's, the drawn sizes against
the empirical law (KS), the size-biased quantile against a weighted Monte Carlo and
against the lognormal's closed form, monotonicity, and common random numbers (the
same normal draw as the lognormal route, each size keeping its rank)."""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from sim.tasks.size_shape import (biased_quantile, draw_size, log_size_ratio,
                                  shape_quantile, shape_residuals)

Z = shape_residuals()
U = np.linspace(0, 1, 2_001)


def test_quantile_is_numpys_on_the_table():
    np.testing.assert_allclose(shape_quantile(U), np.quantile(Z, U), rtol=0, atol=1e-12)
    assert shape_quantile(0.0) == Z[0] and shape_quantile(1.0) == Z[-1]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        shape_quantile(1.5)


def test_quantiles_are_monotone():
    assert (np.diff(shape_quantile(U)) >= 0).all()
    for s in (0.5, 1.64, 2.2):
        q = biased_quantile(U, s)
        assert (np.diff(q) >= -1e-12).all() and q[0] >= Z[0] - 1e-12
        assert q[-1] <= Z[-1] + 1e-12
    zz = np.linspace(-6, 6, 501)
    r = [log_size_ratio(float(v), 1.64) for v in zz]
    assert (np.diff(r) >= 0).all()


def test_drawn_sizes_follow_the_empirical_law():
    """KS of 20,000 unclipped draws against the table's ECDF: the interpolated law is
    within 1/n of the ECDF, and a sample of N deviates by < 1.63 / sqrt(N) at 1%."""
    rng = np.random.default_rng(7)
    n_draw, med, s = 20_000, 800.0, 1.64
    x = np.array([math.log(med) + log_size_ratio(rng.standard_normal(), s)
                  for _ in range(n_draw)])
    zs = np.sort((x - math.log(med)) / s)
    # both right-continuous ECDFs at every point of either (ties are atoms); the
    # 1e-9 absorbs the log/exp round trip of a tied value
    pts = np.concatenate([Z, zs]) + 1e-9
    ks = np.abs(np.searchsorted(Z, pts, side="right") / Z.size
                - np.searchsorted(zs, pts, side="right") / n_draw).max()
    assert ks < 1 / Z.size + 1.63 / math.sqrt(n_draw) + 1 / n_draw
    # and they are far from a lognormal of that spread (the shape did change)
    assert stats.kstest(zs, "norm", (np.mean(zs), np.std(zs))).statistic > 0.1


def test_draw_size_consumes_the_lognormal_draw_and_keeps_the_rank():
    """CRN: draw_size makes the one standard normal draw rng.lognormal makes (the
    streams after it agree bit for bit), and sizes from the same draws are ordered as
    the lognormal's (weakly: the shape has ties; strictly where the lognormal
    differs by more than a tie)."""
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    new = [draw_size(a, 800.0, 1.64, 50, 1e12) for _ in range(500)]
    old = [int(np.clip(b.lognormal(math.log(800.0), 1.64), 50, 1e12)) for _ in range(500)]
    assert a.random() == b.random()
    old, new = np.array(old), np.array(new)
    i, j = np.triu_indices(500, 1)
    assert not ((old[i] < old[j]) & (new[i] > new[j])).any()
    assert np.corrcoef(stats.rankdata(old), stats.rankdata(new))[0, 1] > 0.99
    c = np.random.default_rng(3)
    assert np.median([draw_size(c, 800.0, 1.64, 0, 1e12) for _ in range(4_001)]) \
        == pytest.approx(800, rel=0.05)


@pytest.mark.parametrize("s", [0.7, 1.64, 2.2])
def test_biased_quantile_against_weighted_monte_carlo(s):
    """The weighted Monte Carlo CDF of the unbiased law (weights exp(s z)) at the
    biased quantiles equals their probabilities, within 4 standard errors of the
    ratio estimator."""
    rng = np.random.default_rng(11)
    z = shape_quantile(rng.random(1_000_000))
    w = np.exp(s * (z - z.max()))
    for u in (0.05, 0.25, 0.5, 0.75, 0.95):
        # a quantile on an atom (tied results) brackets u: F(q-) <= u <= F(q)
        q = biased_quantile(u, s)
        lo_hit, hi_hit = z < q - 1e-12, z <= q + 1e-12
        lo, hi = ((w * h).sum() / w.sum() for h in (lo_hit, hi_hit))
        se = max(math.sqrt((w ** 2 * (h - e) ** 2).sum()) / w.sum()
                 for h, e in ((lo_hit, lo), (hi_hit, hi)))
        assert lo - 4 * se - 1e-4 < u < hi + 4 * se + 1e-4


def test_biased_quantile_is_the_lognormal_shift_on_a_normal_table():
    """On a table of normal quantiles the size-biased law is N(s, 1) in z units (the
    completed square): an independent closed form."""
    table = stats.norm.ppf((np.arange(20_000) + 0.5) / 20_000)
    for s in (0.5, 1.0):
        for u in (0.1, 0.5, 0.9):
            assert biased_quantile(u, s, table) == pytest.approx(
                stats.norm.ppf(u) + s, abs=0.02)
    assert biased_quantile(0.3, 0.0) == shape_quantile(0.3)
    with pytest.raises(ValueError, match="size_sd"):
        biased_quantile(0.5, -1.0)


def test_normal_cdf_is_scipys():
    from sim.tasks.size_shape import normal_cdf
    for v in (-8.0, -1.3, 0.0, 2.5):
        assert normal_cdf(v) == pytest.approx(ndtr(v), rel=1e-12)
