"""Paired differences between programs with bootstrap confidence intervals.

Every program in a sweep runs on the same task instances with the same agent draws
(common random numbers: one error draw per task, shared by all programs), so two
programs are compared task by task: the difference of a per-task outcome (solved,
0/1) is resampled over tasks (the paired bootstrap; Efron & Tibshirani 1993, ch. 6)
to give a percentile interval for the mean difference. A raw tie between two
programs then shows as a difference with its interval, not as two equal counts.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

#: bootstrap resamples and the two-sided level of the percentile interval
RESAMPLES = 4000
LEVEL = 0.95


def bootstrap_mean_ci(d, resamples: int = RESAMPLES, level: float = LEVEL,
                      seed: int = 0) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of the values ``d`` (one per task) with a percentile
    bootstrap interval; a fixed seed makes the interval reproducible.

    Raises:
        ValueError: for an empty ``d`` or a level outside (0, 1).
    """
    d = np.asarray(d, dtype=float)
    if d.size == 0:
        raise ValueError("no paired values to resample")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, size=(resamples, d.size))
    means = d[idx].mean(axis=1)
    a = (1 - level) / 2
    lo, hi = np.quantile(means, [a, 1 - a])
    return float(d.mean()), float(lo), float(hi)


def paired_differences(rows: list[dict], reference: str, column: str = "solved",
                       by: tuple[str, ...] = ("level",), seed: int = 0) -> dict:
    """Per group ``by`` and program: the mean over tasks of ``column`` minus the
    ``reference`` program's on the same task, with its bootstrap interval.

    Args:
        rows: per-episode rows with ``program``, ``task_id``, ``column`` and ``by``.
        reference: the program every other is compared with (e.g. ``"vista"``).

    Returns:
        ``{(*group, program): (mean, lo, hi)}`` in units of ``column`` per task
        (for ``solved``: a difference in accuracy, -1..1). Programs without the
        reference in their group are left out.

    Raises:
        ValueError: if a program has a task the reference lacks, or the reverse
            (the pairing would be silently partial).
    """
    table: dict[tuple, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        key = tuple(r[k] for k in by)
        table[key][r["program"]][r["task_id"]] = float(r[column])
    out = {}
    for key, progs in table.items():
        ref = progs.get(reference)
        if ref is None:
            continue
        for prog, vals in progs.items():
            if set(vals) != set(ref):
                raise ValueError(f"{prog} at {key} ran tasks {sorted(set(vals) ^ set(ref))}"
                                 f" that {reference} did not (or the reverse)")
            tasks = sorted(ref)
            d = [vals[t] - ref[t] for t in tasks]
            out[key + (prog,)] = bootstrap_mean_ci(d, seed=seed)
    return out


def add_paired_columns(table: list[dict], rows: list[dict], reference: str,
                       by: tuple[str, ...] = ("level",)) -> None:
    """Add ``acc_diff_vs_<reference>``, ``acc_diff_lo`` and ``acc_diff_hi`` (solved
    fraction minus the reference's on the same tasks, with its interval) to each
    aggregate row of ``table`` (keyed by ``by`` and ``program``); "" where the
    reference did not run."""
    diffs = paired_differences(rows, reference, by=by)
    for r in table:
        d = diffs.get(tuple(r[k] for k in by) + (r["program"],))
        vals = ("", "", "") if d is None else tuple(round(v, 4) for v in d)
        r[f"acc_diff_vs_{reference}"], r["acc_diff_lo"], r["acc_diff_hi"] = vals


#: what figure captions and sidecars say about the pairing
CRN_NOTE = ("common random numbers: every program runs the same task instances with "
            "the same per-task agent draws; differences are paired over tasks "
            f"({LEVEL:.0%} paired-bootstrap intervals)")
