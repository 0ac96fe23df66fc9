"""VISTA's checks on the agent experiments (the claims of
:mod:`experiments.claims.registry.vista` other than the theory's): paired episodes
of the sweeps (Fig. 4, Tables 1, 2), the window grid (Fig. 6), the ablations
(Fig. 8), the perception probe (Table 5) and the dashboard overhead (Fig. 10). The
theory's checks: :mod:`~experiments.claims.checks.vista_theory`; issue 31's counts
and structure: :mod:`~experiments.claims.checks.vista_counts`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from experiments.claims import rules
from experiments.claims.checks.base import Check
from experiments.claims.data import MissingData, num, one, read, select
from experiments.claims.records import Outcome
from experiments.intervals import (bootstrap_mean_ci, cluster_median_ci, newcombe,
                                   ratio_of_sums_ci, wilson)


# -- per-episode CSVs (paired over tasks) ----------------------------------------------
def _by_task(rows, prog, lev, column, name, across_levels):
    """``{task: value}`` of ``prog`` at level ``lev``. A task is its task id, or
    (family, seed) when pairing across growth levels (the same task at two levels).

    Raises:
        MissingData: if the key is not unique (the pairing would be wrong).
    """
    hit = [r for r in rows if r["program"] == prog and (lev is None or int(r["level"]) == lev)]
    key = (lambda r: (r["family"], r["seed"])) if across_levels else (lambda r: r["task_id"])
    out = {key(r): num(r[column]) for r in hit}
    if len(out) != len(hit):
        raise MissingData(f"{name}: {prog} at level {lev} has {len(hit)} rows for "
                          f"{len(out)} distinct tasks")
    return out


def paired_values(figdir, name, column, a, b, level=None, b_level=None):
    """The tasks both programs played and their values: ``(keys, a values, b values)``
    in ``column`` of a per-episode CSV (``a`` at ``level``, ``b`` at ``b_level`` or
    ``level``; None: every row), in task order: the pairing every paired check and
    the robustness effects (:mod:`experiments.claims.robustness.effects`) share.

    Raises:
        MissingData: if either program has no rows, or they played different tasks.
    """
    across = b_level is not None and b_level != level
    rows = read(figdir, name, ("program", "task_id", column)
                + (("level", "family", "seed") if across else ()))
    b_level = level if b_level is None else b_level
    va = _by_task(rows, a, level, column, name, across)
    vb = _by_task(rows, b, b_level, column, name, across)
    if not va or not vb:
        raise MissingData(f"{name}: no rows of {a if not va else b} at level "
                          f"{level if not va else b_level}")
    if set(va) != set(vb):
        raise MissingData(f"{name}: {a} and {b} did not play the same tasks")
    keys = sorted(va)
    return keys, [va[k] for k in keys], [vb[k] for k in keys]


def paired_episodes(figdir, name, column, a, b, level=None, b_level=None):
    """Per-task ``a - b`` in ``column`` of a per-episode CSV (see
    :func:`paired_values`) with a paired bootstrap interval. Returns (mean, lo, hi,
    mean a, mean b, n).

    Raises:
        MissingData: if either program has no rows, or they played different tasks.
    """
    keys, va, vb = paired_values(figdir, name, column, a, b, level, b_level)
    d, lo, hi = bootstrap_mean_ci([x - y for x, y in zip(va, vb)])
    return d, lo, hi, float(np.mean(va)), float(np.mean(vb)), len(keys)


@dataclass(frozen=True)
class PairedEpisodes(Check):
    """``a`` minus ``b`` in ``column`` of a per-episode CSV, paired over tasks.

    With ``labels`` the paper's difference is ``number.diff(*labels) * scale`` (in
    the CSV's unit) and, if ``comparable``, its size is checked too; without, the
    claim is the ordering ``sign``."""

    csv: str
    column: str
    a: str
    b: str
    level: int | None
    b_level: int | None = None
    labels: tuple[str, str] | None = None
    sign: int = 1
    scale: float = 1.0
    comparable: bool = False
    unit: float = 1.0
    unit_name: str = ""
    rule: ClassVar = staticmethod(rules.gap_verdict)

    def run(self, figdir, claim):
        d, lo, hi, pa, pb, n = paired_episodes(figdir, self.csv, self.column, self.a,
                                               self.b, self.level, self.b_level)
        paper = (claim.number.diff(*self.labels) * self.scale if self.labels
                 else self.sign)
        u = self.unit
        la = self.a + (f"@{self.level // 1000}K" if self.b_level is not None else "")
        lb = self.b + (f"@{self.b_level // 1000}K" if self.b_level is not None else "")
        note = ("the paper's size is compared" if self.comparable else
                "synthetic tasks: sizes not comparable with the paper's; the sign is "
                "the claim")
        return Outcome(f"{la} {pa / u:.4g} vs {lb} {pb / u:.4g}{self.unit_name}, diff "
                       f"{d / u:+.4g} (n = {n})",
                       f"[{lo / u:+.4g}, {hi / u:+.4g}] paired bootstrap",
                       self.rule(paper, d, lo, hi, comparable=self.comparable), note)


@dataclass(frozen=True)
class PairedGrowth(Check):
    """How the gap ``a - b`` in ``column`` grows from ``base_level`` to ``level``:
    per task (family, seed), (a - b at ``level``) - (a - b at ``base_level``), with
    a paired bootstrap interval; the paper's is from ``number`` labels ``a_hi``,
    ``b_hi``, ``a_lo``, ``b_lo`` (times ``scale``)."""

    csv: str
    column: str
    a: str
    b: str
    level: int
    base_level: int
    scale: float = 0.01
    comparable: bool = True
    rule: ClassVar = staticmethod(rules.gap_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, self.csv, ("program", "level", "family", "seed", self.column))
        v = {(p, lev): _by_task(rows, p, lev, self.column, self.csv, True)
             for p in (self.a, self.b) for lev in (self.level, self.base_level)}
        keys = set(v[(self.a, self.level)])
        if not keys or any(set(x) != keys for x in v.values()):
            raise MissingData(f"{self.csv}: {self.a} and {self.b} did not play the same "
                              f"tasks at {self.base_level} and {self.level}")
        hi, lo = self.level, self.base_level
        d = [(v[(self.a, hi)][k] - v[(self.b, hi)][k]) - (v[(self.a, lo)][k]
                                                          - v[(self.b, lo)][k])
             for k in sorted(keys)]
        m, clo, chi = bootstrap_mean_ci(d)
        n = claim.number
        paper = ((n["a_hi"] - n["b_hi"]) - (n["a_lo"] - n["b_lo"])) * self.scale
        u = self.scale
        return Outcome(f"gap at {hi // 1000}K minus gap at {lo // 1000}K: {m / u:+.1f} "
                       f"(paper {paper / u:+.1f}; n = {len(d)})",
                       f"[{clo / u:+.1f}, {chi / u:+.1f}] paired bootstrap",
                       self.rule(paper, m, clo, chi, comparable=self.comparable))


@dataclass(frozen=True)
class PairedTie(Check):
    """``a`` minus ``b`` in ``column`` at ``level``: a tie within +-``margin``."""

    csv: str
    column: str
    a: str
    b: str
    level: int
    margin: float
    rule: ClassVar = staticmethod(rules.tie_verdict)

    def run(self, figdir, claim):
        d, lo, hi, pa, pb, n = paired_episodes(figdir, self.csv, self.column, self.a,
                                               self.b, self.level)
        return Outcome(f"{100 * pa:.1f} vs {100 * pb:.1f} (%), diff {100 * d:+.1f} "
                       f"points (n = {n})",
                       f"[{100 * lo:+.1f}, {100 * hi:+.1f}] paired bootstrap",
                       self.rule(lo, hi, self.margin),
                       f"tie = interval within +-{100 * self.margin:g} points")


@dataclass(frozen=True)
class Rank(Check):
    """``program`` first in ``column`` among every program of a per-episode CSV at
    ``level``: its paired margin over each other program, with intervals."""

    csv: str
    column: str
    program: str
    lowest: bool
    level: int | None = None
    rule: ClassVar = staticmethod(rules.rank_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, self.csv, ("program", "task_id", self.column))
        others = sorted({r["program"] for r in rows} - {self.program})
        s = -1 if self.lowest else 1
        margins, worst = [], None
        for o in others:
            d, lo, hi, pa, pb, n = paired_episodes(figdir, self.csv, self.column,
                                                   self.program, o, self.level)
            m = (s * d, *sorted((s * lo, s * hi)))
            margins.append(m)
            if worst is None or m[0] < worst[1][0]:
                worst = (o, m, pb)
        place = 1 + sum(m[0] < 0 for m in margins)
        ties = [o for o, m in zip(others, margins) if m[0] == 0]
        o, m, pb = worst
        tied = f", tied with {', '.join(ties)}" if ties else ""
        return Outcome(f"{self.program} place {place} of {len(others) + 1}{tied}; strongest "
                       f"rival: {o} ({self.column} {pb:.4g}), margin {m[0]:+.4g}",
                       f"[{m[1]:+.4g}, {m[2]:+.4g}] paired bootstrap (strongest rival)",
                       self.rule(margins), "a tie is not first place")


# -- window.csv, ablations ----------------------------------------------------------------
def _window(figdir):
    rows = read(figdir, "window.csv", ("level", "program", "solved", "n", "accuracy"))
    return {(int(r["level"]), r["program"]): r for r in rows}


def _gap_rows(ra, rb, ref="vista"):
    """a - b accuracy with an interval: paired (the CSV's paired columns, when
    present) else Newcombe's unpaired interval."""
    if rb.get(f"acc_diff_vs_{ref}", "") not in ("", None) and ra["program"] == ref:
        d = -num(rb[f"acc_diff_vs_{ref}"])
        return d, -num(rb["acc_diff_hi"]), -num(rb["acc_diff_lo"]), "paired bootstrap"
    d, lo, hi = newcombe(int(ra["solved"]), int(ra["n"]), int(rb["solved"]), int(rb["n"]))
    return d, lo, hi, "Newcombe (unpaired)"


