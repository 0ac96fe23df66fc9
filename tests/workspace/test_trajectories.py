"""Real trajectories (sim/data/trajectories) import, replay under a small budget with
every block's bytes recoverable, and every exported request passes the validator."""

import copy
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
    msgs = res.trajectory.messages  # with the records kept aside (archived notes)
    assert len(ws.blocks) == len(msgs) == res.requests == len(seen)
    assert load_trajectory(DATA / name) == [
        {k: v for k, v in m.items() if k == "_demo" or not k.startswith("_")}
        for m in msgs if not m.get("_aside")]
    for b, m in zip(ws.blocks.values(), msgs):  # exact bytes, one block per message
        if m.get("_aside"):
            assert b.status is BlockStatus.ARCHIVED and b.data == m["content"].encode()
            continue
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
    from sim.workspace.trajectory_replay import FANOUT

    out_rows = []  # per request: ledger rows of items out of the stream
    aside_rows = []

    def count(body):
        rows = body["messages"][-1]["content"].split("Status\n", 1)[1].splitlines()
        # records kept aside (archived notes, one row each) are counted apart
        out_rows.append(sum(not r.endswith(("| visible", "| pinned"))
                            and "| note |" not in r for r in rows[:-1]))
        aside_rows.append(sum("| note |" in r for r in rows[:-1]))

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
    # pi turns that ended in error are kept aside: one ledger row each, all listed
    assert aside_rows[-1] == sum(1 for m in res.trajectory.messages if m.get("_aside"))
    check_lossless(ws)
    check_request(ws)
    snap = ws.snapshot()
    ws.close()
    assert Workspace.open(tmp_path / "ws").snapshot() == snap


def test_archive_oldest_steps(tmp_path, monkeypatch):
    """Bundles oldest-first with offloaded placeholders; coarsens groups first."""
    from sim.workspace import trajectory_replay
    from sim.workspace.trajectory_replay import FANOUT, archive_oldest

    monkeypatch.setattr(trajectory_replay, "MARGIN", 0)  # free just the overshoot: exact specs
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
    request = _req({"role": "system", "content": "s"}, CALL,
                   {"role": "tool", "tool_call_id": "a", "content": "r"},
                   {"role": "user", "content": [{"type": "text", "text": "t"}]})
    before = copy.deepcopy(request)
    assert validate_chat_request(request) is None
    assert request == before                  # validation reads, never rewrites


@pytest.mark.parametrize("messages, cid", [
    ([{"role": "user", "content": "t"},
      {"role": "tool", "tool_call_id": "nope", "content": "orphan"}], "nope"),
    ([{"role": "user", "content": "t"}, CALL,
      {"role": "tool", "tool_call_id": "b", "content": "wrong id"}], "b"),
    ([{"role": "user", "content": "t"}, CALL,
      {"role": "tool", "tool_call_id": "a", "content": "ok"},
      {"role": "tool", "tool_call_id": "a", "content": "again"}], "a"),
])
def test_tool_result_for_no_open_call_is_a_user_message_with_a_note(messages, cid,
                                                                     tmp_path):
    """Issue 23: a harness that logs rejections as results must not lose the file;
    the result is ordinary context and the summary names it (never silently)."""
    path = tmp_path / "msgs.json"
    path.write_text(json.dumps(messages))
    res = replay_trajectory(path, budget=4000, directory=tmp_path / "ws")
    last = list(res.workspace.blocks.values())[-1]
    assert last.type is BlockType.USER_MESSAGE
    assert last.data == messages[-1]["content"].encode()
    note = [n for n in res.trajectory.notes if repr(cid) in n]
    assert len(note) == 1 and f"messages[{len(messages) - 1}]" in note[0]


# -- issue 23: every format users have ---------------------------------------------
from sim.workspace.importers import FORMATS, READERS, detect_format, read_trajectory  # noqa: E402

CASES = Path(__file__).resolve().parents[1] / "data"
FMT = DATA / "formats"
SAMPLES = {"sample_claude_code_session.jsonl": "claudecode",
           "sample_codex_rollout.jsonl": "codex",
           "sample_openai_responses.json": "responses",
           "sample_openhands_events.json": "openhands",
           "sample_openhands_eval.jsonl": "openhands-eval",
           "sample_anthropic_request.json": "anthropic",
           "sample_pi_session_all_kinds.jsonl": "pi"}
HANDED = {"formats/claude_code_session.sample.jsonl": "claudecode",
          "formats/codex_rollout.sample.jsonl": "codex",
          "formats/openhands_events.sample.json": "openhands",
          "cases/anthropic_messages.json": "anthropic",
          "cases/pi_session_more_roles.jsonl": "pi",
          "cases/recorded_tools_request.json": "openai",
          "cases/result_for_unknown_call.json": "openai"}


