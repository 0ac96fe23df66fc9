"""The editor's action space: the whole grammar, ranked by the judge's localisation
(ContextEvo §4.3: "revise an existing rule ... locally, or introduce a new
context-management mechanism when the evidence requires it"; issue 19 item 2).

A *move* is one named spec change: a knob value on one surface (every numeric knob of
every point's current mechanism, up or down), a mechanism swap at one point (every
other mechanism, default knobs), an interface value (dashboard, agent tools, handles),
or the one compound move of the grammar, ``make_recoverable`` (archive with handles
shown and the recover tool: the offload/handles/recovery fields the harness ties
together). :func:`grammar_moves` lists them all from a spec; it is what the evidence-free
baselines draw from, uniformly, and what the guided editor ranks.

Localisation: a hypothesis names a surface and a *direction* (:data:`DIRECTIONS`), the
sense in which the blamed surface is wrong:

* ``trigger_later`` / ``trigger_earlier``: maintenance fires too early / too late
  (``trigger.at`` up / down, ``results_over.window`` up / down);
* ``keep_more`` / ``keep_fewer``: the representation or memory update keeps too
  little / too much (``keep``, ``window``, ``keep_last``, ``archive_oldest.to``,
  ``stub_chars``, ``max_lines`` up / down);
* ``trim_less`` / ``trim_more``: the request trim cuts too hard / too little
  (``trim_to`` up / down);
* ``""``: no direction (every knob move on the surface, both ways).

:func:`guided_moves` ranks: knob moves on the blamed surface in the stated direction
(a moderate and a large step), then the same direction on the coupled surface
(a representation update's trigger and vice versa), then mechanism swaps at the
blamed surface (a trim blamed: representation-update swaps too, since the trim is
the last resort; for an irreversible removal the reversible ones first: archiving
with handles and recovery, then ``make_recoverable``), then ``make_recoverable``.
For ``context_degradation`` (the request was too long) every swap that would compact
nothing (to ``none`` or ``all``) is left out, and the moves that shorten the request
follow the blamed surface's (:func:`shortening_moves`). Nothing here reads a
simulator cause.
"""

from __future__ import annotations

from sim.evolve.contextevo.spec import (DASHBOARDS, KNOB_TYPES, MECHANISMS, POINTS, TOOLS,
                                        Mechanism, ProgramSpec, SpecError, diff)

DIRECTIONS = ("trigger_later", "trigger_earlier", "keep_more", "keep_fewer", "trim_less",
              "trim_more", "")
#: the pathologies the editor has moves for (the judge's context causes)
PATHOLOGIES = ("evidence_removed", "budget_overflow", "context_degradation")
#: mechanisms that compact nothing: a swap to one never shortens a request
_NO_COMPACTION = ("none", "all")
#: knob -> the direction that moves it *up*; the opposite direction moves it down
_UP = {"at": "trigger_later", "window": "keep_more", "keep": "keep_more",
       "keep_last": "keep_more", "to": "keep_more", "stub_chars": "keep_more",
       "max_lines": "keep_more",
       "fraction": "keep_fewer", "trim_to": "trim_less"}
#: a knob whose sense depends on its point: a results-count trigger's window is when
#: maintenance fires, not how much an update keeps
_UP_AT = {("maintenance_planning", "window"): "trigger_later"}
_OPPOSITE = {"trigger_later": "trigger_earlier", "trigger_earlier": "trigger_later",
             "keep_more": "keep_fewer", "keep_fewer": "keep_more", "trim_less": "trim_more",
             "trim_more": "trim_less"}
#: a surface whose knob changes pair with the blamed one (the trigger that fires a
#: representation update, and the update a trigger fires)
_COUPLED = {"request_assembly": "representation_update",
            "representation_update": "maintenance_planning",
            "memory_update": "maintenance_planning",
            "maintenance_planning": "representation_update",
            "recovery": "maintenance_planning", "observation_entry": "maintenance_planning"}


def _bounded(knob: str, x: float):
    typ, lo, hi = KNOB_TYPES[knob]
    if lo is not None:
        x = max(lo, x)
    if hi is not None:
        x = min(hi, x)
    return int(round(x)) if typ is int else round(float(x), 3)


