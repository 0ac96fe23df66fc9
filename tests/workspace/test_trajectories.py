"""Real trajectories (sim/data/trajectories) import, replay under a small budget with
every block's bytes recoverable, and every exported request passes the validator."""

import json
from pathlib import Path

import pytest

import sim
from sim.workspace import (BlockStatus, BlockType, RequestValidationError, TrajectoryFormatError,
                           Workspace, load_trajectory, replay_trajectory,
                           validate_chat_request)
from sim.workspace.messages import (clean_tool_calls, decode_call_message,
                                    encode_call_message, message_text)
from tests.workspace.helpers import check_lossless, check_request, with_offloads

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
        if m.get("tool_calls"):  # the whole message: text, ids, names, arguments
            stored = decode_call_message(b.data)
            assert b.type is BlockType.TOOL_CALL and b.data == encode_call_message(
                stored["content"] or "", stored["tool_calls"])
            assert (stored["content"] or "") == message_text(m.get("content"))
            want = clean_tool_calls(m["tool_calls"])
            assert [(c["function"], c["id"].split("~")[0]) for c in stored["tool_calls"]] \
                == [(c["function"], c["id"]) for c in want]
            continue
        assert b.data == (content if isinstance(content, str) else "").encode() or \
            b.content.endswith(content)
    check_lossless(ws)
    check_request(ws)
    if policy == "archive-oldest":  # offloaded placeholders are bundled too, so even
        assert res.over_budget == 0  # the 914-block pi session fits (it used not to)
    for b in ws.blocks.values():  # recoverable: every archived/offloaded block
        if b.status in (BlockStatus.ARCHIVED, BlockStatus.OFFLOADED):
            assert ws.read_payload(str(ws.payload_path(b.handle))) == b.data


def test_archive_oldest_keeps_the_ledger_small_on_a_long_session(tmp_path):
    """VISTA §3 (Fig. 10): under W=12,288 the ledger must not grow with the session.
    Offloaded placeholders join the oldest bundles and groups coarsen FANOUT at a
    time, so group rows and levels stay logarithmic (before: one chain of 216
    levels beside 86 stranded offloaded rows)."""
    from sim.workspace.replay import FANOUT

    out_rows = []  # per request: ledger rows of items out of the stream

    def count(body):
        rows = body["messages"][-1]["content"].split("Status\n", 1)[1].splitlines()
        out_rows.append(sum(not r.endswith(("| visible", "| pinned")) for r in rows[:-1]))

    res = replay_trajectory(DATA / "pi_large-session.jsonl", budget=12_288,
                            policy="archive-oldest", directory=tmp_path / "ws",
                            on_request=count)
    ws = res.workspace
    assert res.over_budget == 0 and len(out_rows) == len(ws.blocks) == 914
    tops = [g for g in ws.groups.values() if g.status == "archived" and not g.parent]
    for level in {g.level for g in tops}:
        assert sum(g.level == level for g in tops) <= FANOUT + 1
    assert max(g.level for g in ws.groups.values()) <= 6
    stranded = [b for b in ws.blocks.values()
                if b.status is BlockStatus.OFFLOADED and b.id not in ws.group_of]
    assert len(stranded) < 20 and any(ws.blocks[b].status is BlockStatus.OFFLOADED
                                      for b in ws.group_of if b[0] == "B")
    assert max(out_rows) <= 40  # before: 87 at the end, and growing with the session
    check_lossless(ws)
    check_request(ws)
    snap = ws.snapshot()
    ws.close()
    assert Workspace.open(tmp_path / "ws").snapshot() == snap


def test_archive_oldest_steps(tmp_path, monkeypatch):
    """Bundles oldest-first with offloaded placeholders; coarsens groups first."""
    from sim.workspace import replay
    from sim.workspace.replay import FANOUT, archive_oldest

    monkeypatch.setattr(replay, "MARGIN", 0)  # free just the overshoot: exact specs
    ws = with_offloads(tmp_path / "w")  # B4, B6 offloaded; request fits
    ws.strict = False

    def squeeze():  # a budget 20 tokens under the request
        ws.budget = None
        ws.budget = ws.assemble().total - 20

    assert archive_oldest(ws) is None
    squeeze()
    assert archive_oldest(ws) == "B2,B3,B4"  # a call stays with its results
    assert ws.blocks["B4"].status is BlockStatus.OFFLOADED and ws.group_of["B4"] == "G1"
    for i in range(FANOUT):
        for part in ("note", "more"):
            ws.register({"role": "user", "content": f"{part} {i} " * 40})
        squeeze()
        assert archive_oldest(ws)
    tops = [g.id for g in ws.groups.values() if not g.parent]
    assert len(tops) == FANOUT + 1 and all(ws.groups[g].level == 1 for g in tops)
    squeeze()
    assert archive_oldest(ws) == ",".join(tops[:FANOUT])  # compaction first
    assert ws.groups[f"G{FANOUT + 2}"].level == 2
    check_lossless(ws)
    check_request(ws)


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


@pytest.mark.parametrize("messages, cid", [
    ([{"role": "user", "content": "t"},
      {"role": "tool", "tool_call_id": "nope", "content": "orphan"}], "nope"),
    ([{"role": "user", "content": "t"}, CALL,
      {"role": "tool", "tool_call_id": "b", "content": "wrong id"}], "b"),
    ([{"role": "user", "content": "t"}, CALL,
      {"role": "tool", "tool_call_id": "a", "content": "ok"},
      {"role": "tool", "tool_call_id": "a", "content": "again"}], "a"),
])
def test_tool_result_for_no_open_call_is_a_format_error(messages, cid, tmp_path):
    """As Workspace.register refuses it: never silently imported as a user message."""
    path = tmp_path / "msgs.json"
    path.write_text(json.dumps(messages))
    with pytest.raises(TrajectoryFormatError, match=repr(cid)):
        replay_trajectory(path, budget=4000, directory=tmp_path / "ws")
