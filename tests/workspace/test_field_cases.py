"""Field cases (tests/data/cases, see its README): inputs that reproduce faults users
of other agent harnesses reported, each a regression test, with variants and a
property test where the fault is a whole kind (issue 10, items 1-7)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from sim.workspace import (BudgetWarning, RequestValidationError, TrajectoryFormatError,
                           Workspace, replay_trajectory, validate_chat_request)
from sim.workspace.assembly import is_empty_assistant
from sim.workspace.importers import load_trajectory
from sim.workspace.messages import decode_call_message, lone_surrogate_path, render_parts

CASES = Path(__file__).resolve().parents[1] / "data" / "cases"
TRAJ = Path(__file__).resolve().parents[2] / "sim" / "data" / "trajectories"
SURROGATES = ("\ud800", "\udc80", "\udfff", "\udbff")


_REPLAYED: list = []


@pytest.fixture(autouse=True)
def _close_replays():
    """Close every replay's workspace after its test: a temporary one is removed."""
    yield
    while _REPLAYED:
        _REPLAYED.pop().close()


def replay(path, budget, **kw):
    bodies = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BudgetWarning)
        res = replay_trajectory(path, budget=budget, on_request=bodies.append, **kw)
    _REPLAYED.append(res.workspace)
    return res, bodies


def wire_ok(body) -> None:
    """The request is valid and every string encodes as UTF-8 (no escapes needed)."""
    validate_chat_request(body)
    assert lone_surrogate_path(body) is None
    json.dumps(body, ensure_ascii=False).encode("utf-8")


def cli(*argv, cwd=None):
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ctxsim-test-") as tmp:
        if argv[:2] == ("workspace", "replay") and "--dir" not in argv:
            argv = (*argv, "--dir", f"{tmp}/ws")  # leaves no temp workspace behind
        return subprocess.run([sys.executable, "-m", "experiments.cli", *argv],
                              capture_output=True, text=True, timeout=120, cwd=cwd)


# -- 1. every string in every request is valid Unicode --------------------------------
def test_lone_surrogate_case_never_reaches_the_wire_and_the_payload_keeps_it():
    res, bodies = replay(CASES / "lone_surrogate.json", 5000)
    assert len(bodies) == 7
    for body in bodies:
        wire_ok(body)
    ws = res.workspace
    call = next(b for b in ws.blocks.values() if b.type.value == "tool_call")
    assert "\ud800".encode("utf-8", "surrogatepass") in call.data  # original kept
    assert ws.read_payload(call.handle) == call.data
    # the escape is visible to the model where the surrogate was
    args = bodies[-1]["messages"][3]["tool_calls"][0]["function"]["arguments"]
    assert "\\ud800" in args


def test_validator_flags_a_lone_surrogate_in_any_field():
    good = {"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}
    validate_chat_request(good)
    spots = [("messages", 0, "content"), ("messages", 1, "tool_calls", 0, "id"),
             ("messages", 1, "tool_calls", 0, "function", "name"),
             ("messages", 1, "tool_calls", 0, "function", "arguments"),
             ("messages", 2, "content"), ("model",)]
    for spot in spots:
        body = json.loads(json.dumps(good))
        node = body
        for key in spot[:-1]:
            node = node[key]
        node[spot[-1]] = node[spot[-1]] + "\udc80"
        if spot[-1] == "id":
            body["messages"][2]["tool_call_id"] += "\udc80"
        with pytest.raises(RequestValidationError) as err:
            validate_chat_request(body)
        assert "surrogate" in str(err.value)


texts = st.text(max_size=12)


@st.composite
def with_surrogate(draw):
    base = draw(texts)
    at = draw(st.integers(0, len(base)))
    return base[:at] + draw(st.sampled_from(SURROGATES)) + base[at:]


@given(field=st.sampled_from(["content", "name", "call_id", "fn_name", "args",
                              "result", "replacement"]),
       bad=with_surrogate())
def test_property_a_lone_surrogate_anywhere_never_reaches_a_request(tmp_path_factory,
                                                                    field, bad):
    ws = Workspace(tmp_path_factory.mktemp("ws"), budget=None, sync=False)
    clean = "x"
    user = {"role": "user", "content": bad if field == "content" else clean}
    if field == "name":
        user["name"] = bad
    ws.register(user)
    cid = bad if field == "call_id" else "c1"
    ws.register({"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {
            "name": bad if field == "fn_name" else "f",
            "arguments": bad if field == "args" else "{}"}}]})
    res = ws.register({"role": "tool", "tool_call_id": cid,
                       "content": bad if field == "result" else "ok"})
    if field == "replacement":
        ws.archive(res.id, bad)
    body = ws.assemble().to_openai()
    wire_ok(body)
    fresh = ws.assemble(incremental=False)
    assert fresh.messages == body["messages"]  # counts and renderings agree
    original = bad.encode("utf-8", "surrogatepass")
    if field == "name":  # message fields live in the journal, unchanged
        assert ws.blocks["B1"].message["name"] == bad
    elif field == "replacement":
        assert ws.blocks[res.id].replacement == bad
    elif field in ("call_id", "fn_name", "args"):  # the call block decodes exactly
        got = decode_call_message(ws.blocks["B2"].data)["tool_calls"][0]
        assert (got["id"], got["function"]["name"], got["function"]["arguments"]) == \
            (cid, bad if field == "fn_name" else "f", bad if field == "args" else "{}")
    else:
        assert any(original in b.data for b in ws.blocks.values())
    for b in ws.blocks.values():
        assert ws.store.read(b.handle) == b.data
    ws.close()


