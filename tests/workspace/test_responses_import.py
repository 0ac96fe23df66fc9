"""The OpenAI Responses API importer (issue 33): items as the model saw them, calls
joined to their outputs by ``call_id``, reasoning counted, hosted and unknown items
kept whole; detection apart from chat message lists; and a wrong ``--format`` that
names the format detection would choose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sim
from sim.workspace import (BlockStatus, BlockType, TrajectoryFormatError, load_trajectory,
                           replay_trajectory)
from sim.workspace.importers import detect_format, read_trajectory

SAMPLE = Path(sim.__file__).parent / "data" / "trajectories" / "formats" / \
    "sample_openai_responses.json"


def test_the_sample_replays_as_the_model_saw_it(tmp_path):
    res = replay_trajectory(SAMPLE, budget=8000, directory=tmp_path / "ws")
    ws, traj = res.workspace, res.trajectory
    assert traj.format == "responses"
    blocks = list(ws.blocks.values())
    # instructions, then the developer message (a system message), then the task
    assert [b.type for b in blocks[:3]] == [BlockType.SYSTEM, BlockType.SYSTEM,
                                            BlockType.USER_MESSAGE]
    assert blocks[0].data.startswith(b"You are a careful coding agent")
    assert blocks[2].status is BlockStatus.PINNED and b"returns 5400" not in \
        blocks[2].data and b"should return 5400" in blocks[2].data
    calls = [b for b in blocks if b.type is BlockType.TOOL_CALL]
    names = [[c["function"]["name"] for c in b.message["tool_calls"]] for b in calls]
    assert names == [["shell", "read_file"], ["apply_patch"], ["local_shell"]]
    # each output answers its call (by call_id; the local shell one by its id)
    results = {cid: ws.blocks[bid] for b in calls
               for cid, bid in ws.results.get(b.id, {}).items()}
    assert sorted(results) == ["call_A1", "call_B2", "call_C3", "call_D4"]
    assert results["call_B2"].data.startswith(b"import re\n\nUNITS = {\"h\": 60")
    assert b"4 passed" in results["call_D4"].data
    assert json.loads(calls[0].message["tool_calls"][0]["function"]["arguments"]) == \
        {"cmd": "grep -rn 'def parse_duration' src"}
    # the output items come after the input items; the last is the answer
    assert blocks[-1].type is BlockType.ASSISTANT_MESSAGE
    assert blocks[-1].data.startswith(b"Fixed: UNITS now counts seconds")
    assert traj.skipped["reasoning items (not sent back as text)"] == 2
    asides = [m["_where"] for m in traj.messages if m.get("_aside")]
    assert asides == ["input[12]", "input[13]", "input[14]"]
    assert res.tools == ["shell", "read_file"]  # hosted and custom tools: no schema


def test_an_input_list_reads_like_the_request():
    """What the Agents SDK's ``to_input_list()`` returns: the request's items."""
    doc = json.loads(SAMPLE.read_text())
    as_list = read_trajectory(doc["input"])
    assert as_list.format == "responses"
    whole = read_trajectory(SAMPLE)
    inputs = [m for m in whole.messages if m["_where"].startswith("input")]
    assert [{k: v for k, v in m.items()} for m in as_list.messages] == inputs


ITEMS = [{"role": "user", "content": "fix it"},
         {"type": "function_call", "call_id": "c1", "name": "shell",
          "arguments": "{\"cmd\": \"ls\"}"},
         {"type": "function_call_output", "call_id": "c1", "output": "a.py"}]


@pytest.mark.parametrize("data, name", [
    (ITEMS, "t.json"),
    ({"input": ITEMS}, "t.json"),
    ({"input": "fix it", "instructions": "be brief"}, "t.json"),
    ({"object": "response", "output": ITEMS[1:2]}, "t.json"),
    ([{"type": "message", "role": "user",
       "content": [{"type": "input_text", "text": "t"}]}], "t.json"),
])
def test_detection_finds_responses(data, name):
    fmt, why = detect_format(Path(name), data)
    assert fmt == "responses" and why


@pytest.mark.parametrize("data, fmt", [
    ([{"role": "user", "content": "t"}], "openai"),  # plain role/content: chat
    ([{"role": "user", "content": [{"type": "text", "text": "t"}]}], "openai"),
    ({"messages": [], "input": []}, "openai"),        # a chat request
])
def test_a_chat_list_stays_openai(data, fmt):
    assert detect_format(Path("t.json"), data)[0] == fmt


def test_jsonl_lines_of_items_are_responses(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    traj = read_trajectory(path)
    assert traj.format == "responses"
    assert [m["_where"] for m in traj.messages] == ["line 1", "line 2", "line 3"]


def test_parallel_calls_are_one_message_and_a_message_splits_them():
    items = [{"role": "user", "content": "t"},
             {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
             {"type": "reasoning", "summary": []},
             {"type": "function_call", "call_id": "b", "name": "f", "arguments": "{}"},
             {"type": "function_call_output", "call_id": "a", "output": "1"},
             {"type": "function_call_output", "call_id": "b", "output": "2"},
             {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]
    msgs = load_trajectory(items, "responses")
    assert [len(m.get("tool_calls", ())) for m in msgs] == [0, 2, 0, 0, 1]
    assert [m.get("tool_call_id") for m in msgs if m["role"] == "tool"] == ["a", "b"]


def test_string_input_instructions_items_and_refusal():
    data = {"instructions": [{"role": "system", "content": "rules"}], "input": "task",
            "output": [{"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "I can't"},
                {"type": "refusal", "refusal": "refused"}]}]}
    msgs = load_trajectory(data, "responses")
    assert msgs == [{"role": "system", "content": "rules"},
                    {"role": "user", "content": "task"},
                    {"role": "assistant", "content": "I can't\nrefused"}]


def test_a_later_response_notes_the_stored_context():
    traj = read_trajectory({"previous_response_id": "resp_1", "input": "more"},
                           "responses")
    assert any(n.startswith("previous_response_id:") for n in traj.notes)


@pytest.mark.parametrize("data, where", [
    ([{"type": "function_call", "name": "f", "arguments": "{}"}], r"input\[0\]\.call_id"),
    ([{"type": "function_call_output", "output": "x"}], r"input\[0\]\.call_id"),
    ([{"type": "message", "role": "robot", "content": "x"}], r"input\[0\]\.role"),
    ([{"type": "message", "role": "user", "content": [{"type": "input_text"}]}],
     r"input\[0\]\.content\[0\]\.text"),
    ({"model": "m"}, r"<file>: expected 'input'"),
    ({"input": 5}, r"<file>\.input"),
    ({"input": "x", "instructions": 3}, r"instructions: expected text"),
])
def test_a_malformed_item_names_its_position(data, where):
    with pytest.raises(TrajectoryFormatError, match=where):
        load_trajectory(data, "responses")


def test_an_output_for_no_call_is_a_user_message_with_a_note(tmp_path):
    items = [{"role": "user", "content": "t"},
             {"type": "function_call_output", "call_id": "nope", "output": "x"}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(items))
    res = replay_trajectory(path, budget=4000, directory=tmp_path / "ws",
                            format="responses")
    last = list(res.workspace.blocks.values())[-1]
    assert last.type is BlockType.USER_MESSAGE and last.data == b"x"
    assert any("'nope'" in n for n in res.trajectory.notes)


# -- a wrong --format names the format detection would choose ----------------------------
SWEAGENT = Path(sim.__file__).parent / "data" / "trajectories" / \
    "sweagent_function_calling_simple.traj"


def test_a_wrong_format_names_the_detected_one():
    with pytest.raises(TrajectoryFormatError) as err:
        load_trajectory(SWEAGENT, "openai")
    text = str(err.value)
    assert "<file>.messages: missing" in text  # what the chosen reader found
    assert "does not look like openai: detection would choose sweagent (" in text
    assert text.endswith("try --format sweagent, or no --format")


def test_a_malformed_file_of_the_chosen_format_gets_no_hint():
    with pytest.raises(TrajectoryFormatError) as err:
        load_trajectory([{"type": "function_call", "name": "f"}], "responses")
    assert "detection" not in str(err.value) and "look like" not in str(err.value)


def test_a_wrong_format_that_reads_everything_aside_says_so():
    traj = read_trajectory(SAMPLE.parent / "sample_codex_rollout.jsonl", "pi")
    assert traj.notes[-1].startswith("every record was kept aside as unknown to pi; "
                                     "the file does not look like pi: detection "
                                     "would choose codex")


def test_the_cli_prints_the_hint_in_one_line(capsys):
    from experiments.cli import main

    assert main(["workspace", "replay", str(SWEAGENT), "--budget", "8k",
                 "--format", "openai"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "try --format sweagent" in err
