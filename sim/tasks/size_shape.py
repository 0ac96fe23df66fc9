"""The shape of the tool-result size law: the empirical one (issue 31).

No continuous law passes its goodness-of-fit test on the 418 real tool results of the
shipped trajectories (``experiments/priors/sizes.py``: lognormal KS 0.189 against a
critical 0.044; 43 results of exactly 22 tokens), so the generators draw from the
empirical shape. ``sim/data/size_shape.csv`` holds the standardized residuals
``z_i = (ln t_i - median ln t) / sd(ln t)`` of those results (written by
:func:`experiments.priors.sizes.write_shape_table`, checked against the trajectories
in ``tests/experiments/priors/test_size_shape_table.py``).

A size is ``median * exp(size_sd * (Q(Phi(z)) - Q(1/2)))`` with ``z`` the generator's
standard normal draw (the one ``numpy``'s ``lognormal`` draws inside): a monotone
map of the same draw, so the random streams are those of the lognormal route, each
size keeps its rank among a task's sizes, ``median`` stays the law's median and
``size_sd`` its spread (the residuals have sd 1).

``Q`` interpolates linearly between the order statistics (numpy's default quantile,
Hyndman & Fan type 7) rather than stepping: a continuous ``Q`` makes each size a
continuous function of its draw and of ``size_sd`` (sweeps over the parameter move
sizes smoothly), while tied results (the 43 of 22 tokens) still give flat stretches
of ``Q``, i.e. an atom of the same mass; its CDF is within ``1/n`` of the empirical
one everywhere. The law is bounded by the smallest and largest observed results.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import numpy as np

#: the standardized empirical ln-size residuals (one per line, sorted; ``#`` header)
TABLE_PATH = Path(__file__).resolve().parents[1] / "data" / "size_shape.csv"


@lru_cache(maxsize=1)
def shape_residuals() -> np.ndarray:
    """The shipped residuals, sorted ascending (float64, shape ``(n,)``, ``n >= 2``).

    Raises:
        ValueError: if the table is not a sorted column of >= 2 finite numbers.
    """
    with TABLE_PATH.open() as f:
        rows = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    if not rows or rows[0] != "z":
        raise ValueError(f"{TABLE_PATH} must have a 'z' column header, got {rows[:1]!r}")
    z = np.array([float(r) for r in rows[1:]])
    if z.size < 2 or not np.isfinite(z).all() or (np.diff(z) < 0).any():
        raise ValueError(f"{TABLE_PATH} must hold >= 2 finite sorted residuals, "
                         f"got {z.size}")
    z.setflags(write=False)
    return z


def _table(table) -> np.ndarray:
    z = shape_residuals() if table is None else np.sort(np.asarray(table, dtype=float))
    if z.ndim != 1 or z.size < 2 or not np.isfinite(z).all():
        raise ValueError(f"table must be >= 2 finite residuals, got shape {z.shape}")
    return z


def _check_u(u) -> np.ndarray:
    a = np.asarray(u, dtype=float)
    if not ((a >= 0) & (a <= 1)).all():
        raise ValueError(f"probabilities must lie in [0, 1], got {u!r}")
    return a


def shape_quantile(u, table=None):
    """The empirical quantile of the residuals at probability ``u`` (scalar or array,
    each in ``[0, 1]``): linear between order statistics, ``z_(k)`` at ``k / (n - 1)``
    (``numpy.quantile``'s default). ``table``: other residuals (default the shipped).

    Raises:
        ValueError: for a ``u`` outside ``[0, 1]`` or a table of < 2 finite values.
    """
    z = _table(table)
    out = np.interp(_check_u(u), np.linspace(0.0, 1.0, z.size), z)
    return float(out) if np.ndim(out) == 0 else out


@lru_cache(maxsize=64)
def _biased_segments(size_sd: float, table: tuple | None):
    z = _table(None if table is None else np.array(table))
    a, d = z[:-1], np.diff(z)
    sd_ = size_sd * d
    # mean of exp(s Z) over each segment (Z uniform on it), relative to exp(s z_max)
    ratio = np.where(sd_ > 0, np.expm1(sd_) / np.where(sd_ > 0, sd_, 1.0), 1.0)
    mass = np.exp(size_sd * (a - z[-1])) * ratio
    cum = np.concatenate([[0.0], np.cumsum(mass)])
    return a, d, cum / cum[-1]


def biased_quantile(u, size_sd: float, table=None):
    """The quantile at ``u`` of the size-biased residual law: the law of
    :func:`shape_quantile` reweighted by ``exp(size_sd * z)`` (a result chosen with
    probability proportional to its tokens). Exact for the piecewise-linear quantile:
    each segment ``[z_k, z_k+1]`` of mass ``1/(n-1)`` holds ``Z`` uniform, so its
    weighted mass is the segment mean of ``exp(s z)`` and inside it
    ``z = z_k + log1p(v expm1(s d)) / s``. At ``size_sd = 0`` it is the unweighted law.

    Raises:
        ValueError: for ``u`` outside ``[0, 1]`` or a negative or non-finite ``size_sd``.
    """
    if not (isinstance(size_sd, (int, float)) and math.isfinite(size_sd)
            and size_sd >= 0):
        raise ValueError(f"size_sd must be a finite number >= 0, got {size_sd!r}")
    uu = _check_u(u)
    if size_sd == 0:
        return shape_quantile(u, table)
    key = None if table is None else tuple(np.sort(np.asarray(table, dtype=float)))
    a, d, cum = _biased_segments(float(size_sd), key)
    k = np.clip(np.searchsorted(cum, uu, side="right") - 1, 0, a.size - 1)
    width = cum[k + 1] - cum[k]
    v = np.clip(np.where(width > 0, (uu - cum[k]) / np.where(width > 0, width, 1.0),
                         0.0), 0.0, 1.0)
    out = a[k] + np.log1p(v * np.expm1(size_sd * d[k])) / size_sd
    return float(out) if np.ndim(out) == 0 else out


def normal_cdf(z: float) -> float:
    """``Phi(z)``, the standard normal CDF (``erfc`` keeps the lower tail exact)."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def log_size_ratio(z: float, size_sd: float, biased: bool = False) -> float:
    """``ln(size / median)`` for the standard normal draw ``z``: ``size_sd *
    (Q(Phi(z)) - Q(1/2))`` with ``Q`` :func:`shape_quantile` (or
    :func:`biased_quantile` when ``biased``, whose median is then the median). Monotone
    non-decreasing in ``z``."""
    u = normal_cdf(z)
    if biased:
        return size_sd * (biased_quantile(u, size_sd) - biased_quantile(0.5, size_sd))
    return size_sd * (shape_quantile(u) - shape_quantile(0.5))


def draw_size(rng: np.random.Generator, median: float, size_sd: float, lo: float,
              hi: float, biased: bool = False) -> int:
    """One tool-result size (tokens): one ``rng.standard_normal()`` (the draw
    ``rng.lognormal`` makes), mapped by :func:`log_size_ratio`, times ``median``,
    clipped to ``[lo, hi]`` and truncated to an int (as the lognormal route was)."""
    return int(np.clip(median * math.exp(log_size_ratio(rng.standard_normal(), size_sd,
                                                        biased)), lo, hi))