def _steps(knob: str, v, up: bool) -> list:
    """A moderate and a large step of ``knob`` from ``v`` (distinct, changed values).
    Fractions of the budget (``at`` <= 1, ``to``, ``trim_to``, probabilities) move
    half and three quarters of the way to their bound; counts double or halve."""
    if v is None:
        return []
    frac = knob in ("to", "trim_to", "fraction") or (
        knob == "at" and v <= 1)
    if frac:
        top = 1.0
        lo = KNOB_TYPES[knob][1] or 0.0
        target = top if up else lo
        vals = [v + (target - v) * f for f in (0.5, 0.75)]
    elif up:
        vals = [2 * v + 2, 4 * v + 4]
    else:
        vals = [v / 2, v / 4]
    out = []
    for x in vals:
        b = _bounded(knob, x)
        if b != v and b not in out:
            out.append(b)
    return out


def _with(spec: ProgramSpec, **changes) -> ProgramSpec:
    d = spec.to_dict()
    for k, v in changes.items():
        d[k] = v.to_dict() if isinstance(v, Mechanism) else list(v) if isinstance(v, tuple) else v
    return ProgramSpec.from_dict(d)


def _tied(spec: ProgramSpec, surface: str, knob: str, old, new) -> dict:
    """The other half of masking's window pair: a results-count trigger and the mask
    it fires share one window (the masking program's single knob), so moving one
    moves the other when they were equal."""
    if knob != "window":
        return {}
    other = {"maintenance_planning": "representation_update",
             "representation_update": "maintenance_planning"}.get(surface)
    m = getattr(spec, other) if other else None
    if m is None or m.name not in ("results_over", "mask") or m.get("window") != old:
        return {}
    return {other: Mechanism.make(other, m.name, **{**dict(m.knobs), "window": new})}


def knob_moves(spec: ProgramSpec, surface: str, direction: str = "") -> list[tuple[str, ProgramSpec]]:
    """``(label, spec)`` for each knob step of ``surface``'s current mechanism; with a
    ``direction``, only the steps in that sense (labels ``surface.knob=value``)."""
    if surface not in POINTS:
        return []
    m = getattr(spec, surface)
    out = []
    for knob, v in m.knobs:
        if knob not in _UP or isinstance(v, bool):
            continue
        up_dir = _UP_AT.get((surface, knob), _UP[knob])
        senses = [True, False]
        if direction:
            if up_dir == direction:
                senses = [True]
            elif _OPPOSITE.get(up_dir) == direction:
                senses = [False]
            else:
                continue
        for up in senses:
            for x in _steps(knob, v, up):
                try:
                    new = Mechanism.make(surface, m.name, **{**dict(m.knobs), knob: x})
                    changes = {surface: new, **_tied(spec, surface, knob, v, x)}
                    out.append((f"{surface}.{knob}={x}", _with(spec, **changes)))
                except SpecError:
                    continue
    return out


def swap_moves(spec: ProgramSpec, surface: str) -> list[tuple[str, ProgramSpec]]:
    """Every other mechanism at point ``surface`` (default knobs), or every other
    value of an interface field; invalid results (the offload/handles pairing) are
    completed by turning handles on or off with the offload."""
    out = []
    if surface in POINTS:
        for name in MECHANISMS[surface]:
            if name == getattr(spec, surface).name:
                continue
            changes = {surface: Mechanism.make(surface, name)}
            if surface == "observation_entry":
                changes["show_handles"] = name == "offload"
            if (surface in ("representation_update", "memory_update") and name != "none"
                    and spec.maintenance_planning.name == "never"):
                # an update needs a rule that fires it: the mechanism's own program's
                # (masking counts results; the others trigger at the default 0.8 B)
                changes["maintenance_planning"] = (
                    Mechanism.make("maintenance_planning", "results_over")
                    if name == "mask" else Mechanism.make("maintenance_planning", "trigger"))
            out.append((f"{surface}->{name}", changes))
    elif surface == "dashboard":
        out += [(f"dashboard->{d}", {"dashboard": d}) for d in DASHBOARDS
                if d != spec.dashboard]
    elif surface == "agent_tools":
        for t in TOOLS:
            tools = tuple(sorted(set(spec.agent_tools) ^ {t}))
            out.append((f"agent_tools^{t}", {"agent_tools": tools}))
    elif surface == "show_handles":
        h = not spec.show_handles
        out.append((f"show_handles->{h}", {
            "show_handles": h, "observation_entry": Mechanism.make(
                "observation_entry", "offload" if h else "keep")}))
    result = []
    for label, ch in out:
        try:
            result.append((label, _with(spec, **ch)))
        except SpecError:
            continue
    return result


