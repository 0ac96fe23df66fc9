"""The program grammar: a context program as data (ContextEvo §3.2, App. B.1 Table 11).

A :class:`ProgramSpec` chooses, for each of the eight intervention points, one
:class:`Mechanism` that a registered program already implements, with its knobs, plus
the interface the agent gets (dashboard variant, agent context tools, whether payload
handles are shown, system-prompt variant). It is frozen, hashable and round-trips
through JSON; :func:`sim.evolve.contextevo.compile.compile_spec` turns it into a
:class:`~sim.policies.base.ContextProgram`. The editor (:mod:`sim.evolve.contextevo.editor`)
edits its canonical JSON text, never Python.

Mechanisms per point (source program in brackets):

* observation_entry: ``keep`` [all]; ``offload`` [auto_archive, vista: the harness's
  wire-payload guard, which the fixed harness turns on exactly when handles are
  shown, so ``offload`` is required iff ``show_handles``];
* request_assembly: ``trim(trim_to)`` [react; every program's last-resort trim];
* maintenance_planning: ``never``; ``trigger(at)`` (tokens, or a fraction of B when
  <= 1) [clearing, skeleton, summarization, active_compression, auto_archive];
  ``results_over(window)`` [masking];
* representation_update: ``none``; ``mask(window, marker)`` [masking];
  ``clear(keep, fraction, placeholder)`` [clearing]; ``skeleton(keep, stub_chars)``
  [skeleton]; ``summarize(keep_last, max_lines)``
  [summarization; its fidelity is the agent's, not a knob]; ``archive_oldest(to, keep)`` [auto_archive, vista];
* memory_update: ``none``; ``notes(keep_last)`` [active_compression];
* recovery: ``none``; ``recover`` [auto_archive, vista];
* parent_to_child: ``all`` [every program];
* child_to_parent: ``all``; ``fold`` [folding].
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, fields
from typing import Any

from sim.policies.agentic import ActiveCompressionKnobs, AutoArchiveKnobs
from sim.policies.fixed import ClearingKnobs, MaskingKnobs, ReActKnobs, SkeletonKnobs
from sim.policies.summarize import SummarizationKnobs

POINTS = ("observation_entry", "request_assembly", "maintenance_planning",
          "representation_update", "memory_update", "recovery", "parent_to_child",
          "child_to_parent")


def _defaults(knobs_cls, **names: str) -> dict[str, Any]:
    """``{mechanism knob: default}`` read from a program's knobs class
    (:mod:`sim.policies.knobs`): ``names`` maps each mechanism knob to the program's
    knob it is (the defaults are declared once, on the program)."""
    d = knobs_cls()
    return {k: getattr(d, field) for k, field in names.items()}


#: point -> mechanism -> knob -> default (each from the program that implements it)
MECHANISMS: dict[str, dict[str, dict[str, Any]]] = {
    "observation_entry": {"keep": {}, "offload": {}},
    "request_assembly": {"trim": _defaults(ReActKnobs, trim_to="trim_to")},
    "maintenance_planning": {"never": {}, "trigger": {"at": 0.8},
                             "results_over": _defaults(MaskingKnobs, window="window")},
    "representation_update": {
        "none": {},
        "mask": _defaults(MaskingKnobs, window="window", marker="marker"),
        "clear": _defaults(ClearingKnobs, keep="keep", fraction="fraction",
                           placeholder="placeholder"),
        "skeleton": _defaults(SkeletonKnobs, keep="keep", stub_chars="stub_chars"),
        "summarize": _defaults(SummarizationKnobs, keep_last="keep_last",
                               max_lines="max_lines"),
        "archive_oldest": _defaults(AutoArchiveKnobs, to="target", keep="keep")},
    "memory_update": {"none": {}, "notes": _defaults(ActiveCompressionKnobs,
                                                     keep_last="keep_last")},
    "recovery": {"none": {}, "recover": {}},
    "parent_to_child": {"all": {}},
    "child_to_parent": {"all": {}, "fold": {}},
}
#: knob -> (type, min, max); None bounds are open. ``fraction`` may also be None.
KNOB_TYPES: dict[str, tuple[type, float | None, float | None]] = {
    "trim_to": (float, 0.05, 1.0), "at": (float, 0.05, 10_000_000),
    "window": (int, 0, 10_000), "marker": (str, None, None), "keep": (int, 0, 10_000),
    "fraction": (float, 0.01, 1.0), "placeholder": (bool, None, None),
    "stub_chars": (int, 0, 100_000), "keep_last": (int, 0, 10_000),
    "max_lines": (int, 1, 100_000), "to": (float, 0.0, 1.0)}
DASHBOARDS = ("none", "ledger", "status_board", "bounded_ledger")
#: a bounded ledger with its token cap, as a workspace takes it ("bounded_ledger:400")
_BOUNDED = re.compile(r"bounded_ledger:[1-9][0-9]{0,6}")
TOOLS = ("archive", "delete", "recover")
PROTOCOLS = ("plain", "vista", "reworded")
INTERFACE = ("dashboard", "agent_tools", "show_handles", "protocol")
#: every editable surface: the eight points and the four interface fields
SURFACES = POINTS + INTERFACE


class SpecError(ValueError):
    """A malformed program spec; the message names the bad value and what was expected."""


def _check_knob(point: str, mech: str, knob: str, value: Any) -> Any:
    typ, lo, hi = KNOB_TYPES[knob]
    if knob == "fraction" and value is None:
        return None
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        raise SpecError(f"{point}.{mech}.{knob} must be {typ.__name__}, got {value!r}")
    if typ is float and not math.isfinite(value):
        # NaN compares false with every bound: it would pass the range check and then
        # silently mean "never" (a trigger) or fail later naming no field
        raise SpecError(f"{point}.{mech}.{knob} must be a finite number, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise SpecError(f"{point}.{mech}.{knob}={value!r} outside [{lo}, {hi}]")
    return value


@dataclass(frozen=True)
class Mechanism:
    """One point's mechanism and its knobs (sorted ``(name, value)`` pairs, so the
    mechanism is hashable). Build with :meth:`make`."""

    name: str
    knobs: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def make(cls, point: str, name: str, **knobs: Any) -> "Mechanism":
        """``name`` at ``point`` with ``knobs`` over its defaults.

        Raises:
            SpecError: for an unknown point, mechanism or knob, or a bad knob value.
        """
        if point not in MECHANISMS:
            raise SpecError(f"unknown intervention point {point!r}; known: {list(POINTS)}")
        table = MECHANISMS[point]
        if name not in table:
            raise SpecError(f"unknown mechanism {name!r} at {point}; known: {list(table)}")
        unknown = set(knobs) - set(table[name])
        if unknown:
            raise SpecError(f"{point}.{name} has no knob(s) {sorted(unknown)}; "
                            f"knobs: {sorted(table[name])}")
        full = {**table[name], **knobs}
        return cls(name, tuple(sorted((k, _check_knob(point, name, k, v))
                                      for k, v in full.items())))

    def get(self, knob: str) -> Any:
        """The value of ``knob`` (KeyError naming it if absent)."""
        for k, v in self.knobs:
            if k == knob:
                return v
        raise KeyError(f"mechanism {self.name!r} has no knob {knob!r}")

    def to_dict(self) -> dict:
        """``{"mechanism": name, **knobs}``."""
        return {"mechanism": self.name, **dict(self.knobs)}


def _mech(point: str, name: str, **knobs) -> Mechanism:
    return Mechanism.make(point, name, **knobs)


@dataclass(frozen=True)
class ProgramSpec:
    """A context program as data: a mechanism per intervention point and the interface.

    Attributes:
        name: a label (the program's name in episode records; not a surface).
        observation_entry ... child_to_parent: a :class:`Mechanism` each (:data:`POINTS`).
        dashboard: one of :data:`DASHBOARDS`.
        agent_tools: sorted subset of :data:`TOOLS` offered to the agent.
        show_handles: whether archive handles (payload paths) are shown.
        protocol: system-prompt variant, one of :data:`PROTOCOLS`.

    Raises:
        SpecError: from the constructor, for any invalid field (names it).
    """

    name: str = "spec"
    observation_entry: Mechanism = _mech("observation_entry", "keep")
    request_assembly: Mechanism = _mech("request_assembly", "trim")
    maintenance_planning: Mechanism = _mech("maintenance_planning", "never")
    representation_update: Mechanism = _mech("representation_update", "none")
    memory_update: Mechanism = _mech("memory_update", "none")
    recovery: Mechanism = _mech("recovery", "none")
    parent_to_child: Mechanism = _mech("parent_to_child", "all")
    child_to_parent: Mechanism = _mech("child_to_parent", "all")
    dashboard: str = "none"
    agent_tools: tuple[str, ...] = ()
    show_handles: bool = False
    protocol: str = "plain"

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise SpecError(f"name must be a non-empty string, got {self.name!r}")
        for p in POINTS:
            m = getattr(self, p)
            if not isinstance(m, Mechanism):
                raise SpecError(f"{p} must be a Mechanism, got {m!r}")
            # re-validate: a Mechanism built directly bypasses Mechanism.make
            if Mechanism.make(p, m.name, **dict(m.knobs)) != m:
                raise SpecError(f"{p}: mechanism {m!r} is not in canonical form")
        if not isinstance(self.dashboard, str) or not (
                self.dashboard in DASHBOARDS or _BOUNDED.fullmatch(self.dashboard)):
            raise SpecError(f"dashboard must be one of {DASHBOARDS} or "
                            f"'bounded_ledger:<tokens>', got {self.dashboard!r}")
        if self.protocol not in PROTOCOLS:
            raise SpecError(f"protocol must be one of {PROTOCOLS}, got {self.protocol!r}")
        tools = self.agent_tools
        if not isinstance(tools, tuple) or any(t not in TOOLS for t in tools) \
                or tuple(sorted(set(tools))) != tools:
            raise SpecError(f"agent_tools must be a sorted tuple of distinct names from "
                            f"{TOOLS}, got {tools!r}")
        if not isinstance(self.show_handles, bool):
            raise SpecError(f"show_handles must be a bool, got {self.show_handles!r}")
        if (self.observation_entry.name == "offload") != self.show_handles:
            raise SpecError(
                f"observation_entry={self.observation_entry.name!r} with show_handles="
                f"{self.show_handles!r}: the harness offloads oversized results on entry "
                "exactly when handles are shown, so 'offload' needs show_handles=true")

    # ---- JSON ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON-ready dict (mechanisms as ``{"mechanism": ..., knobs}``)."""
        out: dict[str, Any] = {"name": self.name}
        for p in POINTS:
            out[p] = getattr(self, p).to_dict()
        out.update(dashboard=self.dashboard, agent_tools=list(self.agent_tools),
                   show_handles=self.show_handles, protocol=self.protocol)
        return out

    def to_json(self) -> str:
        """Canonical JSON text: one top-level field per line, compact values, so each
        field's value occurs once (what the editor's exact-replacement edits address)."""
        d = self.to_dict()
        lines = [f"  {json.dumps(k)}: {json.dumps(d[k], sort_keys=True)}" for k in d]
        return "{\n" + ",\n".join(lines) + "\n}\n"

    @classmethod
    def from_dict(cls, d: Any) -> "ProgramSpec":
        """Inverse of :meth:`to_dict`; knobs left out take their defaults.

        Raises:
            SpecError: naming the bad field or value.
        """
        if not isinstance(d, dict):
            raise SpecError(f"a program spec must be a JSON object, got {type(d).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise SpecError(f"unknown spec field(s) {sorted(unknown)}; known: {sorted(known)}")
        kw: dict[str, Any] = {}
        for k, v in d.items():
            if k in POINTS:
                if not isinstance(v, dict) or "mechanism" not in v:
                    raise SpecError(f"{k} must be an object with a 'mechanism', got {v!r}")
                v = dict(v)
                kw[k] = Mechanism.make(k, v.pop("mechanism"), **v)
            elif k == "agent_tools":
                if not isinstance(v, list):
                    raise SpecError(f"agent_tools must be a list, got {v!r}")
                kw[k] = tuple(v)
            else:
                kw[k] = v
        return cls(**kw)

    @classmethod
    def from_json(cls, text: str) -> "ProgramSpec":
        """Parse :meth:`to_json` (or any JSON of the same object).

        Raises:
            SpecError: for invalid JSON (with line and column) or an invalid spec.
        """
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"malformed spec JSON: {exc.msg} at line {exc.lineno} "
                            f"column {exc.colno}") from None
        return cls.from_dict(d)

    def surface(self, name: str) -> Any:
        """The value of surface ``name`` (a point's Mechanism or an interface field)."""
        if name not in SURFACES:
            raise SpecError(f"unknown surface {name!r}; known: {list(SURFACES)}")
        return getattr(self, name)


def diff(a: ProgramSpec, b: ProgramSpec) -> list[tuple[str, Any, Any]]:
    """``(surface, value in a, value in b)`` for every surface that differs (JSON
    values), in :data:`SURFACES` order."""
    da, db = a.to_dict(), b.to_dict()
    return [(s, da[s], db[s]) for s in SURFACES if da[s] != db[s]]


def load_spec(path: str) -> ProgramSpec:
    """Read a spec file.

    Raises:
        SpecError: naming ``path`` when it is unreadable or malformed.
    """
    try:
        # utf-8-sig: an editor's byte-order mark is not part of the JSON
        with open(path, encoding="utf-8-sig") as fh:
            text = fh.read()
    except OSError as exc:
        raise SpecError(f"cannot read spec file {path!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"spec file {path!r}: not UTF-8 text ({exc})") from None
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise SpecError(f"spec file {path!r}: not JSON ({exc})") from None
    if not isinstance(raw, dict) or not any(s in raw for s in SURFACES):
        got = sorted(raw)[:8] if isinstance(raw, dict) else type(raw).__name__
        raise SpecError(f"spec file {path!r} names no surface (got {got}); expected an "
                        f"object with at least one of {', '.join(SURFACES)}")
    try:
        return ProgramSpec.from_json(text)
    except SpecError as exc:
        raise SpecError(f"spec file {path!r}: {exc}") from None
