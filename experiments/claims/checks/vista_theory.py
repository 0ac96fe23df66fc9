"""VISTA's checks on the theory CSVs (the claims of
:mod:`experiments.claims.registry.vista` on Theorem 1, its corollaries and
Propositions 1-2): each row's Monte Carlo estimate against its exact or bounding
reference, within :data:`K_SE` standard errors or a Bernstein bound at the
family-wise level :data:`FAMILY_ALPHA`. See :mod:`experiments.claims.checks`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from experiments.claims import rules
from experiments.claims.checks.base import Check
from experiments.claims.data import MissingData, num, read, select
from experiments.claims.records import Outcome, Verdict

#: k standard errors of the one-sided "within Monte Carlo error" bound checks
K_SE = 4.0
#: family-wise false-alarm level of an "every row matches its reference" claim
FAMILY_ALPHA = 0.01


@dataclass(frozen=True)
class BoundRows(Check):
    """theorem1.csv rows whose E[Z] + K_SE SE falls below the lower bound ``bound``."""

    bound: str
    rule: ClassVar = staticmethod(rules.bound_verdict)

    def run(self, figdir, claim):
        rows = [r for r in read(figdir, "theorem1.csv", ("EZ", "EZ_se", "kappa", self.bound))
                if r[self.bound] not in ("", "nan")]
        if not rows:
            raise MissingData(f"theorem1.csv has no row with a {self.bound} value")
        slack = [(num(r["EZ"]) - num(r[self.bound])) / num(r["kappa"]) for r in rows]
        bad = sum(num(r["EZ"]) + K_SE * num(r["EZ_se"]) < num(r[self.bound]) - 1e-9
                  for r in rows)
        return Outcome(f"{bad} of {len(rows)} rows below the bound; min (E[Z]-bound)/"
                       f"kappa = {min(slack):.4f}", f"E[Z] +- {K_SE:g} SE",
                       self.rule(bad, len(rows)))


@dataclass(frozen=True)
class LedgerEndpoint(Check):
    """theorem1.csv ledger rows: E[Z] = 0 and I = log2 n exactly."""

    rule: ClassVar = staticmethod(rules.bound_verdict)

    def run(self, figdir, claim):
        rows = select(read(figdir, "theorem1.csv", ("channel", "EZ", "rate_bits", "n")),
                      {"channel": "ledger"})
        bad = sum(num(r["EZ"]) != 0 or abs(num(r["rate_bits"]) - math.log2(num(r["n"])))
                  > 1e-9 for r in rows)
        return Outcome(f"{bad} of {len(rows)} ledger rows with E[Z] != 0 or I != log2 n",
                       "exact", self.rule(bad, len(rows)))


def _se_rows(rows, value, ref, se):
    """Rows whose Monte Carlo mean misses ``ref`` by more than a Bernstein half-width
    (:func:`sim.games.burden_law.mc_halfwidth`, exact variance ``se^2 * trials``,
    range ``kappa``) at a Bonferroni level FAMILY_ALPHA / rows; and the largest miss
    in half-widths. A row with SE = 0 has Var Z = 0: it must match exactly."""
    from sim.games.burden_law import mc_halfwidth

    alpha = FAMILY_ALPHA / max(len(rows), 1)
    bad, worst = 0, 0.0
    for r in rows:
        miss = abs(num(r[value]) - num(r[ref]))
        width = mc_halfwidth(num(r[se]) ** 2 * num(r["trials"]), int(num(r["trials"])),
                             num(r["kappa"]), alpha)
        ratio = miss / width if width > 0 else (0.0 if miss <= 1e-9 else math.inf)
        bad += ratio > 1.0
        worst = max(worst, ratio)
    zero = sum(not num(r[se]) > 0 for r in rows)
    note = (f"Bernstein half-width from the exact Var Z, family-wise level "
            f"{FAMILY_ALPHA:g} over {len(rows)} rows"
            + (f"; {zero} rows have Var Z = 0 and must match exactly" if zero else ""))
    return bad, len(rows), worst, note


@dataclass(frozen=True)
class TheoryRows(Check):
    """theorem1.csv rows of ``channel`` against their closed form (:func:`_se_rows`)."""

    channel: str
    rule: ClassVar = staticmethod(rules.bound_verdict)

    def run(self, figdir, claim):
        rows = [r for r in read(figdir, "theorem1.csv", ("channel", "EZ", "EZ_theory",
                                                         "EZ_se", "trials", "kappa"))
                if r["channel"] == self.channel and r["EZ_theory"] not in ("", "nan")]
        bad, n, worst, note = _se_rows(rows, "EZ", "EZ_theory", "EZ_se")
        return Outcome(f"{bad} of {n} rows off the closed form; largest miss "
                       f"{worst:.2f} half-widths", f"Bernstein, level {FAMILY_ALPHA:g}",
                       self.rule(bad, n), note)


@dataclass(frozen=True)
class UpperBoundRows(Check):
    """proposition2.csv rows whose rate - K_SE SE exceeds the upper bound ``bound`` (bits)."""

    bound: str
    rule: ClassVar = staticmethod(rules.bound_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, "proposition2.csv", ("rate_bits", "rate_se_bits", self.bound))
        bad = sum(num(r["rate_bits"]) - K_SE * num(r["rate_se_bits"]) > num(r[self.bound])
                  + 1e-9 for r in rows)
        worst = max(num(r["rate_bits"]) / num(r[self.bound]) for r in rows)
        return Outcome(f"{bad} of {len(rows)} rows above the bound; max rate/bound = "
                       f"{worst:.3f}", f"rate +- {K_SE:g} SE", self.rule(bad, len(rows)))


@dataclass(frozen=True)
class LimitToOne(Check):
    """Series (kappa, sigma) in the proposition's regime (the paper's rate bound below
    log2(n/kappa) at the largest n): E[Z]/kappa at the largest n."""

    threshold: float
    rule: ClassVar = staticmethod(rules.limit_verdict)

    def run(self, figdir, claim):
        series: dict[tuple, list[dict]] = {}
        for r in read(figdir, "proposition2.csv", ("kappa", "sigma", "n", "EZ_over_kappa",
                                                   "paper_bound_bits", "threshold_bits")):
            series.setdefault((r["kappa"], r["sigma"]), []).append(r)
        lasts, incr, out = [], [], 0
        for pts in series.values():
            pts.sort(key=lambda r: num(r["n"]))
            if num(pts[-1]["paper_bound_bits"]) >= num(pts[-1]["threshold_bits"]):
                out += 1
                continue
            lasts.append(num(pts[-1]["EZ_over_kappa"]))
            incr.append(lasts[-1] > num(pts[0]["EZ_over_kappa"]))
        if not lasts:
            return Outcome("no (kappa, sigma) series reaches the regime", "-",
                           Verdict.NOT_REPRODUCED)
        return Outcome(f"E[Z]/kappa at the largest n: min {min(lasts):.3f} over "
                       f"{len(lasts)} (kappa, sigma) in the regime",
                       f"threshold {self.threshold}",
                       self.rule(lasts, incr, self.threshold),
                       f"{out} series whose bound stays above log2(n/kappa) at the "
                       "largest n are outside the claim")


@dataclass(frozen=True)
class QuadratureRows(Check):
    """proposition2.csv E[Z] against its one-dimensional quadrature (:func:`_se_rows`)."""

    rule: ClassVar = staticmethod(rules.bound_verdict)

    def run(self, figdir, claim):
        rows = [r for r in read(figdir, "proposition2.csv", ("EZ", "EZ_quadrature", "EZ_se",
                                                             "trials", "kappa"))
                if r["EZ_quadrature"] not in ("", "nan")]
        bad, n, worst, note = _se_rows(rows, "EZ", "EZ_quadrature", "EZ_se")
        return Outcome(f"{bad} of {n} rows off the quadrature; largest miss {worst:.2f} "
                       "half-widths", f"Bernstein, level {FAMILY_ALPHA:g}",
                       self.rule(bad, n), note)


@dataclass(frozen=True)
class Prop1Rows(Check):
    """proposition1.csv lossy rows whose success - K_SE SE exceeds the Prop. 1 bound."""

    rule: ClassVar = staticmethod(rules.bound_verdict)

    def run(self, figdir, claim):
        rows = [r for r in read(figdir, "proposition1.csv", ("strategy", "bound", "success",
                                                             "success_se"))
                if r["strategy"] != "recoverable" and r["bound"] not in ("", "nan")]
        bad = sum(num(r["success"]) - K_SE * num(r["success_se"] or 0) > num(r["bound"])
                  + 1e-9 for r in rows)
        return Outcome(f"{bad} of {len(rows)} lossy rows above the bound", f"{K_SE:g} SE",
                       self.rule(bad, len(rows)))
