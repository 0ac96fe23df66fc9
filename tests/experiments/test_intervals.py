"""The one intervals module (:mod:`experiments.intervals`) against the formulas it
replaced (claims' Wilson with z = 1.959964 and no clip; perception's Wilson with
z = 1.96, clipped, (0, 1) at n = 0; perception's bootstrap median; the two inline
Student-t intervals) and against independent references (scipy.stats), each
boundary on both sides (issue 36: one contract, numbers unchanged)."""

import math

import numpy as np
import pytest
from scipy import stats

from experiments import intervals as I

KN = [(k, n) for n in range(1, 26) for k in range(n + 1)] + [
    (0, 75), (38, 75), (75, 75), (1, 1000), (999, 1000), (0, 4000), (4000, 4000)]


def old_claims_wilson(k, n, z=1.959964):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def old_perception_wilson(k, n, z=1.96):
    if n == 0:
        return 0.0, 1.0
    lo, hi = old_claims_wilson(k, n, z)
    return max(0.0, lo), min(1.0, hi)


def old_median_ci(x, seed=0, reps=2000):
    x = np.asarray(x, dtype=float)
    rng = np.random.default_rng(seed)
    meds = np.median(rng.choice(x, size=(reps, x.size)), axis=1)
    return float(np.median(x)), float(np.quantile(meds, 0.025)), float(np.quantile(meds, 0.975))


def test_wilson_is_scipys_wilson_interval():
    for k, n in KN:
        p, lo, hi = I.wilson(k, n)
        ref = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert p == k / n
        assert lo == pytest.approx(ref.low, abs=1e-12), (k, n)
        assert hi == pytest.approx(ref.high, abs=1e-12), (k, n)
        p, lo, hi = I.wilson(k, n, 0.8)
        ref = stats.binomtest(k, n).proportion_ci(0.8, method="wilson")
        assert (lo, hi) == (pytest.approx(ref.low, abs=1e-12),
                            pytest.approx(ref.high, abs=1e-12))


def test_wilson_reproduces_both_old_contracts():
    for k, n in KN:
        # the probes' rounded z: the old perception function, bit for bit
        assert I.wilson(k, n, z=I.Z_ROUNDED)[1:] == old_perception_wilson(k, n), (k, n)
        # the claims' z = 1.959964: within its rounding (1e-9), clipped at 0 and 1
        lo, hi = old_claims_wilson(k, n)
        _, nlo, nhi = I.wilson(k, n)
        assert nlo == pytest.approx(max(0.0, lo), abs=1e-8)
        assert nhi == pytest.approx(min(1.0, hi), abs=1e-8)
        assert 0.0 <= nlo <= k / n + 1e-15 and k / n - 1e-15 <= nhi <= 1.0
    assert I.wilson(0, 0, z=I.Z_ROUNDED)[1:] == old_perception_wilson(0, 0) == (0.0, 1.0)
    assert I.normal_quantile() == pytest.approx(1.959964, abs=1e-6)


def test_wilson_boundaries_on_both_sides():
    p, lo, hi = I.wilson(0, 0)  # no trials: the interval's limit, the whole unit range
    assert math.isnan(p) and (lo, hi) == (0.0, 1.0)
    assert I.wilson(0, 1)[1] == 0.0 and I.wilson(1, 1)[2] == 1.0
    for k, n in ((-1, 5), (6, 5), (0, -1)):
        with pytest.raises(ValueError, match=str(k if k < 0 or k > n else n)):
            I.wilson(k, n)
    for level in (0.0, 1.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="level must be in"):
            I.wilson(3, 5, level)
    assert I.wilson(3, 5, 1e-9)[1] == pytest.approx(0.6, abs=1e-6)   # just inside


def test_newcombe_known_value_and_its_wilson_parts():
    # Newcombe 1998, Table II: 56/70 - 48/80 = 0.2 [0.0524, 0.3339]
    d, lo, hi = I.newcombe(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert (lo, hi) == (pytest.approx(0.0524, abs=1e-4), pytest.approx(0.3339, abs=1e-4))
    with pytest.raises(ValueError, match="n1=0"):
        I.newcombe(0, 0, 1, 2)
    assert I.newcombe(0, 1, 0, 1)[0] == 0.0


def test_student_t_is_scipys_t_interval_and_the_old_inline_formula():
    rng = np.random.default_rng(3)
    for n in (2, 3, 5, 12):
        d = rng.normal(0.1, 0.2, n)
        m, lo, hi = I.student_t(d)
        rlo, rhi = stats.t.interval(0.95, n - 1, loc=d.mean(), scale=stats.sem(d))
        assert (lo, hi) == (pytest.approx(rlo, rel=1e-12), pytest.approx(rhi, rel=1e-12))
        # the claims check's old inline formula (t.ppf(0.975)), bit for bit
        half = float(stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n))
        assert (m, lo, hi) == (float(d.mean()), float(d.mean()) - half,
                               float(d.mean()) + half)
    with pytest.raises(ValueError, match="at least 2 values, got 1"):
        I.student_t([0.3])
    assert I.student_t([0.3, 0.3]) == (0.3, 0.3, 0.3)
    with pytest.raises(ValueError, match="level"):
        I.student_t([0.1, 0.2], 1.0)


