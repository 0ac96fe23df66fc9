"""Stage 3, the constrained editor (ContextEvo §4.3, App. B.2 "Judge and editor budgets").

The editor commits one changeset (possibly empty) of exact-replacement edits to the
spec's canonical JSON text (:meth:`~sim.evolve.contextevo.spec.ProgramSpec.to_json`):

* each edit's ``old`` text must occur in the current text exactly once (checked for
  every edit before any is applied); a changeset with a non-matching or ambiguous
  edit, or whose result is not a valid spec, changes nothing and says why;
* an edit touching a surface the harness adapter does not expose is discarded and
  counted; the other edits still apply.

:func:`moves` is the grammar's menu of updates for an accepted hypothesis (what the
synthetic editor proposes, and the enumerated choices the real model picks from).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.evolve.contextevo.spec import (POINTS, SURFACES, Mechanism, ProgramSpec, SpecError,
                             diff)


@dataclass(frozen=True)
class Edit:
    """Replace the unique occurrence of ``old`` by ``new`` in the spec text."""

    old: str
    new: str


@dataclass
class EditOutcome:
    """What applying a changeset did: the resulting ``spec`` (the input when
    rejected), ``applied`` edits, ``discarded`` edits (unexposed surfaces, by
    surface), and ``rejected`` (the reason, or "")."""

    spec: ProgramSpec
    applied: int = 0
    discarded: dict[str, int] = field(default_factory=dict)
    rejected: str = ""


def _surfaces_of(text: str, old: str) -> list[str]:
    """The top-level fields whose lines the unique occurrence of ``old`` spans."""
    i = text.index(old)
    first = text.count("\n", 0, i)
    last = first + old.count("\n")
    out = []
    for n, line in enumerate(text.split("\n")):
        if first <= n <= last:
            key = line.strip().split(":", 1)[0].strip('"')
            if key in SURFACES or key == "name":
                out.append(key)
    return out


def apply_changeset(spec: ProgramSpec, edits, exposed=SURFACES) -> EditOutcome:
    """Apply ``edits`` (a sequence of :class:`Edit`) to ``spec``; see the module
    docstring. Never raises for a bad edit: the outcome says what happened."""
    text = spec.to_json()
    out = EditOutcome(spec)
    kept = []
    for e in edits:
        n = text.count(e.old) if e.old else 0
        if n != 1:
            out.rejected = (f"edit old value {e.old[:60]!r} occurs {n} times; "
                            "exactly once is required")
            return out
        touched = _surfaces_of(text, e.old)
        bad = [s for s in touched if s not in exposed]
        if bad:
            for s in bad:
                out.discarded[s] = out.discarded.get(s, 0) + 1
            continue
        kept.append(e)
    new = text
    for e in kept:
        if new.count(e.old) != 1:
            out.rejected = f"edit old value {e.old[:60]!r} no longer unique after earlier edits"
            return out
        new = new.replace(e.old, e.new)
    try:
        result = ProgramSpec.from_json(new)
    except SpecError as exc:
        out.rejected = f"result is not a valid spec: {exc}"
        return out
    out.spec, out.applied = result, len(kept)
    return out


def changeset_between(a: ProgramSpec, b: ProgramSpec) -> list[Edit]:
    """Exact-replacement edits turning ``a``'s text into ``b``'s: one per changed
    top-level line (whole lines, so each ``old`` is unique)."""
    la = {ln.split(":", 1)[0]: ln for ln in a.to_json().split("\n") if ":" in ln}
    lb = {ln.split(":", 1)[0]: ln for ln in b.to_json().split("\n") if ":" in ln}
    return [Edit(la[k].rstrip(","), lb[k].rstrip(",")) for k in la
            if la[k] != lb[k] and k.strip().strip('"') != "name"]


def _with(spec: ProgramSpec, **changes) -> ProgramSpec:
    d = spec.to_dict()
    for k, v in changes.items():
        d[k] = v.to_dict() if isinstance(v, Mechanism) else list(v) if isinstance(v, tuple) else v
    return ProgramSpec.from_dict(d)


def _scaled(m: Mechanism, point: str, knob: str, f) -> Mechanism | None:
    try:
        v = m.get(knob)
    except KeyError:
        return None
    return Mechanism.make(point, m.name, **{**dict(m.knobs), knob: f(v)})


def _recoverable(spec: ProgramSpec) -> ProgramSpec:
    tools = tuple(sorted(set(spec.agent_tools) | {"archive", "recover"}))
    return _with(spec, agent_tools=tools, show_handles=True,
                 observation_entry=Mechanism.make("observation_entry", "offload"),
                 recovery=Mechanism.make("recovery", "recover"))


def _archive_instead(spec: ProgramSpec) -> ProgramSpec:
    tools = tuple(sorted(set(spec.agent_tools) | {"recover"}))
    at = spec.maintenance_planning
    planning = at if at.name == "trigger" else Mechanism.make("maintenance_planning",
                                                               "trigger", at=0.8)
    return _with(spec, agent_tools=tools, show_handles=True,
                 observation_entry=Mechanism.make("observation_entry", "offload"),
                 recovery=Mechanism.make("recovery", "recover"),
                 maintenance_planning=planning,
                 representation_update=Mechanism.make("representation_update",
                                                      "archive_oldest"),
                 memory_update=Mechanism.make("memory_update", "none"))


def _retain_longer(spec: ProgramSpec, surface: str) -> ProgramSpec | None:
    rep, mem = spec.representation_update, spec.memory_update
    if surface == "child_to_parent" and spec.child_to_parent.name == "fold":
        return _with(spec, child_to_parent=Mechanism.make("child_to_parent", "all"))
    if surface == "memory_update" and mem.name == "notes":
        m = _scaled(mem, "memory_update", "keep_last", lambda v: min(10_000, 2 * v + 2))
        return _with(spec, memory_update=m)
    knob = {"mask": "window", "clear": "keep", "skeleton": "keep",
            "summarize": "keep_last", "archive_oldest": "keep"}.get(rep.name)
    if knob is None:
        return None
    m = _scaled(rep, "representation_update", knob, lambda v: min(10_000, 2 * v + 2))
    planning = spec.maintenance_planning
    if planning.name == "results_over":
        planning = _scaled(planning, "maintenance_planning", "window",
                           lambda v: min(10_000, 2 * v + 2))
    return _with(spec, representation_update=m, maintenance_planning=planning)


def _exact_sizes(spec: ProgramSpec) -> ProgramSpec | None:
    return None if spec.dashboard == "ledger" else _with(spec, dashboard="ledger")


def _earlier(spec: ProgramSpec) -> ProgramSpec | None:
    p = spec.maintenance_planning
    if p.name != "trigger" or p.get("at") > 1:
        return None
    return _with(spec, maintenance_planning=Mechanism.make(
        "maintenance_planning", "trigger", at=round(max(0.3, p.get("at") - 0.15), 2)))


#: pathology -> ordered move names (the editor's menu)
MOVES = {
    "evidence_removed": ("recoverable_archive", "archive_instead_of_drop",
                         "retain_longer"),
    "budget_overflow": ("exact_sizes", "earlier_maintenance", "recoverable_archive"),
}
_MOVE_FN = {"recoverable_archive": lambda s, surf: _recoverable(s),
            "archive_instead_of_drop": lambda s, surf: _archive_instead(s),
            "retain_longer": _retain_longer,
            "exact_sizes": lambda s, surf: _exact_sizes(s),
            "earlier_maintenance": lambda s, surf: _earlier(s)}


def moves(spec: ProgramSpec, pathology: str, surface: str) -> dict[str, list[Edit]]:
    """Move name -> changeset for every move of ``pathology`` that changes ``spec``
    (in :data:`MOVES` order)."""
    out = {}
    for name in MOVES.get(pathology, ()):
        target = _MOVE_FN[name](spec, surface)
        if target is not None and diff(spec, target):
            out[name] = changeset_between(spec, target)
    return out


def random_spec_change(spec: ProgramSpec, rng, exposed=SURFACES) -> ProgramSpec:
    """One random grammar step: a random exposed surface gets a random mechanism
    (knobs scaled from their defaults by a factor in [0.5, 2]) or interface value.
    Keeps the offload/handles pairing valid. Used by the random-edit baselines."""
    from sim.evolve.contextevo.spec import DASHBOARDS, KNOB_TYPES, MECHANISMS, TOOLS

    surface = exposed[int(rng.integers(len(exposed)))]
    d = spec.to_dict()
    if surface in POINTS:
        names = list(MECHANISMS[surface])
        mech = names[int(rng.integers(len(names)))]
        knobs = {}
        for k, v in MECHANISMS[surface][mech].items():
            typ, lo, hi = KNOB_TYPES[k]
            if typ in (int, float) and v is not None:
                x = v * float(rng.uniform(0.5, 2.0))
                x = min(hi, max(lo, x)) if hi is not None else max(lo, x)
                knobs[k] = int(round(x)) if typ is int else round(x, 3)
        d[surface] = {"mechanism": mech, **knobs}
    elif surface == "dashboard":
        d[surface] = DASHBOARDS[int(rng.integers(len(DASHBOARDS)))]
    elif surface == "agent_tools":
        d[surface] = sorted(t for t in TOOLS if rng.random() < 0.5)
    elif surface == "show_handles":
        d[surface] = not d[surface]
    else:
        from sim.evolve.contextevo.spec import PROTOCOLS
        d[surface] = PROTOCOLS[int(rng.integers(len(PROTOCOLS)))]
    # the harness offloads on entry exactly when handles are shown
    if surface == "observation_entry":
        d["show_handles"] = d["observation_entry"]["mechanism"] == "offload"
    else:
        d["observation_entry"] = {"mechanism": "offload" if d["show_handles"] else "keep"}
    return ProgramSpec.from_dict(d)
