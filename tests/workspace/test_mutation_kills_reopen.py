"""Reopening a workspace (``sim/workspace/reopen.py``) where the first mutmut run over
it (issue 38) found edits no test saw: the exact messages of a refused open (no
workspace, an empty journal with and without a checkpoint that disagrees, a bad
head line, a second init line), what is moved into quarantine and why (a torn
journal tail, an unused checkpoint, temp files, unreferenced and deleted payloads),
and a payload read that fails: a writer marks the block corrupt at once, a reader
reads the journal again, up to five times."""

from __future__ import annotations

import fcntl
import gc
import os
from pathlib import Path

import pytest

from sim.workspace import checkpoint
from sim.workspace import journal as journal_module
from sim.workspace.errors import JournalError, WorkspaceError
from sim.workspace.journal import decode_line, encode_line
from sim.workspace.reopen import reopen
from sim.workspace.repair import repair
from sim.workspace.store import PayloadStore
from sim.workspace.tokenizer import CharTokenizer
from sim.workspace.workspace import Workspace


def _session(d: Path, n: int = 5) -> Workspace:
    ws = Workspace(d, tokenizer="char", sync=False)
    for i in range(n):
        ws.register({"role": "user", "content": f"block {i} " + "x" * 30})
    return ws


def _lines(d: Path) -> list[bytes]:
    return (d / "journal.jsonl").read_bytes().splitlines(keepends=True)


def _refusal(d: Path, lines: list[bytes]) -> str:
    """The message of the JournalError a writer open raises on a journal of ``lines``
    (the checkpoint removed, so every line is replayed)."""
    (d / "checkpoint.bin").unlink(missing_ok=True)
    (d / "journal.jsonl").write_bytes(b"".join(lines))
    with pytest.raises(JournalError) as info:
        Workspace.open(d)
    return str(info.value)


def test_an_empty_folder_is_no_workspace(tmp_path):
    with pytest.raises(WorkspaceError) as info:
        Workspace.open(tmp_path)
    assert str(info.value) == (f"no workspace in {str(tmp_path)!r}: expected its "
                               "journal.jsonl, checkpoint.bin, payloads/ or quarantine/")


@pytest.mark.parametrize("checkpointed", [False, True])
def test_an_empty_journal_beside_a_workspace_names_both_and_repair(tmp_path,
                                                                   checkpointed):
    d = tmp_path / "w"
    _session(d).close()
    if not checkpointed:
        (d / "checkpoint.bin").unlink()
    (d / "journal.jsonl").write_bytes(b"")
    with pytest.raises(JournalError) as info:
        Workspace.open(d)
    marks = "journal.jsonl, checkpoint.bin, payloads/" if checkpointed else \
        "journal.jsonl, payloads/"
    lost = ""
    if checkpointed:
        _, why = checkpoint.load(d)
        assert why.startswith(checkpoint.MISMATCH)
        lost = f"; {why}"
    assert str(info.value) == (
        f"journal {str(d / 'journal.jsonl')!r} is empty (no line 1 at byte 0), but "
        f"{str(d)!r} holds a workspace ({marks}){lost}; run `ctxsim workspace repair` "
        "(it writes a new journal, sets the checkpoint aside and re-attaches every "
        "payload as an offloaded note)")


def test_a_checkpoint_that_disagrees_with_the_journal_is_refused_naming_repair(tmp_path):
    d = tmp_path / "w"
    _session(d).close()
    lines = _lines(d)
    (d / "journal.jsonl").write_bytes(b"".join(lines[:3]))      # acknowledged lines lost
    _, why = checkpoint.load(d)
    with pytest.raises(JournalError) as info:
        Workspace.open(d)
    assert str(info.value) == (
        f"journal {str(d / 'journal.jsonl')!r}: {why}; run `ctxsim workspace repair` (it "
        "sets the checkpoint aside in quarantine and re-attaches payloads no line "
        "references)")


