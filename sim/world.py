"""The synthetic world as data: every parameter of the synthetic agent's profile and
of the task families, with a default, a prior range, a unit and a source (issue 17;
DESIGN.md "The synthetic world"; ``ctxsim world`` prints it).

:data:`TABLE` maps a parameter name to its :class:`Param`. Names are
``"agent.<Profile field>"`` and ``"task.<TaskParams field>"``. A robustness analysis
samples a point ``values`` (a mapping from some of these names to numbers, each inside
its ``[low, high]``) and builds the world there with :func:`world_at`; a name not in
``values`` keeps its default. Integer parameters (``integer=True``) are rounded.

A prior's width says what is known: a narrow range cites a measurement (a paper's
number or a benchmark); a range marked "guess" is wide (a probability over most of
[0, 1]).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Mapping

from sim.agents.profiles import Profile
from sim.tasks.families import TaskParams

#: the long-context evaluations the degradation curve's prior comes from
LONG_CONTEXT_SOURCE = (
    "RULER (Hsieh et al. 2024, arXiv:2404.06654): of 17 models claiming >= 32K, only "
    "half stay satisfactory at 32K, and almost all drop as length grows; NoLiMa "
    "(Modarressi et al. 2025, arXiv:2502.05167): at 32K GPT-4o falls from 99.3% to "
    "69.7%, Llama 3.3 70B from 97.3% to 42.7%, 10 of 12 models below half their "
    "short-context score; our keys match literally (easier than NoLiMa), so the "
    "range spans RULER-like mild to NoLiMa-like steep declines")


@dataclass(frozen=True)
class Param:
    """One parameter of the synthetic world.

    Attributes:
        name: ``"agent.<field>"`` or ``"task.<field>"``.
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
_PARAMS = (
    # -- the agent ----------------------------------------------------------------
    Param("agent.sigma", 0.9, 0.5, 1.3, "sd of ln tokens",
          "VISTA Table 5: without the dashboard, median relative size error 0.43-0.84 "
          "over four backbones; lognormal noise of sd 0.55-1.2 gives that median",
          "content-channel noise of a size estimate (Proposition 2)"),
    Param("agent.p_row_read", 0.97, 0.9, 0.999, _P,
          "VISTA Table 5: with the ledger, block-size error 0-0.02 and total-size "
          "error 0 on all four backbones",
          "a ledger row's size is read correctly (else the block is judged by content)"),
    Param("agent.free_z", 1.0, 0.0, 2.0, "standard deviations",
          "guess: how cautious a freeing step is; no measurement",
          "log-size uncertainty guarded against when choosing how much to free"),
    Param("agent.p_index", 0.6, 0.1, 0.95, _P,
          "guess: no measurement of how completely a model lists the values an "
          "archived result holds in its replacement text",
          "each evidence key read in a block is listed in the archive index"),
    Param("agent.p_note", 0.3, 0.05, 0.8, _P,
          "guess: how often a model restates an exact value in its reasoning",
          "a newly seen evidence line is restated in the next message"),
    Param("agent.p_note_exact", 0.9, 0.6, 0.99, _P,
          "guess: copy errors of restated identifiers and numbers",
          "a restated value is copied exactly (else a one-digit-off copy)"),
    Param("agent.p_knowledge", 0.75, 0.4, 0.95, _P,
          "guess: summaries keep most but not all exact values (ACON/Focus report "
          "lossy summaries without a per-value rate)",
          "a visible fact is kept in a knowledge block / fold summary"),
    Param("agent.p_confabulate", 0.5, 0.1, 0.9, _P,
          "guess: answering with a plausible value vs abstaining when the value is "
          "not found; varies widely across models",
          "a value it cannot use is answered wrongly (else it abstains)"),
    Param("agent.ctx_drop_max", 0.5, 0.1, 0.9, _P, LONG_CONTEXT_SOURCE,
          "share of visible facts misused as the request grows without bound"),
    Param("agent.ctx_half_tokens", 128_000.0, 32_000.0, 512_000.0, "tokens",
          LONG_CONTEXT_SOURCE, "request tokens at which half that drop is reached"),
    Param("agent.ctx_shape", 1.5, 0.7, 3.0, "Hill exponent", LONG_CONTEXT_SOURCE,
          "steepness of the degradation curve"),
    Param("agent.base_error", 0.12, 0.08, 0.2, _P,
          "VISTA §3.3: at 8K growth the methods solve 84.0-86.7% of LOCA-Bench",
          "the task fails for reasons unrelated to context"),
    Param("agent.archive_at", 0.85, 0.7, 0.97, "fraction of B",
          "guess: when a model starts freeing room (VISTA's protocol leaves it to the "
          "model)", "archive trigger"),
    Param("agent.archive_to", 0.6, 0.3, 0.65, "fraction of B",
          "guess: how far a model frees once it starts", "archive target"),
    Param("agent.keep_recent", 2, 0, 5, "tool results",
          "guess: models rarely archive what they just read", "the agent's masking "
          "window: the newest results it never archives", integer=True),
    Param("agent.max_attempts", 3, 1, 6, "reads per value",
          "guess: VISTA Fig. 8b has 105 recoveries over 75 tasks (~1.4 per task), a "
          "lower bound on attempts", "recovery reads spent searching for one value",
          integer=True),
    Param("agent.max_context_actions", 8, 4, 16, "calls per turn",
          "guess: a loop guard, not a behaviour; results do not depend on it unless "
          "it binds", "context tool calls per turn", integer=True),
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
)

#: name -> :class:`Param`, in the order ``ctxsim world`` prints them
TABLE: dict[str, Param] = {p.name: p for p in _PARAMS}


def table() -> list[dict]:
    """Every parameter as a dict (name, default, low, high, unit, source, doc,
    integer), agent first, then tasks."""
    return [p.as_dict() for p in TABLE.values()]


@dataclass(frozen=True)
class World:
    """A point of the table: the agent profile and the task parameters."""

    profile: Profile
    tasks: TaskParams


def world_at(values: Mapping[str, float] | None = None, name: str = "world") -> World:
    """The world at ``values`` (parameter name -> number; missing names keep their
    defaults).

    Args:
        values: e.g. ``{"agent.p_index": 0.3, "task.size_sd": 2.0}``.
        name: the profile's label.

    Returns:
        a :class:`World`; ``world_at().profile`` equals the ``"medium"`` profile
        (except its name) and ``world_at().tasks`` equals ``TaskParams()``.

    Raises:
        KeyError: naming an unknown parameter (and the known ones).
        ValueError: naming a value outside its prior range or not a number.
    """
    values = dict(values or {})
    unknown = sorted(set(values) - set(TABLE))
    if unknown:
        raise KeyError(f"unknown world parameter(s) {unknown}; known: {list(TABLE)}")
    agent, tasks = {}, {}
    for pname, p in TABLE.items():
        v = values.get(pname, p.default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{pname} must be a number, got {v!r}")
        if not p.low <= v <= p.high:
            raise ValueError(f"{pname}={v!r} is outside its prior range "
                             f"[{p.low}, {p.high}]")
        v = int(round(v)) if p.integer else float(v)
        group, field = pname.split(".", 1)
        (agent if group == "agent" else tasks)[field] = v
    return World(Profile(name=name, **agent), TaskParams(**tasks))
