"""ContextEvo's checks (the claims of :mod:`experiments.claims.registry.contextevo`):
an iteration's gain over the previous one, diagnosis-guided evolution against
evidence-free search over seeds, the evolved policy against the compression
stand-ins (Table 4) and the skill-only runs' invocation gap (§6.1). See
:mod:`experiments.claims.checks`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

import numpy as np

from experiments.claims import rules
from experiments.claims.checks.base import Check, share_outcome
from experiments.claims.data import MissingData, num, one, read
from experiments.claims.records import Outcome, Verdict
from experiments.intervals import newcombe, student_t


@dataclass(frozen=True)
class StageGain(Check):
    """ContextEvo's iteration ``stage`` against ``prev`` on ``split``: the paired
    interval from the row's ``diff_vs_prev``/``prev_lo``/``prev_hi`` columns when
    contextevo.csv has them, else the point difference of accuracies (no interval)."""

    where: Mapping[str, str]
    stage: str = "iter2"
    prev: str = "iter1"
    rule: ClassVar = staticmethod(rules.order_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, "contextevo.csv", ("stage", "accuracy"))
        r2 = one(rows, {**self.where, "stage": self.stage}, "contextevo.csv")
        r1 = one(rows, {**self.where, "stage": self.prev}, "contextevo.csv")
        cols = ("diff_vs_prev", "prev_lo", "prev_hi")
        if all(r2.get(c, "") not in ("", None) for c in cols):
            d, lo, hi = (num(r2[c]) for c in cols)
            return Outcome(f"{self.stage} - {self.prev} = {d:+.3f}",
                           f"[{lo:+.3f}, {hi:+.3f}] paired bootstrap",
                           self.rule(1, d, lo, hi))
        d = num(r2["accuracy"]) - num(r1["accuracy"])
        return Outcome(f"accuracy {num(r2['accuracy']):.3f} vs {num(r1['accuracy']):.3f} "
                       f"({d:+.3f})", "point estimates", self.rule(1, d),
                       "no paired interval: contextevo.csv has no column "
                       + "/".join(cols) + f" on the {self.stage} row")


#: the fewest seeds a paired interval of an optimizer's gain may rest on
MIN_SEEDS = 5


@dataclass(frozen=True)
class EvidenceFree(Check):
    """Diagnosis-guided evolution (``full``) against every evidence-free baseline at
    equal budget on held-out tasks, from ``contextevo_seeds.csv``: one row per seed,
    variant and baseline with its held-out accuracy (fraction). Per baseline, the
    per-seed differences full minus evidence-free get a Student-t 95% interval over
    the seeds (at least :data:`MIN_SEEDS`); the claim is a first place against
    every baseline (:func:`~experiments.claims.rules.rank_verdict`)."""

    setting: str
    csv: str = "contextevo_seeds.csv"
    rule: ClassVar = staticmethod(rules.rank_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, self.csv, ("setting", "seed", "variant", "baseline",
                                       "heldout_accuracy"))
        rows = [r for r in rows if r["setting"] == self.setting]
        full = {r["seed"]: num(r["heldout_accuracy"]) for r in rows
                if r["variant"] == "full"}
        if not full:
            raise MissingData(f"{self.csv} has no full rows at {self.setting}")
        margins, parts, counts = [], [], []
        for base in sorted({r["baseline"] for r in rows if r["variant"] == "evidence_free"}):
            ef = {r["seed"]: num(r["heldout_accuracy"]) for r in rows
                  if r["variant"] == "evidence_free" and r["baseline"] == base}
            d = np.array([full[k] - ef[k] for k in sorted(full) if k in ef], dtype=float)
            counts.append(d.size)
            if d.size < 2:
                raise MissingData(f"{self.csv}: {base} has {d.size} paired seed(s)")
            m, lo, hi = student_t(d)
            margins.append((m, lo, hi))
            parts.append(f"{base} {m:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        if not margins:
            raise MissingData(f"{self.csv} has no evidence_free rows at {self.setting}")
        seeds = min(counts)
        v = self.rule(margins)
        note = f"full - evidence-free per baseline over {seeds} seeds (held-out)"
        if seeds < MIN_SEEDS and v is Verdict.REPRODUCED:
            v, note = Verdict.DIRECTION, note + f" (< {MIN_SEEDS} seeds: not enough)"
        return Outcome("; ".join(parts), f"Student-t 95% over {seeds} paired seeds", v,
                       note)


@dataclass(frozen=True)
class AboveStandIns(Check):
    """ContextEvo Table 4: the policy evolved from ``start`` (contextevo.csv: the
    ``full`` variant at ``stage`` on all tasks of ``setting``) above each
    ``stand_ins`` program of pressure.csv at growth ``level``; a first place
    (:func:`~experiments.claims.rules.rank_verdict`) with Newcombe's unpaired
    intervals (the two experiments write no shared per-task file).

    Raises:
        MissingData: if a row is missing, or the two did not play the same tasks
            (the start program's solved count and n must agree in both files).
    """

    setting: str = "loca128k"
    start: str = "react"
    level: int = 128_000
    stand_ins: tuple[str, ...] = ("summarization", "active_compression")
    stage: str = "iter2"
    rule: ClassVar = staticmethod(rules.rank_verdict)

    def run(self, figdir, claim):
        ce = read(figdir, "contextevo.csv", ("setting", "start", "variant", "stage",
                                             "split", "n", "accuracy"))
        at = {"setting": self.setting, "start": self.start, "variant": "full",
              "split": "all"}
        full = one(ce, {**at, "stage": self.stage}, "contextevo.csv")
        st = one(ce, {**at, "stage": "start"}, "contextevo.csv")
        pr = read(figdir, "pressure.csv", ("level", "program", "n", "solved"))
        row = {p: one(pr, {"level": self.level, "program": p}, "pressure.csv")
               for p in (self.start,) + self.stand_ins}
        n = int(full["n"])
        k_start = round(num(st["accuracy"]) * int(st["n"]))
        if (int(st["n"]), k_start) != (int(row[self.start]["n"]),
                                        int(row[self.start]["solved"])):
            raise MissingData(f"contextevo.csv ({self.setting}) and pressure.csv (level "
                              f"{self.level}) did not play the same tasks: {self.start} "
                              f"solves {k_start}/{st['n']} vs {row[self.start]['solved']}/"
                              f"{row[self.start]['n']}")
        k = round(num(full["accuracy"]) * n)
        margins = [newcombe(k, n, int(row[p]["solved"]), int(row[p]["n"]))
                   for p in self.stand_ins]
        worst = min(range(len(margins)), key=lambda i: margins[i][0])
        parts = "; ".join(f"{p} {row[p]['solved']}/{row[p]['n']} ({100 * m[0]:+.1f})"
                          for p, m in zip(self.stand_ins, margins))
        d, lo, hi = margins[worst]
        return Outcome(f"evolved {k}/{n} vs {parts} points",
                       f"[{100 * lo:+.1f}, {100 * hi:+.1f}] Newcombe, unpaired (closest: "
                       f"{self.stand_ins[worst]})", self.rule(margins),
                       f"same tasks as pressure.csv at {self.level // 1000}K (checked: "
                       f"{self.start} solves {k_start} in both); a tie is not first place")


@dataclass(frozen=True)
class SkillReads(Check):
    """ContextEvo §6.1's invocation gap: of the ``arm`` runs of
    evoharness_policy.csv, the share that read a skill body (``runs_read_skill`` of
    ``n_tasks``) against the paper's ``number[labels[0]]`` of ``number[labels[1]]``
    (:func:`~experiments.claims.checks.base.share_outcome`)."""

    arm: str = "skill-only"
    labels: tuple[str, str] = ("read", "runs")
    rule: ClassVar = staticmethod(rules.range_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, "evoharness_policy.csv", ("arm", "n_tasks", "runs_read_skill"))
        r = one(rows, {"arm": self.arm}, "evoharness_policy.csv")
        return share_outcome(int(r["runs_read_skill"]), int(r["n_tasks"]),
                             claim.number[self.labels[0]], claim.number[self.labels[1]],
                             f"{self.arm} runs that read a skill body")
