"""The context program an Evo-Harness episode plays, open to program lessons
(issue 32; ContextEvo App. B.1: a spec compiles to the same code as the program it
describes).

:class:`LessonProgram` plays its base program unchanged until the agent follows a
program lesson (:mod:`sim.evolve.evoharness.program_lessons`); from then on it plays
the base program's spec with the followed edits, compiled
(:func:`sim.evolve.contextevo.compile.compile_spec`). Its interface (dashboard, agent
tools, handles, protocol) is the base program's for the whole episode: the workspace
is set up from it before any skill is read. A program with no spec form (a plugin, a
built-in with edited knobs the registry cannot express) is played as it is: program
lessons are inert there (:func:`spec_for`).
"""

from __future__ import annotations

from sim.evolve.contextevo.compile import CompiledProgram, compile_spec, spec_of
from sim.evolve.contextevo.spec import ProgramSpec, SpecError
from sim.evolve.evoharness.program_lessons import ProgramEdit, apply_program
from sim.policies import PROGRAMS, make_program
from sim.policies.base import ContextProgram


def spec_for(program) -> ProgramSpec | None:
    """The spec ``program`` plays: a compiled spec's own, a registered built-in's with
    its default knobs (:func:`spec_of`), else None (no spec form)."""
    if isinstance(program, CompiledProgram):
        return program.spec
    name = getattr(program, "name", None)
    if name not in PROGRAMS:
        return None
    ref = make_program(name)
    if type(ref) is not type(program) or repr(ref) != repr(program):
        return None
    try:
        return spec_of(name)
    except SpecError:
        return None


class LessonProgram(ContextProgram):
    """``base`` played as it is until :meth:`follow` edits its spec (module docstring).

    Args:
        base: the episode's program (fresh per episode).
        spec: its spec (None: program lessons are inert).

    Attributes:
        played: the edits that changed the program in this episode.
    """

    def __init__(self, base, spec: ProgramSpec | None):
        self.knobs = getattr(base, "knobs", None)
        self.base, self.spec, self.active = base, spec, base
        self.name = base.name
        self.dashboard, self.agent_tools = base.dashboard, base.agent_tools
        self.show_handles, self.protocol = base.show_handles, base.protocol
        self.played: list[ProgramEdit] = []

    def __repr__(self) -> str:
        return f"LessonProgram({self.active!r})"

    def follow(self, edits) -> list[ProgramEdit]:
        """Play ``edits`` from now on (each skipped where it does not apply); returns
        the ones that changed the program."""
        if self.spec is None:
            return []
        done = [e for e in edits if apply_program(self.spec, [e]) != self.spec]
        new = apply_program(self.spec, edits)
        if new != self.spec:
            self.active = compile_spec(new)     # the spec keeps the program's name
            self.played += done
        return done

    # -- every hook is the active program's -------------------------------------------
    def observation_entry(self, ctx, block) -> None:
        self.active.observation_entry(ctx, block)

    def request_assembly(self, ctx) -> None:
        self.active.request_assembly(ctx)

    def maintenance_planning(self, ctx) -> bool:
        return self.active.maintenance_planning(ctx)

    def representation_update(self, ctx) -> None:
        self.active.representation_update(ctx)

    def memory_update(self, ctx) -> None:
        self.active.memory_update(ctx)

    def recovery(self, ctx, target: str, key: str):
        return self.active.recovery(ctx, target, key)

    def parent_to_child(self, ctx, phase: int) -> None:
        self.active.parent_to_child(ctx, phase)

    def child_to_parent(self, ctx, phase: int) -> None:
        self.active.child_to_parent(ctx, phase)


def lesson_program(program) -> LessonProgram:
    """``program`` wrapped for program lessons (its spec found by :func:`spec_for`)."""
    return LessonProgram(program, spec_for(program))