def make_recoverable(spec: ProgramSpec) -> ProgramSpec:
    """Handles shown (offload on entry), recovery on, and the archive and recover
    tools offered: the compound change the harness's pairing requires."""
    tools = tuple(sorted(set(spec.agent_tools) | {"archive", "recover"}))
    return _with(spec, agent_tools=tools, show_handles=True,
                 observation_entry=Mechanism.make("observation_entry", "offload"),
                 recovery=Mechanism.make("recovery", "recover"))


def _unique(spec: ProgramSpec, cands) -> list[tuple[str, ProgramSpec]]:
    seen, out = {spec}, []
    for label, s in cands:
        if s not in seen and diff(spec, s):
            seen.add(s)
            out.append((label, s))
    return out


def grammar_moves(spec: ProgramSpec, surfaces=None) -> list[tuple[str, ProgramSpec]]:
    """Every move from ``spec`` on ``surfaces`` (default: all twelve), deduplicated:
    knob steps both ways, mechanism swaps, interface values, ``make_recoverable``."""
    from sim.evolve.contextevo.spec import SURFACES

    surfaces = SURFACES if surfaces is None else surfaces
    cands = []
    for s in surfaces:
        cands += knob_moves(spec, s)
        cands += swap_moves(spec, s)
    cands.append(("make_recoverable", make_recoverable(spec)))
    return _unique(spec, cands)


def shortening_moves(spec: ProgramSpec) -> list[tuple[str, ProgramSpec]]:
    """The grammar's moves that shorten requests, in this order: folding finished
    work (child_to_parent), a representation update (masking, clearing, skeleton,
    summaries, archiving), agent notes (memory_update), then knob steps: maintenance
    fires earlier, updates keep fewer, and last the trim cuts more (it drops
    evidence: an irreversible removal). Swaps to a mechanism that compacts nothing
    are left out."""
    cands = []
    for point in ("child_to_parent", "representation_update", "memory_update"):
        cands += _compacting(spec, point)
    for point, direction in (("maintenance_planning", "trigger_earlier"),
                             ("representation_update", "keep_fewer"),
                             ("memory_update", "keep_fewer"),
                             ("request_assembly", "trim_more")):
        cands += knob_moves(spec, point, direction)
    return cands


def _compacting(spec: ProgramSpec, surface: str) -> list[tuple[str, ProgramSpec]]:
    """:func:`swap_moves` at ``surface`` less the swaps to a mechanism that compacts
    nothing (:data:`_NO_COMPACTION`)."""
    return [(label, s) for label, s in swap_moves(spec, surface)
            if surface not in POINTS or getattr(s, surface).name not in _NO_COMPACTION]


def guided_moves(spec: ProgramSpec, pathology: str, surface: str,
                 direction: str = "") -> list[tuple[str, ProgramSpec]]:
    """The grammar's moves ranked by a hypothesis's localisation (module docstring);
    empty for a pathology that is not a context cause (``agent_error``, ``none``).

    Raises:
        ValueError: naming an unknown ``direction``.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}; known: {DIRECTIONS}")
    if pathology not in PATHOLOGIES:
        return []
    # a request too long: a swap that compacts nothing lengthens it
    swapper = _compacting if pathology == "context_degradation" else swap_moves
    cands = []
    if surface:
        cands += knob_moves(spec, surface, direction)
        coupled = _COUPLED.get(surface)
        if coupled:
            cands += knob_moves(spec, coupled, direction)
        swaps = swapper(spec, surface)
        if surface == "request_assembly":
            # the trim is the last resort: what keeps a request under it is an update
            swaps += swapper(spec, "representation_update")
        if pathology == "evidence_removed":
            # the pathology is an irreversible removal: the reversible swap (archive
            # with handles and recovery) goes first, then the rest in grammar order
            rev = [(f"{lab}+recoverable", make_recoverable(s)) for lab, s in swaps
                   if s.representation_update.name == "archive_oldest"
                   and spec.representation_update.name != "archive_oldest"]
            swaps = rev + [("make_recoverable", make_recoverable(spec))] + swaps
        cands += swaps
    if pathology == "context_degradation":
        cands += shortening_moves(spec)
    cands.append(("make_recoverable", make_recoverable(spec)))
    if not surface:
        cands += grammar_moves(spec)
    return _unique(spec, cands)
