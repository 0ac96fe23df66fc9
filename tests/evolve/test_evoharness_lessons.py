"""Lessons act through the simulation (issue 32, Evo-Harness half): the grammar, the
agent playing its edits, and the done-when test: no Evo-Harness module holds a table
of lesson effects, so the same lesson's effect changes when the world changes."""

from __future__ import annotations

import ast
import pathlib

import pytest

from sim.agents.profiles import get_profile
from sim.agents.synthetic import SyntheticAgent
from sim.evolve.evoharness.lesson_agent import SkillAwareAgent
from sim.evolve.evoharness.lessons import Edit, edits_of, parse_block, parse_instruction
from sim.evolve.evoharness.online import episode_seed, split_stream
from sim.evolve.evoharness.select import skill_block
from sim.evolve.evoharness.skills import Skill, combine
from sim.evolve.evoharness.uptake import SkillUse
from sim.harness import run_episode
from sim.policies import make_program
from sim.tasks.loca import loca_task

#: reads and follows every instruction (isolates what a lesson does when taken up)
CERTAIN = SkillUse(read_max=1.0, pressure_drop=0.0, follow=1.0)
EVOHARNESS = pathlib.Path(__file__).resolve().parents[2] / "sim/evolve/evoharness"


def _block(verb, level="general", topic=""):
    return skill_block([Skill(f"{level[0]}-{verb}", level, topic,
                              "before the final answer of a workflow task",
                              f"do: {verb}\n- prose bullet\n")])


def _solved(task, profile, seed, block=None, budget=16000,
            program="vista_no_dashboard", agent=None):
    agent = agent or SkillAwareAgent(profile, CERTAIN)
    return run_episode(task, make_program(program), agent, budget=budget, seed=seed,
                       pinned=(block,) if block else ()).solved


def test_grammar_parses_verbs_free_text_and_leaves_negations_inert():
    assert parse_instruction("verify") == "verify"
    assert parse_instruction("keep evidence results visible") == "keep"
    assert parse_instruction("re-read each value from its evidence line") == "verify"
    assert parse_instruction("restate each needed value when you see it") == "notes"
    assert parse_instruction("do not keep tool results") is None      # negated
    assert parse_instruction("rule lab_results") is None               # no verb
    assert parse_instruction("be careful") is None
    body = "do: verify\ndo: never recover\n- keep everything (prose)\ndo: notes\n"
    assert edits_of(body, "lab_results") == (Edit("verify", "lab_results"),
                                            Edit("notes", "lab_results"))
    m = combine(Skill("g-a", "general", "", "t", "do: verify\n- x\n"),
                Skill("g-b", "general", "", "t", "do: notes\n- y\n"))
    assert parse_block(skill_block([m])) == [("g-a", "", (Edit("notes"),
                                                          Edit("verify")))]


def test_without_a_lesson_the_skill_agent_is_its_base_agent():
    task = loca_task(4, 0, 24000)
    for seed in (0, 1):
        a = run_episode(task, make_program("vista"), SyntheticAgent("medium"),
                        budget=8000, seed=seed)
        b = run_episode(task, make_program("vista"), SkillAwareAgent("medium", CERTAIN),
                        budget=8000, seed=seed)
        assert a == b


def test_a_recheck_is_played_against_the_evidence_in_view():
    """Nothing is archived (a budget above the task) and the agent misses values in
    view (degradation: drop 0.6 at a 4K half-point): a followed verify re-reads and
    repairs some of the misses, each repair a value replaced by its evidence line's;
    where re-reads fail too (drop 1.0, half-point 1K, Hill 4.3) it repairs none; and
    a context-free slip (base_error 1, a failure the world declares unrelated to
    context) is never undone by a re-check."""
    tasks = [loca_task(f, 0, 8000) for f in range(0, 15, 2)]
    missing = get_profile("weak").with_(base_error=0.0, ctx_drop_max=0.6,
                                        ctx_half_tokens=4000.0)
    blind = missing.with_(ctx_drop_max=1.0, ctx_half_tokens=1000.0, ctx_shape=4.3)
    block, fixed, failed = _block("verify"), 0, 0
    for task in tasks:
        for s in range(3):
            if _solved(task, missing, s, budget=64000):
                continue
            failed += 1
            a = SkillAwareAgent(missing, CERTAIN)
            if _solved(task, missing, s, block, 64000, agent=a):
                fixed += 1
                assert a.rechecked and all(a.answer[k] == task.facts[k].value
                                           for k in a.rechecked)
            assert not _solved(task, blind, s, block, 64000)
            assert not _solved(task, missing.with_(base_error=1.0), s, block, 64000)
    assert failed >= 5 and 0 < fixed < failed, (fixed, failed)


def test_a_topic_lesson_acts_only_in_its_topic():
    task = loca_task(0, 0, 8000)                  # canvas_grades
    own = SkillAwareAgent("medium", CERTAIN)
    other = SkillAwareAgent("medium", CERTAIN)
    run_episode(task, make_program("vista"), own, budget=16000, seed=1,
                pinned=(_block("notes", "topic", "canvas_grades"),))
    run_episode(task, make_program("vista"), other, budget=16000, seed=1,
                pinned=(_block("notes", "topic", "lab_results"),))
    assert own.followed == ["notes"] and own.profile.p_note == 1.0
    assert other.followed == [] and other.profile.p_note == get_profile("medium").p_note