# -- 2. duplicate call ids inside one assistant message --------------------------------
def test_duplicate_call_ids_in_one_message_pair_results_in_order():
    res, bodies = replay(CASES / "duplicate_call_id_one_message.json", 4000)
    for body in bodies:
        wire_ok(body)
    msgs = bodies[-1]["messages"]
    i = next(k for k, m in enumerate(msgs) if m.get("tool_calls"))
    calls = msgs[i]["tool_calls"]
    assert len({c["id"] for c in calls}) == 2
    answers = {m["tool_call_id"]: m["content"] for m in msgs[i + 1:i + 3]}
    assert answers[calls[0]["id"]] == "2" and "1+1" in calls[0]["function"]["arguments"]
    assert answers[calls[1]["id"]] == "25" and "5*5" in calls[1]["function"]["arguments"]


def test_variant_three_duplicates_and_a_reused_id_in_a_later_message():
    call = lambda cid, a: {"id": cid, "type": "function",  # noqa: E731
                           "function": {"name": "f", "arguments": a}}
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None,
             "tool_calls": [call("x", "1"), call("x", "2"), call("x", "3")]},
            {"role": "tool", "tool_call_id": "x", "content": "r1"},
            {"role": "tool", "tool_call_id": "x", "content": "r2"},
            {"role": "tool", "tool_call_id": "x", "content": "r3"},
            {"role": "assistant", "content": None, "tool_calls": [call("x", "4")]},
            {"role": "tool", "tool_call_id": "x", "content": "r4"}]
    res, bodies = replay(msgs, 8000)
    out = bodies[-1]["messages"]
    pairs = {}
    for k, m in enumerate(out):
        for c in m.get("tool_calls") or ():
            pairs[c["function"]["arguments"]] = c["id"]
        if m["role"] == "tool":
            pairs[m["content"]] = m["tool_call_id"]
    assert [pairs[str(n)] == pairs[f"r{n}"] for n in range(1, 5)] == [True] * 4
    assert len({pairs[str(n)] for n in range(1, 5)}) == 4
    wire_ok(bodies[-1])


def test_each_renamed_call_id_is_reported_in_the_result_and_the_summary():
    """Issue: a duplicate id was renamed "c1" -> "c1~2" without a word (the README
    promises no silent change); each rename is now a note and a record."""
    from sim.workspace.importers import RenamedCall

    call = lambda cid, a: {"id": cid, "type": "function",  # noqa: E731
                           "function": {"name": "f", "arguments": a}}
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None,
             "tool_calls": [call("c1", "1"), call("c1", "2")]},
            {"role": "tool", "tool_call_id": "c1", "content": "r1"},
            {"role": "tool", "tool_call_id": "c1", "content": "r2"},
            {"role": "assistant", "content": None, "tool_calls": [call("c1", "3")]},
            {"role": "tool", "tool_call_id": "c1", "content": "r3"}]
    res, _ = replay(msgs, 8000)
    assert res.trajectory.renamed == [
        RenamedCall("messages[1]", "B2", "c1", "c1~2", "this message"),
        RenamedCall("messages[4]", "B5", "c1", "c1~3", "B2")]
    notes = [n for n in res.trajectory.notes if "renamed" in n]
    assert notes == [
        "B2 (messages[1]): renamed duplicate tool call id 'c1' -> 'c1~2' (already "
        "used by this message; results are paired in order)",
        "B5 (messages[4]): renamed duplicate tool call id 'c1' -> 'c1~3' (already "
        "used by B2; results are paired in order)"]
    r = cli("workspace", "replay", str(CASES / "duplicate_call_id_one_message.json"),
            "--budget", "8000")
    assert r.returncode == 0
    assert "renamed duplicate tool call id 'functions.eval:0' -> 'functions.eval:0~2'" \
        in r.stdout