@dataclass(frozen=True)
class WindowGap(Check):
    """VISTA - ReAct accuracy at window ``level`` against the paper's gap."""

    level: int
    labels: tuple[str, str]
    scale: float = 0.01
    rule: ClassVar = staticmethod(rules.gap_verdict)

    def run(self, figdir, claim):
        t = _window(figdir)
        if (self.level, "vista") not in t or (self.level, "react") not in t:
            raise MissingData(f"window.csv has no vista/react rows at level {self.level}")
        ra, rb = t[(self.level, "vista")], t[(self.level, "react")]
        d, lo, hi, how = _gap_rows(ra, rb)
        return Outcome(f"{100 * num(ra['accuracy']):.0f}% vs {100 * num(rb['accuracy']):.0f}%"
                       f" (n = {ra['n']})", f"diff [{100 * lo:+.0f}, {100 * hi:+.0f}] {how}",
                       self.rule(claim.number.diff(*self.labels) * self.scale, d, lo, hi),
                       "the paper's baseline is its strongest; ours is ReAct")


@dataclass(frozen=True)
class WindowPeak(Check):
    """The VISTA - ReAct gain over windows W has an interior maximum."""

    rule: ClassVar = staticmethod(rules.peak_verdict)

    def run(self, figdir, claim):
        t = _window(figdir)
        gains = {}
        for (w, prog), ra in t.items():
            if prog == "vista" and (w, "react") in t:
                gains[w] = _gap_rows(ra, t[(w, "react")])[:3]
        if not gains:
            raise MissingData("window.csv has no vista/react pair")
        best = max(gains, key=lambda w: gains[w][0])
        ends = sorted(gains)
        return Outcome(f"gain {100 * gains[best][0]:+.0f} points at W = {best // 1000}K; "
                       f"{100 * gains[ends[0]][0]:+.0f} at {ends[0] // 1000}K, "
                       f"{100 * gains[ends[-1]][0]:+.0f} at {ends[-1] // 1000}K",
                       "per-W intervals", self.rule(gains))


