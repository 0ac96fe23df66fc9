"""``ctxsim figures``: a figure is current iff no file it imports changed since its
commit, and ``--verify`` reruns a figure from its sidecar and compares its CSVs."""

from __future__ import annotations

import json
import subprocess

import pytest

from experiments import cli
from experiments.figures_cli import (committed_figures, dependencies, experiment_of,
                                     import_closure, status)
from experiments.output import ROOT

SMALL = ["--windows", "8000", "--queries", "2", "--no-progress"]


def _git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_import_closure_follows_imports_inside_functions_and_stops_at_the_repo():
    closure = import_closure("experiments.vista.window")
    assert "experiments/vista/window.py" in closure
    assert "sim/harness.py" in closure               # imported through experiments.sweep
    assert "sim/__init__.py" in closure              # parent packages run too
    assert all(p.split("/")[0] in ("sim", "theory", "experiments") for p in closure)
    # the games' closure does not pull in the workspace: the walk is not "everything"
    assert not any(p.startswith("sim/workspace/")
                   for p in import_closure("sim.games.eviction"))
    assert "experiments/configs/theorem1.toml" in dependencies("theorem1")


def test_experiment_of_a_variant_is_the_longest_prefix():
    assert experiment_of("pressure_llm", None) == "pressure"
    assert experiment_of("presentation_plain_sorted_unpinned-bounded_ledger",
                         None) == "presentation"
    assert experiment_of("sorted_window", None) == "sorted_window"
    assert experiment_of("x", {"experiment": "window"}) == "window"


def _figure_dir(tmp_path, commit, **extra):
    d = tmp_path / "figs"
    d.mkdir(exist_ok=True)
    (d / "window.png").write_bytes(b"")
    (d / "window.json").write_text(json.dumps(
        {"git_commit": commit, "experiment": "window", "config": {}, **extra}))
    return d


def test_status_is_current_at_head_and_stale_at_a_commit_before_its_code(tmp_path):
    head = _git("rev-parse", "HEAD")
    [fig] = committed_figures(_figure_dir(tmp_path, head))
    assert status(fig).state == "current"
    root = _git("rev-list", "--max-parents=0", "HEAD").splitlines()[0]
    [fig] = committed_figures(_figure_dir(tmp_path, root))
    stale = status(fig)
    assert stale.state == "code changed" and "experiments/vista/window.py" in stale.changed
    [fig] = committed_figures(_figure_dir(tmp_path, "0" * 40))
    assert status(fig).state == "unknown commit"
    [fig] = committed_figures(_figure_dir(tmp_path, head, git_dirty=True))
    assert status(fig).state == "dirty"


