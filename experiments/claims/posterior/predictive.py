"""Posterior (and prior) predictive draws of the paper numbers, and where each
paper number falls (issue 30, item 3).

A draw is a world point (resampled from the posterior's weighted particles, or drawn
from the prior) played at the paper's suite size with its own design seed, so the
predictive spread holds both what the fit leaves unknown and a 75-task study's
sampling noise: the paper's number is one such study.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

#: the central predictive interval reported
LEVEL = 0.90


def resample(particles: np.ndarray, weights: np.ndarray, n: int,
             rng: np.random.Generator) -> np.ndarray:
    """``n`` rows of ``particles`` drawn with probability ``weights`` (systematic
    resampling: one uniform offset, so the draw's spread is the posterior's, not a
    multinomial's extra noise).

    Raises:
        ValueError: for weights that are negative, not finite, or do not match.
    """
    w = np.asarray(weights, dtype=float)
    if w.shape != (len(particles),) or not np.all(np.isfinite(w)) or np.any(w < 0) \
            or w.sum() <= 0:
        raise ValueError(f"weights must be {len(particles)} finite non-negative numbers "
                         f"with a positive sum, got {w!r}")
    edges = np.cumsum(w / w.sum())
    edges[-1] = 1.0
    u = (rng.uniform() + np.arange(n)) / n
    idx = np.searchsorted(edges, u, side="right")
    return np.asarray(particles)[np.minimum(idx, len(particles) - 1)]


def prior_draws(factors: Sequence, n: int, rng) -> np.ndarray:
    """``n`` points from the prior (uniform in each factor's sampling space), values
    in natural units, shape ``(n, len(factors))``; ``rng`` a
    ``numpy.random.Generator`` or anything with its ``uniform(size=...)`` (the
    ``numpy.random`` module: its global stream)."""
    from experiments.claims.robustness.analysis import natural

    lo = np.array([f.bounds[0] for f in factors])
    hi = np.array([f.bounds[1] for f in factors])
    return natural(list(factors), lo + (hi - lo) * rng.uniform(size=(n, len(factors))))


def predictive_p(draws: Sequence[float], x: float) -> float:
    """The two-sided predictive p of ``x``: ``2 min(P(T < x) + P(T = x)/2,
    P(T > x) + P(T = x)/2)`` over the draws ``T`` (mid-p for ties), at most 1. With
    ``n`` draws the smallest non-zero value is ``1/n``."""
    t = np.asarray(draws, dtype=float)
    if t.size == 0:
        raise ValueError("no predictive draws")
    below = np.mean(t < x) + 0.5 * np.mean(t == x)
    above = np.mean(t > x) + 0.5 * np.mean(t == x)
    return float(min(1.0, 2.0 * min(below, above)))


@dataclass(frozen=True)
class Prediction:
    """One paper number against its predictive distribution."""

    cell: str
    paper: float
    mean: float
    lo: float
    hi: float
    p: float
    n: int

    def as_dict(self, nd: int = 4) -> dict:
        return {"cell": self.cell, "paper": self.paper, "mean": round(self.mean, nd),
                "lo": round(self.lo, nd), "hi": round(self.hi, nd),
                "p": round(self.p, 4), "n": self.n}


def prediction(cell: str, paper: float, draws: Sequence[float],
               level: float = LEVEL) -> Prediction:
    """The predictive mean, central ``level`` interval (empirical quantiles) and
    predictive p of ``paper`` over ``draws``."""
    t = np.asarray(draws, dtype=float)
    a = (1 - level) / 2
    lo, hi = np.quantile(t, [a, 1 - a])
    return Prediction(cell, float(paper), float(t.mean()), float(lo), float(hi),
                      predictive_p(t, paper), int(t.size))


def simulate_points(cell_ids: Sequence[str], points: Sequence[Mapping[str, float]],
                    stage: str, seed: int, tasks: int, queries: int, executor=None,
                    progress: bool = False) -> list[dict[str, float]]:
    """Each point's simulated cells (one sweep over all their episodes, rows in job
    order whatever the executor); point ``i`` plays design seed
    :func:`~experiments.claims.robustness.model.point_seed` ``(seed, stage, i)``."""
    from experiments.claims.posterior.simulate import point_specs, stats_of
    from experiments.claims.robustness.model import point_seed, split_rows
    from experiments.sweep import run_sweep

    specs = [point_specs(cell_ids, p, point_seed(seed, stage, i), tasks, queries)
             for i, p in enumerate(points)]
    rows = run_sweep([s for ss in specs for s in ss], executor=executor,
                     desc=f"posterior: {stage}", progress=progress)
    return [stats_of(cell_ids, r) for r in split_rows(rows, specs)]