@pytest.mark.parametrize("head, shown", [({"version": 3}, "3"),
                                         ({"version": None}, "None"),
                                         ({"tokenizer": 5}, "2")])
def test_a_bad_head_line_is_refused(tmp_path, head, shown):
    # (a tokenizer that is no string is refused with the version's message)
    d = tmp_path / "w"
    _session(d).close()
    lines = _lines(d)
    lines[0] = encode_line({**decode_line(lines[0][:-1]), **head})
    assert _refusal(d, lines) == (f"journal {str(d / 'journal.jsonl')!r} line 1 (byte 0): "
                                  f"version {shown} is not 1 or 2")


def test_a_second_init_line_is_refused_naming_its_line_and_byte(tmp_path):
    d = tmp_path / "w"
    _session(d).close()
    lines = _lines(d)
    lines.insert(3, lines[0])
    assert _refusal(d, lines) == (f"journal {str(d / 'journal.jsonl')!r} is invalid at "
                                  f"line 4 (byte {sum(map(len, lines[:3]))}): a second init "
                                  "line")


def test_a_torn_tail_is_kept_in_quarantine_with_its_reason(tmp_path):
    d = tmp_path / "w"
    _session(d).close()
    raw = (d / "journal.jsonl").read_bytes()
    (d / "journal.jsonl").write_bytes(raw + b"0123abcd {\"op\"")
    ws = Workspace.open(d)
    assert ws.quarantine.moved == [("", f"quarantine/journal-tail-at-{len(raw)}",
                                    "torn last journal line (a crash mid-append), cut "
                                    "from the journal")]
    assert (d / "journal.jsonl").read_bytes() == raw
    assert ws.journal_lines == len(raw.splitlines())
    ws.close()


def test_a_damaged_checkpoint_is_moved_to_quarantine_and_the_journal_replayed(tmp_path):
    d = tmp_path / "w"
    _session(d).close()
    body = bytearray((d / "checkpoint.bin").read_bytes())
    body[-3] ^= 0xFF
    (d / "checkpoint.bin").write_bytes(bytes(body))
    ws = Workspace.open(d)
    assert len(ws.blocks) == 5 and ws.checkpoint_rejected.startswith("checkpoint not used: ")
    assert [(m[0], m[2]) for m in ws.quarantine.moved] == [("checkpoint.bin",
                                                            ws.checkpoint_rejected)]
    assert ws.journal_lines == 6 and ws.checkpointed_lines == 0
    ws.close()


def test_strays_are_moved_to_quarantine_each_with_its_reason(tmp_path):
    d = tmp_path / "w"
    ws = Workspace(d, tokenizer="char", sync=False)
    kept = ws.register({"role": "user", "content": "x" * 5000}).handle.path  # own file
    ws.close()
    sub = d / "payloads" / kept[:2]
    (sub / ".tmp-12345").write_bytes(b"half a payload")
    stray = "ab" * 32
    (d / "payloads" / "ab").mkdir(exist_ok=True)
    (d / "payloads" / "ab" / stray).write_bytes(b"no line names me")
    ws = Workspace.open(d)
    moved = {m[0]: m[2] for m in ws.quarantine.moved}
    assert moved == {f"payloads/{kept[:2]}/.tmp-12345":
                     "temp file of an interrupted payload write",
                     f"payloads/ab/{stray}": "payload no journal line references (a crash "
                                             "before its line, or a journal cut short)"}
    assert (d / "payloads" / kept).exists()
    ws.close()


