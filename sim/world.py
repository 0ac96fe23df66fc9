"""The synthetic world as data: every parameter of the synthetic agent's profile and
of the task families, with a default, a prior range, a unit and a source (issue 17;
DESIGN.md "The synthetic world"; ``ctxsim world`` prints it).

:data:`TABLE` maps a parameter name to its :class:`Param`. Names are
``"agent.<Profile field>"``, ``"task.<TaskParams field>"`` (the LOCA-like families)
and ``"browse.<BrowseParams field>"`` (the BrowseComp-like generator). A robustness
analysis samples a point ``values`` (a mapping from some of these names to numbers,
each inside its ``[low, high]``) and builds the world there with :func:`world_at`; a
name not in ``values`` keeps its default. Integer parameters (``integer=True``) are rounded.

A prior's width says what is known: a narrow range cites a measurement (a paper's
number or a benchmark); a range marked "guess" is wide (a probability over most of
[0, 1]).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Mapping

from sim.agents.profiles import Profile
from sim.tasks.browse import BrowseParams
from sim.tasks.families import TaskParams


@dataclass(frozen=True)
class Param:
    """One parameter of the synthetic world.

    Attributes:
        name: ``"agent.<field>"``, ``"task.<field>"`` or ``"browse.<field>"``.
        default: the value of the default world.
        low, high: the prior range (``low < high``; the default lies inside).
        unit: ``"probability"``, ``"tokens"``, ``"fraction of B"``, ...
        source: a paper or benchmark number, or ``"guess: ..."``.
        doc: what the parameter does.
        integer: rounded to an int when the world is built.
    """

    name: str
    default: float
    low: float
    high: float
    unit: str
    source: str
    doc: str
    integer: bool = False

    def as_dict(self) -> dict:
        """The row as a plain dict (for ``--json``)."""
        return dataclasses.asdict(self)


_P = "probability"


def _rows_of(group: str, cls) -> tuple[Param, ...]:
    """The rows a dataclass declares on its fields (``metadata["world"]``, e.g.
    :func:`sim.agents.profiles.world_param`), in field order, named ``group.<field>``."""
    return tuple(Param(f"{group}.{f.name}", f.default, **f.metadata["world"])
                 for f in dataclasses.fields(cls) if "world" in f.metadata)


_PARAMS = (
    # -- the agent: declared on the Profile fields (sim/agents/profiles.py) ---------
    *_rows_of("agent", Profile),
    # -- the tasks ----------------------------------------------------------------
    Param("task.size_sd", 1.64, 1.0, 2.2, "sd of ln tokens",
          "lognormal maximum-likelihood fit of the 418 tool results in the shipped "
          "trajectories (experiments/vista/size_law.py: sd 1.64, KS 0.19); the range "
          "allows for LOCA-Bench's different tools",
          "spread of every tool result's size, evidence included"),
    Param("task.growth_jitter", 0.25, 0.05, 0.5, "fraction",
          "guess: LOCA-Bench tasks at one growth level differ in length",
          "each instance realises growth x U(1 - j, 1 + j)"),
    Param("task.buried_scale", 3.0, 1.0, 8.0, "ratio",
          "guess: an export table is several ordinary results long",
          "median size of a buried evidence table relative to the family's median"),
    Param("task.p_superseded", 0.15, 0.02, 0.5, _P,
          "guess: how often a workflow's record is updated later",
          "a value of a non-stale family is superseded later (latest right)"),
    Param("task.distractors_per_fact", 3.0, 0.5, 10.0, "lines per fact",
          "guess: the same field for other entities in bulky results",
          "mean number of distractor lines (same field, other entity)"),
    # -- the BrowseComp-like generator (sim/tasks/browse.py) ----------------------
    Param("browse.depth_median", 17_000.0, 12_000.0, 24_000.0, "tokens",
          "VISTA §3.3: the first gold document is retrieved at a median depth of "
          "~17K tokens on BrowseComp-Plus; the range allows for the paper's rounding "
          "and backbone differences",
          "median tokens retrieved before the first gold document"),
    Param("browse.depth_sd", 0.5, 0.2, 1.0, "sd of ln tokens",
          "guess: the paper reports a median depth only", "spread of that depth"),
    Param("browse.after_median", 14_000.0, 5_000.0, 30_000.0, "tokens",
          "guess: retrieval goes on after the last gold document until the agent "
          "synthesises; no measurement", "median tokens retrieved after the last gold "
          "document"),
    Param("browse.after_sd", 0.4, 0.1, 0.8, "sd of ln tokens",
          "guess: no measurement", "spread of that tail"),
    Param("browse.max_gap", 3, 1, 6, "documents",
          "guess: gold documents of one question are found close together",
          "gold documents lie 1..max_gap documents apart", integer=True),
    Param("browse.doc_median", 900.0, 300.0, 2_500.0, "tokens",
          "guess: BrowseComp-Plus documents are web pages of a few K tokens; 900 "
          "gives the previous generator's mean document (~2.3K tokens) under the "
          "size law", "median document size"),
    Param("browse.size_sd", 1.64, 1.0, 2.2, "sd of ln tokens",
          "the lognormal fit of the 418 tool results in the shipped trajectories "
          "(experiments/vista/size_law.py: sd 1.64); the range allows for web pages "
          "differing from those tools", "spread of every document's size, gold "
          "included"),
    Param("browse.max_doc_ratio", 12.0, 4.0, 50.0, "ratio",
          "guess: retrievers truncate long pages; the shipped trajectories' largest "
          "result is ~400x their median, so this clip is a choice",
          "largest document relative to the median"),
    Param("browse.p_superseded", 0.15, 0.02, 0.5, _P,
          "guess: how often a later page revises a value an earlier one gave",
          "a gold value is revised by a later document (the revision is right)"),
    Param("browse.distractors_per_fact", 3.0, 0.5, 10.0, "lines per fact",
          "guess: pages on similar entities list the same attribute",
          "mean number of distractor lines (same attribute, other entity)"),
)

#: name -> :class:`Param`, in the order ``ctxsim world`` prints them
TABLE: dict[str, Param] = {p.name: p for p in _PARAMS}


def table() -> list[dict]:
    """Every parameter as a dict (name, default, low, high, unit, source, doc,
    integer): the agent, then the LOCA-like tasks, then the BrowseComp-like ones."""
    return [p.as_dict() for p in TABLE.values()]


@dataclass(frozen=True)
class World:
    """A point of the table: the agent profile, the LOCA-like task parameters and
    the BrowseComp-like generator's."""

    profile: Profile
    tasks: TaskParams
    browse: BrowseParams = BrowseParams()