def _calls_paired(ws) -> int:
    n = 0
    for b in ws.blocks.values():
        if b.type is BlockType.TOOL_CALL:
            ids = [c["id"] for c in b.message["tool_calls"]]
            assert sorted(ws.results.get(b.id, {})) == sorted(ids), b.id
            n += len(ids)
    return n


@pytest.mark.parametrize("path, fmt", [(FMT / k, v) for k, v in SAMPLES.items()]
                         + [(CASES / k, v) for k, v in HANDED.items()],
                         ids=lambda x: getattr(x, "name", x))
def test_every_format_sample_replays_with_calls_and_results_paired(path, fmt, tmp_path):
    seen = []
    res = replay_trajectory(path, budget=8000, directory=tmp_path / "ws",
                            on_request=seen.append)  # each request validated
    traj, ws = res.trajectory, res.workspace
    assert traj.format == fmt and traj.reason
    assert len(ws.blocks) == len(traj.messages) == res.requests == len(seen)
    calls = _calls_paired(ws)
    assert calls == sum(len(m.get("tool_calls", ())) for m in traj.messages)
    for b, m in zip(ws.blocks.values(), traj.messages):  # asides are whole and out
        if m.get("_aside"):
            assert b.status is BlockStatus.ARCHIVED and b.type is BlockType.NOTE
            assert any(n.startswith(f"{b.id} ") for n in traj.notes)
    check_request(ws)


def test_an_unknown_anthropic_block_is_kept_whole_in_context(tmp_path):
    res = replay_trajectory(FMT / "sample_anthropic_request.json", budget=8000,
                            directory=tmp_path / "ws")
    (b,) = [b for b in res.workspace.blocks.values() if b"x_future_block" in b.data]
    assert b'"ref":"blk_9"' in b.data and b.status is BlockStatus.VISIBLE


@pytest.mark.parametrize("name", sorted(set(SAMPLES) - {"sample_anthropic_request.json"}))
def test_every_sample_keeps_an_unknown_record_whole(name):
    traj = read_trajectory(FMT / name)
    asides = [m for m in traj.messages if m.get("_aside")]
    assert any("unknown" in m["_aside"] or "neither" in m["_aside"]
               or "without a history" in m["_aside"] for m in asides)
    for m in asides:  # the record's whole JSON, a parseable copy
        assert isinstance(json.loads(m["content"]), (dict, list, type(None)))


def test_claude_code_places_records_as_claude_code_does(tmp_path):
    res = replay_trajectory(FMT / "sample_claude_code_session.jsonl", budget=8000,
                            directory=tmp_path / "ws")
    ws, traj = res.workspace, res.trajectory
    (call,) = [b for b in ws.blocks.values() if b.type is BlockType.TOOL_CALL
               and len(b.message["tool_calls"]) == 2]  # four lines, one API message
    assert [c["function"]["name"] for c in call.message["tool_calls"]] == ["Read", "Bash"]
    assert call.status is BlockStatus.ARCHIVED  # dropped by the compaction
    texts = [b.data for b in ws.blocks.values() if b.status is not BlockStatus.ARCHIVED]
    assert any(b"continued from a previous conversation" in t for t in texts)
    assert not any(b"Only cli.py" in t for t in texts)      # the sidechain stays apart
    assert not any(b"Use 2 digits" in t for t in texts)     # the abandoned edit too
    pinned = [b for b in ws.blocks.values() if b.status is BlockStatus.PINNED]
    assert [b.data for b in pinned] == [b"calc.divide(1, 3) prints 0.33333333 but the "
                                        b"spec says 0.333; fix it and run the tests."]
    assert any(b"[tool error] F." in b.data for b in ws.blocks.values())
    assert traj.skipped["toolUseResult records (the UI's copy of a tool result)"] == 3


def test_codex_parallel_calls_and_compaction(tmp_path):
    res = replay_trajectory(FMT / "sample_codex_rollout.jsonl", budget=8000,
                            directory=tmp_path / "ws")
    ws = res.workspace
    calls = [b for b in ws.blocks.values() if b.type is BlockType.TOOL_CALL]
    assert [len(b.message["tool_calls"]) for b in calls] == [2, 1, 1]
    assert [c["function"]["name"] for b in calls for c in b.message["tool_calls"]] == [
        "shell", "shell", "apply_patch", "local_shell"]
    systems = [b.data for b in ws.blocks.values() if b.type is BlockType.SYSTEM]
    assert systems[0].startswith(b"You are a coding agent") and b"sandbox" in systems[1]
    (group,) = ws.groups.values()  # the compaction: the pre-compaction turns
    assert "Codex compaction (line 18)" in group.replacement
    # the environment message is never the task; the user's request is
    pinned = [b.data for b in ws.blocks.values() if b.status is BlockStatus.PINNED
              and b.type is BlockType.USER_MESSAGE]
    assert pinned == [b"The cart total ignores the discount; find and fix it."]


