"""Outputs are written as a set (issue 10, item 8): an interrupted run, a run that
fails late or a second run into one ``--out`` never leaves files of two runs side by
side; ``--out`` is checked before computing; ``--out ""`` is an error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiments import cli
from experiments.output import STAGING_PREFIX, OutDirError, dumps_strict
from tests.workspace.helpers import default_sigint

SMALL = ["run", "window", "--windows", "8000", "--queries", "2", "--no-progress"]


def ctxsim(*argv, cwd=None, **kw):
    return subprocess.Popen([sys.executable, "-m", "experiments.cli", *argv], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(Path.cwd())),
                            preexec_fn=default_sigint, **kw)


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def staging_left(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if p.name.startswith(STAGING_PREFIX)]


def test_a_run_writes_its_set_and_leaves_no_staging(tmp_path):
    assert cli.main([*SMALL, "--out", str(tmp_path / "out")]) == 0
    assert sorted(files(tmp_path / "out")) == ["window.csv", "window.json", "window.png",
                                              "window_episodes.csv"]
    assert staging_left(tmp_path) == []


def computing(out: Path) -> subprocess.Popen:
    """A long window sweep into ``out``, returned once its staging folder exists (it
    is computing)."""
    proc = ctxsim("run", "window", "--windows", "8000", "16000", "32000", "64000",
                  "--queries", "50", "--seeds", "3", "--no-progress", "--out", str(out))
    deadline = time.monotonic() + 60
    while not staging_left(out.parent) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert staging_left(out.parent), "the run never started computing"
    return proc


@pytest.mark.parametrize("signum, status, word", [(signal.SIGINT, 130, "interrupted"),
                                                 (signal.SIGTERM, 143, "terminated")])
def test_interrupted_run_leaves_the_previous_set_untouched(tmp_path, signum, status, word):
    out = tmp_path / "out"
    assert cli.main([*SMALL, "--out", str(out)]) == 0
    before = files(out)
    # a long sweep of the same experiment, stopped by the signal while computing
    proc = computing(out)
    time.sleep(1.0)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert f"ctxsim: {word}" in err
    assert files(out) == before  # the earlier set, whole and unchanged
    assert staging_left(tmp_path) == []


def test_a_terminated_first_run_leaves_neither_out_nor_staging(tmp_path):
    """SIGTERM (``timeout``) while a first run computes: the ``--out`` it would have
    made is not left behind, empty or not."""
    proc = computing(tmp_path / "new")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_run_that_fails_late_changes_nothing(tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert cli.main([*SMALL, "--out", str(out)]) == 0
    before = files(out)
    import experiments.vista.window as window

    def broken(fig, path):  # the CSV is already written when the PNG fails
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(window, "save_figure", broken)
    with pytest.raises(OSError, match="No space left"):
        cli.run_command([*SMALL, "--seed", "5", "--out", str(out)])
    assert files(out) == before
    assert staging_left(tmp_path) == []


def test_two_runs_into_one_out_leave_one_consistent_set(tmp_path):
    out = tmp_path / "out"
    procs = [ctxsim(*SMALL, "--queries", "6", "--seed", str(seed), "--out", str(out))
             for seed in (1, 2)]
    for p in procs:
        p.communicate(timeout=120)
        assert p.returncode == 0
    import json

    from experiments.output import read_csv

    record = json.loads((out / "window.json").read_text())
    rows = read_csv(out / "window.csv")
    acc = {r["program"]: float(r["accuracy"]) for r in rows}
    gain = record["gain_vista_minus_react"]["8000"]
    assert gain == pytest.approx(round(acc["vista"] - acc["react"], 4))
    assert staging_left(tmp_path) == []


def test_empty_out_is_an_error_and_writes_nothing(tmp_path):
    proc = ctxsim(*SMALL, "--out", "", cwd=tmp_path)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2  # an impossible input, like a usage error
    assert "--out is empty" in err.splitlines()[0]
    assert list(tmp_path.iterdir()) == []


def test_out_that_is_a_file_or_under_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    for bad in (tmp_path / "f", tmp_path / "f" / "sub"):
        with pytest.raises(OutDirError, match="is a file"):
            cli.run_command([*SMALL, "--out", str(bad)])


def _read_only_dir(tmp_path) -> Path:
    if os.geteuid() != 0:
        d = tmp_path / "ro"
        d.mkdir()
        d.chmod(0o555)
        return d
    if Path("/sys/kernel").is_dir():
        return Path("/sys/kernel")  # root may write anywhere but to sysfs
    pytest.skip("running as root with no read-only directory to use")


def test_read_only_out_is_found_before_computing(tmp_path, monkeypatch):
    ro = _read_only_dir(tmp_path)
    import experiments.vista.window as window

    monkeypatch.setattr(window, "run_sweep", lambda *a, **k: pytest.fail("computed"))
    with pytest.raises(OutDirError, match="not writable"):
        cli.run_command([*SMALL, "--out", str(ro)])


def test_json_output_refuses_nan_and_infinity():
    with pytest.raises(ValueError, match=r"NaN or Infinity at a\.1"):
        dumps_strict({"a": [1.0, float("nan")]})
    with pytest.raises(ValueError, match="NaN or Infinity at b"):
        dumps_strict({"b": float("inf")})
    assert dumps_strict({"c": 1.5}) == '{\n  "c": 1.5\n}'


def test_sidecar_writes_non_finite_numbers_as_null_and_lists_them(tmp_path):
    import json

    from experiments.output import write_sidecar

    path = write_sidecar(tmp_path / "x.json", {"a": 1.0}, {
        "summary": {"median": float("inf"), "acc": [0.5, float("nan")]}})
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    record = json.loads(text)
    assert record["summary"] == {"median": None, "acc": [0.5, None]}
    assert record["non_finite_as_null"] == ["summary.median=inf", "summary.acc[1]=nan"]


def test_a_failed_run_leaves_no_out_directory_it_created(tmp_path, monkeypatch, capsys):
    import experiments.vista.window as window

    def fail(*a, **k):
        raise RuntimeError("late failure")

    monkeypatch.setattr(window, "run_sweep", fail)
    out = tmp_path / "new" / "out"
    assert cli.main([*SMALL, "--out", str(out)]) == 1
    assert not (tmp_path / "new").exists()      # both levels it made are gone
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0                 # one line, the debug hint on it
    assert err.startswith("ctxsim run window: error: RuntimeError: late failure")
    assert "CTXSIM_DEBUG=1" in err
    existing = tmp_path / "kept"
    existing.mkdir()
    assert cli.main([*SMALL, "--out", str(existing)]) == 1
    assert existing.is_dir()                    # a directory it did not make stays


def test_out_that_cannot_be_created_is_a_usage_error_naming_the_reason(capsys):
    assert cli.main([*SMALL, "--out", "/proc/ctxsim-x"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ctxsim run window: error: --out '/proc/ctxsim-x' cannot be "
                          "created (")
    assert "PermissionError" not in err and "\n" not in err


def test_sidecar_names_the_command_that_redoes_it(tmp_path):
    import json

    out = tmp_path / "o"
    assert cli.main([*SMALL, "--out", str(out)]) == 0
    record = json.loads((out / "window.json").read_text())
    assert record["experiment"] == "window"
    assert record["argv"] == SMALL[2:]
    assert record["command"] == ("ctxsim run window --windows 8000 --queries 2 "
                                 f"--no-progress --out {out}")
    assert record["run_seconds"] >= 0
    assert record["git_dirty"] in (True, False, None)
