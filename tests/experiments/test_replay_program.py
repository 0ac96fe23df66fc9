"""``ctxsim workspace replay FILE --program NAME`` (issue 33): a shipped trajectory's
questions played under a program, question by question. Without pressure every
question a program keeps in view is answered by an agent that makes no mistakes of
its own; under pressure the report says which evidence was lost and why."""

from __future__ import annotations

import json

import pytest

from experiments import cli
from experiments.replay_report import ARCHIVED, IN_VIEW, LOST, play
from sim.agents import get_profile
from sim.tasks.base import Fact
from sim.tasks.trajectory_tasks import DATA, replay_task

MARSHMALLOW = DATA / "sweagent_marshmallow-1867.traj"
#: the questions replay_task asks of it with seed 0, and their exact answers
KNOWN = {"command starting with python": "python reproduce.py",
         "full path of reproduce.py": "/testbed/reproduce.py",
         "line after 1:from marshmallow.fields import TimeDelta":
             "2:from datetime import timedelta"}
#: an agent with no error of its own (no misnotes, base errors or long-context misses)
CAREFUL = get_profile("medium").with_(name="careful", p_note=0.0, base_error=0.0,
                                      p_knowledge=0.0, p_index=1.0, p_row_read=1.0,
                                      ctx_drop_max=0.0)


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)


def test_the_shipped_trajectory_asks_known_questions_whose_answers_are_in_the_file():
    task = replay_task(MARSHMALLOW, seed=0)
    assert {k: f.value for k, f in task.facts.items()} == KNOWN
    # an independent route: the raw file's strings hold every answer
    raw = list(_strings(json.loads(MARSHMALLOW.read_text())))
    for value in KNOWN.values():
        assert any(value in s for s in raw), value
    # the statement asks exactly the questions kept, one scope
    assert all(k in task.statement for k in KNOWN)
    assert {s.phase for s in task.steps} == {0}


@pytest.mark.parametrize("program", ["react", "vista", "auto_archive", "folding"])
def test_without_pressure_every_question_is_in_view_and_answered(program):
    budget = 10 * replay_task(MARSHMALLOW).observation_tokens   # nothing under pressure
    report = play(MARSHMALLOW, program, budget, seed=0, profile=CAREFUL)
    assert report.correct == len(KNOWN) == len(report.questions)
    assert report.solved and report.deletes == 0
    for q in report.questions:
        assert (q.evidence, q.answered, q.why) == (IN_VIEW, KNOWN[q.key], "")


def test_the_default_agent_without_pressure_loses_no_evidence_and_names_its_own_errors():
    for seed in range(4):
        report = play(MARSHMALLOW, "react", 100_000, seed=seed)
        for q in report.questions:
            assert q.evidence == IN_VIEW
            assert q.correct == (q.why == "")
            if not q.correct:
                assert any(w in q.why for w in ("base error", "P(use)", "inexact"))


def test_under_pressure_the_report_names_the_lost_evidence_and_why():
    report = play(MARSHMALLOW, "react", 2500, seed=0, profile=CAREFUL)
    lost = [q for q in report.questions if q.evidence == LOST]
    assert lost and report.deletes > 0
    for q in lost:
        assert not q.correct and q.source_status == "deleted"
        assert "deleted (trimmed: over budget) under react" in q.why
    # VISTA archives instead and the agent recovers: every answer exact at that budget
    kept = play(MARSHMALLOW, "vista", 2500, seed=0, profile=CAREFUL)
    assert kept.correct == len(KNOWN)


def test_the_readme_example_vista_answers_all_react_loses_two_to_the_trim():
    vista = play(MARSHMALLOW, "vista", 2500, seed=0)
    react = play(MARSHMALLOW, "react", 2500, seed=0)
    assert vista.correct == 3
    assert react.correct == 1 and [q.evidence for q in react.questions].count(LOST) == 2


def test_masking_replaces_evidence_irreversibly_and_the_report_says_so():
    from sim.plugins import register_program, unregister
    from sim.policies import ObservationMasking

    # observation masking with a window of 2 results: the early evidence is masked
    register_program("masking_2", ObservationMasking, {"window": 2})
    try:
        report = play(MARSHMALLOW, "masking_2", 100_000, seed=0, profile=CAREFUL)
    finally:
        unregister("program", "masking_2")
    masked = [q for q in report.questions if q.evidence == LOST]
    assert masked and report.program_edits > 0
    for q in masked:
        assert not q.correct and "handle never shown" in q.source_status
        assert "masking_2 replaced the evidence irreversibly" in q.why
        assert "[Old observation omitted]" in q.why


