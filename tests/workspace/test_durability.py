"""Durability under a second process, damage and reopen (issue 9): one writer, a
reader beside a live writer, the damage table (every row: no byte deleted and a
named error or a successful open), check/repair, checkpoints and old journals.
Every test uses real processes or real damaged files."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.workspace import (BlockStatus, CorruptPayloadError, JournalError, Workspace,
                           WorkspaceError)
from sim.workspace.errors import ReadOnlyError, WorkspaceLockedError
from sim.workspace.journal import encode_line
from sim.workspace.repair import check, repair

from sim.workspace.packs import HEADER

from .helpers import check_lossless, check_request, flip_byte, payload_span

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def all_bytes(directory: Path) -> dict[str, bytes]:
    """sha256 -> bytes of every file under ``directory`` (store, quarantine, journal,
    checkpoint) but the lock file, which each writer rewrites with its pid, and the
    id reservation, which only grows: the "no byte deleted" oracle."""
    out = {}
    for f in directory.rglob("*"):
        if f.is_file() and f.name not in ("lock", "ids"):
            data = f.read_bytes()
            out[hashlib.sha256(data).hexdigest()] = data
    return out


def build(directory: Path, n: int = 13, close: bool = True,
          storage: str = "packed") -> tuple[Workspace, dict]:
    """A char-tokenizer workspace with ``n`` blocks and a group; ``storage``
    "packed": small blocks (in pack files), "file": blocks of over 4 KiB (a file
    each)."""
    ws = Workspace(directory, tokenizer="char", sync=False)
    expected = {}
    pad = "z" * 4100 if storage == "file" else ""
    for i in range(n):
        b = ws.register({"role": "user", "content": f"block {i} " + "x" * (i * 7) + pad})
        expected[b.id] = b.data
    ws.archive("B2-B4", "three")
    if close:
        ws.close()
    return ws, expected


def payload_hashes(ws: Workspace) -> set[str]:
    return {b.handle.sha256 for b in ws.blocks.values()} | \
        {g.handle.sha256 for g in ws.groups.values()}


# ---------------------------------------------------------------- one writer
WRITER = """
import sys, time
from sim.workspace import Workspace
ws = Workspace.open(sys.argv[1], sync=False)
print("locked", flush=True)
n, pause_at = int(sys.argv[2]), int(sys.argv[4])
for i in range(n):
    if i == pause_at:  # mid-stream, lock held: the test opens readers, then says go
        open(sys.argv[5], "w").close()
        sys.stdin.readline()
    ws.register({"role": "user", "content": f"w{i} " * 40})
    if i % 7 == 6:
        ws.archive(f"B{ws.state.next_block - 3}-B{ws.state.next_block - 1}", "w")
        if i % 14 == 13:  # payload files go away under a reader
            ws.delete(f"G{ws.state.next_group - 1}", "drop")
