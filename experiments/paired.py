"""Paired comparison of two context programs on the same tasks (issue 14): accuracy
difference with a paired bootstrap 95% CI over tasks, mean dashboard tokens, and
the requests' prefix-cache hit rate.

Cache hit (per request): the request's prefix up to its first changed message equals
the previous request's (the harness ledger, :func:`sim.harness._record`); the hit
rate is the fraction of input tokens in such reusable prefixes, cached / input,
summed over a program's episodes.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

COLUMNS = ("level", "program", "reference", "n", "accuracy", "reference_accuracy",
           "difference", "ci_low", "ci_high", "within_ci", "mean_dashboard",
           "reference_mean_dashboard", "cache_hit", "reference_cache_hit")


def paired_ci(diff: np.ndarray, seed: int = 0, level: float = 0.95,
              resamples: int = 10_000) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of paired differences ``diff`` (shape
    (tasks,)), resampling tasks (scipy.stats.bootstrap). A constant ``diff`` has
    the degenerate interval (d, d)."""
    from scipy import stats

    diff = np.asarray(diff, dtype=float)
    if diff.size == 0:
        raise ValueError("paired_ci needs at least one task")
    if np.all(diff == diff[0]):
        return float(diff[0]), float(diff[0])
    res = stats.bootstrap((diff,), np.mean, confidence_level=level, n_resamples=resamples,
                          method="percentile", random_state=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def compare(rows: list[dict], program: str, reference: str, by: str | None = "level",
            seed: int = 0) -> list[dict]:
    """One row per ``by`` value (or one overall when ``by`` is None): ``program``
    against ``reference`` on the tasks both ran (paired by task id and seed).

    Raises:
        ValueError: if the two programs share no task.
    """
    groups: dict = defaultdict(dict)
    for r in rows:
        if r["program"] in (program, reference):
            key = r[by] if by else None
            groups[key].setdefault((r["task_id"], r["seed"]), {})[r["program"]] = r
    out = []
    for key in sorted(groups, key=lambda k: (k is None, k)):
        pairs = [p for p in groups[key].values() if program in p and reference in p]
        if not pairs:
            raise ValueError(f"{program!r} and {reference!r} share no task at {by}={key}")
        a = np.array([int(p[program]["solved"]) for p in pairs])
        b = np.array([int(p[reference]["solved"]) for p in pairs])
        lo, hi = paired_ci(a - b, seed)
        out.append({"level": key, "program": program, "reference": reference,
                    "n": len(pairs), "accuracy": a.mean(), "reference_accuracy": b.mean(),
                    "difference": float((a - b).mean()), "ci_low": lo, "ci_high": hi,
                    "within_ci": int(lo <= 0.0 <= hi),
                    "mean_dashboard": _mean(pairs, program, "mean_dashboard"),
                    "reference_mean_dashboard": _mean(pairs, reference, "mean_dashboard"),
                    "cache_hit": _hit(pairs, program),
                    "reference_cache_hit": _hit(pairs, reference)})
    return out


def _mean(pairs, name: str, col: str) -> float:
    return float(np.mean([float(p[name][col]) for p in pairs]))


def _hit(pairs, name: str) -> float:
    cached = sum(int(p[name]["cached_tokens"]) for p in pairs)
    total = sum(int(p[name]["input_tokens"]) for p in pairs)
    return cached / total if total else 0.0


def bounded_comparison(rows: list[dict], programs, by: str | None, seed: int = 0
                       ) -> list[dict]:
    """``vista_bounded_ledger`` against ``vista`` (:func:`compare`) when a sweep ran
    both, else []."""
    if "vista_bounded_ledger" in programs and "vista" in programs:
        return compare(rows, "vista_bounded_ledger", "vista", by, seed)
    return []
