"""Unit tests: tokenizer, hierarchy (archive groups into coarser groups, expand back
down), recovery, protocol rendering, strict/soft budget, dashboards, context tools."""

import json
import os
import subprocess
import sys

import pytest

from sim.workspace.messages import decode_call_message
from sim.workspace import (BPETokenizer, BlockStatus, BudgetExceededError,
                           BudgetWarning, CharTokenizer, WhitespaceTokenizer, Workspace,
                           WorkspaceError, context_tool_schemas, dispatch, get_tokenizer,
                           validate_chat_request)
from tests.workspace.helpers import check_lossless, check_request, with_offloads


def test_cl100k_counts_and_ids():
    t = BPETokenizer()
    assert t.count("hello world") == 2
    assert t.encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assert t.count("<|endoftext|>") > 1  # special strings are plain text here
    assert t.decode(t.encode("é ✓ 你好")) == "é ✓ 你好"


def test_cl100k_loads_offline(tmp_path):
    code = ("import socket\n"
            "def no(*a, **k): raise OSError('network disabled')\n"
            "socket.socket.connect = no; socket.create_connection = no\n"
            "from sim.workspace import BPETokenizer\n"
            "print(BPETokenizer().count('hello world'))")
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(tmp_path / "empty"),
               DATA_GYM_CACHE_DIR=str(tmp_path / "empty2"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "2"
    assert not (tmp_path / "empty").exists() or not any((tmp_path / "empty").iterdir())


def test_fallback_tokenizers_only_by_name():
    assert isinstance(get_tokenizer(), BPETokenizer)
    assert isinstance(get_tokenizer("whitespace"), WhitespaceTokenizer)
    assert get_tokenizer("char").count("héllo") == 5 and CharTokenizer().name == "char"
    with pytest.raises(WorkspaceError):
        get_tokenizer("gpt2")


def test_hierarchical_archive_and_recovery(ws):
    h1 = ws.archive("B3-B4", "ls of repo")            # G1
    h2 = ws.archive("B5-B7", "read a.py, b.py")       # G2
    assert ws.blocks["B4"].parent == "G1" and ws.blocks["B4"].level == 1
    h3 = ws.archive("G1,G2,B8", "first exploration")   # G3 wraps G1, G2
    assert ws.groups["G1"].parent == "G3" and ws.groups["G3"].level == 2
    assert ws.blocks["B4"].level == 2 and ws.blocks["B8"].level == 1
    assert ws.read_payload(h3) == ws.transcript(["G1", "G2", "B8"])
    assert ws.blocks["B7"].data in ws.read_payload(str(ws.payload_path(h3)))
    check_request(ws)
    assert ws.expand("G3") == ["G1", "G2", "B8"]       # walk back down one level
    assert ws.groups["G1"].parent is None and ws.blocks["B4"].level == 1
    assert ws.blocks["B8"].status is BlockStatus.ARCHIVED and ws.blocks["B8"].level == 1
    assert ws.read_payload(h3)                          # handle still valid (invariant 2)
    r = ws.recover(h2)                                  # group transcript comes back
    assert r.data == ws.read_payload(h2) and r.recovered_from == "G2"
    b7 = ws.recover("B7")                               # one narrow block, byte-exact
    assert b7.data == b"\xff\xfebinary\x00tail" and b7.recovered_from == "B7"
    assert ws.read_payload(h1)
    check_lossless(ws)
    check_request(ws)
    ws.close()
    again = Workspace.open(ws.directory)
    assert again.snapshot() == ws.snapshot()


def test_protocol_rendering_of_archived_calls_and_results(ws):
    ws.archive("B6", "a.py body")           # result archived, call visible: tool stub
    req = check_request(ws)
    tool_msgs = [m for m in req.messages if m["role"] == "tool"]
    assert any("archived B6" in m["content"] for m in tool_msgs)
    ws.archive("B5", "the read calls")      # call archived: B7 becomes user context
    req = check_request(ws)
    assert not any(m.get("tool_call_id") in ("c2", "c3") for m in req.messages)
    assert any(m["role"] == "user" and "tool result B7" in m["content"]
               for m in req.messages)
    ws.delete("B4", "stale listing")        # result deleted, call visible: stub
    req = check_request(ws)
    assert any(m.get("tool_call_id") == "c1" and "deleted" in m["content"]
               for m in req.messages)
    assert ws.read_payload(ws.blocks["B6"].handle)
    with pytest.raises(WorkspaceError):
        ws.read_payload(ws.blocks["B4"].handle)


def test_strict_refuses_soft_warns(tmp_path):
    ws = Workspace(tmp_path / "w", budget=700, sync=False)
    ws.register({"role": "user", "content": "task " * 300}, pinned=True)
    with pytest.raises(BudgetExceededError) as err:
        ws.assemble()
    assert err.value.over > 0 and str(err.value.over) in str(err.value)
    with pytest.warns(BudgetWarning):
        req = ws.assemble(strict=False)
    assert req.over_budget == err.value.over


def test_preflight_offloads_and_guard_threshold(tmp_path):
    ws = Workspace(tmp_path / "w", budget=1500, guard_threshold=300, sync=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    ws.register({"role": "assistant", "content": "", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    small = ws.register({"role": "tool", "tool_call_id": "a", "content": "ok " * 50})
    big = ws.register({"role": "tool", "tool_call_id": "b", "content": "row\n" * 400})
    assert small.status is BlockStatus.VISIBLE
    assert big.status is BlockStatus.OFFLOADED and big.level == 1
    assert ws.read_payload(big.handle) == b"row\n" * 400
    assert ws.assemble().total <= 1500


def test_recover_over_budget_is_refused_in_strict_mode(tmp_path):
    ws = Workspace(tmp_path / "w", budget=900, sync=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    ws.register({"role": "user", "content": "evidence " * 300})
    ws.archive("B2", "evidence")
    before = ws.snapshot()
    with pytest.raises(BudgetExceededError):
        ws.recover("B2")
    assert ws.snapshot() == before


@pytest.mark.parametrize("name", ["ledger", "status_board", "none"])
def test_dashboards_tell_the_truth(tmp_path, name):
    ws = Workspace(tmp_path / "w", budget=5000, dashboard=name, sync=False)
    for i in range(40):
        ws.register({"role": "user" if i % 3 else "assistant",
                     "content": f"message {i} " * (i % 7 + 1)})
    ws.archive("B3-B9", "old chatter")
    ws.archive("B11")
    req = check_request(ws)
    if name == "none":
        assert req.dashboard == 0 and req.dashboard_text == ""
    else:
        assert "G1" in req.dashboard_text and "B11" in req.dashboard_text


def test_ledger_rows_are_additive_over_many_shapes(tmp_path):
    """Incremental row counts equal counting the whole dashboard (cl100k)."""
    ws = Workspace(tmp_path / "w", budget=None, sync=False)
    for i in range(300):
        ws.register({"role": "assistant", "content": "x" * (i * 37 % 900)})
    for k in range(1, 280, 9):
        ws.archive(f"B{k}-B{k + 3}", "r")
    ws.archive("G1,G2,G3")
    for _ in range(3):
        check_request(ws)
        ws.next_turn()


def test_context_tools_schema_and_dispatch(ws):
    tools = context_tool_schemas(include_recover=True)
    validate_chat_request({"model": "m", "messages": [{"role": "user", "content": "x"}],
                           "tools": tools})
    out = dispatch(ws, "context_workspace_archive",
                   json.dumps({"block_id": "B6", "replacement": "a.py"}))
    path = out.rsplit(": ", 1)[1]
    # recovery = a read of that path through the workspace (a small payload is
    # packed: the path is its content address, not a file of its own)
    assert not path.startswith("/")  # the agent sees a location-independent path
    assert ws.read_payload(path) == ws.blocks["B6"].data
    assert dispatch(ws, "context_workspace_delete", {"block_id": "B1", "reason": "x"}) \
        .startswith("ERROR: cannot delete B1: it is pinned")
    assert dispatch(ws, "context_workspace_recover", {"target": path}).startswith(
        "Recovered B6 as B10")
    assert dispatch(ws, "context_workspace_archive", "{bad").startswith("ERROR")
    assert dispatch(ws, "nope", "{}").startswith("ERROR: unknown context tool")
    assert dispatch(ws, "context_workspace_delete", {"block_id": "B9"}).startswith("ERROR")


def test_ages_and_turns(ws):
    assert ws.turn == 3
    req = ws.assemble()
    assert "B1 | " in req.dashboard_text and "| 3r |" in req.dashboard_text
    ws.next_turn()
    assert "| 4r |" in ws.assemble().dashboard_text


def test_cli_replay(capsys, tmp_path):
    from experiments.cli import main

    rc = main(["workspace", "replay", "sim/data/trajectories/sweagent_marshmallow-1867.traj",
               "--budget", "8000", "--dir", str(tmp_path / "replay")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "<context_workspace_status>" in out and "largest blocks:" in out
    assert "24 assembled and validated" in out
    rc = main(["workspace", "replay", "README.md", "--budget", "100"])
    assert rc == 2


def test_bench_smoke():
    from experiments.bench.bench_workspace import main

    out = main(["--blocks", "400", "--repeats", "1"])
    assert out["blocks"] >= 400 and out["full_rebuild_ms"] > 0


def test_requests_do_not_depend_on_the_workspace_location(tmp_path):
    # Placeholders show workspace-relative payload paths, so the same operations in
    # two directories give byte-identical requests (and token counts).
    requests = []
    for name in ("a", "a-much-longer-directory-name"):
        ws = Workspace(tmp_path / name, budget=4000)
        ws.register({"role": "user", "content": "task"}, pinned=True)
        ws.register({"role": "user", "content": "evidence: 42\n" * 50})
        ws.register({"role": "user", "content": "more"})
        ws.archive("B2", replacement="evidence block")
        ws.archive("B3", replacement="")
        requests.append((ws.assemble().to_openai(), ws.assemble().total))
    assert requests[0] == requests[1]


def test_offloaded_blocks_join_group_archives(tmp_path):
    """§2.4 hierarchical recovery over guard-offloaded results: an offloaded
    placeholder may join a group (never be archived alone); it keeps its status
    and own handle inside, expand gives it back as a placeholder."""
    ws = with_offloads(tmp_path / "w")
    own = ws.blocks["B4"].handle
    h = ws.archive("B3,B4", "listing results")                 # G1: visible + offloaded
    assert ws.group_of["B4"] == "G1" and ws.blocks["B4"].parent == "G1"
    assert ws.blocks["B3"].status is BlockStatus.ARCHIVED
    assert ws.blocks["B4"].status is BlockStatus.OFFLOADED and ws.blocks["B4"].handle == own
    assert ws.blocks["B4"].data in ws.read_payload(h)         # exact bytes in transcript
    assert ws.read_payload(own) == b"row\xff\n" * 400         # own handle still valid
    req = check_request(ws)                                   # B2's call: stubs for a, b
    stubs = [m["content"] for m in req.messages if m["role"] == "tool"]
    assert stubs[:2] == [f"[B{n} archived in G1; payload {ws.display_path(h)}]"
                         for n in (3, 4)]
    assert "B4 |" not in req.dashboard_text and "G1 |" in req.dashboard_text
    ws.archive("B5,B6,B7")                                    # G2: call with its result
    h3 = ws.archive("G1,G2", "coarser")                       # G3 over both
    assert ws.blocks["B4"].level == 2 and ws.read_payload(h3) == ws.transcript(["G1", "G2"])
    ws.archive("B2,G3")                                       # G4: B2 call, results inside
    req = check_request(ws)                                   # no orphan tool messages
    assert not any(m["role"] == "tool" for m in req.messages)
    ws.close()
    # journal replay: same state (a little more budget: G3's transcript holds B2's
    # and B5's whole call messages, ids, names and arguments included)
    ws = Workspace.open(tmp_path / "w", sync=False, budget=3200)
    assert ws.blocks["B4"].status is BlockStatus.OFFLOADED and ws.group_of["B4"] == "G1"
    check_lossless(ws)
    r = ws.recover("B6")                                      # narrow, from inside G2
    assert r.data == b"col\n" * 500 and r.recovered_from == "B6"
    ws.delete(r.id, "read")
    r = ws.recover(h3)                                        # the whole coarse group
    assert r.data == ws.read_payload(h3) and r.recovered_from == "G3"
    ws.delete(r.id, "read")
    for g in ("G4", "G3", "G1"):                              # walk back down
        ws.expand(g)
    assert ws.blocks["B4"].status is BlockStatus.OFFLOADED and ws.blocks["B4"].level == 1
    assert ws.blocks["B4"].parent == "B2" and "B4" not in ws.group_of
    assert ws.blocks["B3"].status is BlockStatus.ARCHIVED
    req = check_request(ws)                                   # B4 is a placeholder again
    b4 = ws.blocks["B4"]
    row = next(r for r in req.dashboard_text.splitlines() if r.startswith("B4 |"))
    assert row == (f"B4 | {b4.tokens:,} | {ws.turn - b4.turn}r | tool_result | L1 | B2 | "
                   "offloaded_placeholder")
    ws.archive("B4,G2")                                       # and may be bundled again
    check_lossless(ws)
    check_request(ws)
    snap = ws.snapshot()
    ws.close()
    assert Workspace.open(tmp_path / "w", sync=False).snapshot() == snap


# ---------------------------------------------------------------- tool-call bytes
CALL_MSG = {"role": "assistant", "content": "Running the tests.", "tool_calls": [
    {"id": "c1", "type": "function",
     "function": {"name": "bash", "arguments": "{\"cmd\": \"pytest -x\"}"}},
    {"id": "c2", "type": "function",
     "function": {"name": "str_replace_editor", "arguments": "{\"path\": \"é.py\"}"}}]}


def _call_ws(path):
    ws = Workspace(path, budget=5000, sync=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    b = ws.register({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c0", "type": "function",
         "function": {"name": "bash", "arguments": "{\"cmd\": \"pytest -x\"}"}}]})  # B2
    ws.register({"role": "tool", "tool_call_id": "c0", "content": "1 failed"})     # B3
    ws.register(CALL_MSG)                                                           # B4
    ws.register({"role": "tool", "tool_call_id": "c1", "content": "ok"})           # B5
    ws.register({"role": "tool", "tool_call_id": "c2", "content": "edited"})       # B6
    return ws, b


def test_tool_call_block_stores_the_whole_message(tmp_path):
    """Invariant 3 for calls: a tool_call block's bytes are the whole assistant
    message (text plus every call's id, name and arguments), not just its text."""
    ws, b2 = _call_ws(tmp_path / "w")
    assert decode_call_message(b2.data) == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c0", "type": "function",
         "function": {"name": "bash", "arguments": "{\"cmd\": \"pytest -x\"}"}}]}
    b4 = ws.blocks["B4"]
    assert decode_call_message(b4.data) == CALL_MSG
    registered = b2.data
    h = ws.archive("B2")
    payload = ws.read_payload(h.path)
    assert payload == registered and h.length == len(registered) > 0
    assert b'"name":"bash"' in payload
    assert '"arguments":"{\\"cmd\\": \\"pytest -x\\"}"'.encode() in payload
    r = ws.recover(h)
    assert r.data == registered and r.recovered_from == "B2"
    check_lossless(ws)
    req = check_request(ws)          # recovered call renders as its exact text
    assert any(m["role"] == "user" and registered.decode() in m["content"]
               for m in req.messages)
    assert r.tokens == req.item_tokens[r.id]   # dashboard truth: counts what renders


def test_tool_call_tokens_match_rendering(tmp_path):
    ws, _ = _call_ws(tmp_path / "w")
    req = ws.assemble(incremental=False)
    visible = ws.assemble()
    assert req.total == visible.total
    call = next(m for m in req.messages if m.get("tool_calls") and len(m["tool_calls"]) == 2)
    assert call == CALL_MSG  # rendered as registered, text and calls


def test_group_transcript_holds_call_names_and_arguments(tmp_path):
    ws, _ = _call_ws(tmp_path / "w")
    h = ws.archive("B4-B6", "edits")
    text = ws.read_payload(h).decode()
    assert "=== B4 tool_call" in text and ws.blocks["B4"].data.decode() in text
    assert '"name":"str_replace_editor"' in text and '\\"path\\": \\"é.py\\"' in text
    assert '"id":"c1"' in text and "Running the tests." in text
    r = ws.recover(h)
    assert r.data == ws.read_payload(h) and ws.blocks["B4"].data in r.data


def test_reopened_workspace_reads_the_same_call_bytes(tmp_path):
    ws, b2 = _call_ws(tmp_path / "w")
    before = {k: b.data for k, b in ws.blocks.items()}
    h = ws.archive("B2")
    g = ws.archive("B4-B6")
    req = ws.assemble()
    ws.close()
    ws = Workspace.open(tmp_path / "w", sync=False)
    assert {k: b.data for k, b in ws.blocks.items()} == before
    assert ws.read_payload(h) == before["B2"] and before["B4"] in ws.read_payload(g)
    assert ws.recover(h).data == before["B2"]
    assert ws.blocks["B2"].tokens == b2.tokens
    assert req.total <= ws.budget


def test_tool_call_with_non_utf8_text_is_refused(tmp_path):
    ws = Workspace(tmp_path / "w", sync=False)
    with pytest.raises(WorkspaceError, match="UTF-8"):
        ws.register(dict(CALL_MSG, content=b"\xff"))
    assert len(ws.blocks) == 0 and "c1" not in ws.state.call_owner


TRAJ = "sim/data/trajectories/sweagent_function_calling_simple.traj"


@pytest.mark.parametrize("flags, needle", [
    (["--budget", "0"], "--budget: expected a token count >= 1, got '0'"),
    (["--budget", "-5"], "--budget: expected a token count >= 1, got '-5'"),
    # 8k is 8,000 tokens (issue 33); 8.k is no token count
    (["--budget", "8.k"], "--budget: expected a token count >= 1 (written 128000, "
                          "128,000, 128_000, 128k, 128K, 1.5k or 1M), got '8.k'"),
    (["--budget", "8000", "--top", "-1"], "--top: expected an integer >= 1, got '-1'"),
    (["--budget", "8000", "--top", "0"], "--top: expected an integer >= 1, got '0'"),
])
def test_cli_rejects_bad_numbers(flags, needle, capsys):
    from experiments.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["workspace", "replay", TRAJ, *flags])
    assert exc.value.code == 2
    assert needle in capsys.readouterr().err


def test_cli_dir_errors_are_clean(tmp_path, capsys):
    from experiments.cli import main

    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for d in (a_file, a_file / "sub"):
        rc = main(["workspace", "replay", TRAJ, "--budget", "8000", "--dir", str(d)])
        err = capsys.readouterr().err
        assert rc == 2 and "is not a directory" in err and "Traceback" not in err
    rc = main(["workspace", "replay", TRAJ, "--budget", "8000", "--dir",
               str(tmp_path / "ws")])
    assert rc == 0 and str(tmp_path / "ws") in capsys.readouterr().out
    rc = main(["workspace", "replay", TRAJ, "--budget", "8000", "--dir",
               str(tmp_path / "ws")])
    err = capsys.readouterr().err
    assert rc == 2 and "already holds a workspace" in err and "Workspace.open" not in err


def test_cli_top_lists_exactly_top_blocks(capsys, tmp_path):
    from experiments.cli import main

    assert main(["workspace", "replay", TRAJ, "--budget", "8000", "--top", "2",
                 "--dir", str(tmp_path / "w")]) == 0
    out = capsys.readouterr().out.split("largest blocks:\n", 1)[1]
    assert len([ln for ln in out.splitlines() if " tok " in ln]) == 2


def test_cli_replay_without_dir_leaves_nothing_behind(capsys, tmp_path, monkeypatch):
    """The default workspace is temporary: removed at the end, and the report says
    so; with --dir it is kept (and reopens) at the printed path."""
    import tempfile
    from experiments.cli import main

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert main(["workspace", "replay", TRAJ, "--budget", "8000"]) == 0
    out = capsys.readouterr().out
    assert "workspace   temporary, removed (pass --dir to keep it)" in out
    assert list((tmp_path / "tmp").iterdir()) == []
    # a replay refused after it ran (budget below overhead plus pins) cleans up too
    assert main(["workspace", "replay", TRAJ, "--budget", "1200"]) == 2
    assert list((tmp_path / "tmp").iterdir()) == []
    kept = tmp_path / "kept"
    assert main(["workspace", "replay", TRAJ, "--budget", "8000", "--dir", str(kept)]) == 0
    assert f"workspace   {kept}" in capsys.readouterr().out
    with Workspace.open(kept, read_only=True) as ws:
        assert len(ws.blocks) > 0