def test_unique_call_ids_are_not_renamed_or_noted():
    res, _ = replay(CASES / "lone_surrogate.json", 5000)
    assert res.trajectory.renamed == []
    assert not any("renamed" in n for n in res.trajectory.notes)


def test_call_ids_equal_only_on_the_wire_are_renamed_and_valid():
    """A lone surrogate is sent as its escape: "k\\ud800" and the typed-out escape
    are one id on the wire, so the importer renames the second (register would
    refuse it)."""
    call = lambda cid: {"id": cid, "type": "function",  # noqa: E731
                        "function": {"name": "f", "arguments": "{}"}}
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None,
             "tool_calls": [call("k\ud800"), call("k\\ud800")]},
            {"role": "tool", "tool_call_id": "k\ud800", "content": "r1"},
            {"role": "tool", "tool_call_id": "k\\ud800", "content": "r2"}]
    res, bodies = replay(msgs, 8000)
    assert [(r.recorded, r.renamed) for r in res.trajectory.renamed] == [
        ("k\\ud800", "k\\ud800~2")]
    validate_chat_request(bodies[-1])


# -- 3. the wire-payload guard covers observations recorded as user messages ----------
def test_large_observation_as_user_is_offloaded_within_a_strict_budget():
    res, bodies = replay(CASES / "large_observation_as_user.traj.json", 8000)
    assert res.over_budget == 0 and res.max_total <= 8000
    offloaded = [b for b in res.workspace.blocks.values()
                 if b.status.value == "offloaded_placeholder"]
    assert [b.type.value for b in offloaded] == ["user_message"]
    assert offloaded[0].tokens > 25_000  # the 30K observation, bytes on disk
    assert res.workspace.read_payload(offloaded[0].handle) == offloaded[0].data
    r = cli("workspace", "replay", str(CASES / "large_observation_as_user.traj.json"),
            "--budget", "8000")
    assert r.returncode == 0, r.stderr


def test_variant_sweagent_trajectory_steps_observation_is_guarded():
    big = "\n".join(f"line {i}: value={i * 7}" for i in range(6000))
    traj = {"environment": "x", "trajectory": [
        {"response": "look", "observation": "small"},
        {"response": "cat it", "observation": big},
        {"response": "done", "observation": "ok"}]}
    res, bodies = replay(traj, 6000, format="sweagent")
    assert res.over_budget == 0 and res.max_total <= 6000
    assert any(b.status.value == "offloaded_placeholder" for b in res.workspace.blocks.values())


def test_a_replay_over_a_strict_budget_does_not_exit_0(tmp_path):
    # an assistant message alone is larger than the budget: nothing may offload it
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "content": "word " * 3000}]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(msgs))
    r = cli("workspace", "replay", str(path), "--budget", "2000")
    assert r.returncode == 3
    assert "over the budget" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert cli("workspace", "replay", str(path), "--budget", "2000",
               "--soft").returncode == 0


# -- 4. offloading never makes a request larger ----------------------------------------
def test_tiny_results_stay_inline_when_the_placeholder_is_larger():
    res, bodies = replay(CASES / "tiny_results_over_budget.json", 700)
    assert not any(b.status.value == "offloaded_placeholder"
                   for b in res.workspace.blocks.values())
    assert any(m.get("content") == "FAIL: exit 1" for m in bodies[-1]["messages"])
    r = cli("workspace", "replay", str(CASES / "tiny_results_over_budget.json"),
            "--budget", "700")
    assert r.returncode == 3  # over the budget is not a normal run


