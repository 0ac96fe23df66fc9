"""Every confidence interval the experiments and the claims judge compute, with one
contract.

The contract (each function below keeps it):

* **Inputs.** Counts are ints (``k`` successes of ``n`` trials); samples are 1-D
  sequences of floats, one value per independent unit (a task, a seed, a cluster),
  paired inputs index the same unit at the same position.
* **Confidence.** ``level`` is the two-sided confidence in (0, 1), default
  :data:`LEVEL` (95%); the interval leaves ``(1 - level) / 2`` in each tail.
* **Returned.** Always ``(estimate, lo, hi)``, three floats in the estimate's unit:
  the point estimate (proportion, difference, mean, median or ratio) and the
  interval's ends, ``lo <= hi`` (a percentile bootstrap's ends need not bracket
  its estimate; the others do, to floating-point rounding: Wilson's lower end at
  ``k = 0`` may be 1e-17, not 0).
* **Errors.** :class:`ValueError` naming the bad value for a level outside (0, 1),
  counts outside ``0 <= k <= n``, too few values (none; fewer than 2 for the
  Student-t interval) or paired inputs of unequal length. Nothing is clipped
  silently except the Wilson ends to [0, 1] (the score interval lies there; the
  clip removes only floating-point excess).
* **Randomness.** The bootstraps are percentile intervals over ``resamples`` draws
  from ``numpy.random.default_rng(seed)``: the same data and seed give the same
  interval, so a CSV reproduces byte for byte.

The functions: a proportion (:func:`wilson`, Wilson 1927), a difference of two
independent proportions (:func:`newcombe`, Newcombe 1998), a mean over seeds
(:func:`student_t`, Student 1908), the paired bootstrap of a mean difference over
tasks (:func:`bootstrap_mean_ci`; Efron & Tibshirani 1993, ch. 6), a median
(:func:`median_ci`) or a median over clusters (:func:`cluster_median_ci`), and a
ratio of sums over tasks (:func:`ratio_of_sums_ci`).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Sequence

import numpy as np

#: bootstrap resamples and the default two-sided confidence of every interval
RESAMPLES = 4000
LEVEL = 0.95
#: the rounded normal quantile the real-model probes (perception, presentation,
#: pressure-llm, calibrate) and the sorted-window figure's error bars were published
#: with; passed as ``z=`` so their committed CSVs and drawings reproduce (the exact
#: 95% quantile is 1.959964)
Z_ROUNDED = 1.96


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")


def normal_quantile(level: float = LEVEL) -> float:
    """The two-sided normal quantile ``z`` of ``level`` (1.959964 at 95%).

    Raises:
        ValueError: for a level outside (0, 1).
    """
    _check_level(level)
    return NormalDist().inv_cdf(0.5 + level / 2)


def wilson(k: int, n: int, level: float = LEVEL, *,
           z: float | None = None) -> tuple[float, float, float]:
    """``(k / n, lo, hi)``: a proportion with its Wilson score interval (Wilson 1927).

    Args:
        k: successes, ``0 <= k <= n``.
        n: trials, ``>= 0``; for ``n = 0`` the estimate is NaN and the interval the
            whole ``[0, 1]`` (the interval's limit as ``n -> 0``).
        level: two-sided confidence.
        z: the normal quantile itself, in place of ``level`` (:data:`Z_ROUNDED` for
            the real-model probes).

    Raises:
        ValueError: for ``n < 0``, ``k`` outside ``0..n`` or a bad level.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not 0 <= k <= n:
        raise ValueError(f"k must be in 0..{n}, got {k}")
    if z is None:
        z = normal_quantile(level)
    if n == 0:
        return math.nan, 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return p, max(0.0, c - h), min(1.0, c + h)


def newcombe(k1: int, n1: int, k2: int, n2: int,
             level: float = LEVEL) -> tuple[float, float, float]:
    """``(p1 - p2, lo, hi)`` with Newcombe's hybrid score interval (Newcombe 1998,
    method 10) for independent samples: a conservative stand-in when the pairing was
    not saved.

    Raises:
        ValueError: for an empty sample (``n1`` or ``n2`` 0) or bad counts.
    """
    if n1 <= 0 or n2 <= 0:
        raise ValueError(f"both samples need trials, got n1={n1}, n2={n2}")
    p1, l1, u1 = wilson(k1, n1, level)
    p2, l2, u2 = wilson(k2, n2, level)
    d = p1 - p2
    return (d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def normal_half_width(se: float, level: float = LEVEL, *, z: float | None = None) -> float:
    """The half-width ``z * se`` of the two-sided normal interval ``mean +- z * se``
    of a mean whose standard error ``se`` is known (a Monte-Carlo average over many
    independent draws, where the normal approximation is the central limit theorem's).

    Args:
        se: the mean's standard error, ``>= 0``, in the mean's units.
        level: two-sided confidence.
        z: the normal quantile itself, in place of ``level`` (:data:`Z_ROUNDED` for
            the figures drawn with 1.96).

    Raises:
        ValueError: for a negative or NaN ``se`` or a bad level.
    """
    if not se >= 0:
        raise ValueError(f"se must be >= 0, got {se}")
    if z is None:
        z = normal_quantile(level)
    return z * se


def student_t(values: Sequence[float], level: float = LEVEL) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of ``values`` (one per seed) with the Student-t interval,
    ``n - 1`` degrees of freedom: ``mean +- t * sd / sqrt(n)``.

    Raises:
        ValueError: for fewer than 2 values or a bad level.
    """
    from scipy import stats

    _check_level(level)
    d = np.asarray(values, dtype=float)
    if d.size < 2:
        raise ValueError(f"a Student-t interval needs at least 2 values, got {d.size}")
    m = float(d.mean())
    half = float(stats.t.ppf(0.5 + level / 2, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size))
    return m, m - half, m + half


def bootstrap_mean_ci(d: Sequence[float], resamples: int = RESAMPLES, level: float = LEVEL,
                      seed: int = 0) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of the values ``d`` (one per task; for the paired bootstrap,
    the per-task differences of two programs run on the same tasks) with a
    percentile bootstrap interval over tasks.

    Raises:
        ValueError: for an empty ``d`` or a bad level.
    """
    d = np.asarray(d, dtype=float)
    if d.size == 0:
        raise ValueError("no paired values to resample")
    _check_level(level)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, size=(resamples, d.size))
    means = d[idx].mean(axis=1)
    a = (1 - level) / 2
    lo, hi = np.quantile(means, [a, 1 - a])
    return float(d.mean()), float(lo), float(hi)


def _quantiles(stats: np.ndarray, level: float) -> tuple[float, float]:
    """The two-sided percentile interval of ``stats`` (numpy's linear rule); the
    statistics may hold ``+inf`` (a ratio whose denominator resampled to zero, a
    median over invalid answers scored ``inf``)."""
    _check_level(level)
    a = (1 - level) / 2
    if np.isfinite(stats).all():
        lo, hi = np.quantile(stats, [a, 1 - a])
        return float(lo), float(hi)
    return _quantile_with_inf(stats, a), _quantile_with_inf(stats, 1 - a)


def _quantile_with_inf(stats: np.ndarray, q: float) -> float:
    """numpy's linear quantile where the neighbours may be ``inf``: interpolating
    towards ``inf`` gives ``inf`` (numpy's ``inf - inf`` would give NaN and warn)."""
    s = np.sort(stats)
    h = (s.size - 1) * q
    i = int(np.floor(h))
    j = min(i + 1, s.size - 1)
    f = h - i
    if f == 0 or s[i] == s[j]:
        return float(s[i])
    if np.isinf(s[j]):
        return math.inf
    return float(s[i] + f * (s[j] - s[i]))


def cluster_median_ci(clusters: Sequence[Sequence[float]], resamples: int = RESAMPLES,
                      level: float = LEVEL, seed: int = 0) -> tuple[float, float, float]:
    """``(median, lo, hi)`` of the pooled values of ``clusters`` (e.g. the blocks
    of each snapshot) with a percentile bootstrap that resamples whole clusters
    (values in one snapshot are not independent). Empty clusters are dropped.

    Raises:
        ValueError: if there are no values.
    """
    clusters = [np.asarray(c, dtype=float) for c in clusters if len(c)]
    if not clusters:
        raise ValueError("no values to take the median of")
    rng = np.random.default_rng(seed)
    med = float(np.median(np.concatenate(clusters)))
    idx = rng.integers(0, len(clusters), size=(resamples, len(clusters)))
    stats = np.array([np.median(np.concatenate([clusters[i] for i in row]))
                      for row in idx])
    return (med, *_quantiles(stats, level))


def median_ci(values: Sequence[float], resamples: int = RESAMPLES, level: float = LEVEL,
              seed: int = 0) -> tuple[float, float, float]:
    """``(median, lo, hi)`` of independent ``values`` (``inf`` allowed: an invalid
    answer's error) with a percentile bootstrap: :func:`cluster_median_ci` with one
    value per cluster.

    Raises:
        ValueError: if there are no values.
    """
    return cluster_median_ci([[v] for v in values], resamples, level, seed)


def ratio_of_sums_ci(a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES,
                     level: float = LEVEL, seed: int = 0) -> tuple[float, float, float]:
    """``(sum a / sum b, lo, hi)`` over paired tasks (``a[i]``, ``b[i]`` from the same
    task) with a percentile bootstrap over tasks; ``inf`` where a resample's
    ``b`` sums to zero.

    Raises:
        ValueError: for empty or unequal-length inputs.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size == 0 or a.shape != b.shape:
        raise ValueError(f"need equal, non-empty paired counts, got {a.size} and {b.size}")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, a.size, size=(resamples, a.size))
    sa, sb = a[idx].sum(axis=1), b[idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        stats = np.where(sb > 0, sa / np.where(sb > 0, sb, 1), np.inf)
    ratio = a.sum() / b.sum() if b.sum() > 0 else math.inf
    return (float(ratio), *_quantiles(stats, level))


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation of paired ``x``, ``y`` (average ranks for ties):
    Pearson's correlation of the ranks; NaN where either is constant (no order to
    correlate)."""
    from scipy.stats import rankdata

    rx, ry = rankdata(x), rankdata(y)
    if rx.size < 2 or rx.std() == 0 or ry.std() == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def cluster_spearman_ci(clusters: Sequence[Sequence[tuple[float, float]]],
                        resamples: int = RESAMPLES, level: float = LEVEL,
                        seed: int = 0) -> tuple[float, float, float]:
    """``(rho, lo, hi)``: Spearman's correlation (:func:`spearman`) of the pooled
    ``(x, y)`` pairs of ``clusters`` (e.g. (truth, estimate) of the blocks of each
    snapshot) with a percentile bootstrap that resamples whole clusters, as
    :func:`cluster_median_ci` does. A resample whose pooled x or y is constant has no
    correlation and is left out (``lo``/``hi`` are NaN if every one is).

    Raises:
        ValueError: for fewer than 3 pairs in all, or a pair that is not two numbers.
    """
    clusters = [np.asarray(c, dtype=float) for c in clusters if len(c)]
    if any(c.ndim != 2 or c.shape[1] != 2 for c in clusters):
        raise ValueError("each cluster must be a sequence of (x, y) pairs")
    if sum(len(c) for c in clusters) < 3:
        raise ValueError("a rank correlation needs at least 3 pairs")
    pooled = np.concatenate(clusters)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(clusters), size=(resamples, len(clusters)))
    stats = np.array([spearman(*np.concatenate([clusters[i] for i in row]).T)
                      for row in idx])
    stats = stats[np.isfinite(stats)]
    lo, hi = _quantiles(stats, level) if stats.size else (math.nan, math.nan)
    return spearman(pooled[:, 0], pooled[:, 1]), lo, hi