@dataclass(frozen=True)
class AblationGap(Check):
    """Solved tasks of ablation ``program`` minus full VISTA (ablations.csv, paired
    columns). With ``labels`` the paper's gap (of ``of`` tasks) is compared in
    size; without, the claim is the ordering ``sign``."""

    program: str
    labels: tuple[str, str] | None = None
    of: int = 75
    sign: int = -1
    rule: ClassVar = staticmethod(rules.gap_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, "ablations.csv", ("program", "n", "solved"))
        ra, rf = one(rows, {"program": self.program}, "ablations.csv"), \
            one(rows, {"program": "vista"}, "ablations.csv")
        n = int(rf["n"])
        if ra.get("solved_diff_vs_vista", "") not in ("", None):
            d, lo, hi = (num(ra[c]) / n for c in ("solved_diff_vs_vista", "solved_diff_lo",
                                                  "solved_diff_hi"))
            how = "paired bootstrap"
        else:
            d, lo, hi = newcombe(int(ra["solved"]), int(ra["n"]), int(rf["solved"]), n)
            how = "Newcombe (unpaired)"
        paper = (claim.number.diff(*self.labels) / self.of if self.labels else self.sign)
        return Outcome(f"{ra['solved']} vs {rf['solved']} of {n}",
                       f"diff [{n * lo:+.1f}, {n * hi:+.1f}] tasks, {how}",
                       self.rule(paper, d, lo, hi, comparable=self.labels is not None))