@pytest.mark.parametrize("checkpointed", [True, False])
def test_the_payload_of_deleted_blocks_left_behind_names_them(tmp_path, monkeypatch,
                                                              checkpointed):
    # replaying the delete line (no checkpoint) must not free the file again: a
    # reopen deletes no byte, it moves what is left to quarantine
    d = tmp_path / "w"
    ws = Workspace(d, tokenizer="char", sync=False)
    same = {"role": "user", "content": "the same bytes " * 400}     # a file of its own
    a, b = ws.register(same), ws.register(same)
    real = os.unlink
    monkeypatch.setattr(os, "unlink", lambda p, *x, **k: None if "payloads" in str(p)
                        else real(p, *x, **k))
    ws.delete(f"{a.id},{b.id}", "gone")
    monkeypatch.undo()
    path = a.handle.path
    ws.close()
    if not checkpointed:
        (d / "checkpoint.bin").unlink()
    again = Workspace.open(d)
    assert [(m[0], m[2]) for m in again.quarantine.moved] == [
        (f"payloads/{path}", f"payload of deleted {a.id}, {b.id} (the delete's unlink was "
                             "interrupted)")]
    again.close()


def _failing_reads(monkeypatch, sha: str, times: int) -> list[str]:
    """PayloadStore.read fails for the payload ``sha`` ``times`` times, then reads."""
    calls: list[str] = []
    real = PayloadStore.read

    def read(self, handle):
        if handle.sha256 == sha:
            calls.append(handle.path)
            if len(calls) <= times:
                raise OSError(5, "Input/output error")
        return real(self, handle)

    monkeypatch.setattr(PayloadStore, "read", read)
    return calls


@pytest.mark.parametrize("read_only, failures, tries, corrupt", [
    (False, 1, 1, True),     # a writer marks the block corrupt at the first failure
    (True, 1, 2, False),     # a reader reads the journal again and then the payload
    (True, 4, 5, False),     # ... up to five times
    (True, 9, 5, True),      # the fifth failure is final
])
def test_a_failed_payload_read_at_open(tmp_path, monkeypatch, read_only, failures, tries,
                                      corrupt):
    d = tmp_path / "w"
    ws = _session(d, 3)
    sha = ws.blocks["B2"].handle.sha256
    ws.close()
    (d / "checkpoint.bin").unlink()            # every block's bytes come from the store
    calls = _failing_reads(monkeypatch, sha, failures)
    again = Workspace.open(d, read_only=read_only)
    assert len(calls) == tries
    assert ("B2" in again.corrupt) is corrupt
    assert again.blocks["B1"].data.startswith(b"block 0")
    if not corrupt:
        assert again.blocks["B2"].data == b"block 1 " + b"x" * 30
    again.close()


