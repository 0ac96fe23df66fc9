"""A model as Evo-Harness's reflector (issue 32): its free text is parsed into the
lesson grammar, filtered as the rules' drafts are, and what the harness then holds is
the model's own line (sim/evolve/evoharness/reflector.py). The model is a stand-in
client here; the embedded model runs it under ``-m llm`` and in
``ctxsim run evoharness --backend llm --reflector llm``."""

from __future__ import annotations

import pytest

from experiments.cli import main
from sim.evolve.evoharness.curate import Curator
from sim.evolve.evoharness.lessons import edits_of
from sim.evolve.evoharness.online import StreamConfig, StreamParts, run_stream
from sim.evolve.evoharness.propose import ENHANCE, NEW, NONE, Execution, evaluate
from sim.evolve.evoharness.reflector import SCHEMA, LLMReflector, feedback_text
from sim.evolve.evoharness.skill_harness import SkillHarness
from sim.policies import make_program
from sim.tasks.loca import loca_task


class Stub:
    """Answers every question with ``lesson``/``scope``; records the messages."""

    def __init__(self, lesson="re-read each value against its evidence line before "
                              "answering", fail=False):
        self.lesson, self.fail = lesson, fail
        self.asked: list[list[dict]] = []

    def ask_json(self, messages, schema, check=None, max_tokens=None):
        self.asked.append(messages)
        assert schema == SCHEMA and max_tokens == 96
        if self.fail:
            raise ConnectionError("server gone")
        return {"lesson": self.lesson}


def _ex(**kw):
    base = dict(task_id="loca/lab_results/s0/8000", topic="lab_results",
                statement="Task (lab_results): look up record LAB-1234 total",
                solved=False, believes_solved=True, answer={"total": "1.6"},
                expected={"total": "1.5"}, signals={"requests": 7, "archives": 2}, seed=1,
                answer_tokens=5000)
    base.update(kw)
    return Execution(**base)


def test_the_model_sees_what_the_verifier_shows_and_its_text_becomes_the_lesson():
    stub = Stub()
    ex = _ex()
    out = LLMReflector(stub)(ex, evaluate(ex, "standard"), [])
    system, user = stub.asked[0][0]["content"], stub.asked[0][1]["content"]
    assert "ONE short instruction" in system
    assert user == feedback_text(ex, evaluate(ex, "standard"))
    assert "check total: answered '1.6', expected '1.5'" in user
    assert ex.compressed() in user and "Feedback (standard): failed" in user
    # drafted twice, as the rules draft: the general skill and the type's procedure
    g, t = out
    assert (g.op, g.name, g.level, g.directive) == (NEW, "g-verify", "general", "verify")
    assert (t.op, t.name, t.level, t.topic) == (NEW, "t-lab_results", "topic",
                                                "lab_results")
    assert t.trigger.startswith("Task (lab_results): work through the lab results")
    assert g.body == t.body == f"do: {stub.lesson}\n"
    # what the agent plays is the model's line, parsed again
    assert [e.verb for e in edits_of(g.body)] == ["verify"]
    # minimal feedback shows the bit alone: no check reaches the model
    stub2 = Stub()
    LLMReflector(stub2)(ex, evaluate(ex, "minimal"), [])
    assert "check total" not in stub2.asked[0][1]["content"]


def test_a_skill_already_in_the_harness_is_enhanced():
    ex = _ex()
    g, t = LLMReflector(Stub())(ex, evaluate(ex, "standard"), ["t-lab_results"])
    assert (g.op, t.op) == (NEW, ENHANCE)
    g, t = LLMReflector(Stub())(ex, evaluate(ex, "standard"), ["g-verify"])
    assert (g.op, t.op) == (ENHANCE, NEW)


@pytest.mark.parametrize("lesson, reason", [
    ("do not re-read values", "no instruction the lesson grammar plays"),   # negated
    ("try harder next time", "no instruction the lesson grammar plays"),    # no verb
    ("always recheck and keep results visible",
     "no instruction the lesson grammar plays"),   # two verbs, none leading
    ("be careful and re-read each value", "generic advice"),
    ("verify that the total is 1.5", "replay of one task"),
    ("verify record LAB-1234 before answering", "replay of one task"),
    ("program maintenance_planning = sometimes", "no instruction the lesson grammar plays"),
    ("", "no instruction the lesson grammar plays")])
def test_a_lesson_the_grammar_cannot_play_or_the_filter_drops_is_none(lesson, reason):
    ex = _ex()
    rf = LLMReflector(Stub(lesson=lesson))
    out = rf(ex, evaluate(ex, "standard"), [])
    assert {(p.op, p.reason) for p in out} == {(NONE, reason)}
    assert rf.lessons[-1]["lesson"] == lesson


def test_a_program_edit_the_grammar_takes_passes_the_filter():
    ex = _ex()
    p, _ = LLMReflector(Stub(lesson="program maintenance_planning = trigger"))(
        ex, evaluate(ex, "standard"), [])
    assert (p.op, p.directive, p.name) == (NEW, "program", "g-program")
    assert p.trigger.startswith("When a workflow task's context is managed by its program")
    [e] = edits_of(p.body)
    assert e.program is not None and e.program.text() == "program maintenance_planning = trigger"