def _effect(verb, profile, tasks):
    """Paired effect of a certain-to-be-followed lesson on ``tasks`` (two seeds
    each): mean solved with the lesson minus without."""
    d = n = 0
    for t in tasks:
        for rep in (0, 1):
            s = episode_seed(rep, t.task_id)
            d += _solved(t, profile, s, _block(verb)) - _solved(t, profile, s)
            n += 1
    return d / n


def test_a_lessons_effect_changes_with_the_worlds_parameters():
    """Done-when (issue 32): the same lesson's measured effect on held-out tasks
    (paired, two seeds each) differs between two worlds. In the degrading world
    (drop 0.6, half-point 12K) values in view are missed: a re-check repairs some and
    a shorter request loses fewer; in the clean world (drop 0) there is nothing for
    either to repair and both pay their tokens (and shortening archives more)."""
    _, held_out = split_stream([loca_task(f, s, 48000) for f in range(6)
                                for s in range(6)])
    degrading = get_profile("medium").with_(ctx_drop_max=0.6, ctx_half_tokens=12000.0)
    clean = degrading.with_(ctx_drop_max=0.0)
    eff = {v: (_effect(v, degrading, held_out), _effect(v, clean, held_out))
           for v in ("verify", "shorten")}
    assert eff["verify"][0] >= eff["verify"][1] + 0.1, eff
    assert eff["shorten"][0] > 0 >= eff["shorten"][1], eff


#: simulator truth and the old coded outcome model: no Evo-Harness module may touch
FORBIDDEN = {"failed_base", "found_values", "slip", "misapply", "general_share",
             "true_causes"}


@pytest.mark.parametrize("path", sorted(EVOHARNESS.glob("*.py")), ids=lambda p: p.name)
def test_no_evoharness_module_maps_lessons_to_outcomes(path):
    """Static half of the done-when: no module reads or writes the simulator's
    failure state, names a failure kind, or sets an episode's outcome: what a lesson
    does is an edit of behaviour the agent then plays."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else \
            node.id if isinstance(node, ast.Name) else \
            node.arg if isinstance(node, ast.keyword) else None
        assert name not in FORBIDDEN, f"{path.name}:{node.lineno} uses {name!r}"
        if isinstance(node, ast.Assign):
            for t in node.targets:
                assert not (isinstance(t, ast.Attribute) and t.attr == "solved"), \
                    f"{path.name}:{node.lineno} sets an episode's outcome"


def test_opposite_instructions_in_bullets_never_merge():
    """Merges compare every instruction line, bullets included (issue 32): two skills
    with the same ``do:`` line whose bullets prescribe opposite actions are refused,
    by combine, by the harness and by the curator's ENHANCE."""
    from sim.evolve.evoharness.curate import SKIP, Curator
    from sim.evolve.evoharness.propose import ENHANCE, Proposal
    from sim.evolve.evoharness.skill_harness import UNBOUNDED, SkillHarness
    from sim.evolve.evoharness.skills import MergeConflictError, conflict
    x = Skill("g-recover", "general", "", "when a value is no longer visible",
              "do: recover\n- never answer unknown while archived results remain unread\n")
    y = Skill("g-recover2", "general", "", "when a value is no longer visible",
              "do: recover\n- answer unknown while archived results remain unread\n")
    assert conflict(x, y) == ("never answer unknown while archived results remain "
                              "unread", "answer unknown while archived results remain "
                              "unread")
    with pytest.raises(MergeConflictError, match="opposes"):
        combine(x, y)
    h = SkillHarness(UNBOUNDED, [x, y])
    with pytest.raises(MergeConflictError):
        h.merge("g-recover", "g-recover2")
    ds = Curator(min_topics=1).curate(h, [Proposal(
        ENHANCE, "g-recover", "general", "t", y.trigger, y.body, "recover", "t9")])
    assert ds[0].action == SKIP and h["g-recover"].body == x.body
    # bullets that do not oppose still merge
    z = y.with_(body="do: recover\n- search further archived results\n")
    assert conflict(x, z) is None and len(combine(x, z).body.splitlines()) == 3


def test_relabelled_simulator_failures_change_nothing():
    """Leakage (issue 32): the loop reads what a verifier and the trajectory show.
    Scrambling the simulator's own account of each episode (its context-free failure
    flag and the values it found before the slip) after every episode leaves every
    record, decision and the final harness unchanged, at every feedback level."""
    from sim.evolve.evoharness.curate import Curator
    from sim.evolve.evoharness.online import StreamConfig, StreamParts, run_stream
    from sim.evolve.evoharness.skill_harness import UNBOUNDED, SkillHarness

    def relabelled(task, program, agent, **kw):
        res = run_episode(task, program, agent, **kw)
        agent.failed_base = not agent.failed_base
        agent.found_values = {k: "relabelled" for k in agent.found_values}
        return res

    tasks = [loca_task(f, s, 24000) for f in range(6) for s in range(2)]
    for level in ("self", "minimal", "standard"):
        out = []
        for runner in (None, relabelled):
            res = run_stream(tasks, StreamConfig("online", level, 8000, 3, 5,
                                                 profile="weak"),
                             StreamParts(lambda: make_program("vista_no_dashboard"),
                                         Curator(min_topics=1), SkillHarness(UNBOUNDED),
                                         run_episode=runner))
            out.append((res.rows, res.decisions, res.harness.to_dict()))
        assert out[0] == out[1]
        assert out[0][2]["skills"], level            # the loop learned something
