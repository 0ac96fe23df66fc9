"""The one judge of every claim: a claim and a figures directory in, a
:class:`~experiments.claims.records.Result` out.

The claim's check reads its CSV and applies its rule; the judge adds what holds for
every claim: a claim without a check, or whose CSV, column or row is missing, is
"not testable here" (naming what is missing: nothing is filled in), and a claim
checked away from the paper's setting is at best "in direction only".
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from experiments.claims.data import MissingData
from experiments.claims.records import Claim, Result, Verdict
from experiments.claims.rules import at_setting


def judge(claim: Claim, figdir: Path) -> Result:
    """The verdict on ``claim`` from the CSVs in ``figdir``."""
    if claim.check is None:
        return Result(claim, "-", "-", Verdict.NOT_TESTABLE, claim.why)
    try:
        out = claim.check.run(Path(figdir), claim)
    except MissingData as exc:
        return Result(claim, "-", "-", Verdict.NOT_TESTABLE, f"no data: {exc}")
    verdict = at_setting(out.verdict, claim.at_paper_setting)
    note = out.note
    if verdict is not out.verdict:
        note = "; ".join(x for x in (note, f"checked at {claim.checked_at}, not the "
                                     f"paper's setting ({claim.number.setting})") if x)
    return Result(claim, out.ours, out.ci, verdict, note)


def judge_all(claims: Iterable[Claim], figdir: Path) -> list[Result]:
    """:func:`judge` on every claim, in order."""
    return [judge(c, figdir) for c in claims]
