"""The workspace's operation layer (``sim/workspace/ops.py``) where the first mutmut
run with its full test map (issue 38) found edits no test saw: the error a delete
raises when freeing its payload fails (its message, errno, call and ``applied``,
and which failure it names when several files fail), the bytes a replayed
register holds in memory (none, for a deleted block), and a restore line that
claims payload bytes."""

from __future__ import annotations

import errno
import os

import pytest

from sim.workspace import errors as wserrors
from sim.workspace.blocks import BlockStatus
from sim.workspace.errors import JournalError
from sim.workspace.journal import decode_line, encode_line
from sim.workspace.repair import repair
from sim.workspace.workspace import Workspace

from .harness.faults import fail_os


def test_a_failed_free_names_the_operation_errno_and_call_and_says_it_took_effect(
        tmp_path, monkeypatch):
    ws = Workspace(tmp_path / "w", tokenizer="char", sync=False)
    b = ws.register({"role": "user", "content": "x" * 5000})   # a payload file of its own
    failures = fail_os(monkeypatch, "unlink", when=lambda path, *a: "payloads" in str(path))
    with pytest.raises(wserrors.WorkspaceIOError) as info:
        ws.delete(b.id, "gone")
    err = info.value
    assert err.applied is True and err.errno == errno.EIO and err.call == "unlink"
    assert str(err).startswith("the delete took effect (journaled and applied), but "
                               "freeing its payload failed: ")
    assert str(err).endswith("; the next writer open moves the file to quarantine")
    assert len(failures) == 1
    monkeypatch.undo()
    ws.close()


def test_when_several_frees_fail_every_one_is_tried_and_the_first_is_reported(
        tmp_path, monkeypatch):
    ws = Workspace(tmp_path / "w", tokenizer="char", sync=False)
    blocks = [ws.register({"role": "user", "content": c * 5000}) for c in "xyz"]
    failures = fail_os(monkeypatch, "unlink", when=lambda path, *a: "payloads" in str(path))
    with pytest.raises(wserrors.WorkspaceIOError) as info:
        ws.delete(",".join(b.id for b in blocks), "gone")
    # three payloads freed, three unlinks tried in sha order; the error is the first
    assert len(failures) == 3 and failures == sorted(failures)
    first_sha = os.path.basename(failures[0])
    assert first_sha in str(info.value)
    assert all(ws.blocks[b.id].status is BlockStatus.DELETED for b in blocks)
    monkeypatch.undo()
    ws.close()


def test_a_deleted_block_holds_no_bytes_live_or_after_reopen(tmp_path):
    # a reopen replays register lines without their bytes and then reads the bytes
    # of every live block from the store; a deleted block's bytes were freed and
    # must stay gone, as they are in the workspace that deleted it
    d = tmp_path / "w"
    ws = Workspace(d, tokenizer="char", sync=False)
    kept = ws.register({"role": "user", "content": "keep me"})
    gone = ws.register({"role": "user", "content": "delete me " * 50})
    ws.delete(gone.id, "not needed")
    assert ws.blocks[gone.id].data == b""
    ws.close()
    again = Workspace.open(d)
    assert again.blocks[gone.id].status is BlockStatus.DELETED
    assert again.blocks[gone.id].data == b""
    assert again.blocks[kept.id].data == b"keep me"
    again.close()


def test_an_empty_message_is_registered_with_no_bytes(tmp_path):
    ws = Workspace(tmp_path / "w", tokenizer="char", sync=False)
    b = ws.register({"role": "user", "content": ""})
    assert ws.blocks[b.id].data == b"" and b.handle.length == 0
    ws.archive(b.id)
    assert ws.recover(b.handle).data == b""
    ws.close()


def test_a_full_replay_leaves_a_deleted_block_without_bytes(tmp_path):
    # without the checkpoint every register line is replayed without its bytes
    d = tmp_path / "w"
    ws = Workspace(d, tokenizer="char", sync=False)
    ws.register({"role": "user", "content": "keep me"})
    gone = ws.register({"role": "user", "content": "delete me"})
    ws.delete(gone.id, "not needed")
    ws.close()
    (d / "checkpoint.bin").unlink()
    again = Workspace.open(d)
    assert again.blocks[gone.id].data == b"" and again.blocks["B1"].data == b"keep me"
    again.close()


def test_a_restore_line_that_claims_payload_bytes_is_refused(tmp_path):
    # repair's restore line carries no payload bytes (every block's inline size is
    # -1); a line that claims some has none to show and fails the sha256 check
    d = tmp_path / "w"
    ws = Workspace(d, tokenizer="char", sync=False)
    for i in range(30):
        ws.register({"role": "user", "content": f"block {i} " + "x" * 40})
    ws.close()
    journal = d / "journal.jsonl"
    raw = journal.read_bytes()
    journal.write_bytes(raw[:raw.index(b"\n", len(raw) // 2) + 1])   # lose the tail
    repair(d)
    lines = journal.read_bytes().splitlines(keepends=True)
    restore = decode_line(lines[1].rstrip(b"\n"))
    assert restore["op"] == "restore"
    row = restore["state"]["blocks"][0]
    assert row[0] == "B1" and row[-1] == -1
    row[-1] = row[8]                                     # claim a copy of its length
    lines[1] = encode_line(restore)
    journal.write_bytes(b"".join(lines))
    (d / "checkpoint.bin").unlink(missing_ok=True)
    with pytest.raises(JournalError) as info:
        Workspace.open(d)
    assert str(info.value) == (f"journal {str(journal)!r} is invalid at line 2 (byte "
                               f"{len(lines[0])}): the checkpoint's copy of B1 fails its "
                               "sha256")
