"""Program lessons (issue 32): ``do: program ...`` lines edit the context program
through ContextEvo's spec grammar, are played by the episode's program, refused or
inert as the grammar documents, and their effect changes with the world."""

from __future__ import annotations

import pytest

from sim.agents.profiles import get_profile
from sim.evolve.contextevo.compile import spec_of
from sim.evolve.evoharness.lesson_agent import SkillAwareAgent
from sim.evolve.evoharness.lesson_program import LessonProgram, spec_for
from sim.evolve.evoharness.lessons import Edit, edits_of
from sim.evolve.evoharness.online import episode_seed, split_stream
from sim.evolve.evoharness.program_lessons import (ProgramEdit, ProgramLessonError,
                                                   apply_program, parse_program)
from sim.evolve.evoharness.propose import Evolver, Execution, evaluate, propose
from sim.evolve.evoharness.select import skill_block
from sim.evolve.evoharness.skills import Skill, conflict
from sim.evolve.evoharness.uptake import SkillUse
from sim.harness import run_episode
from sim.policies import make_program
from sim.tasks.loca import loca_task

CERTAIN = SkillUse(read_max=1.0, pressure_drop=0.0, follow=1.0)
TRIM = "program request_assembly.trim_to = 0.6"
TRIGGER = "program maintenance_planning = trigger"


def test_grammar_parses_knob_and_mechanism_edits():
    assert parse_program(TRIM) == ProgramEdit("request_assembly", "trim_to", 0.6)
    assert parse_program(TRIGGER) == ProgramEdit("maintenance_planning", "", "trigger")
    assert parse_program("program representation_update.keep = 8").value == 8
    e = parse_program("program representation_update.marker = [masked]")
    assert e.value == "[masked]" and parse_program(e.text()) == e
    spec = apply_program(spec_of("vista_no_dashboard"), [parse_program(TRIM)])
    assert spec.request_assembly.get("trim_to") == 0.6


@pytest.mark.parametrize("line, named", [
    ("program dashboard = ledger", "'dashboard' is not a point"),        # interface
    ("program observation_entry = keep", "'observation_entry' is not a point"),
    ("program memory_updates.keep_last = 3", "'memory_updates' is not a point"),
    ("program request_assembly.keep = 3", "no mechanism at request_assembly has"),
    ("program recovery = rewind", "no mechanism 'rewind' at recovery"),
    ("program request_assembly.trim_to = 2.5", "outside"),                # range
    ("program representation_update.keep = many", "must be int"),        # type
    ("program trim harder", "not a program lesson"),
])
def test_unknown_surface_knob_or_value_is_refused_by_name_and_inert_when_read(line, named):
    with pytest.raises(ProgramLessonError, match=named):
        parse_program(line)
    # the reading agent: a refused program line is inert, the rest of the skill acts
    assert edits_of(f"do: {line}\ndo: verify\n") == (Edit("verify"),)


def test_an_edit_the_program_cannot_take_is_inert_and_without_one_nothing_changes():
    base = spec_of("vista_no_dashboard")                   # maintenance: never
    assert apply_program(base, [parse_program("program maintenance_planning.at = 0.5")]) \
        == base
    task = loca_task(2, 0, 24000)
    plain = run_episode(task, make_program("vista_no_dashboard"),
                        SkillAwareAgent("medium", CERTAIN), budget=8000, seed=3)
    a = SkillAwareAgent("medium", CERTAIN)
    prog = make_program("vista_no_dashboard")
    wrapped = LessonProgram(prog, spec_for(prog))
    a.bind_program(wrapped)
    assert run_episode(task, wrapped, a, budget=8000, seed=3) == plain
    assert a.program_played == [] and spec_for(make_program("vista", fixed_keep=9)) is None


def _solved(task, profile, seed, line=None):
    agent = SkillAwareAgent(profile, CERTAIN)
    prog = make_program("vista_no_dashboard")
    prog = LessonProgram(prog, spec_for(prog))
    agent.bind_program(prog)
    block = skill_block([Skill("g-program", "general", "", "before the final answer",
                               f"do: {line}\n- prose\n")]) if line else None
    res = run_episode(task, prog, agent, budget=16000, seed=seed,
                      pinned=(block,) if block else ())
    assert not line or [e.text() for e in agent.program_played] == [line]
    return res.solved


def _effect(line, profile, tasks):
    d = n = 0
    for t in tasks:
        for rep in (0, 1):
            s = episode_seed(rep, t.task_id)
            d += _solved(t, profile, s, line) - _solved(t, profile, s)
            n += 1
    return d / n


def test_a_program_lessons_effect_changes_with_the_worlds_parameters():
    """Done-when (issue 32, program half): a program lesson's measured effect on
    held-out tasks (paired, two seeds each; 20 tasks) exists and differs between two
    worlds. A harder trim (trim_to 0.6) shortens requests: in the degrading world
    (drop 0.6, half-point 12K) that saves misreads (+0.10 measured), in the clean world
    (drop 0) it saves nothing (0.00). Archiving at 0.8 B: no gain in the degrading
    world (0.00), values lost in the clean one (-0.15)."""
    _, held_out = split_stream([loca_task(f, s, 48000) for f in range(6)
                                for s in range(6)])
    degrading = get_profile("medium").with_(ctx_drop_max=0.6, ctx_half_tokens=12000.0)
    clean = degrading.with_(ctx_drop_max=0.0)
    trim = (_effect(TRIM, degrading, held_out), _effect(TRIM, clean, held_out))
    trig = (_effect(TRIGGER, degrading, held_out), _effect(TRIGGER, clean, held_out))
    assert trim[0] > 0 >= trim[1], trim
    assert trig[1] < 0 and trig[0] > trig[1], trig


def test_program_settings_of_one_target_oppose_and_never_merge():
    a = Skill("g-a", "general", "", "t", f"do: {TRIM}\n")
    b = Skill("g-b", "general", "", "t", "do: program request_assembly.trim_to = 0.9\n")
    assert conflict(a, b) and conflict(a, a.with_(name="g-c")) is None


def test_values_lost_with_no_archive_or_recovery_propose_the_program_lesson():
    """A trace feature, not a simulator label: a wrong value whose evidence line left
    the final request while the agent neither archived nor recovered (the trim is the
    only remover left) drafts ``do: program maintenance_planning = trigger``."""
    ex = Execution(task_id="t1", topic="lab_results", statement="s", solved=False,
                   believes_solved=True, answer={"k": "4417.20"}, expected={"k": "4471.20"},
                   signals={"requests": 9, "archives": 0, "recoveries": 0},
                   unseen=("k",), answer_tokens=900)
    props = propose(ex, evaluate(ex, "standard"), [], Evolver(replay_rate=0.0))
    lines = {p.body.splitlines()[0] for p in props if p.body}
    assert f"do: {TRIGGER}" in lines and "do: notes" in lines
    archived = Execution(**{**ex.__dict__, "signals": {**ex.signals, "archives": 2}})
    assert f"do: {TRIGGER}" not in {p.body.splitlines()[0] for p in propose(
        archived, evaluate(archived, "standard"), [], Evolver(replay_rate=0.0))
        if p.body}
