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
import math
from dataclasses import dataclass
from typing import Collection, Mapping

from sim.agents.profiles import Profile
from sim.tasks.browse import BrowseParams
from sim.tasks.families import TaskParams
from sim.world_param import PROBABILITY


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
        log: the prior is log-uniform on ``[low, high]`` (uniform in ``ln`` of the
            value); otherwise uniform.
    """

    name: str
    default: float
    low: float
    high: float
    unit: str
    source: str
    doc: str
    integer: bool = False
    log: bool = False

    def as_dict(self) -> dict:
        """The row as a plain dict (for ``--json``)."""
        return dataclasses.asdict(self)

    @property
    def domain(self) -> tuple[float, float]:
        """The values the parameter can take at all, wider than its prior: ``[0, 1]``
        for a probability or a fraction of B, ``[0, inf)`` for a quantity whose prior
        is non-negative (a log-uniform one excludes 0), else the whole line. A
        measurement may contradict the prior; it cannot leave the domain
        (:func:`world_at`'s ``beyond_prior``)."""
        if self.unit in (PROBABILITY, "fraction of B"):
            return 0.0, 1.0
        if self.low >= 0:
            return (math.ulp(0.0) if self.log else 0.0), math.inf
        return -math.inf, math.inf


def _rows_of(group: str, cls) -> tuple[Param, ...]:
    """The rows a dataclass declares on its fields (``metadata["world"]``,
    :func:`sim.world_param.world_param`), in field order, named ``group.<field>``."""
    return tuple(Param(f"{group}.{f.name}", f.default, **f.metadata["world"])
                 for f in dataclasses.fields(cls) if "world" in f.metadata)


_PARAMS = (
    # -- the agent: declared on the Profile fields (sim/agents/profiles.py)
    *_rows_of("agent", Profile),
    # -- the LOCA-like tasks: declared on the TaskParams fields (sim/tasks/families.py)
    *_rows_of("task", TaskParams),
    # -- the BrowseComp-like generator: on the BrowseParams fields (sim/tasks/browse.py)
    *_rows_of("browse", BrowseParams),
)

#: name -> :class:`Param`, in the order ``ctxsim world`` prints them
TABLE: dict[str, Param] = {p.name: p for p in _PARAMS}


def table() -> list[dict]:
    """Every parameter as a dict (name, default, low, high, unit, source, doc,
    integer, log): the agent, then the LOCA-like tasks, then the BrowseComp-like ones."""
    return [p.as_dict() for p in TABLE.values()]


@dataclass(frozen=True)
class World:
    """A point of the table: the agent profile, the LOCA-like task parameters and
    the BrowseComp-like generator's."""

    profile: Profile
    tasks: TaskParams
    browse: BrowseParams = BrowseParams()


def world_at(values: Mapping[str, float] | None = None, name: str = "world",
             beyond_prior: Collection[str] = ()) -> World:
    """The world at ``values`` (parameter name -> number; missing names keep their
    defaults).

    Args:
        values: e.g. ``{"agent.p_index": 0.3, "task.size_sd": 2.0,
            "browse.p_superseded": 0.3}``.
        name: the profile's label.
        beyond_prior: names whose value may lie outside the prior range, inside the
            parameter's :attr:`Param.domain`: a measurement that contradicts the
            prior (``--profile calibrated``; issue 37), used as measured, never
            clipped.

    Returns:
        a :class:`World`; ``world_at().profile`` equals the ``"medium"`` profile
        (except its name), ``world_at().tasks`` equals ``TaskParams()`` and
        ``world_at().browse`` equals ``BrowseParams()``.

    Raises:
        KeyError: naming an unknown parameter (and the known ones).
        ValueError: naming a value outside its prior range (outside its domain, for
            a name in ``beyond_prior``) or not a number.
    """
    values = dict(values or {})
    unknown = sorted((set(values) | set(beyond_prior)) - set(TABLE))
    if unknown:
        raise KeyError(f"unknown world parameter(s) {unknown}; known: {list(TABLE)}")

    def at(p: Param):
        v = values.get(p.name, p.default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{p.name} must be a number, got {v!r}")
        if p.name in beyond_prior:
            lo, hi = p.domain
            if not lo <= v <= hi:
                raise ValueError(f"{p.name}={v!r} is outside the values it can take, "
                                 f"[{lo:g}, {hi:g}] (a measurement beyond its prior "
                                 f"[{p.low}, {p.high}] may only leave the prior)")
        elif not p.low <= v <= p.high:
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
