"""Replayed real trajectories: unambiguous exact-value questions of every type; VISTA
with a ledger agent keeps them under pressure, ReAct's truncation loses them."""

import pytest

from sim.agents import SyntheticAgent, get_profile
from sim.harness import run_episode
from sim.policies import make_program
from sim.tasks.trajectory_tasks import DATA, QUESTION_TYPES, replay_task, trajectory_files
from sim.tasks.tokens import count_tokens

#: an agent that never restates facts, never fails for other reasons, indexes every
#: key it archives, reads every row and uses every visible fact: isolates the program
CAREFUL = get_profile("medium").with_(name="careful", p_note=0.0, base_error=0.0,
                                      p_knowledge=0.0, p_index=1.0, p_row_read=1.0,
                                      ctx_drop_max=0.0)


def _stream(task):
    return [s.content for s in task.steps] + [s.args for s in task.steps] + [task.statement]


@pytest.mark.parametrize("path", trajectory_files(), ids=lambda p: p.stem)
def test_questions_have_exactly_one_exact_answer(path):
    task = replay_task(path)
    task.validate()
    assert task.facts
    texts = _stream(task)
    for fact in task.facts.values():
        # one distinct answer in the whole stream, and it is the fact's value
        assert fact.answers(texts) == {fact.value}, fact.key
        assert fact.source < len(task.steps) // 2 + 1  # asked about the early half
    assert all(s.tokens == count_tokens(s.content) for s in task.steps[:20])


def test_swe_agent_files_ask_for_paths_commands_and_lines():
    kinds = set()
    for path in trajectory_files():
        if "swe" in path.name:
            for key in replay_task(path).facts:
                kinds.add(next((t for t in ("command", "path", "line") if
                                key.startswith({"command": "command", "path": "full path",
                                                "line": "line after"}[t])), "field"))
    assert {"command", "path", "line"} <= kinds <= set(QUESTION_TYPES)


@pytest.mark.parametrize("name", ["sweagent_marshmallow-1867.traj",
                                  "sweagent_pydicom-1458.traj", "pi_large-session.jsonl"])
def test_vista_keeps_exact_values_react_truncation_loses_them(name):
    task = replay_task(DATA / name)
    budget = int(0.7 * task.observation_tokens)
    kept = run_episode(task, make_program("vista"), SyntheticAgent(CAREFUL), budget=budget,
                       seed=1)
    lost = run_episode(task, make_program("react"), SyntheticAgent(CAREFUL), budget=budget,
                       seed=1)
    assert kept.solved and kept.recoveries >= 1 and kept.deletes == 0
    assert not lost.solved and lost.deletes > 0


def test_interactions_pair_fenced_commands_with_user_observations():
    from sim.tasks.trajectory_tasks import interactions

    msgs = [{"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
            {"role": "assistant", "content": "look\n```bash\nls -la\n```"},
            {"role": "user", "content": "total 0\n"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {
                "name": "open", "arguments": '{"path": "a/b.py"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "1:x"}]
    assert interactions(msgs) == [("bash", '{"command": "ls -la"}', "total 0\n"),
                                  ("open", '{"path": "a/b.py"}', "1:x")]
