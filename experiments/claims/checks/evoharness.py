"""Evo-Harness's checks (the claims of :mod:`experiments.claims.registry.evoharness`):
the gain gap between solver profiles, a gain in every row, and the budgeted
curator's decisions. See :mod:`experiments.claims.checks`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Mapping

from experiments.claims import rules
from experiments.claims.checks.base import Check
from experiments.claims.data import num, one, read
from experiments.claims.records import Outcome, Verdict


@dataclass(frozen=True)
class ProfileGainGap(Check):
    """The gain over no-evolve of ``arm`` for the ``strong`` profile minus the
    ``weak`` profile's (evoharness.csv): Newcombe-style combination of the two
    paired intervals (conservative: both profiles play the same tasks with common
    random numbers, a positive covariance this combination ignores)."""

    arm: str
    strong: str = "strong"
    weak: str = "weak"
    rule: ClassVar = staticmethod(rules.order_verdict)

    def run(self, figdir, claim):
        rows = read(figdir, "evoharness.csv", ("arm", "profile", "diff_vs_no_evolve",
                                               "diff_lo", "diff_hi"))
        s = one(rows, {"arm": self.arm, "profile": self.strong}, "evoharness.csv")
        w = one(rows, {"arm": self.arm, "profile": self.weak}, "evoharness.csv")
        gs, sl, sh = (num(s[c]) for c in ("diff_vs_no_evolve", "diff_lo", "diff_hi"))
        gw, wl, wh = (num(w[c]) for c in ("diff_vs_no_evolve", "diff_lo", "diff_hi"))
        d = gs - gw
        lo = d - math.hypot(gs - sl, wh - gw)
        hi = d + math.hypot(sh - gs, gw - wl)
        return Outcome(f"gain {self.strong} {gs:+.3f} vs {self.weak} {gw:+.3f} "
                       f"(difference {d:+.3f})",
                       f"[{lo:+.3f}, {hi:+.3f}] combined paired intervals",
                       self.rule(1, d, lo, hi),
                       "profiles stand in for the paper's solver models")


@dataclass(frozen=True)
class EveryRow(Check):
    """A claimed improvement in every row of ``rows`` (e.g. every solver profile):
    each row's paired difference ``column`` with its interval must be above zero."""

    csv: str
    rows: tuple[Mapping[str, str], ...]
    column: str
    lo: str
    hi: str
    rule: ClassVar = staticmethod(rules.rank_verdict)

    def run(self, figdir, claim):
        data = read(figdir, self.csv, (self.column, self.lo, self.hi))
        margins, parts = [], []
        for w in self.rows:
            r = one(data, w, self.csv)
            m = (num(r[self.column]), num(r[self.lo]), num(r[self.hi]))
            margins.append(m)
            parts.append(f"{'/'.join(str(v) for v in w.values())} {m[0]:+.3f} "
                         f"[{m[1]:+.3f}, {m[2]:+.3f}]")
        return Outcome("; ".join(parts), "paired bootstrap per row", self.rule(margins),
                       "every row must improve")


@dataclass(frozen=True)
class BudgetDecisions(Check):
    """The budgeted curator merges or skips (the ``budget_accept``, ``budget_merge``
    and ``budget_skip`` counts of ``arm``, one column each as
    :mod:`experiments.evoharness.table` writes them) where the add-only curator only
    appends, and its final harness is smaller: the difference of final skill tokens,
    add-only minus budgeted, with the count of merge/skip decisions."""

    arm: str = "online-standard"
    profile: str = "medium"
    rule: ClassVar = staticmethod(rules.order_verdict)

    COLUMNS: ClassVar = ("budget_accept", "budget_merge", "budget_skip")

    def run(self, figdir, claim):
        rows = read(figdir, "evoharness.csv", ("arm", "profile", "final_skill_tokens")
                    + self.COLUMNS)
        b = one(rows, {"arm": self.arm, "profile": self.profile}, "evoharness.csv")
        a = one(rows, {"arm": "add-only", "profile": self.profile}, "evoharness.csv")
        dec = {c.removeprefix("budget_"): int(num(b[c])) for c in self.COLUMNS}
        held = dec["merge"] + dec["skip"]
        d = num(a["final_skill_tokens"]) - num(b["final_skill_tokens"])
        v = self.rule(1, d) if held > 0 else Verdict.NOT_REPRODUCED
        return Outcome(f"{self.arm}: accept {dec['accept']}, merge {dec['merge']}, "
                       f"skip {dec['skip']}; add-only harness {abs(d):.0f} tokens "
                       f"{'larger' if d >= 0 else 'smaller'}",
                       "point estimates", v,
                       "the budgeted curator must merge or skip at least once")