time.sleep(float(sys.argv[3]))
ws.close()
print("done", flush=True)
"""


def _writer(directory: Path, steps: int, hold: float, pause_at: int = -1,
            marker: Path | None = None) -> subprocess.Popen:
    """A writer process holding the lock; with ``pause_at`` >= 0 it stops before that
    step, creates the file ``marker`` and waits for a line on stdin (a file, not a
    printed line, so a reader of a buffered pipe cannot miss it)."""
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(directory), str(steps),
                             str(hold), str(pause_at), str(marker)],
                            stdout=subprocess.PIPE,
                            stdin=subprocess.PIPE, env=_env(), text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_second_writer_is_refused_naming_the_holder(tmp_path):
    build(tmp_path / "w")
    proc = _writer(tmp_path / "w", 0, 30)
    try:
        with pytest.raises(WorkspaceLockedError, match=f"pid {proc.pid} on host"):
            Workspace.open(tmp_path / "w")
        assert len(Workspace.open(tmp_path / "w", read_only=True).blocks) == 13
    finally:
        proc.send_signal(signal.SIGKILL)  # the kernel drops the lock with the process
        proc.wait()
    again = Workspace.open(tmp_path / "w")
    assert len(again.blocks) == 13
    again.close()


def test_a_later_writer_in_one_process_fences_the_earlier(tmp_path):
    ws, _ = build(tmp_path / "w", close=False)
    newer = Workspace.open(tmp_path / "w", sync=False)
    with pytest.raises(ReadOnlyError, match="no longer holds the writer lock"):
        ws.register({"role": "user", "content": "stale writer"})
    newer.register({"role": "user", "content": "fresh"})
    newer.close()
    assert len(Workspace.open(tmp_path / "w", read_only=True).blocks) == 14


def test_reader_beside_a_live_writer_sees_a_consistent_state(tmp_path):
    build(tmp_path / "w")
    paused = tmp_path / "paused"
    proc = _writer(tmp_path / "w", 400, 0, pause_at=200, marker=paused)
    opened = 0
    listing_before = None

    def open_and_check():
        nonlocal opened, listing_before
        ro = Workspace.open(tmp_path / "w", read_only=True)
        assert not ro.corrupt, ro.corrupt
        for b in ro.blocks.values():  # every live block's bytes match its handle
            if b.status is not BlockStatus.DELETED:
                assert hashlib.sha256(b.data).hexdigest() == b.handle.sha256
        with pytest.raises(ReadOnlyError):
            ro.register({"role": "user", "content": "no"})
        opened += 1
        listing_before = listing_before or sorted(os.listdir(tmp_path / "w"))

    # Racing the first half of the stream: how many opens fit depends on the machine.
    while proc.poll() is None and not paused.exists():
        open_and_check()
    assert paused.exists() and proc.poll() is None, "the writer ended before its pause"
    # Two opens certain to see a live writer (the lock held, a stream half written)...
    open_and_check()
    open_and_check()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    while proc.poll() is None:  # ... and the second half raced again
        open_and_check()
    assert proc.wait() == 0 and proc.stdout.read().strip() == "done"
    assert opened >= 2
    assert not (tmp_path / "w" / "quarantine").exists()  # the reader moved nothing
    ws = Workspace.open(tmp_path / "w")
    assert len(ws.blocks) == 413 and not ws.quarantine.moved
    check_lossless(ws)


# ---------------------------------------------------------------- the damage table
@pytest.mark.parametrize("storage", ["packed", "file"])
def test_journal_cut_mid_line_halfway_deletes_nothing_and_repair_reattaches(tmp_path,
                                                                            storage):
    ws, expected = build(tmp_path / "w", close=False, storage=storage)
    ws.journal.close()  # a crash: no checkpoint
    before = all_bytes(tmp_path / "w" / "payloads")
    journal = tmp_path / "w" / "journal.jsonl"
    raw = journal.read_bytes()
    journal.write_bytes(raw[:len(raw) // 2 + 5])
    again = Workspace.open(tmp_path / "w")
    kept = len(again.blocks)
    assert 1 <= kept < 13
    moved = [m for m in again.quarantine.moved if m[0].startswith("payloads/")]
    report = check(tmp_path / "w")
    if storage == "file":  # the lost lines' payloads, in quarantine
        assert len(moved) >= 13 - kept - 1
    else:  # packed ones stay in their pack, reported
        assert not moved and report.packed_unreferenced >= 13 - kept - 1
    assert set(before) <= set(all_bytes(tmp_path / "w"))  # no byte deleted
    again.close()
    assert report.quarantined
    actions = repair(tmp_path / "w")
    assert sum("re-attached orphan" in a for a in actions) >= 13 - kept - 1
    final = Workspace.open(tmp_path / "w", read_only=True)
    datas = {b.data for b in final.blocks.values()}
    assert set(expected.values()) <= datas  # every block's bytes readable again
    assert not check(tmp_path / "w").damaged


@pytest.mark.parametrize("mutate, what", [
    (lambda e: e.update(id="B99"), "not the next id"),
    (lambda e: e.update(tokens="12"), "tokens"),
    (lambda e: e.update(op="explode"), "unknown op"),
    (lambda e: e.pop("handle"), "handle"),
    (lambda e: e.update(message=None), "message"),
])
def test_valid_json_with_bad_contents_is_a_journal_error(tmp_path, mutate, what):
    build(tmp_path / "w")
    journal = tmp_path / "w" / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    entry = json.loads(lines[5].split(b" ", 1)[1])
    mutate(entry)
    lines[5] = encode_line(entry)  # a valid checksum: only the contents are wrong
    journal.write_bytes(b"".join(lines))
    (tmp_path / "w" / "checkpoint.bin").unlink()  # force a replay of line 6
    before = all_bytes(tmp_path / "w")
    offset = sum(len(x) for x in lines[:5])
    with pytest.raises(JournalError, match=f"line 6 \\(byte {offset}\\).*{what}"):
        Workspace.open(tmp_path / "w")
    assert all_bytes(tmp_path / "w") == before
    assert check(tmp_path / "w").damaged


def test_flipped_byte_in_a_journal_line_fails_its_checksum(tmp_path):
    build(tmp_path / "w")
    (tmp_path / "w" / "checkpoint.bin").unlink()
    journal = tmp_path / "w" / "journal.jsonl"
    raw = bytearray(journal.read_bytes())
    second = raw.index(b"\n") + 1
    raw[second + 30] ^= 0x01
    journal.write_bytes(bytes(raw))
    with pytest.raises(JournalError, match=f"line 2 \\(byte {second}\\).*checksum"):
        Workspace.open(tmp_path / "w")


def test_torn_last_line_bytes_go_to_quarantine(tmp_path):
    build(tmp_path / "w")
    with open(tmp_path / "w" / "journal.jsonl", "ab") as fh:
        fh.write(b'0badc0de {"op":"register","id":"B1')
    ro = Workspace.open(tmp_path / "w", read_only=True)  # a reader ignores it
    assert ro.torn and len(ro.blocks) == 13
    ws = Workspace.open(tmp_path / "w")
    assert len(ws.blocks) == 13
    kept = [m for m in ws.quarantine.moved if "torn" in m[2]]
    assert kept and (tmp_path / "w" / kept[0][1]).read_bytes().endswith(b'"id":"B1')


@pytest.mark.parametrize("storage", ["packed", "file"])
@pytest.mark.parametrize("damage", ["missing", "flipped"])
def test_one_damaged_payload_opens_the_rest_and_names_the_block(tmp_path, damage,
                                                                storage):
    ws, expected = build(tmp_path / "w", close=False, storage=storage)
    ws.journal.close()  # no checkpoint: the open reads every payload
    target, offset, _ = payload_span(ws, ws.blocks["B7"].handle)
    if damage == "missing" and storage == "file":
        target.unlink()
    elif damage == "missing":  # a damaged record header: the record is not found
        flip_byte(target, offset - HEADER + 10)
    else:
        flip_byte(target, offset + 3)
    ws._lock.release(ws._lock_token)
    again = Workspace.open(tmp_path / "w")
    assert list(again.corrupt) == ["B7"]
    for bid, data in expected.items():
        if bid != "B7":
            assert again.blocks[bid].data == data
    row = next(r for r in again.dashboard_text().splitlines() if r.startswith("B7 |"))
    assert row.endswith("| corrupt")
    check_request(again)
    with pytest.raises(CorruptPayloadError, match="B7"):
        again.read_payload(ws.blocks["B7"].handle)
    with pytest.raises(CorruptPayloadError, match="B7"):
        again.archive("B7,B8")  # a group transcript never holds the marker
    again.archive("B7")
    with pytest.raises(CorruptPayloadError, match="B7"):
        again.recover("B7")
    with pytest.raises(CorruptPayloadError, match="B7"):
        again.recover(ws.blocks["B7"].handle)
    again.close()
    rc = subprocess.run([sys.executable, "-m", "experiments.cli", "workspace", "check",
                         str(tmp_path / "w")], capture_output=True, text=True, env=_env())
    assert rc.returncode == 1 and "DAMAGED     B7" in rc.stdout


@pytest.mark.parametrize("storage", ["packed", "file"])
def test_repair_restores_a_damaged_payload_from_the_checkpoint_copy(tmp_path, storage):
    ws, expected = build(tmp_path / "w", storage=storage)  # closed: checkpointed
    target, offset, length = payload_span(ws, ws.blocks["B9"].handle)
    flip_byte(target, offset, 0x01)
    with open(target, "rb") as fh:
        fh.seek(offset)
        raw = fh.read(length)
    assert check(tmp_path / "w").corrupt.keys() == {"B9"}
    rc = subprocess.run([sys.executable, "-m", "experiments.cli", "workspace", "repair",
                         str(tmp_path / "w")], capture_output=True, text=True, env=_env())
    assert rc.returncode == 0, rc.stdout + rc.stderr
    assert "rebuilt B9" in rc.stdout and "status      ok" in rc.stdout
    again = Workspace.open(tmp_path / "w", read_only=True)
    assert again.read_payload(again.blocks["B9"].handle) == expected["B9"]
    damaged = [q for q in check(tmp_path / "w").quarantined if "damaged" in q["reason"]]
    if storage == "file":
        assert damaged and (tmp_path / "w" / "quarantine" / damaged[0]["name"]
                            ).read_bytes() == raw  # the damaged copy is kept too
    else:  # kept in place in its pack; the good copy was appended
        assert not damaged and raw in target.read_bytes()
        assert len(again.store.packs.index[again.blocks["B9"].handle.sha256]) == 2


def test_check_on_a_missing_workspace_is_one_line(tmp_path):
    rc = subprocess.run([sys.executable, "-m", "experiments.cli", "workspace", "check",
                         str(tmp_path / "nothing")], capture_output=True, text=True,
                        env=_env())
    assert rc.returncode == 2 and rc.stderr.count("\n") == 1 and "no workspace" in rc.stderr


# ---------------------------------------------------------------- checkpoints
def test_checkpoint_reopen_equals_full_replay_and_survives_damage(tmp_path):
    ws, _ = build(tmp_path / "w", close=False)
    ws.recover("B3")
    ws.delete("B5", "gone")
    snap = ws.snapshot()
    ws.close()
    assert (tmp_path / "w" / "checkpoint.bin").is_file()
    fast = Workspace.open(tmp_path / "w")
    assert fast.snapshot() == snap and fast.open_notes == ["checkpoint: ok"]
    fast.register({"role": "user", "content": "after the checkpoint"})  # a tail line
    snap2 = fast.snapshot()
    fast.journal.close()
    fast._lock.release(fast._lock_token)
    assert Workspace.open(tmp_path / "w", read_only=True).snapshot() == snap2
    ck = tmp_path / "w" / "checkpoint.bin"
    raw = bytearray(ck.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    ck.write_bytes(bytes(raw))
    slow = Workspace.open(tmp_path / "w", read_only=True)
    assert slow.snapshot() == snap2 and "sha256" in slow.open_notes[0]


def test_version_1_journal_without_checksums_still_opens(tmp_path):
    d = tmp_path / "w"
    (d / "payloads").mkdir(parents=True)
    data = b"old bytes"
    sha = hashlib.sha256(data).hexdigest()
    (d / "payloads" / sha[:2]).mkdir()
    (d / "payloads" / sha[:2] / sha).write_bytes(data)
    lines = [{"op": "init", "version": 1, "tokenizer": "char", "budget": None},
             {"op": "register", "id": "B1", "type": "user_message", "turn": 0,
              "tokens": 12, "status": "visible", "message": {"role": "user"},
              "handle": {"path": f"{sha[:2]}/{sha}", "length": 9, "sha256": sha},
              "call_block": None, "recovered_from": None}]
    (d / "journal.jsonl").write_bytes(b"".join(json.dumps(x).encode() + b"\n"
                                               for x in lines))
    ws = Workspace.open(d)
    assert ws.blocks["B1"].data == data
    ws.register({"role": "user", "content": "new line, checksummed"})
    ws.close()
    assert len(Workspace.open(d, read_only=True).blocks) == 2


def test_payload_folder_gone_opens_with_every_block_named(tmp_path):
    ws, _ = build(tmp_path / "w", close=False)
    ws.journal.close()  # no checkpoint: bytes come from the files
    ws._lock.release(ws._lock_token)
    os.rename(tmp_path / "w" / "payloads", tmp_path / "elsewhere")
    ro = Workspace.open(tmp_path / "w", read_only=True)
    assert set(ro.corrupt) == set(ro.blocks) | set(ro.groups)
    report = check(tmp_path / "w")
    assert report.damaged and not (tmp_path / "w" / "payloads").exists()
    os.rename(tmp_path / "elsewhere", tmp_path / "w" / "payloads")  # put back: intact
    assert not check(tmp_path / "w").damaged