def test_listing_and_check_exit_status(tmp_path, capsys):
    root = _git("rev-list", "--max-parents=0", "HEAD").splitlines()[0]
    d = _figure_dir(tmp_path, root)
    assert cli.main(["figures", "--dir", str(d)]) == 0
    out = capsys.readouterr().out
    assert "window" in out and "code changed" in out and "0 of 1 current" in out
    assert cli.main(["figures", "--dir", str(d), "--check"]) == 1
    capsys.readouterr()
    assert cli.main(["figures", "--dir", str(d), "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["state"] == "code changed" and row["commit"] == root


@pytest.mark.parametrize("argv", [["--cache", "figures/calibration_answers.jsonl.gz"],
                                  ["--cache=figures/calibration_answers.jsonl.gz"]])
def test_a_stale_real_model_figure_fails_check_only_when_its_answers_ship(tmp_path,
                                                                         capsys, argv):
    # without its answers a real-model figure needs the model to redo (listed, not
    # failed); with its answer file in the checkout it replays, so --check counts it
    root = _git("rev-list", "--max-parents=0", "HEAD").splitlines()[0]
    d = tmp_path / "figs"
    d.mkdir()
    (d / "calibration.png").write_bytes(b"")
    record = {"git_commit": root, "experiment": "calibrate", "config": {}}
    (d / "calibration.json").write_text(json.dumps({**record, "argv": ["--quick"]}))
    [fig] = committed_figures(d)
    assert fig.real_model and fig.answers is None
    assert cli.main(["figures", "--dir", str(d), "--check"]) == 0
    said = capsys.readouterr()
    assert "[real model]" in said.out
    assert "not counted (stale, but redoing them needs the real model" in said.err
    assert said.err.rstrip().endswith(": calibration")
    (d / "calibration.json").write_text(json.dumps({**record, "argv": argv}))
    [fig] = committed_figures(d)
    assert fig.answers == "figures/calibration_answers.jsonl.gz"
    assert cli.main(["figures", "--dir", str(d), "--check"]) == 1
    said = capsys.readouterr()
    assert "answers in figures/calibration_answers.jsonl.gz]" in said.out
    assert "--check: not current: calibration" in said.err
    # a named file that is not in the checkout is no answer file
    (d / "calibration.json").write_text(json.dumps(
        {**record, "argv": ["--cache", "figures/no_such_answers.jsonl.gz"]}))
    [fig] = committed_figures(d)
    assert fig.answers is None


def test_verify_reruns_from_the_sidecar_and_names_the_first_difference(tmp_path, capsys):
    out = tmp_path / "figs"
    assert cli.main(["run", "window", *SMALL, "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["figures", "--dir", str(out), "--verify", "window"]) == 0
    assert "identical" in capsys.readouterr().out
    csv = out / "window.csv"
    lines = csv.read_text().splitlines()
    lines[1] = lines[1].replace(",", ";", 1)
    csv.write_text("\n".join(lines) + "\n")
    assert cli.main(["figures", "--dir", str(out), "--verify", "window"]) == 1
    out = capsys.readouterr().out
    assert "window.csv: line 2, column (all: 16 cells committed, 17 in the rerun)" in out
    assert "window.csv: 1 cell(s) in 1 line(s) beyond tolerance" in out


def test_verify_fails_when_the_rerun_does_not_write_the_figures_own_csv(tmp_path,
                                                                         capsys):
    """A figure whose command writes other CSVs of the directory (here a copy of
    window under another name) was reported identical without its own CSV read."""
    out = tmp_path / "figs"
    assert cli.main(["run", "window", *SMALL, "--out", str(out)]) == 0
    for suffix in (".png", ".json", ".csv"):
        (out / f"copy{suffix}").write_bytes((out / f"window{suffix}").read_bytes())
    capsys.readouterr()
    assert cli.main(["figures", "--dir", str(out), "--verify", "copy"]) == 1
    said = capsys.readouterr().out
    assert "copy.csv: committed, but the rerun did not write it (it wrote [" in said
    assert "'window.csv'" in said and "identical" not in said


@pytest.mark.parametrize("name, message", [
    ("nosuch", "no figure 'nosuch'"),
    ("window", "names no command"),
])
def test_verify_refuses_what_it_cannot_rerun(tmp_path, capsys, name, message):
    d = _figure_dir(tmp_path, "0" * 40)   # a sidecar without argv (an old one)
    assert cli.main(["figures", "--dir", str(d), "--verify", name]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_figures_made_by_other_commands_have_their_makers_and_closures():
    from experiments import figures_cli as F

    assert F.experiment_of("robustness", None) == "claims --robustness"
    assert F.experiment_of("calibration", {}) == "calibrate"
    deps = F.dependencies("claims --robustness")
    assert any(d.startswith("experiments/claims/robustness/") for d in deps)
    assert "experiments/sweep.py" in deps   # it plays the sweeps at every world point
    for name in ("posterior", "predictive"):   # one run writes both
        assert F.experiment_of(name, None) == "claims --posterior"
    deps = F.dependencies("claims --posterior")
    assert "experiments/claims/posterior/fit.py" in deps
    assert "experiments/claims/posterior/screen.py" in deps


def test_a_sweep_with_a_calibrated_row_is_stale_when_the_calibration_changes(
        tmp_path, monkeypatch):
    # pressure and ablations run --calibrated-row: the calibration they read is an
    # input like their code (a new calibration moves their PROGRAM@calibrated rows)
    import experiments.figures_cli as F

    # the inputs alone (a path that no commit has, so no code change shows)
    monkeypatch.setattr(F, "dependencies", lambda experiment: ["no/such/file"])
    last = _git("log", "-1", "--format=%H", "--", "figures/calibration.json")
    before = _git("rev-parse", f"{last}~1")
    cal = {"calibration": {"values": {"agent.p_index": 0.2}, "notes": []}}
    [fig] = committed_figures(_figure_dir(tmp_path, before, config=cal))
    assert fig.inputs == ["figures/calibration.json"]
    stale = status(fig)
    assert stale.state == "code changed" and stale.changed == ("figures/calibration.json",)
    [fig] = committed_figures(_figure_dir(tmp_path, last, config=cal))
    assert status(fig).state == "current"
    # without the calibration in its config the same figure read none
    [fig] = committed_figures(_figure_dir(tmp_path, before, config={}))
    assert fig.inputs == [] and status(fig).state == "current"
    # --profile FILE outside the checkout: no history to compare, not an input
    outside = {"calibration": {"values": {}, "path": str(tmp_path / "mine.json")}}
    [fig] = committed_figures(_figure_dir(tmp_path, before, config=outside))
    assert fig.inputs == []
    posterior = {"posterior": {"values": {}, "notes": []}}
    [fig] = committed_figures(_figure_dir(tmp_path, before, config=posterior))
    assert fig.inputs == ["figures/posterior.json"]