def test_an_open_restores_the_collector_and_a_failed_one_releases_the_lock(tmp_path):
    d = tmp_path / "w"
    _session(d).close()
    assert gc.isenabled()
    Workspace.open(d).close()
    assert gc.isenabled()
    lines = _lines(d)
    (d / "journal.jsonl").write_bytes(b"".join(lines + [lines[0]]))   # a second init
    (d / "checkpoint.bin").unlink()
    with pytest.raises(JournalError):
        Workspace.open(d)
    assert gc.isenabled()
    # the failed open gave the writer lock back: another open file description of
    # the lock file (as another process would hold) can take it
    fd = os.open(d / "lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
    (d / "journal.jsonl").write_bytes(b"".join(lines))
    Workspace.open(d).close()


@pytest.mark.parametrize("given, synced", [({}, True), ({"sync": False}, False),
                                           ({"sync": True}, True)])
def test_the_journal_is_opened_with_the_workspace_sync_option(tmp_path, monkeypatch,
                                                              given, synced):
    d = tmp_path / "w"
    _session(d).close()
    seen = []
    real = journal_module.Journal.__init__

    def init(self, path, sync=True, read_only=False):
        real(self, path, sync, read_only)
        seen.append(self.sync)

    monkeypatch.setattr(journal_module.Journal, "__init__", init)
    Workspace.open(d, **given).close()
    assert seen[0] is synced


@pytest.mark.parametrize("exc, why", [(KeyError("rows"), "its state is malformed"),
                                      (ValueError("rows and order disagree"),
                                       "rows and order disagree")])
def test_a_verified_checkpoint_whose_state_fails_to_restore_is_replaced_by_a_full_replay(
        tmp_path, monkeypatch, exc, why):
    d = tmp_path / "w"
    _session(d).close()
    real = checkpoint.restore
    calls = []

    def restore(ws, state):
        calls.append(1)
        if len(calls) == 1:
            raise exc
        return real(ws, state)

    monkeypatch.setattr(checkpoint, "restore", restore)
    tok = CharTokenizer()
    ws = Workspace.open(d, tokenizer=tok)
    assert calls == [1]                       # the full replay reads no checkpoint
    assert ws.open_notes[0] == f"checkpoint: {why} (not used: full replay)"
    assert ws.checkpoint_rejected == f"checkpoint not used: {why}"
    assert ws.tokenizer is tok and ws.journal_lines == 6 and ws.checkpointed_lines == 0
    assert [b.data[:7] for b in ws.blocks.values()] == [b"block %d" % i for i in range(5)]
    assert [(m[0], m[2]) for m in ws.quarantine.moved] == [("checkpoint.bin",
                                                            ws.checkpoint_rejected)]
    ws.close()


def test_line_counts_of_a_journal_that_holds_only_its_init_line(tmp_path):
    d = tmp_path / "w"
    Workspace(d, tokenizer="char", sync=False).close()
    (d / "checkpoint.bin").unlink(missing_ok=True)
    ws = Workspace.open(d)
    assert ws.journal_lines == 1 and ws.checkpointed_lines == 0
    ws.close()


def test_a_current_checkpoint_is_not_rewritten_by_a_close_with_nothing_new(tmp_path):
    # a checkpoint of an older format is marked stale, and the writer's close
    # writes the current one; a current checkpoint stays as it is
    d = tmp_path / "w"
    _session(d).close()
    before = os.stat(d / "checkpoint.bin")
    ws = Workspace.open(d)
    assert ws.open_notes[0] == "checkpoint: ok"
    assert getattr(ws, "checkpoint_stale", False) is False
    ws.close()
    after = os.stat(d / "checkpoint.bin")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_repaired_journal_replays_its_restore_line_with_every_payload(tmp_path):
    d = tmp_path / "w"
    _session(d, 30).close()
    raw = (d / "journal.jsonl").read_bytes()
    (d / "journal.jsonl").write_bytes(raw[:raw.index(b"\n", len(raw) // 2) + 1])
    repair(d)
    assert decode_line(_lines(d)[1][:-1])["op"] == "restore"
    (d / "checkpoint.bin").unlink(missing_ok=True)
    ws = Workspace.open(d)
    assert len(ws.blocks) == 30 and not ws.corrupt
    assert all(b.data == (f"block {i} " + "x" * 30).encode()
               for i, b in enumerate(ws.blocks.values()))
    ws.close()


def test_lines_after_the_checkpoint_keep_their_numbers(tmp_path):
    d = tmp_path / "w"
    _session(d).close()                      # the checkpoint covers lines 1-6
    raw = (d / "journal.jsonl").read_bytes()
    turn = encode_line({"op": "turn", "turn": 7})
    (d / "journal.jsonl").write_bytes(raw + turn)
    ws = Workspace.open(d, read_only=True)
    assert ws.journal_lines == 7 and ws.checkpointed_lines == 6 and ws.turn == 7
    bad = encode_line({"op": "pin", "ids": ["B99"]})
    (d / "journal.jsonl").write_bytes(raw + turn + bad)
    with pytest.raises(JournalError) as info:
        Workspace.open(d, read_only=True)
    assert str(info.value) == (f"journal {str(d / 'journal.jsonl')!r} is invalid at line 8 "
                               f"(byte {len(raw) + len(turn)}): pin names unknown block or "
                               "group 'B99'")


def test_what_an_open_notes_about_the_checkpoint(tmp_path):
    d = tmp_path / "w"
    _session(d).close()
    full = reopen(Workspace, d, None, {}, read_only=True, use_checkpoint=False)
    assert full.open_notes[0] == "checkpoint: not used" and not full.checkpoint_rejected
    assert len(full.blocks) == 5
    (d / "checkpoint.bin").unlink()
    ws = Workspace.open(d)
    assert ws.open_notes[0] == "checkpoint: no checkpoint" and not ws.checkpoint_rejected
    assert ws.quarantine.moved == []
    ws.close()
    reader = Workspace.open(d, read_only=True)
    assert reader.quarantine is None          # a reader moves nothing
    reader.close()


def test_a_journal_whose_first_line_is_not_init_is_named(tmp_path):
    d = tmp_path / "w"
    _session(d).close()
    assert _refusal(d, _lines(d)[1:]) == (f"journal {str(d / 'journal.jsonl')!r} line 1 "
                                          "(byte 0) is not the init line a journal starts "
                                          "with")


def test_a_corrupt_block_and_a_missing_group_payload_say_why(tmp_path, monkeypatch):
    d = tmp_path / "w"
    ws = Workspace(d, tokenizer="char", sync=False)
    for i in range(3):
        ws.register({"role": "user", "content": f"member {i} " + "m" * 3000})
    ws.register({"role": "user", "content": "lone"})
    ws.archive("B1-B3", "three members")
    group = ws.groups["G1"].handle.path
    ws.close()
    (d / "checkpoint.bin").unlink()
    assert (d / "payloads" / group).is_file()              # a transcript of its own
    (d / "payloads" / group).unlink()
    calls = _failing_reads(monkeypatch, Workspace.open(d, read_only=True).blocks[
        "B4"].handle.sha256, 99)
    again = Workspace.open(d)
    assert again.corrupt["G1"] == f"payload {group!r} is missing"
    assert again.corrupt["B4"] == "[Errno 5] Input/output error" and len(calls) == 1
    again.close()
    monkeypatch.undo()
    reader = Workspace.open(d, read_only=True)     # after five reads of the journal
    assert reader.corrupt == {"G1": f"payload {group!r} is missing"}
    reader.close()


class _Listing:
    """Sorted scandir entries behaving as os.scandir's iterator (a context manager)."""

    def __init__(self, entries):
        self._it = iter(entries)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_store_folder_that_cannot_be_listed_hides_only_its_own_payloads(tmp_path,
                                                                        monkeypatch):
    d = tmp_path / "w"
    ws = Workspace(d, tokenizer="char", sync=False)
    for i in range(3):
        ws.register({"role": "user", "content": f"member {i} " + "m" * 3000})
    ws.archive("B1-B3", "three members")
    group = ws.groups["G1"].handle.path
    ws.close()
    (d / "payloads" / "00").mkdir()               # listed first, and unreadable
    real = os.scandir

    def scandir(path="."):
        if str(path).endswith(os.sep + "00"):
            raise PermissionError(13, "Permission denied")
        if str(path) == str(d / "payloads"):
            with real(path) as it:
                return _Listing(sorted(it, key=lambda e: e.name))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    again = Workspace.open(d, read_only=True)
    assert (d / "payloads" / group).is_file() and "G1" not in again.corrupt
    again.close()


def test_a_linked_folder_in_the_store_is_not_followed(tmp_path):
    d = tmp_path / "w"
    _session(d, 1).close()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ("cd" * 32)).write_bytes(b"not the workspace's")
    (d / "payloads" / "cd").symlink_to(outside, target_is_directory=True)
    ws = Workspace.open(d)
    assert ws.quarantine.moved == []
    assert (outside / ("cd" * 32)).read_bytes() == b"not the workspace's"
    ws.close()


def test_a_reopened_writer_keeps_the_reservation_it_finds(tmp_path):
    # the ids file is rewritten once per RESERVE registers; a writer that reopens
    # below the recorded bound issues ids under it without writing it again
    d = tmp_path / "w"
    _session(d, 3).close()
    before = os.stat(d / "ids")
    ws = Workspace.open(d)
    ws.register({"role": "user", "content": "after the reopen"})
    ws.close()
    after = os.stat(d / "ids")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
