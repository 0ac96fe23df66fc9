"""The long runs of issue 34's harnesses (``pytest -m hardening``, in .ci/run):
power loss over random scenarios, every N-th I/O call failing, re-checksummed
journal mutants, a crash soak that tracks acknowledgements, and a real tmpfs
filled up and remounted read-only. Each prints its counts (``-s``) for the
closing note. A short smoke of the first three runs in the default suite."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sim.workspace import BlockStatus, JournalError, Workspace, WorkspaceError
from sim.workspace.repair import repair

from .harness import faults, fuzz, scenario
from .test_hardening3 import power_loss_run

ROOT = Path(__file__).resolve().parents[2]
hardening = pytest.mark.hardening


def _view(ws: Workspace) -> dict:
    return {b.id: (b.status, b.handle.sha256) for b in ws.blocks.values()}


def _open_any(d: Path) -> Workspace:
    try:
        return Workspace.open(d, sync=False)
    except JournalError:
        repair(d)
        return Workspace.open(d, sync=False)


def inject_all(tmp: Path, kinds=faults.KINDS, steps: int = 8, seed: int = 1) -> dict:
    """For every kind and every N its scenario reaches: fail the N-th call; no raw
    OSError may escape, and after a reopen the durable view equals the writer's
    in-memory view and every acknowledged byte is served. Returns counts."""
    def scenario_run(d: Path, acks: scenario.Acks) -> dict | None:
        try:
            ws = Workspace(d, tokenizer="char")
        except WorkspaceError:
            return None  # refused before anything was acknowledged
        scenario.run(ws, steps, seed, acks, errors=(WorkspaceError,))
        view = _view(ws)
        try:
            ws.close()
        except WorkspaceError:
            pass
        return view

    counts = {"runs": 0, "faults": 0, "acknowledged": 0}
    for kind in kinds:
        total = faults.count_calls(kind, lambda: scenario_run(
            tmp / f"count-{kind}" / "w", scenario.Acks()))
        for n in range(1, total + 1):
            d = tmp / f"{kind}-{n}" / "w"
            acks = scenario.Acks()
            with faults.FailNth(kind, n) as f:
                view = scenario_run(d, acks)
            counts["runs"] += 1
            counts["faults"] += f.fired
            if view is None:
                continue
            ws = _open_any(d)
            try:
                durable = _view(ws)
            finally:
                ws.close()
            assert durable == view, (kind, n)
            counts["acknowledged"] += scenario.verify(d, acks)
            shutil.rmtree(d.parent)
    return counts


def fuzz_journals(tmp: Path, mutants: int, seed: int = 0) -> dict:
    """``mutants`` re-checksummed journal mutants, with and without the checkpoint:
    open, check and repair raise nothing but a WorkspaceError, and whatever a
    successful open serves under an id is the bytes acknowledged under it."""
    from sim.workspace.repair import check

    base = tmp / "base" / "w"
    acks = scenario.Acks()
    ws = Workspace(base, tokenizer="char", sync=False)
    scenario.run(ws, 25, seed, acks)
    ws.close()
    raw = (base / "journal.jsonl").read_bytes()
    rng = random.Random(seed)
    counts = {"mutants": 0, "named_errors": 0, "completed": 0, "opened": 0,
              "served_checked": 0}
    for k in range(mutants):
        d = tmp / f"m{k}" / "w"
        shutil.copytree(base, d)
        if k % 2:
            (d / "checkpoint.bin").unlink()
        (d / "journal.jsonl").write_bytes(fuzz.mutant(raw, rng, lines=1 + k % 3))
        counts["mutants"] += 1
        for action in (lambda: Workspace.open(d, read_only=True), lambda: check(d),
                       lambda: repair(d), lambda: Workspace.open(d, read_only=True)):
            try:
                got = action()
            except WorkspaceError:
                counts["named_errors"] += 1
                continue
            counts["completed"] += 1
            if isinstance(got, Workspace):
                counts["opened"] += 1
                for bid, b in got.blocks.items():
                    if bid in acks.registered and b.status is not BlockStatus.DELETED \
                            and bid not in got.corrupt:
                        try:
                            data = got.store.read(b.handle)
                        except WorkspaceError:
                            continue  # named: reported, never a wrong byte
                        assert data == acks.registered[bid][0], (k, bid)
                        counts["served_checked"] += 1
        shutil.rmtree(d.parent)
    return counts


# ---------------------------------------------------------------- default smoke
def test_harness_smoke(tmp_path):
    """A few seconds of each harness in the default suite (the long runs below)."""
    c = inject_all(tmp_path / "inj", kinds=("unlink", "mkdir", "replace"), steps=6)
    assert c["faults"] >= 10 and c["acknowledged"] > 0
    f = fuzz_journals(tmp_path / "fz", 12)
    assert f["mutants"] == 12 and f["named_errors"] + f["completed"] == 48


# ---------------------------------------------------------------- long runs
@hardening
@pytest.mark.parametrize("seed", range(4))
def test_power_loss_over_random_scenarios(tmp_path, seed, capsys):
    out = {}
    for keep, torn in (("none", False), ("random", True)):
        cuts, checked = power_loss_run(tmp_path / f"{keep}", steps=25, seed=seed,
                                       keep=keep, torn=torn)
        out[keep] = (cuts, checked)
        assert checked > 0
    with capsys.disabled():
        print(f"\npower loss seed {seed}: cuts/acknowledged registers checked {out}")


@hardening
def test_every_nth_io_call_failing(tmp_path, capsys):
    c = inject_all(tmp_path, steps=20)
    with capsys.disabled():
        print(f"\nI/O error injection: {c}")
    assert c["faults"] > 100


@hardening
def test_re_checksummed_journal_mutants(tmp_path, capsys):
    c = fuzz_journals(tmp_path, 400)
    with capsys.disabled():
        print(f"\njournal fuzzing: {c}")
    # every mutant was opened, checked and repaired (4 calls), each ending named or whole
    assert c["mutants"] == 400 and c["named_errors"] + c["completed"] == 1600
    assert c["named_errors"] > 0 and c["completed"] > 0   # the mutants reached both


@hardening
def test_crash_soak_tracks_acknowledgements(tmp_path, capsys):
    res = subprocess.run([sys.executable, "-m", "experiments.bench.crash_soak",
                          "--kills", "60", "--max-delay", "0.2", "--dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    with capsys.disabled():
        print("\n" + res.stdout.strip())
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 lost" in res.stdout and "0 wrong" in res.stdout


# ---------------------------------------------------------------- a real tmpfs
@pytest.fixture
def tmpfs(tmp_path):
    """A 400 KiB tmpfs mounted at a temp directory (root only; skipped otherwise or
    where mounting is not permitted), unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mnt)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"mount -t tmpfs not permitted here: {res.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@hardening
