"""The journal file (:class:`sim.workspace.journal.Journal`) at the edges the mutmut
runs over ``sim/workspace/journal.py`` left open (issue 38): a failed append's error
(its message, the byte it cut back to, ``truncated``) when the write, the fsync or
the cut-back fails; a writer that refuses further appends after a failed cut-back;
the call and path named when ``fstat``, ``ftruncate`` or ``fsync`` fails; line
numbers and offsets from the defaults; the torn tail handed over at its offset; a
corrupt line's message; the line header's length at 10 bytes; and the defaults.

Faults are injected by replacing ``os.write``, ``os.fsync``, ``os.ftruncate`` or
``os.fstat`` for journal files only, so each expectation is plain byte counting."""

from __future__ import annotations

import errno
import os
import zlib

import pytest

from sim.workspace.errors import JournalError, WorkspaceIOError, WriteFailedError
from sim.workspace.journal import Journal, decode_line, encode_line

from .harness.faults import fail_os

INIT = {"op": "init", "version": 2, "tokenizer": "char"}
TURN = [{"op": "turn", "turn": t} for t in range(1, 5)]


@pytest.fixture
def journal(tmp_path):
    """A journal holding the init line and one turn line (its descriptor open)."""
    j = Journal(tmp_path / "journal.jsonl", sync=False)
    j.append(INIT)
    j.append(TURN[0])
    yield j
    j.close()


def _good(j):
    return len(encode_line(INIT)) + len(encode_line(TURN[0]))


def test_a_failed_write_is_cut_back_and_says_where(journal, monkeypatch):
    good = _good(journal)
    fail_os(monkeypatch, "write", errno.ENOSPC)
    with pytest.raises(WriteFailedError) as info:
        journal.append(TURN[1])
    err = info.value
    assert str(err) == (f"journal {str(journal.path)!r}: write failed (No space left on "
                        f"device); truncated back to byte {good}, the operation was not "
                        "applied (retry once space is available)")
    assert err.truncated is True and err.errno == errno.ENOSPC
    monkeypatch.undo()
    assert journal.path.stat().st_size == good and journal.failed == ""
    journal.append(TURN[1])           # space is back: the append goes through
    journal.append(TURN[2])
    assert journal.read() == [INIT, TURN[0], TURN[1], TURN[2]]


def test_the_good_end_grows_with_every_append(journal, monkeypatch):
    # after two more appends, a failure cuts back to the end of the fourth line
    journal.append(TURN[1])
    journal.append(TURN[2])
    good = _good(journal) + len(encode_line(TURN[1])) + len(encode_line(TURN[2]))
    fail_os(monkeypatch, "write", errno.ENOSPC)
    with pytest.raises(WriteFailedError, match=f"truncated back to byte {good},"):
        journal.append(TURN[3])
    monkeypatch.undo()
    assert journal.path.stat().st_size == good


def test_a_failed_fsync_is_cut_back_too(tmp_path, monkeypatch):
    j = Journal(tmp_path / "journal.jsonl", sync=True)
    j.append(INIT)
    j.append(TURN[0])
    good = _good(j)
    fd = j._fh
    fail_os(monkeypatch, "fsync", errno.EIO, when=lambda f: f == fd)
    with pytest.raises(WriteFailedError) as info:
        j.append(TURN[1])
    assert str(info.value) == (f"journal {str(j.path)!r}: write failed (Input/output "
                               f"error); truncated back to byte {good}, the operation "
                               "was not applied (retry once space is available)")
    assert info.value.errno == errno.EIO and info.value.truncated is True
    monkeypatch.undo()
    assert j.path.stat().st_size == good
    j.close()


def test_a_failed_cut_back_makes_the_writer_refuse_every_later_append(journal,
                                                                       monkeypatch):
    good = _good(journal)
    fail_os(monkeypatch, "write", errno.ENOSPC)
    fail_os(monkeypatch, "ftruncate", errno.EIO)
    with pytest.raises(WriteFailedError) as info:
        journal.append(TURN[1])
    first = str(info.value)
    assert first == (f"journal {str(journal.path)!r}: write failed (No space left on "
                     f"device), and truncating back to byte {good} failed too "
                     "(Input/output error); this writer refuses further writes until the "
                     "workspace is reopened (the next open cuts the torn tail)")
    assert info.value.truncated is False and journal.failed == first
    monkeypatch.undo()
    with pytest.raises(WriteFailedError) as again:   # nothing fails now: still refused
        journal.append(TURN[1])
    assert str(again.value) == first and again.value.truncated is False
    assert journal.path.stat().st_size == good