def test_bootstrap_mean_is_the_percentile_bootstrap_and_boundaries():
    d = np.random.default_rng(4).normal(size=30)
    m, lo, hi = I.bootstrap_mean_ci(d, seed=2)
    idx = np.random.default_rng(2).integers(0, 30, size=(I.RESAMPLES, 30))
    ref = np.quantile(d[idx].mean(axis=1), [0.025, 0.975])
    assert (m, lo, hi) == (pytest.approx(d.mean()), pytest.approx(ref[0]),
                           pytest.approx(ref[1]))
    # scipy's percentile bootstrap (its own draws) agrees to Monte Carlo error
    sref = stats.bootstrap((d,), np.mean, method="percentile", n_resamples=4000,
                           random_state=np.random.default_rng(0)).confidence_interval
    assert abs(lo - sref.low) < 0.05 and abs(hi - sref.high) < 0.05
    assert I.bootstrap_mean_ci([2.0]) == (2.0, 2.0, 2.0)
    with pytest.raises(ValueError):
        I.bootstrap_mean_ci([])


def test_median_ci_reproduces_perceptions_old_median_where_finite():
    rng = np.random.default_rng(5)
    for t in range(8):
        x = rng.exponential(size=int(rng.integers(1, 30))).round(4)
        med, lo, hi = I.median_ci(x, resamples=2000, seed=t)
        omed, olo, ohi = old_median_ci(x, seed=t)
        assert med == omed
        assert (lo, hi) == (pytest.approx(olo, rel=1e-12), pytest.approx(ohi, rel=1e-12))
    # an invalid answer (error inf) pushes the end to inf, not to numpy's NaN
    _, lo, hi = I.median_ci([0.1, 0.2, math.inf], resamples=2000)
    assert hi == math.inf and lo >= 0.1
    with pytest.raises(ValueError, match="no values"):
        I.median_ci([])


def test_every_interval_returns_estimate_lo_hi_and_refuses_a_bad_level():
    calls = {"wilson": lambda lv: I.wilson(3, 10, lv),
             "newcombe": lambda lv: I.newcombe(3, 10, 5, 10, lv),
             "student_t": lambda lv: I.student_t([0.1, 0.3, 0.2], lv),
             "bootstrap_mean_ci": lambda lv: I.bootstrap_mean_ci([0.1, 0.3, 0.2], level=lv),
             "median_ci": lambda lv: I.median_ci([0.1, 0.3, 0.2], 500, lv),
             "cluster_median_ci": lambda lv: I.cluster_median_ci([[0.1], [0.3]], 500, lv),
             "ratio_of_sums_ci": lambda lv: I.ratio_of_sums_ci([1, 2], [2, 2], level=lv)}
    for name, f in calls.items():
        out = f(0.9)
        assert len(out) == 3 and all(isinstance(v, float) for v in out), name
        assert out[1] <= out[2], name
        wider = f(0.99)
        assert wider[1] <= out[1] and wider[2] >= out[2], name
        for bad in (0.0, 1.0):
            with pytest.raises(ValueError, match="level must be in"):
                f(bad)


def test_no_second_interval_function_outside_the_module():
    """``grep`` finds no second Wilson or Student-t (issue 36's done-when)."""
    from pathlib import Path

    root = Path(I.__file__).parents[1]
    hits = []
    for path in list((root / "experiments").rglob("*.py")) + list((root / "sim").rglob("*.py")):
        if path.name == "intervals.py" and path.parent.name == "experiments":
            continue
        text = path.read_text()
        for needle in ("def wilson", "def newcombe", "t.ppf(", "def median_ci",
                       "def bootstrap_mean_ci", "claims.intervals", "perception import"):
            if needle in text:
                hits.append((path.relative_to(root).as_posix(), needle))
    assert hits == []


@pytest.mark.parametrize("se", [0.0, 1e-9, 0.013, 1.0, 250.0])
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99])
def test_normal_half_width_is_scipys_normal_interval(se, level):
    m = 3.7
    lo, hi = stats.norm.interval(level, loc=m, scale=se) if se > 0 else (m, m)
    h = I.normal_half_width(se, level)
    assert m - h == pytest.approx(lo, rel=1e-12, abs=1e-15)
    assert m + h == pytest.approx(hi, rel=1e-12, abs=1e-15)


def test_normal_half_width_with_the_rounded_z_is_the_figures_1_96():
    # the sorted-window figure's error bars were drawn as 1.96 * EZ_se
    for se in [0.0, 0.002, 0.31, 7.0]:
        assert I.normal_half_width(se, z=I.Z_ROUNDED) == 1.96 * se


@pytest.mark.parametrize("se", [-1e-12, -1.0, math.nan])
def test_normal_half_width_rejects_a_negative_or_nan_se(se):
    with pytest.raises(ValueError, match="se must be >= 0"):
        I.normal_half_width(se)


@pytest.mark.parametrize("level", [0.0, 1.0, -0.1, 1.5])
def test_normal_half_width_rejects_a_level_outside_0_1(level):
    with pytest.raises(ValueError, match="level must be in"):
        I.normal_half_width(0.1, level)
