"""Kill tests from the mutation run of ``theory/proposition2.py`` (issue 38): the
batch-means check of a Monte Carlo SE against two routes that share none of its
code, its zero-SE edge, and the paper check's injected rate and draws reaching the
checks they feed (a wrong one must fail there, as the centroid check's does)."""

import math
import statistics

import numpy as np
import pytest
from scipy import stats

from theory import proposition2 as p2
from theory.proof import ProofError


def _batch_se(vals):
    """The batch-means SE of ``vals``, one batch at a time with ``statistics``."""
    size = len(vals) // p2._BATCHES
    means = [math.fsum(vals[i * size:(i + 1) * size]) / size for i in range(p2._BATCHES)]
    return statistics.stdev(means) / math.sqrt(p2._BATCHES)


def _plain_z(vals, se):
    """The Wilson-Hilferty z of ``se`` against :func:`_batch_se` (the reference the
    module's numpy code is held to)."""
    df = p2._BATCHES - 1
    x = (_batch_se(vals) / se) ** 2
    return (x ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))


def _draws(seed, size=5000):
    return np.random.default_rng(seed).standard_normal(size).tolist()


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ratio", [0.5, 1.0, 3.0])
def test_batch_means_z_equals_the_plain_reference(seed, ratio):
    vals = _draws(seed)
    se = ratio * statistics.stdev(vals) / math.sqrt(len(vals))
    assert p2._batch_means_z(np.array(vals), se) == pytest.approx(_plain_z(vals, se),
                                                                  abs=1e-9)


@pytest.mark.parametrize("x", [0.5, 0.8, 1.25, 2.0])
def test_batch_means_z_is_the_chi_square_quantile_in_normal_units(x):
    """(B - 1) x ~ chi^2(B - 1) when the SE is right: the z is that chi-square's
    quantile mapped to N(0, 1), exact by scipy, to Wilson-Hilferty's accuracy at 49
    degrees of freedom (at most 0.014 on these x; one degree of freedom fewer is off
    by 0.04-0.05 at x = 0.5 and 2)."""
    vals = np.array(_draws(7))
    se = _batch_se(vals.tolist()) / math.sqrt(x)
    df = p2._BATCHES - 1
    exact = stats.norm.ppf(stats.chi2.cdf(df * x, df))
    assert p2._batch_means_z(vals, se) == pytest.approx(exact, abs=0.02)


def test_a_zero_se_is_infinitely_far_out_even_for_constant_draws():
    # varying draws: any SE of zero is wrong
    assert p2._batch_means_z(np.array(_draws(3)), 0.0) == math.inf
    # constant draws: the batch-means SE is 0 too; 0 / 0 must not turn into nan
    assert p2._batch_means_z(np.full(5000, 0.25), 0.0) == math.inf


def test_a_right_se_is_near_zero_and_a_wrong_scale_far_out():
    vals = np.array(_draws(11, 20000))
    se = statistics.stdev(vals.tolist()) / math.sqrt(vals.size)
    assert abs(p2._batch_means_z(vals, se)) < p2._Z_MC
    # a missing sqrt(samples): the SE is 141 times too large
    assert p2._batch_means_z(vals, se * math.sqrt(vals.size)) < -p2._Z_MC
    assert p2._batch_means_z(vals, se / 3) > p2._Z_MC


def test_the_paper_check_uses_an_injected_n2_rate():
    with pytest.raises(ProofError):
        p2.check_prop2_paper(rate_n2=lambda k, s: p2._exact_rate_n2(k, s) + 0.1)


def test_the_paper_check_holds_the_reported_rate_to_injected_draws():
    # draws shifted by 0.01 bit: the reported mean is no longer theirs
    with pytest.raises(ProofError):
        p2.check_prop2_paper(mc_samples=lambda n, k, s: p2._mc_rate_samples(n, k, s) + 0.01)


def test_the_centroid_check_holds_the_reported_rate_to_injected_draws():
    with pytest.raises(ProofError):
        p2.check_prop2_centroid(
            mc_samples=lambda n, k, s: p2._mc_rate_samples(n, k, s) + 0.01)


def _n2_rate_off_by(z):
    """An n = 2 "quadrature" exactly ``z`` Monte Carlo SEs below the Monte Carlo
    rate at every point (so the in-SE comparison reads ``z`` there)."""
    def rate(k, s):
        mean, se = p2._mc_rate(2, k, s)
        return mean - z * se
    return rate


def test_the_n2_anchor_fails_past_5_se_and_passes_inside_on_the_other_side():
    # 5.5 SE apart fails; -4.5 SE passes: the comparison is with 0, at tolerance 5,
    # in units of the Monte Carlo SE (not the SE's square, not 1 SE off centre).
    # The paper check: its bound is loose enough that a rate 4.5 SE high stays under
    # it (the centroid bound is within 0.005 bits of the n = 2 rate at kappa = 2,
    # sigma = 2, so there the inequality would fail first)
    with pytest.raises(ProofError, match="equals the quadrature"):
        p2.check_prop2_paper(rate_n2=_n2_rate_off_by(5.5))
    assert p2.check_prop2_paper(rate_n2=_n2_rate_off_by(-4.5)).steps


@pytest.mark.parametrize("z, fails", [(5.5, True), (-5.5, True), (-4.5, False),
                                      (4.5, False)])
def test_the_batch_means_comparison_is_with_0_at_tolerance_5(monkeypatch, z, fails):
    monkeypatch.setattr(p2, "_batch_means_z", lambda vals, se: z)
    if fails:
        with pytest.raises(ProofError, match="batch-means"):
            p2.check_prop2_paper()
    else:
        assert p2.check_prop2_paper().steps


def test_the_monte_carlo_rate_uses_the_sample_size_it_is_given():
    mean, se = p2._mc_rate(4, 3, 1.0, samples=1000)
    vals = p2._mc_rate_samples(4, 3, 1.0, 1000)
    assert vals.shape == (1000,)
    assert (mean, se) == pytest.approx(p2._sample_summary(vals), rel=1e-9)
    # 20 times fewer draws than the default: the SE is about sqrt(20) times larger
    assert se / p2._mc_rate(4, 3, 1.0)[1] == pytest.approx(math.sqrt(20), rel=0.1)
