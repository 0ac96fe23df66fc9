"""How often a value needed again late was first read in a bulky result, measured on
the shipped real trajectories (issue 31: the source of ``task.p_late_reuse``).

A value is a file path (the trajectory-question regex of
:mod:`sim.tasks.trajectory_tasks`) first seen in a tool result and written again in a
later call's arguments at least ``gap`` interactions on (needed again late). A result
is bulky when its tokens exceed the trajectory's upper quartile of result sizes.

The share ``q`` of such values first seen in a bulky result mixes two ways a value
can sit: a targeted lookup (the result is an ordinary one: bulky with the share of
bulky results, ``b``) or bulk data (a uniformly random line of all results: the
result is bulky with the token share of the bulky results, ``w``, the size-biased
law). With ``p`` the bulk-data share, ``q = (1 - p) b + p w``, so
``p = (q - b) / (w - b)``; the Wilson interval of ``q`` maps through the same line.
The empirical ``b`` and ``w`` need no size law. It lives in experiments/ because it
ties the task parameters to the workspace importers.
"""

from __future__ import annotations

import numpy as np

#: interactions between a value's first sight and its reuse that count as "late"
LATE_GAP = 10
#: a trajectory shorter than this (interactions) has no "late"
MIN_STEPS = 2 * LATE_GAP


def reused_values(steps: list[tuple[str, str, str]], gap: int = LATE_GAP
                  ) -> list[tuple[int, int]]:
    """``(first result index, first later call index)`` per path first seen in a
    tool result of ``steps`` (``(tool, arguments, output)``) and written in a call's
    arguments at least ``gap`` interactions later; each path once.

    Raises:
        ValueError: for ``gap`` < 1.
    """
    from sim.tasks.trajectory_tasks import _PATH

    if gap < 1:
        raise ValueError(f"gap must be >= 1 interaction, got {gap!r}")
    first: dict[str, int] = {}
    for i, (_, _, out) in enumerate(steps):
        for m in _PATH.finditer(out):
            first.setdefault(m.group(1), i)
    found = []
    for path, j in first.items():
        later = next((i for i in range(j + gap, len(steps)) if path in steps[i][1]), None)
        if later is not None:
            found.append((j, later))
    return sorted(found)


def _estimate(k: int, n: int, b: float, w: float, level: float = 0.95) -> dict:
    """``p = (q - b) / (w - b)`` with ``q = k / n`` and its Wilson interval mapped
    through the same line, clipped into [0, 1] (module docstring)."""
    from experiments.intervals import wilson

    if not 0 <= b < w <= 1:
        raise ValueError(f"need 0 <= b < w <= 1 (bulky share below its token share), "
                         f"got b={b!r}, w={w!r}")
    q, lo, hi = wilson(k, n, level)

    def to_p(x):
        return float(np.clip((x - b) / (w - b), 0.0, 1.0))

    return {"n": n, "k": k, "q": q, "q_low": lo, "q_high": hi, "b": b, "w": w,
            "p": to_p(q), "p_low": to_p(lo), "p_high": to_p(hi)}


def bulk_share(sizes, first_results, level: float = 0.95) -> dict:
    """The bulk-data share ``p`` from result ``sizes`` (tokens, one per result) and
    the result index where each reused value was first seen (module docstring).

    Returns:
        dict with ``n`` (values), ``k`` (first seen in a bulky result), ``q`` and its
        Wilson ``q_low``/``q_high``, ``b`` (share of bulky results), ``w`` (their
        token share), ``p`` and ``p_low``/``p_high`` (clipped into [0, 1]).

    Raises:
        ValueError: for no values, or sizes without a bulky result.
    """
    sizes = np.asarray(sizes, dtype=float)
    idx = np.asarray(first_results, dtype=int)
    if idx.size == 0:
        raise ValueError("no reused values to measure")
    bulky = sizes > np.quantile(sizes, 0.75)
    if not bulky.any():
        raise ValueError("every result has the same size: no bulky result")
    b, w = float(bulky.mean()), float(sizes[bulky].sum() / sizes.sum())
    return _estimate(int(bulky[idx].sum()), int(idx.size), b, w, level)


def measure(gap: int = LATE_GAP) -> dict:
    """:func:`bulk_share` over every shipped trajectory with at least
    :data:`MIN_STEPS` interactions (sizes in cl100k tokens), each value judged
    against its own trajectory's quartile, pooled over trajectories (``k`` and ``n``
    summed, ``b`` and ``w`` weighted by each trajectory's values). Adds
    ``trajectories`` (the files used) and ``gap``.

    Raises:
        ValueError: when no shipped trajectory has a value reused late.
    """
    from sim.tasks.tokens import count_tokens
    from sim.tasks.trajectory_tasks import interactions, trajectory_files
    from sim.workspace import load_trajectory

    parts, used = [], []
    for f in trajectory_files():
        steps = interactions(load_trajectory(f))
        if len(steps) < max(MIN_STEPS, 2 * gap):
            continue
        found = reused_values(steps, gap)
        if found:
            used.append(f.name)
            parts.append(bulk_share([count_tokens(out) for _, _, out in steps],
                                    [j for j, _ in found]))
    if not parts:
        raise ValueError("no shipped trajectory has a value reused late")
    n = sum(p["n"] for p in parts)
    out = _estimate(sum(p["k"] for p in parts), n,
                    sum(p["b"] * p["n"] for p in parts) / n,
                    sum(p["w"] * p["n"] for p in parts) / n)
    out.update(trajectories=used, gap=gap)
    return out