def test_a_key_value_question_is_unambiguous_by_the_rule_the_agent_reads_it_with():
    # "  Error: foo" is read (after a space) as the answer: the question is ambiguous
    text = "x\n  Error: foo\nError: bar\n"
    fact = Fact("Error", "bar", 0)
    assert fact.extract(text) == "foo"
    assert fact.answers([text]) == {"foo", "bar"}
    assert Fact("Error", "bar", 0).answers(["Error: bar\nxError: baz"]) == {"bar"}


def test_cli_prints_the_report_and_json(capsys):
    assert cli.main(["workspace", "replay", str(MARSHMALLOW), "--program", "vista",
                     "--budget", "64000"]) == 0
    out = capsys.readouterr().out
    assert "Q1 correct" in out and "score       3 of 3 questions" in out
    assert cli.main(["workspace", "replay", str(MARSHMALLOW), "--program", "react",
                     "--budget", "2500", "--json", "--profile", "strong"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["program"] == "react" and data["budget"] == 2500
    assert {q["key"] for q in data["questions"]} == set(KNOWN)
    assert data["correct"] == sum(q["correct"] for q in data["questions"])


@pytest.mark.parametrize("argv, message", [
    (["--program", "vista", "--budget", "64000", "--top", "3"],
     "--top only applies without --program"),
    (["--budget", "64000", "--json"], "--json only applies with --program"),
    (["--program", "vista", "--budget", "100"], "budget for program 'vista': 100 tokens"),
    (["--program", "nosuch", "--budget", "64000"], "unknown program 'nosuch'"),
])
def test_cli_refuses_bad_input_in_one_line_exit_2(argv, message, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    try:
        code = cli.main(["workspace", "replay", str(MARSHMALLOW), *argv])
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err.strip().splitlines()[-1]


def test_a_field_read_elsewhere_after_a_space_is_not_asked():
    from sim.tasks.trajectory_tasks import _candidates

    steps = [("bash", '{"command": "git status"}', "On branch main\nstatus: clean\n"),
             ("bash", '{"command": "pytest -q"}', "collected 3 items\n  status: failed\n")]
    texts = [o for _, _, o in steps] + [a for _, a, _ in steps]
    # "status" has one line-start value but the agent also reads "  status: failed"
    assert not [c for c in _candidates(steps, texts, 2)["field"] if c[1] == "status"]
    alone = [steps[0], ("bash", '{"command": "ls"}', "README.md\n")]
    texts = [o for _, _, o in alone] + [a for _, a, _ in alone]
    assert [c[2] for c in _candidates(alone, texts, 2)["field"] if c[1] == "status"] \
        == ["clean"]


def test_a_budget_the_pinned_task_does_not_fit_exits_3_after_the_report(capsys):
    """500 tokens passes the fixed-overhead check (system prompt, tools, empty
    dashboard) but not the pinned task statement: every request is over it, which the
    report counts and the exit status says (``--soft``: 0); at 2,500 none is."""
    argv = ["workspace", "replay", str(MARSHMALLOW), "--program", "vista", "--budget"]
    assert cli.main([*argv, "500"]) == 3
    captured = capsys.readouterr()
    episode = next(l for l in captured.out.splitlines() if l.startswith("episode"))
    requests = int(episode.split()[1])
    assert f"({requests} over the budget)" in episode
    assert f"{requests} of {requests} requests were over the budget 500" in captured.err
    assert cli.main([*argv, "500", "--soft", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["over_budget"] == data["requests"] and data["max_request"] > 500
    assert cli.main([*argv, "2500", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["over_budget"] == 0 and 0 < data["max_request"] <= 2500


def test_format_names_are_read_in_any_case(capsys):
    assert cli.main(["workspace", "replay", str(MARSHMALLOW), "--format", "SWEAgent",
                     "--budget", "128k"]) == 0
    assert "format      sweagent" in capsys.readouterr().out