def world_at(values: Mapping[str, float] | None = None, name: str = "world") -> World:
    """The world at ``values`` (parameter name -> number; missing names keep their
    defaults).

    Args:
        values: e.g. ``{"agent.p_index": 0.3, "task.size_sd": 2.0,
            "browse.p_superseded": 0.3}``.
        name: the profile's label.

    Returns:
        a :class:`World`; ``world_at().profile`` equals the ``"medium"`` profile
        (except its name), ``world_at().tasks`` equals ``TaskParams()`` and
        ``world_at().browse`` equals ``BrowseParams()``.

    Raises:
        KeyError: naming an unknown parameter (and the known ones).
        ValueError: naming a value outside its prior range or not a number.
    """
    values = dict(values or {})
    unknown = sorted(set(values) - set(TABLE))
    if unknown:
        raise KeyError(f"unknown world parameter(s) {unknown}; known: {list(TABLE)}")

    def at(p: Param):
        v = values.get(p.name, p.default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{p.name} must be a number, got {v!r}")
        if not p.low <= v <= p.high:
            raise ValueError(f"{p.name}={v!r} is outside its prior range "
                             f"[{p.low}, {p.high}]")
        return int(round(v)) if p.integer else float(v)

    def build(group: str, cls, **extra):
        # each field of the dataclass that has a row, read from its row
        return cls(**extra, **{f.name: at(TABLE[f"{group}.{f.name}"])
                               for f in dataclasses.fields(cls)
                               if f"{group}.{f.name}" in TABLE})
    return World(build("agent", Profile, name=name), build("task", TaskParams),
                 build("browse", BrowseParams))
