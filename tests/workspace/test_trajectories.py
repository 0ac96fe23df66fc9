"""Real trajectories (sim/data/trajectories) import, replay under a small budget with
every block's bytes recoverable, and every exported request passes the validator."""

import json
from pathlib import Path

import pytest

import sim
from sim.workspace import (BlockStatus, RequestValidationError, TrajectoryFormatError,
                           load_trajectory, replay_trajectory, validate_chat_request)
from tests.workspace.helpers import check_lossless, check_request

DATA = Path(sim.__file__).parent / "data" / "trajectories"
FILES = {"sweagent_function_calling_simple.traj": "sweagent",
         "sweagent_marshmallow-1867.traj": "sweagent",
         "sweagent_pydicom-1458.traj": "sweagent",
         "minisweagent_github_issue.traj.json": "minisweagent",
         "pi_large-session.jsonl": "pi"}


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("policy", ["none", "archive-oldest"])
def test_replay_real_trajectory(name, policy, tmp_path):
    seen = []
    res = replay_trajectory(DATA / name, budget=4000, policy=policy,
                            directory=tmp_path / "ws", on_request=seen.append)
    ws = res.workspace
    msgs = load_trajectory(DATA / name)
    assert len(ws.blocks) == len(msgs) == res.requests == len(seen)
    for b, m in zip(ws.blocks.values(), msgs):  # exact bytes, one block per message
        content = m.get("content") or ""
        assert b.data == (content if isinstance(content, str) else "").encode() or \
            b.content.endswith(content)
    check_lossless(ws)
    check_request(ws)
    if policy == "archive-oldest" and name != "pi_large-session.jsonl":
        assert res.over_budget == 0
    for b in ws.blocks.values():  # recoverable: every archived/offloaded block
        if b.status in (BlockStatus.ARCHIVED, BlockStatus.OFFLOADED):
            assert ws.read_payload(str(ws.payload_path(b.handle))) == b.data


def test_offloaded_observation_larger_than_budget(tmp_path):
    big = "line of a huge tool output\n" * 5000
    msgs = [{"role": "user", "content": "task"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "cat",
                                                              "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": big}]
    res = replay_trajectory(msgs, budget=2000, format="openai", directory=tmp_path / "w")
    b = res.workspace.blocks["B3"]
    assert b.status is BlockStatus.OFFLOADED and b.data == big.encode()
    assert res.over_budget == 0


ATIF = {
    "schema_version": "ATIF-v1.2", "session_id": "s1",
    "agent": {"name": "demo", "version": "1"},
    "steps": [
        {"step_id": 1, "source": "system", "message": "You are an agent."},
        {"step_id": 2, "source": "user", "message": "List files."},
        {"step_id": 3, "source": "agent", "message": "Listing.",
         "tool_calls": [{"tool_call_id": "t1", "function_name": "ls",
                         "arguments": {"path": "."}}],
         "observation": {"results": [{"source_call_id": "t1", "content": "a\nb"}]}},
        {"step_id": 4, "source": "agent", "message": "Done."},
    ]}


def test_atif_and_openai_readers(tmp_path):
    p = tmp_path / "run.json"
    p.write_text(json.dumps(ATIF))
    msgs = load_trajectory(p)
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "assistant"]
    assert json.loads(msgs[2]["tool_calls"][0]["function"]["arguments"]) == {"path": "."}
    res = replay_trajectory(p, budget=3000, directory=tmp_path / "w")
    assert res.workspace.blocks["B4"].parent == "B3"
    q = tmp_path / "req.json"
    q.write_text(json.dumps({"model": "m", "messages": msgs}))
    assert load_trajectory(q) == msgs


def test_bad_trajectory_files(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(TrajectoryFormatError):
        load_trajectory(bad)
    bad.write_text(json.dumps({"what": 1}))
    with pytest.raises(TrajectoryFormatError):
        load_trajectory(bad)
    with pytest.raises(TrajectoryFormatError):
        load_trajectory({"steps": [{"source": "alien"}]}, format="atif")
    with pytest.raises(TrajectoryFormatError):
        load_trajectory([], format="nope")


def _req(*messages):
    return {"model": "m", "messages": list(messages)}


CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}


@pytest.mark.parametrize("request_", [
    {"messages": [{"role": "user", "content": "x"}]},
    _req(),
    _req({"role": "robot", "content": "x"}),
    _req({"role": "user", "content": None}),
    _req({"role": "tool", "tool_call_id": "a", "content": "orphan"}),
    _req(CALL),
    _req(CALL, {"role": "user", "content": "too early"}),
    _req(CALL, {"role": "tool", "tool_call_id": "b", "content": "wrong id"}),
    _req(CALL, {"role": "tool", "tool_call_id": "a", "content": "ok"}, CALL,
         {"role": "tool", "tool_call_id": "a", "content": "dup id"}),
    _req({"role": "assistant", "content": "", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": {}}}]},
        {"role": "tool", "tool_call_id": "a", "content": ""}),
])
def test_validator_rejects(request_):
    with pytest.raises(RequestValidationError):
        validate_chat_request(request_)


def test_validator_accepts():
    validate_chat_request(_req({"role": "system", "content": "s"}, CALL,
                               {"role": "tool", "tool_call_id": "a", "content": "r"},
                               {"role": "user", "content": [{"type": "text", "text": "t"}]}))