@given(size=st.integers(1, 400), budget=st.integers(500, 1500))
def test_property_offloading_never_grows_the_request(tmp_path_factory, size, budget):
    ws = Workspace(tmp_path_factory.mktemp("ws"), budget=budget, strict=False,
                   sync=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    ws.register({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BudgetWarning)
        res = ws.register({"role": "tool", "tool_call_id": "c", "content": "ab " * size})
        kept = ws.assemble(strict=False).total
        # the other choice, measured the same way
        other = "visible" if res.status.value == "offloaded_placeholder" \
            else "offloaded_placeholder"
        op = {"op": "register", "id": "B99", "type": "tool_result", "turn": res.turn,
              "tokens": res.tokens, "status": other, "message": dict(res.message),
              "handle": res.handle.to_json(), "call_block": res.call_block,
              "recovered_from": None}
        ws._apply({"op": "delete", "blocks": [res.id], "groups": [], "reason": ""})
        alt = ws._measure_with(op, res.data)
    if res.status.value == "offloaded_placeholder":
        assert kept < alt
    ws.close()


# -- 5. assistant messages with neither text nor calls ---------------------------------
def test_empty_assistant_messages_are_dropped_and_recorded():
    res, bodies = replay(CASES / "empty_assistant.json", 4000)
    for body in bodies:
        wire_ok(body)
        assert not any(is_empty_assistant(m) for m in body["messages"])
    assert res.dropped == ["B2", "B4"]
    assert res.workspace.blocks["B2"].tokens == 0
    r = cli("workspace", "replay", str(CASES / "empty_assistant.json"), "--budget", "4000")
    assert r.returncode == 0 and "dropped     2 empty assistant message(s)" in r.stdout


@pytest.mark.parametrize("content", ["", None, []])
def test_validator_flags_an_assistant_message_with_neither_content_nor_calls(content):
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"},
                                       {"role": "assistant", "content": content}]}
    with pytest.raises(RequestValidationError, match="neither content nor tool_calls"):
        validate_chat_request(body)


# -- 6. non-text parts are kept --------------------------------------------------------
def test_image_part_is_stored_byte_for_byte_and_shown_as_a_placeholder():
    raw = json.loads((CASES / "image_part.json").read_text())
    part = raw["messages"][0]["content"][1]
    res, bodies = replay(CASES / "image_part.json", 4000)
    b1 = res.workspace.blocks["B1"]
    stored = json.dumps(part, ensure_ascii=False, sort_keys=True,
                        separators=(",", ":")).encode()
    assert stored in b1.data and part["image_url"]["url"].encode() in b1.data
    assert res.workspace.read_payload(b1.handle) == b1.data
    shown = bodies[-1]["messages"][1]["content"]
    assert shown.startswith("What does this screenshot show?\n[image_url part, ")
    assert f"{len(stored):,} bytes" in shown and "iVBOR" not in shown
    for body in bodies:
        wire_ok(body)


def test_variant_image_in_a_pi_tool_result_and_an_audio_part():
    entries = [
        {"type": "session", "id": "s"},
        {"type": "message", "message": {"role": "user", "content": [
            {"type": "text", "text": "look"}]}},
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "toolCall", "id": "t1", "name": "screenshot", "arguments": {}}]}},
        {"type": "message", "message": {"role": "toolResult", "toolCallId": "t1",
                                        "content": [{"type": "image", "data": "QUJD",
                                                     "mimeType": "image/png"}]}}]
    res, bodies = replay(entries, 4000, format="pi")
    result = next(b for b in res.workspace.blocks.values() if b.type.value == "tool_result")
    assert b'"data":"QUJD"' in result.data
    assert "[image part, " in bodies[-1]["messages"][-2]["content"] or \
        any("[image part, " in (m.get("content") or "") for m in bodies[-1]["messages"])
    audio = [{"role": "user", "content": [{"type": "input_audio", "input_audio": {
        "data": "AAAA", "format": "wav"}}]}]
    res2, bodies2 = replay(audio, 4000)
    assert b'"input_audio"' in res2.workspace.blocks["B1"].data
    assert "[input_audio part, " in bodies2[-1]["messages"][1]["content"]


def test_render_parts_leaves_text_without_parts_alone():
    assert render_parts("plain text") == "plain text"


# -- 7. an impossible budget -----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(
    str(p.relative_to(TRAJ)) for p in [*TRAJ.glob("*"), *TRAJ.glob("formats/*")]
    if p.is_file() and not p.name.startswith(("LICENSE", "README"))))