def test_a_real_full_tmpfs_then_remounted_read_only(tmpfs, capsys):
    """Disk full for real: every failed write is a named error and no acknowledged
    byte is lost; then the same filesystem read-only: the writer open and `ctxsim
    workspace repair` give a named error (exit 1, one line), reader and check work."""
    from experiments.cli import main
    from sim.workspace import errors

    d = tmpfs / "w"
    ws = Workspace(d, tokenizer="char")
    acks = scenario.Acks()
    failures = 0
    for i in range(3000):
        data = scenario.content(7, i) + b"f" * (i % 5 * 900)
        try:
            b = ws.register({"role": "user", "content": data})
            acks.registered[b.id] = (data, 0)
        except errors.WorkspaceIOError:
            failures += 1
        except WorkspaceError as exc:  # nothing else: every failure is named I/O
            raise AssertionError(exc)
        if failures > 200:
            break
    try:
        ws.close()
    except WorkspaceError:
        pass
    checked = scenario.verify(d, acks)
    assert failures > 0 and checked == len(acks.registered) > 0
    res = subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], capture_output=True,
                         text=True)
    if res.returncode != 0:
        pytest.skip(f"remount,ro not permitted: {res.stderr.strip()}")
    with pytest.raises(errors.ReadOnlyFilesystemError):
        Workspace.open(d)
    assert len(Workspace.open(d, read_only=True).blocks) == len(acks.registered)
    capsys.readouterr()
    assert main(["workspace", "repair", str(d)]) == 1
    err = capsys.readouterr().err
    assert "read-only" in err and len(err.strip().splitlines()) == 1
    assert main(["workspace", "check", str(d)]) == 0
    with capsys.disabled():
        print(f"\nreal tmpfs: {failures} write failures, {checked} acknowledged writes "
              "checked, 0 lost; read-only: writer and repair refused by name")


@hardening
def test_repair_keeps_every_ids_meaning_over_300_damages(tmp_path, capsys):
    from hypothesis import given, settings, strategies as st

    from .test_hardening3 import _damage_strategy, damage_and_repair

    tally = {"repaired": 0, "refused": 0, "ids": 0}

    @settings(max_examples=300, deadline=None, database=None)
    @given(_damage_strategy(), st.booleans(), st.integers(0, 9))
    def prop(damage, keep, seed):
        tmp = tmp_path / "ex"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        outcome, ids = damage_and_repair(tmp, seed, damage, keep)
        tally[outcome] += 1
        tally["ids"] += ids

    prop()
    with capsys.disabled():
        print(f"\nrepair property: {tally}")
    # the damages reached both outcomes, and repaired workspaces served ids to check
    assert tally["repaired"] > 0 and tally["refused"] > 0 and tally["ids"] > 0


REPLAY = """
import json, resource, sys, tempfile
from sim.workspace import replay_trajectory
path, size = sys.argv[1], int(sys.argv[2])
def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize"):
            return int(line.split()[1]) * 1024
cap = vm() + 8 * size
resource.setrlimit(resource.RLIMIT_AS, (cap, resource.RLIM_INFINITY))
with tempfile.TemporaryDirectory() as d:
    res = replay_trajectory(path, budget=10**9, policy="none", directory=d + "/w",
                            tokenizer="whitespace")
    big = max(res.workspace.blocks.values(), key=lambda b: len(b.data))
    print(big.tokens, len(big.data), cap)
    res.workspace.close()
"""


@hardening
def test_replaying_a_huge_line_under_a_memory_cap(tmp_path):
    """Defect 7 end to end: a 100 MiB single-line tool result (about 35 M two-letter
    words) replays with --tokenizer whitespace under RLIMIT_AS = what the process
    had mapped plus 8x the line (the word list alone took about 20x it)."""
    size = (100 << 20) // 3 * 3    # 100 MiB of three-byte words
    traj = tmp_path / "big.json"
    with open(traj, "w") as fh:
        fh.write('[{"role": "user", "content": "task"}, {"role": "assistant", '
                 '"content": "x", "tool_calls": [{"id": "c1", "type": "function", '
                 '"function": {"name": "cat", "arguments": "{}"}}]}, {"role": "tool", '
                 '"tool_call_id": "c1", "content": "')
        fh.write("wd " * (size // 3))
        fh.write('"}]')
    res = subprocess.run([sys.executable, "-c", REPLAY, str(traj), str(size)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr[-2000:]
    tokens, length, _ = map(int, res.stdout.split())
    assert length == size and 0 <= tokens - size // 3 <= 8  # the words + the message's
