"""Each agent-level claim as a paired effect with its standard error (issue 30,
item 1): the quantity the claim's check is about, measured from the same CSVs and
the same pairing over tasks as the check
(:func:`~experiments.claims.checks.vista.paired_values`), so that the robustness
analysis can ask where in the prior the *expected* effect has the claimed sign,
not where a small study's verdict happens to be "reproduced".

Per check kind (VISTA §3.3-§3.7; the claims of
:mod:`experiments.claims.registry.vista`):

* ``PairedEpisodes``, ``PairedGrowth``: the mean per-task difference (CSV units:
  a share of tasks for ``solved``, tokens, dollars); SE = sd / sqrt(n) of the
  per-task differences (common random numbers: both arms play the same task with
  the same agent seed, :func:`experiments.sweep.episode_seed`); for 0/1 outcomes
  floored where every task ties (:func:`mean_se`).
* ``PairedTie``: the same difference; the claim holds when it lies within the
  check's margin (:attr:`Effect.holds`).
* ``WindowGap``: VISTA - ReAct accuracy at the window, paired per query
  (``window_episodes.csv``; its mean is the check's difference).
* ``WindowPeak``: the largest interior gain minus the larger end gain (positive:
  an interior peak); SE from the two gains' SEs (their queries are independent).
* ``AblationGap``: solved tasks of the ablation minus full VISTA, as a share of
  tasks, paired per task (``ablations_episodes.csv``).
* ``AblationRatio``: the log of the ratio of sums (``log(sum a / sum b)``), SE by
  the delta method with the pairing's covariance; tolerance: the check's factor.
* ``Rank``: the smallest paired margin over the rivals (positive: first place),
  with the SE of that rival's margin (a minimum of noisy margins leans low; the
  metamodel's sign share of a rank claim is therefore conservative).

The tolerance against the paper's number (:data:`TOLERANCE`) is stated only where
the check compares sizes (``comparable``); token and dollar differences of a
synthetic agent are not comparable with a real model's, and get none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: tolerance of an accuracy-type effect (a share of tasks) against the paper's:
#: 5 points, a third of the ablations' gaps (11/75 and 10/75) and a sixth of
#: Fig. 4's 128K gap (28 points)
TOLERANCE = 0.05


@dataclass(frozen=True)
class Effect:
    """One claim's effect at one world point.

    Attributes:
        value: the effect (CSV units, or a log ratio; ``nan`` when undefined, e.g.
            a ratio over a zero sum).
        se: its standard error (same units).
        low, high: the claim holds where the expected effect lies in
            ``(low, high)`` (a sign: ``(0, inf)`` or ``(-inf, 0)``; a tie:
            ``(-margin, margin)``).
        paper: the paper's number on the same scale, or ``None``.
        tolerance: the half-width around ``paper`` that counts as the paper's size,
            or ``None`` when sizes are not comparable.
        n: tasks (or queries) paired.
        scale: what ``value`` is (``"difference"`` or ``"log ratio"``).
    """

    value: float
    se: float
    low: float
    high: float
    paper: float | None = None
    tolerance: float | None = None
    n: int = 0
    scale: str = "difference"

    def holds(self) -> bool:
        """Whether ``value`` itself lies in the claimed set."""
        return bool(self.low < self.value < self.high)


def _sign_set(sign: float) -> tuple[float, float]:
    if sign == 0:
        raise ValueError("a claimed sign must be nonzero")
    return (0.0, math.inf) if sign > 0 else (-math.inf, 0.0)


def mean_se(d, counts: bool = False) -> tuple[float, float, int]:
    """Mean, standard error (sd / sqrt(n), ddof = 1; 0 for one value) and n.

    ``counts``: the values are differences of 0/1 outcomes (solved): the variance
    is then at least ``(k + 1) / (n + 2) - mean^2``, ``k`` the nonzero
    differences (Laplace's plus-one estimate of the discordance rate, which
    bounds a difference's second moment). Where every task ties (both arms fail
    every task, common under common random numbers in a hard world) the sample
    SE is 0, which would tell the metamodel the expected effect is known exactly
    (measured on the quick run: 54 of 115 points at exactly 0 +- 0 pinned
    Fig4-decline's metamodel to 0 everywhere). The floor binds while fewer than
    about half the tasks are discordant, and grows with their number (none: SE
    0.022 at 45 tasks; one: 0.031, where the sample SE says 0.022).
    """
    d = np.asarray(d, float)
    if d.size == 0:
        raise ValueError("no paired values")
    n, m = d.size, float(d.mean())
    var = float(d.var(ddof=1)) if n > 1 else 0.0
    if counts:
        var = max(var, (np.count_nonzero(d) + 1) / (n + 2) - m * m)
    return m, float(math.sqrt(var / n)), int(n)


def log_ratio_se(a, b) -> tuple[float, float]:
    """``log(sum a / sum b)`` and its delta-method SE over paired tasks (``nan``
    when either sum is not positive)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    ma, mb = a.mean(), b.mean()
    if not (ma > 0 and mb > 0):
        return math.nan, math.nan
    n = a.size
    if n < 2:
        return float(math.log(ma / mb)), 0.0
    c = np.cov(a, b, ddof=1)
    var = (c[0, 0] / ma**2 + c[1, 1] / mb**2 - 2 * c[0, 1] / (ma * mb)) / n
    return float(math.log(ma / mb)), float(math.sqrt(max(var, 0.0)))


def _diff(figdir, csv, column, a, b, level=None, b_level=None):
    from experiments.claims.checks.vista import paired_values

    _, va, vb = paired_values(figdir, csv, column, a, b, level, b_level)
    return np.subtract(va, vb)


def _counts(column: str) -> bool:
    """Whether a per-episode column is a 0/1 outcome (see :func:`mean_se`)."""
    return column == "solved"


def _paired(check, claim, figdir):
    m, se, n = mean_se(_diff(figdir, check.csv, check.column, check.a, check.b,
                             check.level, check.b_level), _counts(check.column))
    paper = claim.number.diff(*check.labels) * check.scale if check.labels else None
    lo, hi = _sign_set(paper if paper is not None else check.sign)
    tol = TOLERANCE if check.comparable and check.column == "solved" else None
    return Effect(m, se, lo, hi, paper, tol if paper is not None else None, n)


def _growth(check, claim, figdir):
    from experiments.claims.checks.vista import _by_task
    from experiments.claims.data import MissingData, read

    # the check's own pairing: the same (family, seed) at both levels
    rows = read(figdir, check.csv, ("program", "level", "family", "seed", check.column))
    v = {(p, lev): _by_task(rows, p, lev, check.column, check.csv, True)
         for p in (check.a, check.b) for lev in (check.level, check.base_level)}
    keys = sorted(v[(check.a, check.level)])
    if not keys or any(set(x) != set(keys) for x in v.values()):
        raise MissingData(f"{check.csv}: {check.a} and {check.b} did not play the same "
                          f"tasks at {check.base_level} and {check.level}")
    hi_, lo_ = check.level, check.base_level
    m, se, n = mean_se([(v[(check.a, hi_)][k] - v[(check.b, hi_)][k])
                        - (v[(check.a, lo_)][k] - v[(check.b, lo_)][k]) for k in keys],
                       _counts(check.column))
    num = claim.number
    paper = ((num["a_hi"] - num["b_hi"]) - (num["a_lo"] - num["b_lo"])) * check.scale
    lo, hi = _sign_set(paper)
    return Effect(m, se, lo, hi, paper, TOLERANCE if check.comparable else None, n)


def _tie(check, claim, figdir):
    m, se, n = mean_se(_diff(figdir, check.csv, check.column, check.a, check.b,
                             check.level), _counts(check.column))
    v = claim.number.values
    paper = (v[check.a] - v[check.b]) / 100 if {check.a, check.b} <= set(v) else None
    return Effect(m, se, -check.margin, check.margin, paper,
                  TOLERANCE if paper is not None else None, n)


def _window_gap(check, claim, figdir):
    m, se, n = mean_se(_diff(figdir, "window_episodes.csv", "solved", "vista", "react",
                             check.level), True)
    paper = claim.number.diff(*check.labels) * check.scale
    lo, hi = _sign_set(paper)
    return Effect(m, se, lo, hi, paper, TOLERANCE, n)


def _window_peak(check, claim, figdir):
    from experiments.claims.checks.vista import _window

    levels = sorted(w for w, p in _window(figdir) if p == "vista")
    if len(levels) < 3:
        from experiments.claims.data import MissingData
        raise MissingData(f"window.csv has {len(levels)} windows; a peak needs 3")
    g = {w: mean_se(_diff(figdir, "window_episodes.csv", "solved", "vista", "react", w),
                    True) for w in levels}
    inner = max(levels[1:-1], key=lambda w: g[w][0])
    end = max((levels[0], levels[-1]), key=lambda w: g[w][0])
    value = g[inner][0] - g[end][0]
    se = math.hypot(g[inner][1], g[end][1])
    return Effect(value, se, 0.0, math.inf, None, None, g[inner][2])


def _ablation_gap(check, claim, figdir):
    m, se, n = mean_se(_diff(figdir, "ablations_episodes.csv", "solved", check.program,
                             "vista"), True)
    paper = claim.number.diff(*check.labels) / check.of if check.labels else None
    lo, hi = _sign_set(paper if paper is not None else check.sign)
    return Effect(m, se, lo, hi, paper, TOLERANCE if paper is not None else None, n)


def _ablation_ratio(check, claim, figdir):
    from experiments.claims.checks.vista import paired_values

    _, va, vb = paired_values(figdir, "ablations_episodes.csv", check.column,
                              check.program, "vista")
    value, se = log_ratio_se(va, vb)
    paper = math.log(claim.number[check.labels[0]] / claim.number[check.labels[1]])
    lo, hi = _sign_set(paper)
    return Effect(value, se, lo, hi, paper, math.log(check.factor), len(va), "log ratio")


def _rank(check, claim, figdir):
    from experiments.claims.data import read

    rows = read(figdir, check.csv, ("program", "task_id", check.column))
    s = -1.0 if check.lowest else 1.0
    margins = [mean_se(s * _diff(figdir, check.csv, check.column, check.program, o,
                                 check.level), _counts(check.column))
               for o in sorted({r["program"] for r in rows} - {check.program})]
    m, se, n = min(margins, key=lambda x: x[0])
    return Effect(m, se, 0.0, math.inf, None, None, n)


_BY_KIND = {"PairedEpisodes": _paired, "PairedGrowth": _growth, "PairedTie": _tie,
            "WindowGap": _window_gap, "WindowPeak": _window_peak,
            "AblationGap": _ablation_gap, "AblationRatio": _ablation_ratio,
            "Rank": _rank}


def supported(claim) -> bool:
    """Whether ``claim``'s check has an effect here."""
    return type(claim.check).__name__ in _BY_KIND


def effect(claim, figdir) -> Effect:
    """``claim``'s effect from the CSVs in ``figdir``.

    Raises:
        ValueError: for a check kind without an effect (naming it).
        MissingData: as the check's own reading would.
    """
    kind = type(claim.check).__name__
    if kind not in _BY_KIND:
        raise ValueError(f"claim {claim.id}: check {kind} has no effect; known: "
                         f"{sorted(_BY_KIND)}")
    return _BY_KIND[kind](claim.check, claim, figdir)