def test_impossible_budget_is_a_one_line_error(name, tmp_path):
    r = cli("workspace", "replay", str(TRAJ / name), "--budget", "300", "--policy",
            "archive-oldest", "--dir", str(tmp_path / "ws"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "impossible" in lines[0] and "300" in lines[0]
    assert not (tmp_path / "ws").exists()  # nothing left behind


def test_all_field_case_files_are_covered():
    files = {p.name for p in CASES.iterdir() if p.suffix in (".json", ".jsonl")}
    assert files == {"lone_surrogate.json", "duplicate_call_id_one_message.json",
                     "large_observation_as_user.traj.json",
                     "tiny_results_over_budget.json", "empty_assistant.json",
                     "image_part.json", "recorded_tools_request.json",
                     "pi_session_more_roles.jsonl", "result_for_unknown_call.json",
                     "anthropic_messages.json"}
    assert (CASES / "README.md").is_file()


def test_a_part_with_its_own_text_stays_readable_and_whole():
    part = {"type": "file_summary", "id": "t", "content": "exit 1: FAILED"}
    res, bodies = replay([{"role": "user", "content": ["see:", part]}], 4000)
    data = res.workspace.blocks["B1"].data
    assert b'"id":"t"' in data
    assert bodies[-1]["messages"][1]["content"] == "see:\n[file_summary part]\nexit 1: FAILED"


# -- round 2 ---------------------------------------------------------------------------
def paired(ws) -> int:
    """Every call block's calls are each answered by one result block; the count."""
    n = 0
    for b in ws.blocks.values():
        if b.type.value == "tool_call":
            calls = [c["id"] for c in b.message["tool_calls"]]
            assert sorted(ws.results.get(b.id, {})) == sorted(calls), b.id
            n += len(calls)
    return n


def test_recorded_tool_schemas_are_fixed_overhead_and_in_the_ledger(tmp_path):
    path = CASES / "recorded_tools_request.json"
    tools = json.loads(path.read_text())["tools"]
    r = cli("workspace", "replay", str(path), "--budget", "3000")
    assert r.returncode == 2 and "impossible" in r.stderr and "15 tool schemas" in r.stderr
    res, bodies = replay(path, 8000, directory=tmp_path / "w")
    assert all([t["function"]["name"] for t in b["tools"][:15]] ==
               [t["function"]["name"] for t in tools] for b in bodies)
    # an independent count: the schemas' JSON through the tokenizer, against the
    # overhead of the same workspace without them
    from sim.workspace.trajectory_replay import fixed_overhead
    bare = Workspace(tmp_path / "bare", budget=8000, sync=False)
    extra = fixed_overhead(Workspace(tmp_path / "t", budget=8000, sync=False,
                                     tools=tools)) - fixed_overhead(bare)
    # (the recorded and the context tools are one JSON array on the wire: the two
    # joins re-tokenize, a few tokens at most)
    assert extra > 4000 and abs(extra - res.tool_tokens) <= 5
    r = cli("workspace", "replay", str(path), "--budget", "8000", "--dir",
            str(tmp_path / "c"))
    assert r.returncode == 0 and "15 recorded tool schema(s)" in r.stdout
    assert f"~{res.tool_tokens:,} tokens" in r.stdout


def test_every_pi_record_kind_is_placed_in_context(tmp_path):
    res, bodies = replay(CASES / "pi_session_more_roles.jsonl", 8000,
                         directory=tmp_path / "w")
    texts = [m.get("content") for m in bodies[-1]["messages"]]
    before = [m.get("content") for m in bodies[1]["messages"]]  # before the compaction
    assert any("npm run build" in t and "TS2322" in t and "exit code 2" in t
               for t in before if isinstance(t, str))  # the user's shell run
    for needle in ("pinning the TypeScript version", "CI uses Node 22",
                   "assigns a string to a number"):
        assert any(isinstance(t, str) and needle in t for t in texts), needle
    assert paired(res.workspace) == 1
    # the compaction (firstKeptEntryId unknown) archived everything before it
    assert any("pi compaction (line 6)" in n for n in res.trajectory.notes)
    assert res.trajectory.skipped == {"session header": 1}


def test_a_result_for_a_call_never_made_is_context_with_a_note(tmp_path):
    r = cli("workspace", "replay", str(CASES / "result_for_unknown_call.json"),
            "--budget", "8000", "--dir", str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr
    assert "messages[3]" in r.stdout and "'c_ghost'" in r.stdout
    res, bodies = replay(CASES / "result_for_unknown_call.json", 8000,
                         directory=tmp_path / "w")
    b4 = res.workspace.blocks["B4"]
    assert b4.type.value == "user_message" and b4.data == b"ERROR: malformed call"
    assert paired(res.workspace) == 1
    for body in bodies:
        wire_ok(body)


@pytest.mark.parametrize("messages, where", [
    ([{"role": "user", "content": "t"},
      {"role": "tool", "tool_call_id": "nope", "content": "orphan"}], "messages[1]"),
    ([{"role": "user", "content": "t"},
      {"role": "assistant", "tool_calls": [
          {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "a", "content": "ok"},
      {"role": "tool", "tool_call_id": "a", "content": "again"}], "messages[3]"),
])
def test_variant_stray_results_in_other_places(messages, where, tmp_path):
    res, bodies = replay(messages, 4000, directory=tmp_path / "w")
    last = list(res.workspace.blocks.values())[-1]
    assert last.type.value == "user_message"
    assert any(where in n for n in res.trajectory.notes)
    wire_ok(bodies[-1])


def test_anthropic_blocks_are_paired_calls_never_openai_parts(tmp_path):
    path = CASES / "anthropic_messages.json"
    res, bodies = replay(path, 8000, directory=tmp_path / "w")
    assert res.trajectory.format == "anthropic"
    calls = [c for m in bodies[-1]["messages"] for c in m.get("tool_calls", [])]
    assert [c["function"]["name"] for c in calls] == ["Bash"]
    assert json.loads(calls[0]["function"]["arguments"]) == {
        "command": "pytest -q tests/test_parser.py --count 5"}
    assert paired(res.workspace) == 1
    with pytest.raises(TrajectoryFormatError,
                       match=r"anthropic_messages\.json.*messages\[1\]\.content\[1\]\.type"):
        load_trajectory(path, "openai")


def test_a_repeated_recovery_returns_the_visible_copy(tmp_path):
    ws = Workspace(tmp_path / "w", budget=None, sync=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    ws.register({"role": "user", "content": "a long observation " * 50})
    ws.archive("B2", "old")
    first = ws.recover("B2")
    size, total = len(ws.blocks), ws.assemble(strict=False).total
    for _ in range(2):
        assert ws.recover("B2").id == first.id
    assert len(ws.blocks) == size and ws.assemble(strict=False).total == total
    ws.archive(first.id, "done with it")  # once the copy is gone, a new one comes
    assert ws.recover("B2").id != first.id


@pytest.mark.parametrize("fmt, data, field", [
    ("openai", [{"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "", "arguments": "{}"}}]}],
     r"messages\[0\]\.tool_calls\[0\]\.function\.name: empty"),
    ("atif", {"schema_version": "1", "steps": [{"source": "agent", "tool_calls": [
        {"tool_call_id": "k", "function_name": "", "arguments": {}}]}]},
     r"steps\[0\]\.tool_calls\[0\]\.function_name: empty"),
    ("anthropic", [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "u", "name": "", "input": {}}]}],
     r"messages\[0\]\.content\[0\]\.name: empty"),
    ("codex", [{"type": "response_item", "payload": {
        "type": "function_call", "name": "", "arguments": "{}", "call_id": "x"}}],
     r"line 1: payload\.name: empty"),
    ("pi", [{"type": "message", "message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": "t", "name": "", "arguments": {}}]}}],
     r"line 1: message\.content\[0\]\.name: empty"),
    ("openhands", [{"action": "run", "args": {}, "tool_call_metadata": {
        "function_name": "", "tool_call_id": "o"}}],
     r"events\[0\]\.tool_call_metadata\.function_name: empty"),
])
def test_an_empty_function_name_is_a_format_error_naming_the_field(fmt, data, field):
    with pytest.raises(TrajectoryFormatError, match=field):
        load_trajectory(data, fmt)


def test_errors_name_the_file_and_the_line(tmp_path):
    path = tmp_path / "rollout.jsonl"
    lines = [{"type": "session_meta", "payload": {"id": "s"}},
             {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                   "content": [{"type": "input_text",
                                                                "text": 5}]}}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    with pytest.raises(TrajectoryFormatError,
                       match=r"rollout\.jsonl.*line 2: payload\.content\[0\]\.text"):
        load_trajectory(path)
    # blank lines are skipped but counted: the position is the file's line number
    path.write_text("\n\n" + "\n\n".join(json.dumps(x) for x in lines) + "\n")
    with pytest.raises(TrajectoryFormatError, match=r"line 5: payload\.content"):
        load_trajectory(path)
