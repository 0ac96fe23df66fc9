"""Pack files for small payloads (issue 9's disk-space goal; sim.workspace.packs):
torn tails and damaged records on real files, confinement of pack files, deletes,
and workspaces written before packs existed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.workspace import CorruptPayloadError, Workspace
from sim.workspace.errors import DeletedHandleError
from sim.workspace.packs import HEADER, PACK_BELOW, record
from sim.workspace.repair import check, repair

from .helpers import check_lossless, payload_span
from .test_durability import all_bytes, build

ROOT = Path(__file__).resolve().parents[2]


def _check_cli(directory: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "experiments.cli", "workspace", "check",
                           str(directory)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def _listing(directory: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(directory)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(directory.rglob("*"))}


def test_small_payloads_are_packed_large_ones_keep_a_file(tmp_path):
    ws = Workspace(tmp_path / "w", tokenizer="char", sync=True)
    small = ws.register({"role": "user", "content": "x" * (PACK_BELOW - 1)})
    large = ws.register({"role": "user", "content": "y" * PACK_BELOW})
    assert list(ws.store.files()) == [large.handle.path]
    assert ws.store.packed() == [small.handle.path]
    # the agent-facing name of a packed payload is its content address, as before
    assert ws.read_payload(ws.display_path(small.handle)) == small.data
    assert ws.read_payload(str(ws.payload_path(small.handle))) == small.data
    ws.close()
    again = Workspace.open(tmp_path / "w")
    check_lossless(again)
    again.close()


def test_torn_pack_tail_is_kept_in_place_never_read_and_never_appended_to(tmp_path):
    ws, expected = build(tmp_path / "w")
    pack = ws.store.packs.dir / ws.store.packs.names()[-1]
    torn = record(os.urandom(32), b"a record cut by a crash " * 3)[:HEADER + 20]
    with open(pack, "ab") as fh:  # a writer killed mid-append (before its journal line)
        fh.write(torn)
    size = pack.stat().st_size
    before, listing = all_bytes(tmp_path / "w"), _listing(tmp_path / "w")
    ro = Workspace.open(tmp_path / "w", read_only=True)
    check_lossless(ro, expected)
    assert not ro.corrupt
    rc = _check_cli(tmp_path / "w")
    assert rc.returncode == 0, rc.stdout
    assert f"{HEADER + 20} bytes at offset {size - HEADER - 20}: torn tail" in rc.stdout
    assert all_bytes(tmp_path / "w") == before and _listing(tmp_path / "w") == listing
    ws = Workspace.open(tmp_path / "w")  # the writer appends to a new pack
    b = ws.register({"role": "user", "content": "after the crash"})
    assert payload_span(ws, b.handle)[0] != pack
    ws.close()
    assert pack.read_bytes().endswith(torn) and pack.stat().st_size == size
    again = Workspace.open(tmp_path / "w", read_only=True)
    check_lossless(again, {**expected, b.id: b.data})


def test_pack_cut_inside_a_referenced_record_marks_that_block_only(tmp_path):
    ws, expected = build(tmp_path / "w", close=False)
    ws.journal.close()  # no checkpoint: every payload comes from the pack
    ws._lock.release(ws._lock_token)
    last = max(expected, key=lambda b: int(b[1:]))
    path, offset, length = payload_span(ws, ws.blocks[last].handle)
    with open(path, "r+b") as fh:
        fh.truncate(offset + length // 2)
    again = Workspace.open(tmp_path / "w", read_only=True)
    assert set(again.corrupt) == {last, "G1"}  # G1's transcript was appended after
    for bid, data in expected.items():
        if bid == last:
            continue
        assert again.read_payload(again.blocks[bid].handle) == data
    with pytest.raises(CorruptPayloadError, match=last):
        again.read_payload(again.blocks[last].handle)
    rc = _check_cli(tmp_path / "w")
    assert rc.returncode == 1 and f"DAMAGED     {last}" in rc.stdout
    assert "torn tail" in rc.stdout
    actions = repair(tmp_path / "w")  # G1 from its members; B13 had no other copy
    assert "rebuilt G1 from its members" in actions
    assert any(a.startswith(f"UNREPAIRED {last}") for a in actions)
    assert set(check(tmp_path / "w").corrupt) == {last}


def test_symlinked_pack_is_never_followed(tmp_path):
    ws, expected = build(tmp_path / "w", close=False)
    ws.journal.close()
    ws._lock.release(ws._lock_token)
    pack = ws.store.packs.dir / ws.store.packs.names()[-1]
    outside = tmp_path / "outside-pack"
    os.replace(pack, outside)
    pack.symlink_to(outside)
    ro = Workspace.open(tmp_path / "w", read_only=True)
    small = {b for b in expected if len(expected[b]) < PACK_BELOW}
    assert small and small <= set(ro.corrupt)  # a symlink is never a pack
    assert _check_cli(tmp_path / "w").returncode == 1


def test_deleted_packed_payload_is_refused_though_its_bytes_stay(tmp_path):
    ws, expected = build(tmp_path / "w", close=False)
    h = ws.blocks["B9"].handle
    path, offset, length = payload_span(ws, h)
    ws.delete("B9", "gone")
    for fn in (lambda: ws.read_payload(h), lambda: ws.recover(h),
               lambda: ws.read_payload(ws.display_path(h))):
        with pytest.raises(DeletedHandleError):
            fn()
    ws.close()
    with open(path, "rb") as fh:  # packs are append-only: a delete cuts nothing
        fh.seek(offset)
        assert fh.read(length) == expected["B9"]
    again = Workspace.open(tmp_path / "w")
    with pytest.raises(DeletedHandleError):
        again.read_payload(h)
    report = check(tmp_path / "w")
    assert not report.damaged and report.packed_unreferenced == 1
    # the same bytes registered again reuse the intact record
    b = again.register({"role": "user", "content": expected["B9"]})
    assert again.read_payload(b.handle) == expected["B9"]
    assert len(again.store.packs.index[h.sha256]) == 1