@dataclass(frozen=True)
class AblationRatio(Check):
    """Sum over tasks of ``column`` for ``program`` over full VISTA's
    (ablations_episodes.csv), with a paired bootstrap interval over tasks, against
    the paper's ratio ``number[labels[0]] / number[labels[1]]``."""

    column: str
    labels: tuple[str, str]
    program: str = "vista_no_dashboard"
    factor: float = 1.5
    rule: ClassVar = staticmethod(rules.ratio_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, "ablations_episodes.csv", ("program", "task_id", self.column))
        va = _by_task(rows, self.program, None, self.column, "ablations_episodes.csv", False)
        vb = _by_task(rows, "vista", None, self.column, "ablations_episodes.csv", False)
        if not va or set(va) != set(vb):
            raise MissingData(f"ablations_episodes.csv: {self.program} and vista did not "
                              "play the same tasks")
        keys = sorted(va)
        r, lo, hi = ratio_of_sums_ci([va[k] for k in keys], [vb[k] for k in keys])
        paper = claim.number[self.labels[0]] / claim.number[self.labels[1]]
        return Outcome(f"{sum(va.values()):g} / {sum(vb.values()):g} = {r:.2f}x "
                       f"({self.column}; paper {paper:.2f}x)",
                       f"[{lo:.2f}, {hi:.2f}] bootstrap over tasks",
                       self.rule(paper, r, lo, hi, self.factor),
                       f"reproduced needs the ratio within {self.factor:g}x of the paper's")


# -- perception.csv --------------------------------------------------------------------
def _perception(figdir, quantity):
    rows = read(figdir, "perception.csv", ("snapshot", "condition", "quantity", "item",
                                           "rel_error", "correct"))
    return [r for r in rows if r["quantity"] == quantity]


def _other(condition):
    return "+dash" if condition == "-dash" else "-dash"


@dataclass(frozen=True)
class PerceptionMedian(Check):
    """Median relative error of ``quantity`` under ``condition`` with a bootstrap
    over snapshots, against the paper's range ``number[lo], number[hi]``; the
    other condition's median is the comparison ("-dash" should be above it)."""

    condition: str
    quantity: str
    labels: tuple[str, str] = ("lo", "hi")
    rule: ClassVar = staticmethod(rules.range_verdict)

    def run(self, figdir, claim):
        rows = _perception(figdir, self.quantity)

        def clusters(cond):
            by: dict[str, list[float]] = {}
            for r in rows:
                if r["condition"] == cond and r["rel_error"] not in ("", "nan"):
                    by.setdefault(r["snapshot"], []).append(num(r["rel_error"]))
            if not by:
                raise MissingData(f"perception.csv has no {self.quantity} rows under {cond}")
            return list(by.values())

        med, lo, hi = cluster_median_ci(clusters(self.condition))
        other = cluster_median_ci(clusters(_other(self.condition)))[0]
        plo, phi = (claim.number[x] for x in self.labels)
        return Outcome(f"median {med:.3f} ({_other(self.condition)}: {other:.3f}; "
                       f"{len(clusters(self.condition))} snapshots)",
                       f"[{lo:.3f}, {hi:.3f}] bootstrap over snapshots",
                       self.rule(med, plo, phi, lo, hi, other=other,
                                 higher=self.condition == "-dash"),
                       "a small local model, not the paper's four backbones")


@dataclass(frozen=True)
class PerceptionAccuracy(Check):
    """Pairwise size accuracy under ``condition`` (Wilson interval) against the
    paper's range; the other condition's accuracy is the comparison ("+dash"
    should be above it)."""

    condition: str
    labels: tuple[str, str] = ("lo", "hi")
    rule: ClassVar = staticmethod(rules.range_verdict)

    def run(self, figdir, claim):
        rows = _perception(figdir, "pairwise")

        def acc(cond):
            c = [num(r["correct"]) for r in rows if r["condition"] == cond
                 and r["correct"] not in ("", "nan")]
            if not c:
                raise MissingData(f"perception.csv has no scored pairwise rows under {cond}")
            return int(sum(c)), len(c)

        k, n = acc(self.condition)
        ko, no = acc(_other(self.condition))
        _, lo, hi = wilson(k, n)
        plo, phi = (claim.number[x] for x in self.labels)
        return Outcome(f"{k}/{n} = {k / n:.3f} ({_other(self.condition)}: {ko}/{no} = "
                       f"{ko / no:.3f})", f"[{lo:.3f}, {hi:.3f}] Wilson",
                       self.rule(k / n, plo, phi, lo, hi, other=ko / no,
                                 higher=self.condition == "+dash"),
                       "a small local model, not the paper's four backbones")