def test_solved_runs_cost_no_call_and_the_budget_failures_and_cache_are_counted():
    stub = Stub()
    rf = LLMReflector(stub, max_calls=1)
    ok = _ex(solved=True, answer={"total": "1.5"})
    assert rf(ok, evaluate(ok, "standard"), [])[0].reason == "judged solved"
    assert stub.asked == []
    ex = _ex()
    assert rf(ex, evaluate(ex, "standard"), [])[0].op == NEW          # the one call
    assert rf(ex, evaluate(ex, "standard"), [])[0].op == NEW          # same prompt: cache
    other = _ex(task_id="loca/lab_results/s1/8000")
    assert rf(other, evaluate(other, "standard"), [])[0].reason == "call budget spent"
    led = rf.ledger()
    assert (led["model_calls"], led["repeated_questions"], led["skipped_over_budget"]) \
        == (1, 1, 1) and len(stub.asked) == 1
    bad = LLMReflector(Stub(fail=True))
    assert bad(ex, evaluate(ex, "standard"), [])[0].reason == "model call failed"
    assert bad.ledger()["failed_calls"] == 1
    assert bad.ledger()["last_error"] == "ConnectionError: server gone"


@pytest.mark.parametrize("kw, message", [
    ({"max_calls": 0}, r"max_calls must be an int >= 1, got 0"),
    ({"max_calls": True}, r"max_calls must be an int >= 1, got True"),
    ({"max_tokens": 15}, r"max_tokens must be an int >= 16, got 15")])
def test_bad_budgets_are_refused_naming_them(kw, message):
    with pytest.raises(ValueError, match=message):
        LLMReflector(Stub(), **kw)
    LLMReflector(Stub(), **{k: (1 if k == "max_calls" else 16) for k in kw})


def _stream(reflector, mode="online", reflect=True):
    tasks = [loca_task(f, s, 8000) for f in range(2) for s in range(4)]
    harness = SkillHarness()
    res = run_stream(tasks, StreamConfig(mode, "standard", 4000, 3, 0, profile="weak",
                                         reflect=reflect),
                     StreamParts(lambda: make_program("vista"), Curator(), harness,
                                 reflector=reflector))
    return res, harness


def test_in_a_stream_the_harness_holds_the_models_lines_and_no_propose_never_asks():
    stub = Stub(lesson="keep tool results that show needed values visible")
    res, harness = _stream(LLMReflector(stub))
    assert any(r.solved == 0 for r in res.rows) and stub.asked
    lines = {ln for s in harness.skills for ln in s.body.splitlines()
             if ln.startswith("do:")}
    assert lines == {f"do: {stub.lesson}"}
    # another text, another harness: the lesson is what the model wrote
    res2, harness2 = _stream(LLMReflector(Stub(lesson="restate each needed value in "
                                                      "notes when first seen")))
    assert {e.verb for s in harness2.skills for e in edits_of(s.body)} == {"notes"}
    # the No-Propose ablation and the no-evolve arm use no reflector
    for mode, reflect in (("online", False), ("none", True)):
        quiet = Stub()
        _stream(LLMReflector(quiet), mode, reflect)
        assert quiet.asked == []


def test_the_grid_gives_each_evolving_stream_a_model_reflector(monkeypatch):
    """``--reflector llm`` through the grid (the model replaced by the stub): every
    evolving arm's stream reports its reflector's ledger; no-evolve and no-propose
    have none."""
    from experiments.evoharness import grid
    from experiments.evoharness.arms import arms
    from experiments.settings.evoharness import GridConfig

    made = []

    def fake(settings, cfg):
        made.append(settings)
        return LLMReflector(Stub(), max_calls=cfg.reflector_calls)

    monkeypatch.setattr(grid, "model_reflector", fake)
    cfg = GridConfig.from_args(None).with_(profiles=("medium",), families=2, seeds=4,
                                           reps=1, workers=1, reflector="llm",
                                           reflector_calls=3)
    res = grid.run_grid(arms(cfg.profiles), cfg, llm_settings="endpoint")
    evolving = {a for (a, _), ss in res.items() if ss[0].reflection}
    assert "online-standard" in evolving and "no-evolve" not in evolving
    assert "no-propose" not in evolving
    assert set(made) == {"endpoint"}
    for (a, _), ss in res.items():
        if ss[0].reflection:
            assert ss[0].reflection["call_budget"] == 3
            assert ss[0].reflection["model_calls"] <= 3


@pytest.mark.parametrize("argv, message", [
    (["--reflector", "oracle"], "invalid choice: 'oracle'"),
    (["--reflector-calls", "0"], "0")])
def test_cli_refuses_a_bad_reflector_option(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["run", "evoharness", "--quick", "--out", str(tmp_path), *argv])
    assert exc.value.code == 2 and message in capsys.readouterr().err
