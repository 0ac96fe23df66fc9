"""Compile a :class:`~sim.evolve.contextevo.spec.ProgramSpec` into a runnable context program, and
express every registered program as a spec (ContextEvo App. B.1).

The compiled program implements no mechanism itself: each point delegates to the
registered program class that owns the mechanism (built with the spec's knobs), so a
spec and the hand-written program it describes run the same code and give the same
episode records (``tests/evolve/test_contextevo_spec.py`` checks byte equality).
"""

from __future__ import annotations

from sim.evolve.contextevo.spec import Mechanism, ProgramSpec, SpecError
from sim.policies import PROGRAMS, make_program
from sim.policies.agentic import ActiveCompression, AutoArchive, ContextFolding, archive_oldest
from sim.policies.base import ContextProgram
from sim.policies.fixed import (ObservationMasking, ReAct, SkeletonCompression,
                                ToolResultClearing, _limit)
from sim.policies.summarize import Summarization
from sim.policies.vista import Vista


def _representation(m: Mechanism):
    """A callable ``f(ctx)`` for a representation-update mechanism (None for none)."""
    k = dict(m.knobs)
    if m.name == "none":
        return None
    if m.name == "mask":
        return ObservationMasking(**k).representation_update
    if m.name == "clear":
        return ToolResultClearing(**k).representation_update
    if m.name == "skeleton":
        return SkeletonCompression(**k).representation_update
    if m.name == "summarize":
        return Summarization(**k).representation_update
    if m.name == "archive_oldest":
        return lambda ctx: archive_oldest(ctx, k["to"], k["keep"])
    raise SpecError(f"no compiler for representation_update {m.name!r}")  # pragma: no cover


class CompiledProgram(ContextProgram):
    """A context program built from a :class:`ProgramSpec` (one per episode: the
    delegates hold per-episode state, e.g. the knowledge-block round counter)."""

    def __init__(self, spec: ProgramSpec):
        super().__init__()
        self.spec = spec
        self.name = spec.name
        self.dashboard = spec.dashboard
        self.agent_tools = frozenset(spec.agent_tools)
        self.show_handles = spec.show_handles
        self.protocol = spec.protocol
        self._trim = ReAct(trim_to=spec.request_assembly.get("trim_to"))
        self._rep = _representation(spec.representation_update)
        mem = spec.memory_update
        self._mem = (ActiveCompression(keep_last=mem.get("keep_last")).memory_update
                     if mem.name == "notes" else None)
        self._fold = (ContextFolding().child_to_parent
                      if spec.child_to_parent.name == "fold" else None)

    def __repr__(self) -> str:
        return f"CompiledProgram({self.spec.name!r})"

    def request_assembly(self, ctx) -> None:
        self._trim.request_assembly(ctx)

    def maintenance_planning(self, ctx) -> bool:
        m = self.spec.maintenance_planning
        if m.name == "trigger":
            return ctx.used() > _limit(m.get("at"), ctx.budget)
        if m.name == "results_over":
            return len(ctx.stream(types=("tool_result",))) > m.get("window")
        return False

    def representation_update(self, ctx) -> None:
        if self._rep is not None:
            self._rep(ctx)

    def memory_update(self, ctx) -> None:
        if self._mem is not None:
            self._mem(ctx)

    def recovery(self, ctx, target: str, key: str):
        if self.spec.recovery.name != "recover":
            return None
        return ctx.recover(target)

    def child_to_parent(self, ctx, phase: int) -> None:
        if self._fold is not None:
            self._fold(ctx, phase)


def compile_spec(spec: ProgramSpec) -> CompiledProgram:
    """A fresh :class:`CompiledProgram` for ``spec`` (build one per episode)."""
    if not isinstance(spec, ProgramSpec):
        raise SpecError(f"compile_spec needs a ProgramSpec, got {type(spec).__name__}")
    return CompiledProgram(spec)


def _points(prog: ContextProgram) -> dict[str, Mechanism]:
    """The point mechanisms of a hand-written program instance."""
    M = Mechanism.make
    k = prog.knobs
    trim = getattr(k, "trim_to", 1.0)
    out = {"request_assembly": M("request_assembly", "trim", trim_to=trim)}
    if isinstance(prog, ObservationMasking):
        out["maintenance_planning"] = M("maintenance_planning", "results_over",
                                        window=k.window)
        out["representation_update"] = M("representation_update", "mask",
                                         window=k.window, marker=k.marker)
    elif isinstance(prog, ToolResultClearing):
        out["maintenance_planning"] = M("maintenance_planning", "trigger", at=k.trigger)
        out["representation_update"] = M("representation_update", "clear", keep=k.keep,
                                         fraction=k.fraction,
                                         placeholder=k.placeholder)
    elif isinstance(prog, SkeletonCompression):
        out["maintenance_planning"] = M("maintenance_planning", "trigger", at=k.trigger)
        out["representation_update"] = M("representation_update", "skeleton",
                                         keep=k.keep, stub_chars=k.stub_chars)
    elif isinstance(prog, Summarization):
        out["maintenance_planning"] = M("maintenance_planning", "trigger", at=k.trigger)
        out["representation_update"] = M(
            "representation_update", "summarize", keep_last=k.keep_last,
            max_lines=k.max_lines)
    elif isinstance(prog, ActiveCompression):
        out["maintenance_planning"] = M("maintenance_planning", "trigger", at=k.trigger)
        out["memory_update"] = M("memory_update", "notes", keep_last=k.keep_last)
    elif isinstance(prog, ContextFolding):
        out["child_to_parent"] = M("child_to_parent", "fold")
    elif isinstance(prog, AutoArchive):
        out["maintenance_planning"] = M("maintenance_planning", "trigger", at=k.trigger)
        out["representation_update"] = M("representation_update", "archive_oldest",
                                         to=k.target, keep=k.keep)
    elif isinstance(prog, Vista):
        if k.fixed_archive:
            # Vista's rule multiplies by B (no token form); fixed_at <= 1 keeps it equal
            if k.fixed_at > 1:
                raise SpecError(f"vista fixed_at={k.fixed_at!r} > 1 has no spec form")
            out["maintenance_planning"] = M("maintenance_planning", "trigger",
                                            at=k.fixed_at)
        out["representation_update"] = M("representation_update", "archive_oldest",
                                         to=k.fixed_to, keep=k.fixed_keep)
    elif type(prog) not in (ReAct, ContextProgram):
        raise SpecError(f"no spec form for program class {type(prog).__name__}")
    return out


def spec_of(name: str) -> ProgramSpec:
    """The spec of registered program ``name`` (:data:`sim.policies.PROGRAMS`).

    Raises:
        KeyError: naming the known programs, for an unknown name.
    """
    if name not in PROGRAMS:
        raise KeyError(f"unknown program {name!r}; known: {sorted(PROGRAMS)}")
    prog = make_program(name)
    tools = tuple(sorted(prog.agent_tools))
    return ProgramSpec(
        name=name, dashboard=prog.dashboard, agent_tools=tools,
        show_handles=bool(prog.show_handles), protocol=prog.protocol,
        observation_entry=Mechanism.make("observation_entry",
                                         "offload" if prog.show_handles else "keep"),
        recovery=Mechanism.make("recovery", "recover" if "recover" in tools else "none"),
        **_points(prog))
