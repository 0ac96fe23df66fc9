"""The generators' tool-result size law is the empirical law of the shipped real tool
results (issue 31; :mod:`sim.tasks.size_law`): the shipped table re-derived from the
trajectories, each draw against a plain reference built with scipy's normal CDF, the
size-biased law against an identity it must satisfy, the random stream unchanged, and
the generated sizes passing the goodness-of-fit test the lognormal fails."""

import math

import numpy as np
import pytest
from scipy import stats

from sim.tasks import size_law
from sim.tasks.browse import BrowseParams
from sim.tasks.families import TaskParams
from sim.tasks.size_law import REF_SD, draw_size, ln_deviations, quantile_index


def _shipped_sizes() -> np.ndarray:
    from importlib import resources

    text = resources.files("sim").joinpath("data/result_sizes.csv").read_text()
    return np.array([int(x) for x in text.splitlines()[6:]], dtype=float)


def test_shipped_table_is_rederived_from_the_trajectories():
    from experiments.vista.size_law import tool_result_sizes

    assert np.array_equal(_shipped_sizes(), tool_result_sizes())
    assert _shipped_sizes().size == 418


def test_defaults_are_the_empirical_spread():
    """At the default ``size_sd`` the law is the shipped distribution (k = 1 to 3e-4)."""
    e = np.log(_shipped_sizes()) - np.log(np.median(_shipped_sizes()))
    assert REF_SD == pytest.approx(e.std(), rel=1e-12)
    assert abs(TaskParams().size_sd - REF_SD) < 5e-4
    assert abs(BrowseParams().size_sd - REF_SD) < 5e-4


@pytest.mark.parametrize("sd", [0.0, 1.0, 1.637, 2.2])
@pytest.mark.parametrize("median", [24.0, 800.0, 2_600.5])
def test_draw_matches_a_plain_reference(sd, median):
    """``draw_size`` = median * (s_(floor(n Phi(Z))) / median(s)) ** (sd / REF_SD), with
    Phi from scipy and the order statistic from a plain sort."""
    s = np.sort(_shipped_sizes())
    rng, ref = np.random.default_rng(7), np.random.default_rng(7)
    for _ in range(300):
        got = draw_size(rng, median, sd)
        z = ref.standard_normal()
        i = min(int(s.size * stats.norm.cdf(z)), s.size - 1)
        want = median * (s[i] / np.median(s)) ** (sd / REF_SD)
        assert got == pytest.approx(want, rel=1e-12)


def test_a_draw_consumes_the_stream_a_lognormal_draw_did():
    """So a task's other draws do not move with the size law."""
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    for biased in (False, True):
        draw_size(a, 100.0, 1.637, biased)
        b.lognormal(0.0, 1.0)
        assert a.bit_generator.state == b.bit_generator.state


def test_unbiased_indices_are_uniform():
    """Every shipped result is equally likely: 100K draws' index counts pass a
    chi-square test against uniform (alpha 1e-3), over both tails of u."""
    n = ln_deviations().size
    rng = np.random.default_rng(11)
    u = stats.norm.cdf(rng.standard_normal(100_000))
    counts = np.bincount([quantile_index(x, 1.637) for x in u], minlength=n)
    assert stats.chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize("sd", [1.0, 1.637, 2.2])
def test_size_biased_law_weights_each_result_by_its_size(sd):
    """The share of a fine grid of u in [0, 1) mapped to result i is its size's share
    of the total, s_i^k / sum s^k (k = sd / REF_SD), to within one grid step."""
    e = ln_deviations()
    k = sd / REF_SD
    w = np.exp(k * e)
    w /= w.sum()
    grid = (np.arange(200_000) + 0.5) / 200_000
    share = np.bincount([quantile_index(x, sd, biased=True) for x in grid],
                        minlength=e.size) / grid.size
    assert np.abs(share - w).max() <= 1.0 / grid.size + 1e-12


def test_size_biasing_identity_by_monte_carlo():
    """An independent route: size-biasing gives E_biased[1/S] = 1 / E[S]; both sides
    by Monte Carlo through ``draw_size``, within 5 standard errors of the difference."""
    rng = np.random.default_rng(5)
    plain = np.array([draw_size(rng, 1.0, 1.637) for _ in range(60_000)])
    inv_b = np.array([1.0 / draw_size(rng, 1.0, 1.637, True) for _ in range(60_000)])
    lhs, rhs = inv_b.mean(), 1.0 / plain.mean()
    # delta method for 1 / mean(plain)
    se = math.hypot(inv_b.std() / math.sqrt(inv_b.size),
                    plain.std() / math.sqrt(plain.size) / plain.mean() ** 2)
    assert abs(lhs - rhs) < 5 * se


def test_generated_sizes_pass_the_test_the_lognormal_fails():
    """Two-sample KS of 20K draws (median 24 tokens, the shipped median) against the 418
    shipped results does not reject at 5%, while the lognormal fitted to them does."""
    s = _shipped_sizes()
    rng = np.random.default_rng(1)
    draws = np.array([draw_size(rng, float(np.median(s)), REF_SD) for _ in range(20_000)])
    assert stats.ks_2samp(np.round(draws), s).pvalue > 0.05
    lsd, _, scale = stats.lognorm.fit(s, floc=0)
    assert stats.kstest(s, "lognorm", (lsd, 0, scale)).statistic > 0.1


@pytest.mark.parametrize("kw,match", [
    (dict(median=0.0, sd=1.0), "median"), (dict(median=float("nan"), sd=1.0), "median"),
    (dict(median=10.0, sd=-0.1), "size_sd"), (dict(median=10.0, sd=float("inf")), "size_sd"),
    (dict(median=10.0, sd="1"), "size_sd")])
def test_bad_input_is_named(kw, match):
    with pytest.raises(ValueError, match=match):
        draw_size(np.random.default_rng(0), **kw)


@pytest.mark.parametrize("u", [-1e-9, 1.0 + 1e-9, float("nan")])
def test_quantile_rejects_u_outside_the_unit_interval(u):
    with pytest.raises(ValueError, match="u must lie"):
        quantile_index(u, 1.0)


def test_quantile_boundaries():
    n = ln_deviations().size
    assert quantile_index(0.0, 1.0) == 0 and quantile_index(1.0, 1.0) == n - 1
    assert quantile_index(0.0, 1.0, True) == 0 and quantile_index(1.0, 1.0, True) == n - 1
    assert size_law.quantile_index(0.5, 0.0, True) == n // 2  # k = 0: no bias
