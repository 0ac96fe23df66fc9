"""Fuzzing every trajectory importer (issue 9, "Every bad import is a clear error"):
valid samples of each format with one value replaced by an arbitrary JSON value
(wrong types, unknown roles, lone surrogates, values nested 1,000+ deep), and
arbitrary JSON documents. Each import either succeeds or raises
:class:`TrajectoryFormatError`; nothing else (no ``TypeError``, ``RecursionError``,
``ToolCallError``) escapes. Examples per format scale with the hypothesis profile:
dev 150, ci 600 (6,600 over the eleven formats), nightly 10,000 (HYPOTHESIS_PROFILE)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile

import pytest
from hypothesis import event, given, settings, strategies as st

from sim.workspace import TrajectoryFormatError, Workspace
from sim.workspace.importers import (READERS, import_trajectory, load_trajectory,
                                     read_trajectory)

EXAMPLES = {"dev": 150, "ci": 600, "nightly": 10000}.get(
    os.environ.get("HYPOTHESIS_PROFILE", "dev"), 150)

CALL = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
SAMPLES = {
    "openai": {"messages": [
        {"role": "system", "content": "s"}, {"role": "user", "content": "task"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "ok"}]},
        {"role": "assistant", "content": "done", "name": "a"}]},
    "minisweagent": [
        {"role": "system", "content": "s"}, {"role": "user", "content": "task"},
        {"role": "assistant", "content": "```bash\nls\n```"},
        {"role": "user", "content": "<output>a.py</output>"}],
    "sweagent": {"environment": "e", "history": [
        {"role": "system", "content": "s"}, {"role": "user", "content": "task"},
        {"role": "assistant", "content": "ls", "tool_calls": [CALL]},
        {"role": "tool", "content": "a.py", "tool_call_ids": ["c1"]},
        {"role": "user", "content": [{"type": "text", "text": "obs"}]}],
        "trajectory": [{"response": "r", "observation": "o"}]},
    "pi": [
        {"type": "session", "id": "x"},
        {"type": "message", "message": {"role": "user",
                                        "content": [{"type": "text", "text": "task"}]}},
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "run"}, {"type": "thinking", "thinking": "h"},
            {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"c": "ls"}}]}},
        {"type": "message", "message": {"role": "toolResult", "toolCallId": "t1",
                                        "content": [{"type": "text", "text": "a.py"}]}},
        {"type": "message", "message": {"role": "bashExecution", "command": "ls",
                                        "output": "a", "exitCode": 1, "cancelled": False,
                                        "truncated": True, "fullOutputPath": "/tmp/o"}},
        {"type": "message", "message": {"role": "custom", "customType": "n",
                                        "content": "note"}},
        {"type": "message", "message": {"role": "branchSummary", "summary": "b"}},
        {"type": "message", "message": {"role": "compactionSummary", "summary": "c"}},
        {"type": "compaction", "summary": "sum", "firstKeptEntryId": "e2"},
        {"type": "branch_summary", "summary": "bs"},
        {"type": "custom_message", "customType": "n", "content": "cm"},
        {"type": "label", "targetId": "e2", "label": "l"},
        {"type": "model_change", "modelId": "m"}, {"type": "weird", "x": 1}],
    "atif": {"schema_version": "1", "steps": [
        {"source": "user", "message": "task"},
        {"source": "agent", "message": "run", "tool_calls": [
            {"tool_call_id": "k1", "function_name": "bash", "arguments": {"c": "ls"}}],
         "observation": {"results": [{"source_call_id": "k1", "content": "a.py"},
                                     {"content": "note"}]}}]},
    "anthropic": {"system": [{"type": "text", "text": "s"}], "tools": [
        {"name": "bash", "input_schema": {"type": "object"}}], "messages": [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "h"}, {"type": "text", "text": "run"},
            {"type": "tool_use", "id": "u1", "name": "bash", "input": {"c": "ls"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "u1", "is_error": True,
             "content": [{"type": "text", "text": "err"}]},
            {"type": "text", "text": "more"}]}]},
    "claudecode": [
        {"type": "summary", "summary": "t", "leafUuid": "u4"},
        {"type": "user", "uuid": "u1", "parentUuid": None, "isMeta": True,
         "message": {"role": "user", "content": "meta"}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1",
         "message": {"role": "user", "content": "task"}},
        {"type": "assistant", "uuid": "u3", "parentUuid": "u2", "message": {
            "id": "m1", "role": "assistant", "content": [{"type": "text", "text": "go"}]}},
        {"type": "assistant", "uuid": "u4", "parentUuid": "u3", "message": {
            "id": "m1", "role": "assistant", "content": [
                {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"c": "ls"}}]}},
        {"type": "user", "uuid": "u5", "parentUuid": "u4", "toolUseResult": {"o": 1},
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "c1", "content": "a.py"}]}},
        {"type": "user", "uuid": "s1", "parentUuid": None, "isSidechain": True,
         "message": {"role": "user", "content": "sub"}},
        {"type": "system", "subtype": "compact_boundary", "uuid": "u6",
         "parentUuid": None, "logicalParentUuid": "u5"},
        {"type": "user", "uuid": "u7", "parentUuid": "u6", "isCompactSummary": True,
         "message": {"role": "user", "content": "summary"}},
        {"type": "odd", "uuid": "u8", "parentUuid": "u7"}],
    "codex": [
        {"type": "session_meta", "payload": {"id": "s", "base_instructions": {"text": "b"}}},
        {"type": "turn_context", "payload": {"model": "m"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text",
                                                           "text": "task"}]}},
        {"type": "response_item", "payload": {"type": "reasoning", "summary": []}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                              "arguments": "{}", "call_id": "x1"}},
        {"type": "response_item", "payload": {"type": "custom_tool_call", "name": "p",
                                              "input": "patch", "call_id": "x2"}},
        {"type": "response_item", "payload": {"type": "function_call_output",
                                              "call_id": "x1", "output": "ok"}},
        {"type": "response_item", "payload": {"type": "custom_tool_call_output",
                                              "call_id": "x2", "output": {
                                                  "content": "done", "success": True}}},
        {"type": "event_msg", "payload": {"type": "token_count"}},
        {"type": "compacted", "payload": {"message": "sum", "replacement_history": [
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "task"}]}]}},
        {"type": "response_item", "payload": {"type": "local_shell_call", "call_id": "x3",
                                              "action": {"command": ["ls"]}}},
        {"type": "response_item", "payload": {"type": "odd"}}],
    "responses": {"instructions": "s", "tools": [
        {"type": "function", "name": "shell", "parameters": {"type": "object"}},
        {"type": "web_search"}], "previous_response_id": "resp_0", "input": [
        {"role": "developer", "content": "d"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "task"}, {"type": "input_image",
                                                     "image_url": "data:,"}]},
        {"type": "reasoning", "id": "r1", "summary": [{"type": "summary_text",
                                                       "text": "h"}]},
        {"type": "function_call", "call_id": "f1", "name": "shell", "arguments": "{}"},
        {"type": "function_call", "call_id": "f2", "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "f1", "output": "ok"},
        {"type": "function_call_output", "call_id": "f2", "output": [
            {"type": "input_text", "text": "ok"}]},
        {"type": "custom_tool_call", "call_id": "f3", "name": "p", "input": "x"},
        {"type": "custom_tool_call_output", "call_id": "f3", "output": "done"},
        {"type": "local_shell_call", "call_id": "f4", "action": {"command": ["ls"]}},
        {"type": "local_shell_call_output", "id": "f4", "output": "a.py"},
        {"type": "computer_call", "call_id": "f5", "action": {"type": "click"}},
        {"type": "computer_call_output", "call_id": "f5", "output": {
            "type": "computer_screenshot", "image_url": "data:,"}},
        {"type": "web_search_call", "id": "w1", "status": "completed"},
        {"type": "odd"}], "output": [
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "done", "annotations": []},
            {"type": "refusal", "refusal": "no"}]}]},
    "openhands": [
        {"id": 0, "source": "agent", "action": "system", "args": {
            "content": "s", "tools": [{"type": "function", "function": {"name": "bash"}}]}},
        {"id": 1, "source": "user", "action": "message", "args": {"content": "task"}},
        {"id": 2, "source": "agent", "action": "run", "args": {"command": "ls",
                                                               "thought": "t"},
         "tool_call_metadata": {"function_name": "bash", "tool_call_id": "o1",
                                "model_response": {"id": "r1"}}},
        {"id": 3, "source": "agent", "observation": "run", "content": "a.py",
         "tool_call_metadata": {"function_name": "bash", "tool_call_id": "o1"}},
        {"id": 4, "source": "environment", "observation": "error", "content": "e"},
        {"id": 5, "source": "agent", "action": "condensation", "args": {
            "forgotten_events_start_id": 2, "forgotten_events_end_id": 3,
            "summary": "sum"}},
        {"id": 6, "source": "agent", "action": "finish", "args": {"final_thought": "f"}},
        {"id": 7, "source": "environment", "observation": "agent_state_changed",
         "content": ""}, {"id": 8}],
    "openhands-eval": [
        {"instance_id": "a", "history": [
            {"id": 0, "source": "user", "action": "message", "args": {"content": "t"}},
            {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"},
             "tool_call_metadata": {"function_name": "bash", "tool_call_id": "o1"}},
            {"id": 2, "source": "agent", "observation": "run", "content": "a",
             "tool_call_metadata": {"function_name": "bash", "tool_call_id": "o1"}}]},
        {"instance_id": "b", "history": [[
            {"id": 0, "source": "user", "action": "message", "args": {"content": "t2"}},
            {"id": 1, "source": "agent", "observation": "null", "content": ""}]]},
        {"instance_id": "c", "history": None}],
}


def deep(depth: int):
    value: object = "x"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=8),
                    st.sampled_from(["user", "assistant", "tool", "toolResult",
                                     "bashExecution", "function", "", "c1", "t1", "k1",
                                     "text", "image_url", "\ud800", "message",
                                     "tool_use", "tool_result", "u1", "u2", "x1", "o1",
                                     "function_call", "compacted", "run", "summary",
                                     "input_text", "output_text", "reasoning",
                                     "function_call_output", "f1"]))
values = st.one_of(
    st.recursive(scalars, lambda kids: st.lists(kids, max_size=3)
                 | st.dictionaries(st.sampled_from(["role", "content", "type", "id",
                                                    "text", "tool_calls", "name",
                                                    "payload", "action", "args",
                                                    "tool_use_id", "input", "uuid",
                                                    "observation", "call_id",
                                                    "output", "instructions",
                                                    "arguments"]),
                                   kids, max_size=3), max_leaves=6),
    st.integers(1000, 3000).map(deep))


def paths(value):
    """Every (container path, key) in a JSON value, down to depth 8."""
    out, stack = [], [((), value)]
    while stack:
        prefix, node = stack.pop()
        if len(prefix) > 8:
            continue
        kids = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for k, v in kids:
            out.append((prefix, k))
            stack.append((prefix + (k,), v))
    return out


@st.composite
def mutated(draw, fmt):
    data = copy.deepcopy(SAMPLES[fmt])
    for _ in range(draw(st.integers(1, 3))):
        spots = paths(data)
        if not spots:
            break
        prefix, key = draw(st.sampled_from(spots))
        node = data
        for k in prefix:
            node = node[k]
        action = draw(st.sampled_from(["replace", "replace", "delete"]))
        if action == "delete":
            del node[key]
        else:
            node[key] = draw(values)
    return data


#: a memory-backed directory where there is one: creating and removing thousands of
#: small workspaces dominated the fuzz time on a disk
_TMP = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def imp(data, fmt) -> None:
    """Import ``data`` into a fresh workspace (removed afterwards)."""
    tmp = tempfile.mkdtemp(prefix="ctxsim-fuzz-", dir=_TMP)
    ws = Workspace(tmp, budget=None, sync=False)
    try:
        import_trajectory(data, ws, format=fmt)
    finally:
        ws.close()
        shutil.rmtree(tmp, ignore_errors=True)


def outcome(data, fmt) -> str:
    """Import ``data``; the outcome's name. Any other exception fails the test."""
    try:
        imp(data, fmt)
        return "imported"
    except TrajectoryFormatError as exc:
        assert str(exc)  # a message naming the position
        return "TrajectoryFormatError"


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_every_sample_imports(fmt):
    assert outcome(copy.deepcopy(SAMPLES[fmt]), fmt) == "imported"


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_fuzz_import_is_clean_or_a_trajectory_format_error(fmt):
    @settings(max_examples=EXAMPLES, deadline=None)
    @given(data=mutated(fmt))
    def run(data):
        event(outcome(data, fmt))

    run()


