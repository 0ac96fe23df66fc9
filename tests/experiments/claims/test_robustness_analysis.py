"""The sensitivity machinery of ``ctxsim claims --robustness``
(:mod:`experiments.claims.robustness.analysis`) against functions whose indices are known in
closed form, through the same ``analyse`` the claims go through: Morris on a linear
model (every elementary effect exact) and on Ishigami's grid, Sobol' on Ishigami
(Ishigami & Homma 1990; indices from Sobol' & Levitan 1999) and on a linear model
with a group, and the holding fraction's Wilson interval by its coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.claims.robustness.analysis import (OTHERS, Factor, analyse, base_rows,
                                                   clip, flip_rate, group_names,
                                                   groups_for, holding, screen,
                                                   sobol_design, step)

PI = math.pi
ISHIGAMI = [Factor(f"x{i}", -PI, PI) for i in (1, 2, 3)]
A, B = 7.0, 0.1


def ishigami(X, stage):
    return {"y": np.sin(X[:, 0]) + A * np.sin(X[:, 1]) ** 2
            + B * X[:, 2] ** 4 * np.sin(X[:, 0])}


def ishigami_indices():
    """Closed-form S1 and ST of the Ishigami function on [-pi, pi]^3."""
    v1 = 0.5 * (1 + B * PI ** 4 / 5) ** 2
    v2 = A ** 2 / 8
    v13 = B ** 2 * PI ** 8 * (1 / 18 - 1 / 50)
    v = v1 + v2 + v13
    return {"x1": (v1 / v, (v1 + v13) / v), "x2": (v2 / v, v2 / v),
            "x3": (0.0, v13 / v)}


@pytest.fixture(scope="module")
def ishigami_analysis():
    return analyse(ISHIGAMI, ishigami, trajectories=20, samples=1024, keep=3, seed=1)


def test_sobol_indices_of_ishigami_match_the_closed_form(ishigami_analysis):
    got = ishigami_analysis.sobol["y"]
    assert list(got) == ["x1", "x2", "x3"]  # all screened: no OTHERS group
    for name, (s1, st) in ishigami_indices().items():
        row = got[name]
        # SALib's conf is a 95% bootstrap half-width (~2 SE): allow ~4 SE
        assert abs(row.S1 - s1) <= 2 * row.S1_conf + 1e-3, (name, row, s1)
        assert abs(row.ST - st) <= 2 * row.ST_conf + 1e-3, (name, row, st)


def test_morris_on_ishigamis_grid_gives_the_exact_x2_effect(ishigami_analysis):
    # on the 4-level grid x2 steps between -pi and pi/3 or -pi/3 and pi: sin^2 moves
    # by 3/4 every time, so |EE| = 7 * 3/4 / (2/3) exactly
    assert ishigami_analysis.morris["y"]["x2"].mu_star == pytest.approx(A * 0.75 / step())


def linear(coef):
    def f(X, stage):
        return {"y": X @ np.asarray(coef, float),
                "neg": -(X @ np.asarray(coef, float))}
    return f


def test_morris_of_a_linear_model_is_exact_and_screening_keeps_the_largest():
    coef = [3.0, -0.5, 0.0, 2.0, 0.25]
    factors = [Factor(f"p{i}", -1.0 + i, 1.0 + 2 * i) for i in range(5)]
    an = analyse(factors, linear(coef), trajectories=6, samples=16, keep=2, seed=3)
    for f, c in zip(factors, coef):
        for out in ("y", "neg"):
            m = an.morris[out][f.name]
            assert m.mu_star == pytest.approx(abs(c) * (f.high - f.low))
            assert m.sigma == pytest.approx(0.0, abs=1e-9)
    # mu* = |c| x range: p0 6, p1 1.5, p2 0, p3 2 x 7 = 14, p4 0.25 x 9 = 2.25
    assert an.screened == ["p0", "p3"]
    assert an.groups == ["p0", OTHERS, OTHERS, "p3", OTHERS]


def test_sobol_of_a_linear_model_with_a_group_matches_its_variance_shares():
    coef = np.array([2.0, 1.0, 1.0, 0.5])
    factors = [Factor(f"p{i}", 0.0, 1.0) for i in range(4)]
    an = analyse(factors, linear(coef), trajectories=4, samples=1024, keep=1, seed=5)
    share = coef ** 2 / (coef ** 2).sum()  # uniform on [0, 1]: Var = c^2 / 12 each
    got = an.sobol["y"]
    assert list(got) == ["p0", OTHERS]
    for g, s in (("p0", share[0]), (OTHERS, share[1:].sum())):
        # additive model: S1 = ST = the group's share of the variance
        assert abs(got[g].S1 - s) <= 2 * got[g].S1_conf + 1e-3
        assert abs(got[g].ST - s) <= 2 * got[g].ST_conf + 1e-3


def test_base_rows_are_the_A_and_B_points_of_saltellis_design():
    factors = [Factor(f"p{i}", 0.0, 1.0) for i in range(5)]
    groups = groups_for([f.name for f in factors], ["p1", "p3"])
    X = sobol_design(factors, groups, 8, seed=0)
    g = group_names(groups)
    assert g == [OTHERS, "p1", "p3"]
    block = len(g) + 2
    assert X.shape == (8 * block, 5)
    base = base_rows(8, len(g))
    assert len(base) == 16
    for k in range(8):
        a, b = X[k * block], X[k * block + block - 1]
        assert k * block in base and k * block + block - 1 in base
        for j, name in enumerate(g):  # AB_j: A with group j's columns from B
            ab = X[k * block + 1 + j]
            cols = np.array([x == name for x in groups])
            np.testing.assert_array_equal(ab[cols], b[cols])
            np.testing.assert_array_equal(ab[~cols], a[~cols])


def test_holding_fraction_interval_covers_the_true_fraction():
    # 1{a b < 1/4} on the unit square holds on 1/4 (1 + ln 4) of it
    truth = 0.25 * (1 + math.log(4))
    factors = [Factor("a", 0.0, 1.0), Factor("b", 0.0, 1.0)]

    def f(X, stage):
        return {"h": (X[:, 0] * X[:, 1] < 0.25).astype(float)}

    reps = 300
    hits, est = 0, []
    for seed in range(reps):
        an = analyse(factors, f, trajectories=2, samples=16, keep=1, seed=seed)
        p, lo, hi = an.holding["h"]
        hits += lo <= truth <= hi
        est.append(p)
    # scrambled Sobol' base points are better spread than independent draws, so the
    # binomial (Wilson) interval is conservative on them: at least its nominal 95%
    assert hits / reps >= 0.95
    # the estimator is unbiased: its mean within 4 SE of the truth
    se = np.std(est, ddof=1) / math.sqrt(reps)
    assert abs(np.mean(est) - truth) <= 4 * se


def test_holding_interval_is_wilsons_and_covers_independent_draws():
    from scipy.stats import binomtest

    for k, n in ((0, 10), (3, 10), (32, 32), (17, 40)):
        y = np.array([1.0] * k + [0.0] * (n - k))
        ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert holding(y) == pytest.approx((k / n, ci.low, ci.high), abs=1e-6)
    # on independent Bernoulli(0.6) draws of 32 points: coverage near 95%
    rng = np.random.default_rng(0)
    reps = 2000
    hits = 0
    for _ in range(reps):
        _, lo, hi = holding((rng.random(32) < 0.6).astype(float))
        hits += lo <= 0.6 <= hi
    # Wilson's coverage at n = 32 oscillates within about 93-97%; 4 binomial SEs
    # (0.0049 each) below 93% is 0.91
    assert 0.91 <= hits / reps <= 0.99


def test_a_constant_output_has_no_sobol_indices_and_full_holding():
    factors = [Factor("a", 0.0, 1.0), Factor("b", 0.0, 1.0)]
    an = analyse(factors, lambda X, s: {"h": np.ones(len(X))}, 2, 8, 1, 0)
    assert an.sobol["h"] is None
    assert an.holding["h"][0] == 1.0 and an.holding["h"][1] < 1.0
    assert all(flip_rate(m) == 0 for m in an.morris["h"].values())


def test_flip_rate_counts_the_steps_that_change_a_0_1_output():
    # 1{a > 0.5}: on the grid {0, 1/3, 2/3, 1} a step of 2/3 in a changes it always
    factors = [Factor("a", 0.0, 1.0), Factor("b", 0.0, 1.0)]
    an = analyse(factors, lambda X, s: {"h": (X[:, 0] > 0.5).astype(float)}, 10, 8, 1, 0)
    assert flip_rate(an.morris["h"]["a"]) == pytest.approx(1.0)
    assert flip_rate(an.morris["h"]["b"]) == 0.0


def test_results_do_not_depend_on_anything_but_the_seed():
    a = analyse(ISHIGAMI, ishigami, 3, 8, 2, seed=7)
    b = analyse(ISHIGAMI, ishigami, 3, 8, 2, seed=7)
    np.testing.assert_array_equal(a.sobol_X, b.sobol_X)
    assert a.sobol == b.sobol and a.morris == b.morris
    c = analyse(ISHIGAMI, ishigami, 3, 8, 2, seed=8)
    assert not np.array_equal(a.sobol_X, c.sobol_X)


def test_bad_designs_and_values_are_refused():
    f = [Factor("a", 0.0, 1.0), Factor("b", 0.0, 1.0)]
    with pytest.raises(ValueError, match="power of two"):
        analyse(f, linear([1, 1]), 2, 12, 1, 0)
    with pytest.raises(ValueError, match="at least one Morris trajectory"):
        analyse(f, linear([1, 1]), 0, 8, 1, 0)
    with pytest.raises(ValueError, match="low < high"):
        Factor("c", 1.0, 1.0)
    with pytest.raises(ValueError, match="wrong shape"):
        analyse(f, lambda X, s: {"y": np.ones(3)}, 2, 8, 1, 0)
    with pytest.raises(ValueError, match="0/1"):
        holding(np.array([0.0, 0.5]))
    with pytest.raises(ValueError, match="keep at least one"):
        screen({}, ["a"], 0)
    assert (clip(f, np.array([[1 + 1e-12, -1e-12]])) == [[1.0, 0.0]]).all()
