"""Fuzzing every trajectory importer (issue 9, "Every bad import is a clear error"):
valid samples of each format with one value replaced by an arbitrary JSON value
(wrong types, unknown roles, lone surrogates, values nested 1,000+ deep), and
arbitrary JSON documents. Each import either succeeds or raises
:class:`TrajectoryFormatError`; nothing else (no ``TypeError``, ``RecursionError``,
``ToolCallError``) escapes. Examples per format scale with the hypothesis profile:
dev 150, ci 600 (3,000 over the five formats), nightly 10,000 (HYPOTHESIS_PROFILE)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile

import pytest
from hypothesis import event, given, settings, strategies as st

from sim.workspace import TrajectoryFormatError, Workspace
from sim.workspace.importers import READERS, import_trajectory, load_trajectory

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
            {"type": "text", "text": "run"},
            {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"c": "ls"}}]}},
        {"type": "message", "message": {"role": "toolResult", "toolCallId": "t1",
                                        "content": [{"type": "text", "text": "a.py"}]}},
        {"type": "compaction", "summary": "sum"}],
    "atif": {"schema_version": "1", "steps": [
        {"source": "user", "message": "task"},
        {"source": "agent", "message": "run", "tool_calls": [
            {"tool_call_id": "k1", "function_name": "bash", "arguments": {"c": "ls"}}],
         "observation": {"results": [{"source_call_id": "k1", "content": "a.py"},
                                     {"content": "note"}]}}]},
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
                                     "text", "image_url", "\ud800", "message"]))
values = st.one_of(
    st.recursive(scalars, lambda kids: st.lists(kids, max_size=3)
                 | st.dictionaries(st.sampled_from(["role", "content", "type", "id",
                                                    "text", "tool_calls", "name"]),
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


def imp(data, fmt) -> None:
    """Import ``data`` into a fresh workspace (removed afterwards)."""
    tmp = tempfile.mkdtemp(prefix="ctxsim-fuzz-")
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


def test_pi_unknown_role_is_an_error_not_dropped():
    entries = copy.deepcopy(SAMPLES["pi"])
    entries[2]["message"]["role"] = "bashExecution"
    with pytest.raises(TrajectoryFormatError, match=r"line 3: message\.role.*bashExecution"):
        load_trajectory(entries, "pi")


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