@settings(max_examples=max(EXAMPLES // 5, 30), deadline=None)
@given(data=values, fmt=st.sampled_from(sorted(READERS) + [None]))
def test_fuzz_arbitrary_documents(data, fmt):
    if fmt is None:  # detection on an arbitrary value
        try:
            load_trajectory(data)
            event("imported")
        except TrajectoryFormatError:
            event("TrajectoryFormatError")
        return
    event(outcome(data, fmt))


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_json_nested_deeper_than_the_parser_allows_is_a_format_error(tmp_path, suffix):
    path = tmp_path / f"deep{suffix}"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(TrajectoryFormatError, match="nested too deeply"):
        load_trajectory(path)


@pytest.mark.parametrize("field, value", [
    ("role", {"x": 1}), ("role", ["user"]), ("tool_call_id", {"a": 1}),
    ("tool_call_id", ["c1"]), ("tool_calls", True), ("content", 5)])
def test_wrong_types_name_the_position_and_field(field, value):
    msgs = copy.deepcopy(SAMPLES["openai"]["messages"])
    target = 3 if field in ("tool_call_id", "content") else 2
    msgs[target][field] = value
    with pytest.raises(TrajectoryFormatError, match=rf"messages\[{target}\]\.{field}"):
        imp(msgs, "openai")


def test_pi_tool_call_id_of_the_wrong_type_names_the_line():
    entries = copy.deepcopy(SAMPLES["pi"])
    entries[3]["message"]["toolCallId"] = ["t1"]
    with pytest.raises(TrajectoryFormatError, match=r"line 4: message\.toolCallId"):
        load_trajectory(entries, "pi")


def test_pi_unknown_role_is_kept_whole_with_a_note_never_dropped(tmp_path):
    entries = copy.deepcopy(SAMPLES["pi"])
    entries[2]["message"]["role"] = "alienRole"
    ws = Workspace(tmp_path / "w", budget=None, sync=False)
    traj = read_trajectory(entries, "pi")
    blocks = import_trajectory(traj, ws)
    kept = [b for b in blocks if b"alienRole" in b.data]
    assert len(kept) == 1 and kept[0].status.value == "archived"
    assert json.loads(kept[0].data)["message"]["role"] == "alienRole"  # whole record
    assert any("line 3" in n and "alienRole" in n for n in traj.notes)
    ws.close()


@pytest.mark.parametrize("history", [0, False, "x", {"a": 1}])
def test_sweagent_history_of_the_wrong_type_is_not_read_from_trajectory(history):
    data = copy.deepcopy(SAMPLES["sweagent"])
    data["history"] = history
    with pytest.raises(TrajectoryFormatError, match=r"<file>\.history"):
        load_trajectory(data, "sweagent")


def test_bad_content_part_is_a_format_error_not_a_tool_call_error():
    msgs = copy.deepcopy(SAMPLES["openai"]["messages"])
    msgs[1]["content"] = [{"type": "text", "text": 7}]
    with pytest.raises(TrajectoryFormatError, match=r"messages\[1\]\.content\[0\]\.text"):
        imp(msgs, "openai")


@pytest.mark.parametrize("name", ["\ud800", "a\x00b"])
def test_a_path_the_os_cannot_take_is_a_format_error(name):
    # found by test_fuzz_arbitrary_documents: a string source is a path, and a lone
    # surrogate or NUL in it raised a raw UnicodeEncodeError / ValueError
    with pytest.raises(TrajectoryFormatError, match="cannot read trajectory"):
        load_trajectory(name)
