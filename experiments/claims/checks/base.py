"""The base of every check (:class:`Check`) and the check ContextEvo's and
Evo-Harness's registries share (:class:`RowOrder`: a paired difference read from one
row of an evolution experiment's CSV). See :mod:`experiments.claims.checks`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ClassVar, Mapping

from experiments.claims import rules
from experiments.claims.data import num, one, read
from experiments.claims.records import Claim, Outcome, Verdict


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
