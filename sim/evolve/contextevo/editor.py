"""Stage 3, the constrained editor (ContextEvo §4.3, App. B.2 "Judge and editor budgets").

The editor commits one changeset (possibly empty) of exact-replacement edits to the
spec's canonical JSON text (:meth:`~sim.evolve.contextevo.spec.ProgramSpec.to_json`):

* each edit's ``old`` text must occur in the current text exactly once (checked for
  every edit before any is applied); a changeset with a non-matching or ambiguous
  edit, or whose result is not a valid spec, changes nothing and says why;
* an edit touching a surface the harness adapter does not expose is discarded and
  counted; the other edits still apply.

:func:`moves` ranks the whole grammar's moves for an accepted hypothesis by its
localisation (:mod:`sim.evolve.contextevo.grammar_moves`; what the synthetic editor
proposes, and the enumerated choices the real model picks from);
:func:`random_changeset` and :func:`random_spec_change` are the evidence-free steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.evolve.contextevo.spec import POINTS, SURFACES, ProgramSpec, SpecError, diff


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


def moves(spec: ProgramSpec, pathology: str, surface: str,
          direction: str = "") -> dict[str, list[Edit]]:
    """Move label -> changeset for the grammar's moves that change ``spec``, ranked by
    the hypothesis's localisation (:func:`sim.evolve.contextevo.grammar_moves.guided_moves`:
    the blamed surface's knobs in the stated direction first, then its coupled
    surface, mechanism swaps, and the recoverable-archive compound). Empty for a
    pathology that is not a context cause."""
    from sim.evolve.contextevo.grammar_moves import guided_moves

    return {label: changeset_between(spec, target)
            for label, target in guided_moves(spec, pathology, surface, direction)}


def interleave(menus, n: int | None = None) -> list[tuple[str, list[Edit]]]:
    """Round-robin over ranked ``menus`` (each a list of ``(label, changeset)``): every
    menu's first move, then every menu's second, ...; a label already taken is
    skipped; at most ``n`` (all when None)."""
    out: list[tuple[str, list[Edit]]] = []
    seen = set()
    for i in range(max((len(m) for m in menus), default=0)):
        for m in menus:
            if i < len(m) and m[i][0] not in seen and (n is None or len(out) < n):
                seen.add(m[i][0])
                out.append(m[i])
    return out


def random_changeset(spec: ProgramSpec, rng, surfaces_changed: int,
                     exposed=SURFACES) -> ProgramSpec:
    """An evidence-free multi-surface step: random grammar moves
    (:func:`~sim.evolve.contextevo.grammar_moves.grammar_moves` on ``exposed``, each
    drawn uniformly) applied in turn until at least ``surfaces_changed`` surfaces differ
    from ``spec`` (at most 4 x that many moves). The size is the caller's: the
    editor's typical changeset, so the comparison is at equal step size."""
    from sim.evolve.contextevo.grammar_moves import grammar_moves

    out = spec
    for _ in range(4 * max(1, surfaces_changed)):
        cands = grammar_moves(out, exposed)
        if not cands:
            break
        out = cands[int(rng.integers(len(cands)))][1]
        if len(diff(spec, out)) >= surfaces_changed:
            break
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