@dataclass(frozen=True)
class PerceptionGain(Check):
    """Pairwise accuracy with the ledger minus without, paired by (snapshot, pair)."""

    sign: int = 1
    rule: ClassVar = staticmethod(rules.order_verdict)

    def run(self, figdir, claim):
        rows = [r for r in _perception(figdir, "pairwise") if r["correct"] not in ("", "nan")]
        by = {c: {(r["snapshot"], r["item"]): num(r["correct"]) for r in rows
                  if r["condition"] == c} for c in ("+dash", "-dash")}
        keys = sorted(set(by["+dash"]) & set(by["-dash"]))
        if not keys:
            raise MissingData("perception.csv has no pair scored under both conditions")
        d, lo, hi = bootstrap_mean_ci([by["+dash"][k] - by["-dash"][k] for k in keys])
        return Outcome(f"+dash - -dash = {d:+.3f} ({len(keys)} pairs)",
                       f"[{lo:+.3f}, {hi:+.3f}] paired bootstrap",
                       self.rule(self.sign, d, lo, hi))


# -- overhead.csv (Fig. 10) ---------------------------------------------------------------
def _trajectory(figdir, setting, dashboard, column):
    rows = select(read(figdir, "overhead.csv", ("trajectory", "dashboard", "setting",
                                                "registered", column)),
                  {"setting": setting, "dashboard": dashboard})
    if not rows:
        raise MissingData(f"overhead.csv has no rows at {setting} with dashboard "
                          f"{dashboard}")
    traj = max(sorted({r["trajectory"] for r in rows}),
               key=lambda t: sum(r["trajectory"] == t for r in rows))
    pts = sorted((num(r["registered"]), num(r[column])) for r in rows
                 if r["trajectory"] == traj)
    return traj, pts


def loglog_slope(pts) -> float:
    """Least-squares slope of log y on log x (y floored at 1)."""
    if len(pts) < 2:
        return float("nan")
    x = np.log([p[0] for p in pts])
    y = np.log([max(p[1], 1.0) for p in pts])
    return float(np.polyfit(x, y, 1)[0])


@dataclass(frozen=True)
class Footprint(Check):
    """Dashboard tokens against registered blocks on the longest trajectory: the
    peak (paper ``number["peak"]``) and whether it declines after it (the last
    quarter below the peak and a negative log-log slope after the peak)."""

    setting: str
    dashboard: str = "ledger"
    factor: float = 2.0
    rule: ClassVar = staticmethod(rules.footprint_verdict)

    def run(self, figdir, claim):
        traj, pts = _trajectory(figdir, self.setting, self.dashboard, "dashboard_tokens")
        k = int(np.argmax([p[1] for p in pts]))
        peak_n, peak = pts[k]
        after = pts[k:]
        slope = loglog_slope(after)
        declines = len(after) >= 4 and slope < 0 and after[-1][1] < peak
        return Outcome(f"peak {peak:.0f} tokens at N = {peak_n:.0f} (paper ~"
                       f"{claim.number['peak']:.0f} at N ~ {claim.number['peak_n']:.0f});"
                       f" slope after the peak {slope:+.2f} ({traj}, {len(pts)} points)",
                       "none (one trajectory)",
                       self.rule(peak, claim.number["peak"], declines, self.factor),
                       f"the peak must be within {self.factor:g}x of the paper's")


@dataclass(frozen=True)
class VisibleSlopes(Check):
    """Log-log slopes of the visible set against registered blocks before and after
    the paper's bend (``number["bend_n"]``) against the paper's two slopes."""

    setting: str
    dashboard: str = "ledger"
    tol: float = 0.2
    rule: ClassVar = staticmethod(rules.slope_verdict)

    def run(self, figdir, claim):
        traj, pts = _trajectory(figdir, self.setting, self.dashboard, "visible")
        bend = claim.number["bend_n"]
        early = loglog_slope([p for p in pts if p[0] <= bend])
        late = loglog_slope([p for p in pts if p[0] > bend])
        paper = (claim.number["early_slope"], claim.number["late_slope"])
        if not (math.isfinite(early) and math.isfinite(late)):
            raise MissingData(f"overhead.csv: {traj} has too few points on one side of "
                              f"N = {bend:g}")
        return Outcome(f"slopes {early:.2f} (N <= {bend:g}) and {late:.2f} (N > {bend:g}) "
                       f"on {traj}", "least-squares fits (no interval)",
                       self.rule((early, late), paper, self.tol),
                       f"reproduced: each slope within {self.tol:g} of the paper's")


