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


def make_program(name: str, **knobs) -> ContextProgram:
    """A fresh program ``name`` (a built-in name or a plugin spec, see
    :func:`sim.plugins.resolve_program`) with ``knobs`` overriding its registered
    defaults.

    Raises:
        KeyError: naming the known programs, for an unknown name.
        sim.plugins.PluginError: for a plugin spec that does not load.
        TypeError: for an unknown knob.
    """
    from sim.plugins import PluginError, resolve_program

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
           "PROGRAMS", "MAIN_PROGRAMS", "make_program"]
