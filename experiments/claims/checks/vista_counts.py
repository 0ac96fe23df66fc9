"""VISTA's checks of counts and structure (the claims of
:mod:`experiments.claims.registry.vista_more`, issue 31): events and steps per task
against the paper's totals (Fig. 8b, App. Table 7), the rescue structure (Fig. 9),
the fixed per-request overhead (Fig. 10) and the correlation of size estimates with
the truth without the dashboard (Table 5). See :mod:`experiments.claims.checks`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from experiments.claims import rules
from experiments.claims.checks.base import Check, share_outcome
from experiments.claims.checks.vista import _by_task
from experiments.claims.data import MissingData, num, read, select
from experiments.claims.records import Outcome
from experiments.intervals import bootstrap_mean_ci, cluster_spearman_ci


@dataclass(frozen=True)
class PerTaskTotal(Check):
    """``per`` times the mean over tasks of ``column`` for ``program`` (at ``level``;
    None: every row) of a per-episode CSV: the total the paper's ``per`` tasks would
    give (``per = 75``: Fig. 8b's counts of one 75-task run; ``per = 1``: a mean per
    task), with a bootstrap interval over tasks, against ``number[label]``. The
    paper's number is one run of a real model, so its range is [paper / ``factor``,
    paper * ``factor``] (:func:`~experiments.claims.rules.range_verdict`)."""

    csv: str
    column: str
    program: str
    label: str
    level: int | None = None
    per: int = 75
    factor: float = 1.5
    rule: ClassVar = staticmethod(rules.range_verdict)

    def run(self, figdir, claim):
        cols = ("program", "task_id", self.column) + (("level",) if self.level else ())
        v = _by_task(read(figdir, self.csv, cols), self.program, self.level, self.column,
                     self.csv, False)
        if not v:
            raise MissingData(f"{self.csv}: no rows of {self.program}"
                              + (f" at level {self.level}" if self.level else ""))
        m, lo, hi = bootstrap_mean_ci([v[k] for k in sorted(v)])
        k, paper = self.per, claim.number[self.label]
        scope = f"per {k} tasks" if k > 1 else "per task"
        return Outcome(f"{self.program} {self.column} {k * m:.4g} {scope} (mean {m:.3g} "
                       f"over {len(v)} tasks; paper {paper:g})",
                       f"[{k * lo:.4g}, {k * hi:.4g}] bootstrap over tasks",
                       self.rule(k * m, paper / self.factor, paper * self.factor,
                                 k * lo, k * hi),
                       f"reproduced needs our total within {self.factor:g}x of the "
                       f"paper's {paper:g}")


@dataclass(frozen=True)
class RescueLoop(Check):
    """Fig. 9's rescue structure at ``level``: of the tasks ``a`` solves and ``b``
    fails (the rescued, paired by task), those in which ``a`` archives at least one
    block (``archives`` >= 1), the share that also recovers an archived payload
    (``recoveries`` >= 1), against the paper's ``number[labels[0]]`` of
    ``number[labels[1]]`` (:func:`~experiments.claims.checks.base.share_outcome`)."""

    level: int
    a: str = "vista"
    b: str = "react"
    csv: str = "pressure_episodes.csv"
    archives: str = "agent_archives"
    recoveries: str = "recoveries"
    labels: tuple[str, str] = ("recovered", "archived")
    rule: ClassVar = staticmethod(rules.range_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, self.csv, ("program", "task_id", "level", "solved",
                                       self.archives, self.recoveries))
        got = {c: _by_task(rows, self.a, self.level, c, self.csv, False)
               for c in ("solved", self.archives, self.recoveries)}
        base = _by_task(rows, self.b, self.level, "solved", self.csv, False)
        if not got["solved"] or set(got["solved"]) != set(base):
            raise MissingData(f"{self.csv}: {self.a} and {self.b} did not play the same "
                              f"tasks at level {self.level}")
        rescued = [t for t in sorted(base) if got["solved"][t] > 0 and base[t] == 0]
        archived = [t for t in rescued if got[self.archives][t] >= 1]
        looped = [t for t in archived if got[self.recoveries][t] >= 1]
        return share_outcome(len(looped), len(archived), claim.number[self.labels[0]],
                             claim.number[self.labels[1]],
                             f"{len(rescued)} rescued over {self.b}; archive-then-recover")


@dataclass(frozen=True)
class FixedOverhead(Check):
    """Fig. 10's fixed overhead (tool schemas plus system prompt) on every request of
    the replayed trajectories at ``setting``: constant across requests, and its size
    against ``number["fixed_overhead"]`` within ``factor``
    (:func:`~experiments.claims.rules.constant_verdict`)."""

    setting: str
    dashboard: str = "ledger"
    factor: float = 1.5
    rule: ClassVar = staticmethod(rules.constant_verdict)

    def run(self, figdir, claim):
        rows = select(read(figdir, "overhead.csv", ("trajectory", "dashboard", "setting",
                                                    "fixed_overhead")),
                      {"setting": self.setting, "dashboard": self.dashboard})
        vals = sorted(num(r["fixed_overhead"]) for r in rows)
        vals = [v for v in vals if math.isfinite(v)]
        if not vals:
            raise MissingData(f"overhead.csv has no fixed_overhead at {self.setting} "
                              f"with dashboard {self.dashboard}")
        spread, paper = vals[-1] - vals[0], claim.number["fixed_overhead"]
        trajs = len({r["trajectory"] for r in rows})
        shown = f"{vals[0]:.0f}" if spread == 0 else f"{vals[0]:.0f}-{vals[-1]:.0f}"
        return Outcome(f"{shown} tokens on {len(vals)} requests of {trajs} trajectories "
                       f"(paper {paper:g} on every query)", "none (a count, not a sample)",
                       self.rule(spread, vals[0], paper, self.factor),
                       f"reproduced needs the same count on every request, within "
                       f"{self.factor:g}x of the paper's (our harness's prompt and tool "
                       f"schemas, not the paper's)")


@dataclass(frozen=True)
class BlindCorrelation(Check):
    """Table 5's "estimates essentially uncorrelated with truth" without the
    dashboard: Spearman's correlation of ``estimate`` with ``truth`` for
    ``quantity`` under ``condition`` (perception.csv, pooled over snapshots, a
    bootstrap over snapshots), near zero within +-``margin``
    (:func:`~experiments.claims.rules.near_zero_verdict`)."""

    quantity: str
    margin: float
    condition: str = "-dash"
    rule: ClassVar = staticmethod(rules.near_zero_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, "perception.csv", ("snapshot", "condition", "quantity",
                                               "truth", "estimate"))
        by: dict[str, list[tuple[float, float]]] = {}
        for r in rows:
            if r["condition"] == self.condition and r["quantity"] == self.quantity:
                t, e = num(r["truth"]), num(r["estimate"])
                if math.isfinite(t) and math.isfinite(e):  # an unparsed answer: no pair
                    by.setdefault(r["snapshot"], []).append((t, e))
        n = sum(map(len, by.values()))
        if n < 3:
            raise MissingData(f"perception.csv has {n} scored {self.quantity} estimates "
                              f"under {self.condition} (a correlation needs 3)")
        rho, lo, hi = cluster_spearman_ci(list(by.values()))
        return Outcome(f"Spearman rho {rho:+.3f} ({n} estimates, {len(by)} snapshots)",
                       f"[{lo:+.3f}, {hi:+.3f}] bootstrap over snapshots",
                       self.rule(rho, lo, hi, self.margin),
                       f"reproduced needs the interval within +-{self.margin:g}; a small "
                       f"local model, not the paper's four backbones")
