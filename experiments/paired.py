"""Paired differences between programs with bootstrap confidence intervals.

Every program in a sweep runs on the same task instances with the same agent draws
(common random numbers: one error draw per task, shared by all programs), so two
programs are compared task by task: the difference of a per-task outcome (solved,
0/1) is resampled over tasks (the paired bootstrap; Efron & Tibshirani 1993, ch. 6)
to give a percentile interval for the mean difference
(:func:`experiments.intervals.bootstrap_mean_ci`). A raw tie between two
programs then shows as a difference with its interval, not as two equal counts.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from experiments.intervals import LEVEL, bootstrap_mean_ci


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


#: columns of :func:`compare` (the ``<name>_bounded.csv`` tables)
COLUMNS = ("level", "program", "reference", "n", "accuracy", "reference_accuracy",
           "difference", "ci_low", "ci_high", "within_ci", "mean_dashboard",
           "reference_mean_dashboard", "cache_hit", "reference_cache_hit")


def compare(rows: list[dict], program: str, reference: str, by: str | None = "level",
            seed: int = 0) -> list[dict]:
    """``program`` against ``reference`` per ``by`` value (one overall row when ``by``
    is None), paired by (task id, seed) on the tasks both ran: accuracy difference
    with its paired-bootstrap interval (:func:`bootstrap_mean_ci`), mean dashboard
    tokens, and the prefix-cache hit rate.

    Cache hit: a request's prefix up to its first changed message equals the previous
    request's (the harness cost ledger); the rate is cached / input tokens summed
    over a program's episodes.

    Raises:
        ValueError: if the two programs share no task in some group.
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
        diff, lo, hi = bootstrap_mean_ci(a - b, seed=seed)
        out.append({"level": key, "program": program, "reference": reference,
                    "n": len(pairs), "accuracy": a.mean(), "reference_accuracy": b.mean(),
                    "difference": diff, "ci_low": lo, "ci_high": hi,
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
