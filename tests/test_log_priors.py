"""Log-uniform priors (issue 31, "a prior's width says what is known"): a scale known
to an order of magnitude gets a prior uniform in its logarithm, and the robustness
design draws it so (issue 30)."""

import numpy as np
import pytest

from sim.world import TABLE
from sim.world_param import PROBABILITY, world_param

from experiments.claims.robustness.analysis import (Factor, clip, morris_design,
                                                    natural, sobol_design)


def test_every_wide_scale_is_log_uniform_and_nothing_else_is():
    """A continuous scale (not a share bounded by 1: a probability or a fraction)
    whose range spans at least a factor of 10 has a log-uniform prior; a share, an
    integer or a narrower range does not."""
    for name, p in TABLE.items():
        wide = p.low > 0 and p.high / p.low >= 10
        scale = not p.integer and p.unit not in (PROBABILITY, "fraction")
        assert p.log == (wide and scale), (name, p.low, p.high, p.unit)
    assert {n for n, p in TABLE.items() if p.log} >= {
        "agent.ctx_half_tokens", "task.max_result_ratio", "browse.max_doc_ratio"}


def test_a_log_prior_needs_a_positive_low():
    with pytest.raises(ValueError, match="low > 0"):
        world_param(1.0, 0.0, 10.0, "ratio", "guess", "x", log=True)
    with pytest.raises(ValueError, match="low > 0"):
        Factor("x", -1.0, 10.0, log=True)


def test_designs_are_uniform_in_ln_and_the_model_sees_values():
    """Sobol' and Morris points of a log-uniform factor on [4, 400]: in the sampling
    space they lie in [ln 4, ln 400]; as values the median is near the geometric
    mean 40 (a uniform prior's would be 202), and the share below 40 is 1/2 within 4
    binomial SEs."""
    f = [Factor("r", 4.0, 400.0, log=True), Factor("u", 0.0, 1.0)]
    S = clip(f, sobol_design(f, ["r", "u"], 256, seed=3))
    lo, hi = np.log(4.0), np.log(400.0)
    assert S[:, 0].min() >= lo and S[:, 0].max() <= hi
    V = natural(f, S)
    assert V[:, 0].min() >= 4.0 - 1e-9 and V[:, 0].max() <= 400.0 + 1e-9
    assert np.array_equal(V[:, 1], S[:, 1])
    n = len(V)
    assert abs(np.mean(V[:, 0] < 40.0) - 0.5) < 4 * (0.25 / n) ** 0.5
    M = natural(f, clip(f, morris_design(f, 4, seed=3)))
    assert M[:, 0].min() >= 4.0 - 1e-9 and M[:, 0].max() <= 400.0 + 1e-9


def test_the_ends_of_a_log_range_map_back_inside_it():
    """exp(ln 520000) is 520000.0000000003: the world refuses a value an ulp outside
    its prior, so the ends must come back exactly inside (found by the default run)."""
    from sim.world import world_at

    p = TABLE["agent.ctx_half_tokens"]
    f = [Factor(p.name, p.low, p.high, p.log)]
    assert float(np.exp(np.log(p.high))) > p.high  # the rounding this guards against
    V = natural(f, clip(f, np.array([[np.log(p.low)], [np.log(p.high)], [99.0]])))
    assert V[:, 0].tolist() == [p.low, p.high, p.high]
    world_at({p.name: float(V[1, 0])})  # accepted


def test_to_sampling_inverts_natural():
    f = [Factor("r", 4.0, 400.0, log=True), Factor("u", -2.0, 3.0)]
    X = np.array([[4.0, -2.0], [37.5, 0.1], [400.0, 3.0]])
    S = np.column_stack([f[j].to_sampling(X[:, j]) for j in range(2)])
    assert np.allclose(natural(f, S), X, rtol=1e-12)
    assert f[0].bounds == pytest.approx((np.log(4.0), np.log(400.0)))
    assert f[1].bounds == (-2.0, 3.0)


def test_effect_points_scale_a_log_factor_in_ln():
    """The metamodel's unit cube is the sampling space's: the default 128K of
    agent.ctx_half_tokens on [4.2K, 520K] sits at ln(128K/4.2K) / ln(520K/4.2K)."""
    from types import SimpleNamespace

    from experiments.claims.robustness.run import effect_points

    p = TABLE["agent.ctx_half_tokens"]
    f = [Factor(p.name, p.low, p.high, p.log)]
    S = np.log([[p.low], [np.sqrt(p.low * p.high)], [p.high]])
    an = SimpleNamespace(factors=f, morris_X=S[:2], sobol_X=S[2:])
    model = SimpleNamespace(effects={"default": [{}], "morris": [{}, {}],
                                     "sobol": [{}]})
    U, eff = effect_points(model, an)
    want = np.log(p.default / p.low) / np.log(p.high / p.low)
    assert U[:, 0] == pytest.approx([want, 0.0, 0.5, 1.0])
    assert len(eff) == 4
