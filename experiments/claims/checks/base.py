"""The base of every check (:class:`Check`), the check ContextEvo's and
Evo-Harness's registries share (:class:`RowOrder`: a paired difference read from one
row of an evolution experiment's CSV), and the comparison of a share with the
paper's "k of n" that VISTA's and ContextEvo's checks share
(:func:`share_outcome`). See :mod:`experiments.claims.checks`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ClassVar, Mapping

from experiments.claims import rules
from experiments.claims.data import num, one, read
from experiments.claims.records import Claim, Outcome, Verdict
from experiments.intervals import wilson


class Check:
    """Base of the checks: ``rule`` is the verdict function, ``run`` the measurement."""

    rule: ClassVar[Callable[..., Verdict]]

    def run(self, figdir: Path, claim: Claim) -> Outcome:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class RowOrder(Check):
    """A paired difference with its interval, read from one row of ``csv``; shown as
    ``label`` (default: the column's name)."""

    csv: str
    where: Mapping[str, str]
    column: str
    lo: str
    hi: str
    sign: int
    label: str = ""
    rule: ClassVar = staticmethod(rules.order_verdict)

    def run(self, figdir, claim):
        r = one(read(figdir, self.csv, (self.column, self.lo, self.hi)), self.where, self.csv)
        d, a, b = num(r[self.column]), num(r[self.lo]), num(r[self.hi])
        # token differences run to millions: three decimals would bury the digits
        f = "+.3f" if max(abs(d), abs(a), abs(b)) < 1000 else "+,.0f"
        return Outcome(f"{self.label or self.column} = {d:{f}}",
                       f"[{a:{f}}, {b:{f}}] paired bootstrap",
                       self.rule(self.sign, d, a, b),
                       "sizes not comparable with the paper's benchmarks; the ordering "
                       "is the claim")


def share_outcome(k: int, n: int, paper_k: float, paper_n: float, what: str) -> Outcome:
    """Our share ``k / n`` against the paper's ``paper_k`` of ``paper_n``: the paper's
    count is itself one binomial draw, so its range is its own Wilson 95% interval,
    and :func:`~experiments.claims.rules.range_verdict` judges our share (with our
    Wilson interval) against that range. ``n == 0`` (nothing to take a share of) is
    not reproduced: the paper's structure is absent, which is a finding, not
    missing data. ``what`` names the share in the outcome."""
    plo, phi = wilson(int(paper_k), int(paper_n))[1:]
    if n == 0:
        return Outcome(f"{what}: 0 of 0 (paper {paper_k:g} of {paper_n:g})", "none",
                       rules.range_verdict(float("nan"), plo, phi),
                       f"no case to take the share of; the paper's range is its own "
                       f"Wilson interval [{plo:.2f}, {phi:.2f}]")
    p, lo, hi = wilson(k, n)
    return Outcome(f"{what}: {k} of {n} = {p:.2f} (paper {paper_k:g} of {paper_n:g} = "
                   f"{paper_k / paper_n:.2f})", f"[{lo:.2f}, {hi:.2f}] Wilson",
                   rules.range_verdict(p, plo, phi, lo, hi),
                   f"reproduced needs our share inside the paper's own Wilson interval "
                   f"[{plo:.2f}, {phi:.2f}]")
