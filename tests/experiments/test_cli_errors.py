"""Every ``ctxsim`` command reports errors the same way (issue 24, item 4): one line,
the debug hint on it; 2 for usage errors and impossible inputs, 1 for failures, 3 for
an over-budget replay; the same bad value worded the same by every command."""

from __future__ import annotations

import pytest

from experiments.cli import EXPERIMENTS, build_parser, main

TRAJ = "sim/data/trajectories/sweagent_marshmallow-1867.traj"


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_experiment_takes_no_progress(name):
    argv = ["run", name, "--no-progress"]
    assert build_parser(argv).parse_args(argv).no_progress is True


def test_an_unknown_option_shows_the_commands_own_usage(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["run", "sorted_window", "--bogus"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ctxsim run sorted_window")
    assert err.strip().endswith("ctxsim run sorted_window: error: unrecognized "
                                "arguments: --bogus")


def _usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_a_bad_budget_is_worded_the_same_by_replay_and_pressure(capsys):
    replay = _usage_error(["workspace", "replay", TRAJ, "--budget", "-5"], capsys)
    pressure = _usage_error(["run", "pressure", "--budget", "-5"], capsys)
    assert replay.split(": error: ")[1] == pressure.split(": error: ")[1] == \
        "argument --budget: expected an integer >= 1, got '-5'"


def test_an_unknown_start_program_is_a_usage_error(capsys):
    line = _usage_error(["run", "contextevo", "--start", "nosuch"], capsys)
    assert "argument --start: invalid choice: 'nosuch'" in line


def test_a_sweep_budget_below_the_overhead_exits_2_in_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "pressure", "--quick", "--budget", "100", "--no-progress",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ctxsim run pressure: error: budget for program")
    assert "\n" not in err and "CTXSIM_DEBUG" not in err
    assert not out.exists()


def test_replay_below_overhead_plus_pinned_blocks_exits_2(tmp_path, capsys):
    assert main(["workspace", "replay", TRAJ, "--budget", "600",
                 "--dir", str(tmp_path / "ws")]) == 2
    err = capsys.readouterr().err.strip()
    assert "budget 600 tokens is impossible" in err and "pinned blocks" in err


def test_replay_hint_does_not_suggest_the_policy_in_use(tmp_path, capsys):
    assert main(["workspace", "replay", TRAJ, "--budget", "2000", "--policy",
                 "archive-oldest", "--dir", str(tmp_path / "a")]) == 3
    err = capsys.readouterr().err.strip()
    assert "over the budget" in err and "--policy archive-oldest" not in err
    assert main(["workspace", "replay", TRAJ, "--budget", "2000",
                 "--dir", str(tmp_path / "b")]) == 3
    assert "try --policy archive-oldest" in capsys.readouterr().err


def test_a_failure_is_one_line_with_the_hint_on_it(monkeypatch, capsys):
    import experiments.figures_cli as figures

    def boom(args):
        raise RuntimeError("disk\nfull")

    monkeypatch.setattr(figures, "main", boom)
    assert main(["figures"]) == 1
    err = capsys.readouterr().err
    assert err == ("ctxsim figures: error: RuntimeError: disk full "
                   "(CTXSIM_DEBUG=1 shows the traceback)\n")


def _exit_2_line(argv, capsys) -> str:
    """The one stderr line of a command that stops with exit 2, whether argparse
    (SystemExit) or :class:`~experiments.arguments.UsageError` stopped it."""
    try:
        status = main(argv)
    except SystemExit as stop:
        status = stop.code
    assert status == 2, argv
    err = capsys.readouterr().err.strip()
    line = err.splitlines()[-1]
    assert ": error: " in line and "CTXSIM_DEBUG" not in line and "Errno" not in line
    return line


@pytest.mark.parametrize("argv, named", [
    (["--figures", "/nonexistent/figs"], "'/nonexistent/figs' is not a directory"),
    (["--figures", "pyproject.toml"], "'pyproject.toml' is not a directory"),
    (["--out", "/proc/nope"], "--out '/proc/nope' cannot be created"),
    (["--samples", "8"], "--samples only apply with --robustness"),
    (["--robustness", "--claims", "NOPE"], "--claims NOPE: not agent-level claims"),
    (["--robustness", "--params", "agent.nope"], "--params agent.nope: not world"),
    (["--robustness", "--samples", "1"], "'1' is not a power of two >= 2"),
])
def test_claims_usage_errors_exit_2_naming_the_value(argv, named, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    assert named in _exit_2_line(["claims", *argv], capsys)


@pytest.mark.parametrize("argv, named", [
    (["--mislabel", "2"], "argument --mislabel: expected a finite number in [0, 1], got '2'"),
    (["--mislabel", "nan"], "got 'nan'"),
    (["--held-in-fraction", "0"], "argument --held-in-fraction: expected a finite "
                                  "number in (0, 1), got '0'"),
    (["--held-in-fraction", "1.5"], "got '1.5'"),
    (["--held-in-fraction", "0.999"], "--held-in-fraction 0.999 cannot split"),
])
def test_contextevo_usage_errors_exit_2_naming_the_value(argv, named, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    assert named in _exit_2_line(["run", "contextevo", "--quick", *argv], capsys)


def test_contextevo_start_and_spec_together_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    spec = tmp_path / "s.json"
    spec.write_text("{}")
    line = _exit_2_line(["run", "contextevo", "--start", "react", "--spec", str(spec),
                         "--out", str(tmp_path / "out")], capsys)
    assert "--start 'react' both name the start" in line
    assert not (tmp_path / "out").exists()


def test_evoharness_unknown_program_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    line = _exit_2_line(["run", "evoharness", "--program", "bogus",
                         "--out", str(tmp_path / "out")], capsys)
    assert "unknown --program 'bogus'" in line


@pytest.mark.parametrize("argv, named", [
    (["--rhos", "0"], "argument --rhos: expected a finite number in (0, 1], got '0'"),
    (["--rhos", "0.5", "1.5"], "got '1.5'"),
    (["--rhos", "nan"], "got 'nan'"),
    (["--sigma", "-1"], "argument --sigma: expected a finite number >= 0, got '-1'"),
    (["--sigma", "nan"], "got 'nan'"),
    (["--sigma", "inf"], "got 'inf'"),
    (["--n", "1"], "--n 1: expected at least 17 blocks"),
])
def test_sorted_window_usage_errors_name_the_option(argv, named, tmp_path, capsys,
                                                    monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    line = _exit_2_line(["run", "sorted_window", *argv, "--out", str(tmp_path / "o")],
                        capsys)
    assert named in line
    assert "kappa" not in line and "sd=" not in line


@pytest.mark.parametrize("argv, named", [
    (["--jobs", "2", "--scheduler", "X"], "--jobs 2 and --scheduler 'X'"),
    (["--profile", "weak", "--world", "agent.p_index=0.3"], "--profile weak and --world"),
])
def test_sweep_conflicting_options_exit_2(argv, named, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    line = _exit_2_line(["run", "pressure", "--quick", *argv,
                         "--out", str(tmp_path / "o")], capsys)
    assert named in line
    assert not (tmp_path / "o").exists()


def test_claims_warns_when_figures_holds_no_csv(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["claims", "--figures", str(empty), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert f"no CSV found in --figures {str(empty)!r}" in out