def test_openhands_events_and_condensation(tmp_path):
    res = replay_trajectory(FMT / "sample_openhands_events.json", budget=8000,
                            directory=tmp_path / "ws")
    ws = res.workspace
    (two,) = [b for b in ws.blocks.values() if b.type is BlockType.TOOL_CALL
              and len(b.message["tool_calls"]) == 2]  # one model response
    args = [json.loads(c["function"]["arguments"]) for c in two.message["tool_calls"]]
    assert args == [{"command": "grep -n 'def parse' -r src"},
                    {"command": "view", "path": "/workspace/src/dates.py"}]
    assert two.status is BlockStatus.ARCHIVED  # forgotten by the condensation
    assert res.tools == ["execute_bash", "str_replace_editor", "finish"]
    live = [b.data for b in ws.blocks.values() if b.status is BlockStatus.VISIBLE]
    assert any(b"replace(tzinfo=None)" in t and b"summary" in t for t in live)
    assert any(b"sandbox restarted" in t for t in live)  # an error observation


def test_pi_keeps_from_the_first_kept_entry_and_only_the_final_branch(tmp_path):
    res = replay_trajectory(FMT / "sample_pi_session_all_kinds.jsonl", budget=8000,
                            directory=tmp_path / "ws")
    ws = res.workspace
    live = [b.data for b in ws.blocks.values()
            if b.status in (BlockStatus.VISIBLE, BlockStatus.PINNED)]
    assert any(b"Open todos: install sharp" in t for t in live)  # kept (e10)
    assert not any(b"npm ls sharp" in t for t in live)          # compacted (e06)
    assert not any(b"Try yarn instead" in t for t in live)      # abandoned branch
    assert not any(b".npmrc" in t for t in live)                # excluded (!!)
    assert any(b"came back from" in t and b"yarn" in t for t in live)
    assert sum(res.trajectory.skipped.values()) == 7


def test_openhands_evaluation_records_each_start_afresh(tmp_path):
    res = replay_trajectory(FMT / "sample_openhands_eval.jsonl", budget=8000,
                            directory=tmp_path / "ws")
    pinned = [b.data for b in res.workspace.blocks.values()
              if b.status is BlockStatus.PINNED]
    assert pinned == [b"You are OpenHands agent.", b"Fix test_net."]


@pytest.mark.parametrize("data, name, fmt", [
    ([{"role": "user", "content": "t"}], "m.json", "openai"),
    ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]}],
     "m.json", "anthropic"),
    ({"system": "s", "messages": []}, "m.json", "anthropic"),
    ({"messages": [], "tools": []}, "m.json", "openai"),
    ([{"id": 0, "action": "message", "args": {}}], "e.json", "openhands"),
    ({"instance_id": "i", "history": [{"action": "message"}]}, "r.json", "openhands-eval"),
    ({"history": [{"role": "user"}]}, "t.traj", "sweagent"),
])
def test_detection_names_the_format_and_why(data, name, fmt):
    got, why = detect_format(Path(name), data)
    assert got == fmt and why


def test_an_ambiguous_file_is_an_error_listing_the_candidates():
    data = {"schema_version": "1", "steps": [], "messages": []}
    with pytest.raises(TrajectoryFormatError, match=r"several.*atif \(.*openai \("):
        load_trajectory(data)


def test_the_readme_and_the_replay_help_name_every_format():
    import subprocess
    import sys
    readme = (Path(sim.__file__).parents[1] / "README.md").read_text()
    help_text = subprocess.run([sys.executable, "-m", "experiments.cli", "workspace",
                                "replay", "--help"], capture_output=True, text=True,
                               timeout=60).stdout
    assert set(FORMATS) == set(READERS)
    for key, words in FORMATS.items():
        assert f"| `{key}` |" in readme, key
        assert key in help_text and " ".join(words.split()) in " ".join(help_text.split())


def test_codex_compaction_without_replacement_keeps_the_user_messages(tmp_path):
    res = replay_trajectory(CASES / "formats/codex_rollout.sample.jsonl", budget=8000,
                            directory=tmp_path / "ws")
    ws = res.workspace
    by_type = {b.type: b for b in ws.blocks.values()}
    assert by_type[BlockType.TOOL_CALL].status is BlockStatus.ARCHIVED
    assert by_type[BlockType.TOOL_RESULT].status is BlockStatus.ARCHIVED
    users = [b for b in ws.blocks.values() if b.type is BlockType.USER_MESSAGE]
    assert users[0].data == b"List the failing tests." and users[0].in_stream
    assert b"one failing test" in users[1].data and users[1].in_stream