def test_the_first_line_of_a_new_journal_is_written_whole_and_synced(tmp_path,
                                                                     monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    Journal(tmp_path / "a.jsonl").append(INIT)          # sync is the default
    assert len(synced) >= 1
    synced.clear()
    Journal(tmp_path / "b.jsonl", sync=False).append(INIT)
    assert synced == []
    # a failed first write names the journal and leaves no file
    fail_os(monkeypatch, "write", errno.ENOSPC)
    path = tmp_path / "c.jsonl"
    with pytest.raises(WriteFailedError) as info:
        Journal(path, sync=False).append(INIT)
    assert str(info.value).startswith(f"journal {str(path)!r}: write failed (")
    assert not path.exists()


@pytest.mark.parametrize("name, call", [("fstat", "fstat")])
def test_a_failed_fstat_on_open_names_the_call_and_the_journal(tmp_path, monkeypatch,
                                                               name, call):
    path = tmp_path / "journal.jsonl"
    Journal(path, sync=False).append(INIT)
    j = Journal(path, sync=False)
    fail_os(monkeypatch, name, errno.EIO, when=lambda fd: isinstance(fd, int))
    with pytest.raises(WorkspaceIOError) as info:
        j.append(TURN[0])
    assert str(info.value) == (f"{call} {str(path)!r} failed (Input/output error); the "
                               "operation was not applied (nothing of it is journaled)")
    assert info.value.call == call and info.value.errno == errno.EIO


@pytest.mark.parametrize("name, sync", [("ftruncate", False), ("fsync", True)])
def test_cutting_a_torn_tail_names_the_failed_call_and_the_journal(tmp_path, monkeypatch,
                                                                   name, sync):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(encode_line(INIT) + b"0000")          # a torn tail
    fail_os(monkeypatch, name, errno.EIO)
    with pytest.raises(WorkspaceIOError) as info:
        Journal(path, sync=sync).lines()
    assert str(info.value) == (f"{name} {str(path)!r} failed (Input/output error); the "
                               "operation was not applied (nothing of it is journaled)")
    assert info.value.call == name


def test_lines_number_from_one_at_byte_zero_and_hand_over_the_torn_tail(tmp_path):
    path = tmp_path / "journal.jsonl"
    a, b = encode_line(INIT), encode_line(TURN[0])
    path.write_bytes(a + b + b"0123 torn")
    kept = []
    j = Journal(path, sync=False)
    lines = j.lines(keep_torn=lambda offset, data: kept.append((offset, data)))
    assert [(ln.number, ln.offset) for ln in lines] == [(1, 0), (2, len(a))]
    assert kept == [(len(a) + len(b), b"0123 torn")]
    assert j.torn == (len(a) + len(b), b"0123 torn")
    assert path.read_bytes() == a + b                      # the writer cut it away
    assert j.lines() and j.torn is None                    # no torn tail now


def test_a_reader_leaves_the_torn_tail_in_place(tmp_path):
    path = tmp_path / "journal.jsonl"
    raw = encode_line(INIT) + b"0123"
    path.write_bytes(raw)
    j = Journal(path, read_only=True)
    assert j.read() == [INIT] and j.torn == (len(raw) - 4, b"0123")
    assert path.read_bytes() == raw
    assert Journal(path).read_only is False and Journal(path).sync is True


def test_a_damaged_middle_line_is_named_by_number_byte_and_its_first_60_bytes(tmp_path):
    path = tmp_path / "journal.jsonl"
    a = encode_line(INIT)
    long = encode_line({"op": "turn", "turn": 1, "pad": "p" * 80})
    bad = b"00000000" + long[8:]                           # the checksum no longer fits
    path.write_bytes(a + bad + encode_line(TURN[1]))
    body = bad[:-1]                                        # the line without its newline
    with pytest.raises(JournalError) as info:
        Journal(path, sync=False).lines()
    assert str(info.value) == (f"journal {str(path)!r} is corrupt at line 2 (byte "
                               f"{len(a)}): checksum mismatch: {body[:60]!r}")


def test_a_line_of_exactly_ten_bytes_has_a_header_and_one_byte_of_json():
    one = b"%08x 1" % zlib.crc32(b"1")
    assert len(one) == 10
    with pytest.raises(ValueError) as info:
        decode_line(one)
    assert str(info.value) == "not a JSON object"            # not "no checksum"
    assert decode_line(b"%08x {}" % zlib.crc32(b"{}")) == {}


def test_size_close_and_reopen(tmp_path):
    j = Journal(tmp_path / "none.jsonl", sync=False)
    assert j.size() == 0
    j.append(INIT)
    j.append(TURN[0])
    j.close()
    j.append(TURN[1])                   # a closed journal opens its descriptor again
    assert j.read() == [INIT, TURN[0], TURN[1]]
    assert j.size() == sum(len(encode_line(e)) for e in (INIT, TURN[0], TURN[1]))
    j.close()
