"""Replayed real trajectory: exact-value questions; VISTA keeps them under pressure."""

from sim.agents import SyntheticAgent, get_profile
from sim.harness import run_episode
from sim.policies import make_program
from sim.tasks.replay import DATA, replay_task
from sim.tasks.tokens import count_tokens


def test_pi_session_replay_loses_values_under_react():
    task = replay_task(DATA / "pi_large-session.jsonl")
    task.validate()
    assert all(s.tokens == count_tokens(s.content) for s in task.steps[:20])
    agent = get_profile("medium").with_(p_note=0.0, base_error=0.0, p_recover_ledger=1.0)
    lost = run_episode(task, make_program("react"), SyntheticAgent(agent), budget=32_000,
                       seed=1)
    # the early exact values are trimmed away under a 32K budget (68K of tool output)
    assert not lost.solved and lost.deletes > 0
