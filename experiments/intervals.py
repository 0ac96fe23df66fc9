"""Intervals the checks need beyond the paired bootstrap of
:func:`experiments.paired.bootstrap_mean_ci`: a proportion (Wilson), a difference
of two independent proportions (Newcombe), a median over clusters and a ratio of
sums over tasks (percentile bootstrap, fixed seed: the same CSV gives the same
interval)."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from experiments.paired import LEVEL, RESAMPLES

#: z of the 95% intervals
Z95 = 1.959964


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n (Wilson 1927).

    Raises:
        ValueError: for n <= 0 or k outside 0..n.
    """
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    if not 0 <= k <= n:
        raise ValueError(f"k must be in 0..{n}, got {k}")
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """p1 - p2 with Newcombe's hybrid score interval (Newcombe 1998, method 10) for
    independent samples: a conservative stand-in when the pairing was not saved."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return (d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def _quantiles(stats: np.ndarray, level: float) -> tuple[float, float]:
    """The two-sided percentile interval of ``stats`` (numpy's linear rule); the
    statistics may hold ``+inf`` (a ratio whose denominator resampled to zero)."""
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
    (values in one snapshot are not independent).

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
