"""Context programs: VISTA, every baseline, and the ablations, over one workspace.

:data:`PROGRAMS` maps a name to ``(class, knobs)``; :func:`make_program` builds a fresh
instance (programs hold per-episode state, so build one per episode).
"""

from __future__ import annotations

from sim.policies.agentic import ActiveCompression, AutoArchive, ContextFolding
from sim.policies.base import ContextProgram
from sim.policies.fixed import (ObservationMasking, ReAct, SkeletonCompression,
                                ToolResultClearing)
from sim.policies.summarize import Summarization, SyntheticSummarizer
from sim.policies.vista import ABLATIONS, Vista

#: name -> (program class, knob overrides); the defaults are each source's own
PROGRAMS: dict[str, tuple[type[ContextProgram], dict]] = {
    "react": (ReAct, {}),
    "clearing": (ToolResultClearing, {}),
    "clearing_loca": (ToolResultClearing, {"trigger": 1.0, "fraction": 0.5,
                                           "placeholder": False}),
    "masking": (ObservationMasking, {}),
    "masking_openhands": (ObservationMasking, {"window": 100}),
    "summarization": (Summarization, {}),
    "active_compression": (ActiveCompression, {}),
    "skeleton": (SkeletonCompression, {}),
    "folding": (ContextFolding, {}),
    "auto_archive": (AutoArchive, {}),
    "vista": (Vista, {}),
    **{f"vista_{a}": (Vista, {a: True}) for a in ABLATIONS},
    "vista_bounded_ledger": (Vista, {"dashboard_tokens": 400}),
}

#: the Fig. 4 comparison set (VISTA and one row per baseline family)
MAIN_PROGRAMS = ("react", "clearing", "masking", "summarization", "active_compression",
                 "skeleton", "folding", "auto_archive", "vista")


#: program name -> (class, knobs) registered with :func:`register_program`
PLUGIN_PROGRAMS: dict[str, tuple[type[ContextProgram], dict]] = {}
#: plugin spec -> (class, knobs) it resolved to (imported once per process)
_RESOLVED: dict[str, tuple[type, dict]] = {}


def register_program(name: str, cls: type, knobs: dict | None = None) -> None:
    """Make ``name`` a program every sweep of this process accepts (``--programs
    name`` through :func:`experiments.cli.run_command`, :func:`make_program`).

    Args:
        name: the registry name (not a built-in one; no ``:``).
        cls: the program class (protocol: :mod:`sim.plugins`).
        knobs: keyword arguments its constructor gets (default: none).

    Raises:
        ValueError: for a built-in name, a name with ``:`` or a non-class ``cls``.

    A command line recorded for a run with such a program cannot be rerun by another
    process; ``--programs MODULE:CLASS`` (or an entry point) can.
    """
    if name in PROGRAMS or ":" in name or not name:
        raise ValueError(f"cannot register program {name!r}: a built-in name, empty or "
                         "with ':' (MODULE:CLASS specs need no registration)")
    if not isinstance(cls, type):
        raise ValueError(f"register_program({name!r}, ...): expected a class, got {cls!r}")
    PLUGIN_PROGRAMS[name] = (cls, dict(knobs or {}))
    _RESOLVED.pop(name, None)


def program_names() -> list[str]:
    """Every program name known without a ``MODULE:CLASS`` spec: the built-ins, then
    the registered ones and those of the ``ctxsim.programs`` entry points."""
    from sim.plugin_spec import PROGRAM_GROUP, entry_points

    extra = sorted((set(PLUGIN_PROGRAMS) | set(entry_points(PROGRAM_GROUP)))
                   - set(PROGRAMS))
    return [*PROGRAMS, *extra]


def resolve_program(spec: str) -> tuple[type, dict]:
    """``(class, knobs)`` of program ``spec``: a built-in name, a registered name,
    ``MODULE:CLASS`` or a ``ctxsim.programs`` entry point (in that order).

    Raises:
        sim.plugin_spec.PluginError: an unknown name, a spec that does not import, or
            an attribute that is not a class (one line naming it).
    """
    from sim.plugin_spec import (PROGRAM_GROUP, PluginError, dotted_hint, entry_points,
                                 import_attr, load_entry_point)

    if spec in PROGRAMS:
        return PROGRAMS[spec]
    if spec in _RESOLVED:
        return _RESOLVED[spec]
    if spec in PLUGIN_PROGRAMS:
        found = PLUGIN_PROGRAMS[spec]
    elif ":" in spec:
        found = (import_attr("program", spec), {})
    elif spec in (eps := entry_points(PROGRAM_GROUP)):
        found = (load_entry_point("program", eps[spec]), {})
    else:
        raise PluginError(f"unknown program {spec!r}; expected one of "
                          f"{', '.join(program_names())} or MODULE:CLASS"
                          f"{dotted_hint(spec)}")
    if not isinstance(found[0], type):
        raise PluginError(f"program plugin {spec!r}: expected a class, got "
                          f"{type(found[0]).__name__} {found[0]!r}")
    _RESOLVED[spec] = found
    return found


def make_program(name: str, **knobs) -> ContextProgram:
    """A fresh program ``name`` (a built-in name or a plugin spec, see
    :func:`resolve_program`) with ``knobs`` overriding its registered defaults.

    Raises:
        KeyError: naming the known programs, for an unknown name.
        sim.plugin_spec.PluginError: for a ``MODULE:CLASS`` spec that does not load.
        TypeError: for an unknown knob.
    """
    from sim.plugin_spec import PluginError

    if name in PROGRAMS:
        cls, base = PROGRAMS[name]
    else:
        try:
            cls, base = resolve_program(name)
        except PluginError as exc:
            if ":" in name:
                raise
            raise KeyError(str(exc)) from None
    prog = cls(**{**base, **knobs})
    prog.name = name
    return prog


__all__ = ["ContextProgram", "ReAct", "ToolResultClearing", "ObservationMasking",
           "Summarization", "SyntheticSummarizer", "ActiveCompression",
           "SkeletonCompression", "ContextFolding", "AutoArchive", "Vista", "ABLATIONS",
           "PROGRAMS", "MAIN_PROGRAMS", "PLUGIN_PROGRAMS", "make_program",
           "register_program", "resolve_program", "program_names"]
