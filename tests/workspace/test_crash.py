"""Durability (invariant 6): children killed with SIGKILL at random points during
archive/delete/register/recover; every reopen finds every byte (sim.workspace.soak).
A few hundred kills here; ``experiments/bench/crash_soak.py`` runs more."""

import os
import sys

import pytest

from sim.workspace import Workspace
from sim.workspace.soak import soak


# ~15 s: run by .ci/run's hardening line (with coverage), not in the default suite
@pytest.mark.hardening
@pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
def test_sigkill_soak_loses_no_byte(tmp_path):
    kills = int(os.environ.get("CTXSIM_CRASH_KILLS", "240"))
    result = soak(tmp_path, kills=kills, seed=11, max_delay=0.025)
    assert result.kills == kills
    assert result.live_blocks > 0


def test_torn_last_journal_line_is_dropped(tmp_path):
    ws = Workspace(tmp_path / "w", tokenizer="char")
    ws.register({"role": "user", "content": "keep me"})
    ws.close()
    with open(tmp_path / "w" / "journal.jsonl", "ab") as fh:
        fh.write(b'{"op":"register","id":"B2","ty')  # a crash mid-append
    again = Workspace.open(tmp_path / "w")
    assert list(again.blocks) == ["B1"] and again.blocks["B1"].content == "keep me"
    again.register({"role": "user", "content": "next"})
    again.close()
    assert list(Workspace.open(tmp_path / "w").blocks) == ["B1", "B2"]


def test_orphan_payloads_and_temps_are_swept(tmp_path):
    ws = Workspace(tmp_path / "w", tokenizer="char")
    ws.register({"role": "user", "content": "x"})
    ws.store.put(b"written, never journaled")  # packed: stays in its pack
    big = ws.store.put(b"y" * 5000)  # its own file: moved to quarantine
    (ws.store.root / "ab").mkdir(exist_ok=True)
    (ws.store.root / "ab" / ".tmp-deadbeef-1").write_bytes(b"partial")
    ws.close()
    again = Workspace.open(tmp_path / "w")
    assert sorted(again.store.files()) == []
    assert (tmp_path / "w" / "quarantine" / big.sha256).read_bytes() == b"y" * 5000
    orphan = again.store.handle_for(b"written, never journaled")
    assert sorted(again.store.packed()) == sorted([again.blocks["B1"].handle.path,
                                                   orphan.path])
