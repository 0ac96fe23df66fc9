"""Typed records of the claims scorecard: the verdict words, a paper's number, a
claim, and the judged result.

A :class:`Claim` is keyed by the paper's own item (``"VISTA Fig. 4"``,
``"ContextEvo Table 5"``: :attr:`Claim.item_key`); it holds the paper's number once
(:class:`PaperNumber`, with unit and the paper's setting), points to the experiment
module, figure, CSV and columns that test it, and names its check (a record of
:mod:`experiments.claims.checks`, in the module of the claim's paper, whose rule is
a pure function of :mod:`experiments.claims.rules`). The judge (:mod:`experiments.claims.judge`) turns
a claim and a figures directory into a :class:`Result`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:  # pragma: no cover - a type only
    from experiments.claims.checks.base import Check


class Verdict(str, Enum):
    """The verdict words, strongest first (a ``str``: JSON writes the word)."""

    #: the paper's statement holds in our data with the interval on the claimed side,
    #: at the paper's setting (and, where the sizes are comparable, the paper's number
    #: inside our interval)
    REPRODUCED = "reproduced"
    #: the point estimate is on the claimed side but the interval crosses zero, or the
    #: sign is significant but the paper's size is outside our interval
    DIRECTION = "reproduced in direction only"
    #: the point estimate is on the claimed side but the CSV has no interval to judge it
    NO_INTERVAL = "no interval"
    #: the data contradict the claim, or miss a number the paper gives
    NOT_REPRODUCED = "not reproduced"
    #: no data here (needs a real model, a benchmark, or a CSV column not yet written)
    NOT_TESTABLE = "not testable here"

    def __str__(self) -> str:
        return self.value


#: the order the scorecard counts the verdicts in
VERDICT_ORDER = tuple(Verdict)


class Paper(str, Enum):
    """The three papers (their short names, as the registry keys use them)."""

    VISTA = "VISTA"
    CONTEXTEVO = "ContextEvo"
    EVOHARNESS = "Evo-Harness"

    def __str__(self) -> str:
        return self.value


class Role(str, Enum):
    """What a paper's number is to a world fitted to the papers (issue 30): an
    observation it is fitted to, or a prediction it is checked against."""

    #: an observation the world's parameters are fitted to: a baseline's number (ReAct,
    #: auto-archive, Active Context Compression, the strongest BrowseComp-Plus
    #: baseline), Table 5's perception numbers
    FIT = "fit"
    #: a number of the method under test (VISTA and its ablations), which a world
    #: fitted to the ``FIT`` numbers either predicts or does not; fitting code never
    #: reads one
    PREDICT = "predict"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Cell:
    """One number as the paper reports it, transcribed once (a cell of one of a
    paper's tables in its registry module), with its :class:`Role`.

    Attributes:
        id: ``"TABLE:key"``, e.g. ``"FIG4:react_128k"``.
        value: the number, in the unit of the claims that use it.
        role: fit or predict.
        where: section and figure or table of the paper.
    """

    id: str
    value: float
    role: Role
    where: str


class CellValues(dict):
    """A claim's numbers by label (a ``dict``: label -> value) that also knows, per
    label, the :class:`Cell` it was taken from (:attr:`cells`). A paper whose numbers
    have no cells (ContextEvo, Evo-Harness: their loops run on benchmarks the fitted
    world does not model) passes a plain dict."""

    def __init__(self, cells: Mapping[str, Cell]):
        super().__init__({label: c.value for label, c in cells.items()})
        self.cells: dict[str, Cell] = dict(cells)


@dataclass(frozen=True)
class PaperNumber:
    """The paper's number(s) for one claim, stated once.

    Attributes:
        text: as the paper words it (e.g. ``"86.7 vs 84.0"``).
        values: the numbers by label (e.g. ``{"vista": 86.7, "react": 84.0}``);
            empty when the paper states an ordering or a bound without a number.
        unit: unit of ``values`` (``"%"``, ``"pp"``, ``"tokens"``, ``"$"``,
            ``"events"``, ``"reward"``, ...).
        setting: the paper's setting (benchmark, model, budget) the number is for.
    """

    text: str
    values: Mapping[str, float] = field(default_factory=dict)
    unit: str = ""
    setting: str = ""

    def __getitem__(self, label: str) -> float:
        if label not in self.values:
            raise KeyError(f"the paper's number has no value {label!r}; it has "
                           f"{sorted(self.values)}")
        return self.values[label]

    def diff(self, a: str, b: str) -> float:
        """``values[a] - values[b]`` in :attr:`unit`."""
        return self[a] - self[b]

    @property
    def cells(self) -> dict[str, Cell]:
        """label -> the :class:`Cell` each value was taken from; empty when the
        values are a plain dict (no fit/predict role)."""
        return dict(getattr(self.values, "cells", {}))


@dataclass(frozen=True, kw_only=True)
class Claim:
    """One checkable claim of a paper, built by keyword (15 fields: a positional call
    would bind a command to a figure without a word).

    Attributes:
        id: short stable id (``"Fig4-128K"``), unique across papers.
        paper: the paper.
        item: the paper's own item (``"Fig. 4"``, ``"Table 5"``, ``"Thm. 1"``).
        where: section (and equation) in the paper.
        statement: the claim in the paper's words.
        number: the paper's number(s), unit and setting.
        module: the experiment module that writes the CSV (``"-"``: none here).
        command: the command that makes the CSV.
        figure: the figure the CSV goes with.
        csv: the CSV the check reads.
        columns: the CSV columns it reads.
        check: the check (reads the CSV, applies its rule); ``None``: not testable.
        checked_at: the setting at which we check it.
        at_paper_setting: ``False`` when ``checked_at`` is not the paper's setting:
            the verdict is then at best "in direction only".
        why: for a claim without a check, why it is not testable here.
    """

    id: str
    paper: Paper
    item: str
    where: str
    statement: str
    number: PaperNumber
    module: str
    command: str
    figure: str
    csv: str
    columns: tuple[str, ...]
    check: "Check | None"
    checked_at: str
    at_paper_setting: bool = True
    why: str = ""

    def __post_init__(self):
        if self.check is None and not self.why:
            raise ValueError(f"claim {self.id}: a claim without a check needs a `why`")
        if not self.item:
            raise ValueError(f"claim {self.id}: empty paper item")

    @property
    def item_key(self) -> str:
        """The paper's own item, e.g. ``"VISTA Fig. 4"``."""
        return f"{self.paper} {self.item}"

    @property
    def rule(self) -> str:
        """Name of the verdict rule (``"-"`` for a claim without a check)."""
        return self.check.rule.__name__ if self.check is not None else "-"


@dataclass(frozen=True)
class Outcome:
    """What a check finds: our value and interval as text, the verdict, a note."""

    ours: str
    ci: str
    verdict: Verdict
    note: str = ""


@dataclass(frozen=True)
class Result:
    """A judged claim: the claim, our value, interval, verdict and note."""

    claim: Claim
    ours: str
    ci: str
    verdict: Verdict
    note: str = ""

    def as_dict(self) -> dict:
        """A JSON-ready row: the claim's fields (the check as its rule name) and
        our value, interval, verdict and note."""
        c = self.claim
        return {"id": c.id, "paper": str(c.paper), "item": c.item_key,
                "where": c.where, "statement": c.statement,
                "paper_value": c.number.text,
                "paper_values": dict(c.number.values),
                "paper_roles": {k: str(v.role) for k, v in c.number.cells.items()},
                "unit": c.number.unit,
                "paper_setting": c.number.setting, "checked_at": c.checked_at,
                "at_paper_setting": c.at_paper_setting, "module": c.module,
                "command": c.command, "figure": c.figure, "csv": c.csv,
                "columns": list(c.columns), "rule": c.rule,
                "ours": self.ours, "ci": self.ci, "verdict": str(self.verdict),
                "note": self.note}
