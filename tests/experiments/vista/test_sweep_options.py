"""Option validation of the sweep commands (``ctxsim run pressure|window|ablations|cost|
overhead``): bad values stop in argparse naming the option and the value; explicit
options win over ``--quick``; ``--help`` documents units and defaults."""

from __future__ import annotations

import argparse
import tempfile

import pytest

from experiments.vista import ablations, cost, overhead, pressure, window
from experiments.cli import main
from experiments.config import load_config


def _parse(module, argv):
    p = argparse.ArgumentParser()
    module.add_arguments(p)
    return p.parse_args(argv)


BAD = [
    ("pressure", ["--programs", "nosuch"], "--programs", "nosuch"),
    ("pressure", ["--quick", "--programs", "react", "nosuch"], "--programs", "nosuch"),
    ("pressure", ["--budget", "-10"], "--budget", "-10"),
    ("pressure", ["--budget", "0"], "--budget", "0"),
    ("pressure", ["--families", "0"], "--families", "0"),
    ("pressure", ["--families", "99"], "--families", "99"),
    ("pressure", ["--seeds", "0"], "--seeds", "0"),
    ("pressure", ["--quick", "--levels", "-5000"], "--levels", "-5000"),
    ("pressure", ["--levels", "500"], "--levels", "500"),
    ("pressure", ["--levels", "lots"], "--levels", "lots"),
    ("pressure", ["--jobs", "0"], "--jobs", "0"),
    ("pressure", ["--jobs", "-1"], "--jobs", "-1"),
    ("pressure", ["--profile", "nosuch"], "--profile", "nosuch"),
    ("pressure", ["--seed", "-1"], "--seed", "-1"),
    ("pressure", ["--llm-families", "0"], "--llm-families", "0"),
    ("pressure", ["--llm-budgets", "-5"], "--llm-budgets", "-5"),
    ("window", ["--queries", "0"], "--queries", "0"),
    ("window", ["--queries", "-3"], "--queries", "-3"),
    ("window", ["--windows", "-4000"], "--windows", "-4000"),
    ("window", ["--seeds", "0"], "--seeds", "0"),
    ("window", ["--programs", "nosuch"], "--programs", "nosuch"),
    ("ablations", ["--growth", "10"], "--growth", "10"),
    ("ablations", ["--families", "16"], "--families", "16"),
    ("ablations", ["--budget", "-1"], "--budget", "-1"),
    ("cost", ["--programs", "nosuch"], "--programs", "nosuch"),
    ("cost", ["--seeds", "-2"], "--seeds", "-2"),
    ("cost", ["--jobs", "0"], "--jobs", "0"),
    ("overhead", ["--max-blocks", "0"], "--max-blocks", "0"),
    ("overhead", ["--max-blocks", "-1"], "--max-blocks", "-1"),
    ("overhead", ["--budget", "-100"], "--budget", "-100"),
]


@pytest.mark.parametrize("command,argv,option,value", BAD,
                         ids=[f"{c}{' '.join(a)}" for c, a, _, _ in BAD])
def test_bad_values_are_argparse_errors_naming_option_and_value(
        command, argv, option, value, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", command, "--out", str(tmp_path), "--no-progress"
              if command != "overhead" else "--quick", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and value in err
    assert not (tmp_path / f"{command}.csv").exists()


def test_unknown_program_error_lists_the_valid_names(capsys):
    with pytest.raises(SystemExit):
        _parse(pressure, ["--programs", "nosuch"])
    err = capsys.readouterr().err
    assert "vista" in err and "react" in err and "summarization" in err


def test_pressure_explicit_flags_win_over_quick():
    cfg = pressure.SETTINGS.from_args(_parse(pressure, [
        "--quick", "--levels", "16000", "32000", "--families", "3", "--seeds", "2",
        "--programs", "react", "skeleton", "--budget", "20000"])).record()
    assert cfg["levels"] == [16000, 32000] and cfg["families"] == 3
    assert cfg["seeds"] == 2 and cfg["programs"] == ["react", "skeleton"]
    assert cfg["budget"] == 20000


def test_pressure_quick_fills_only_unset_options():
    cfg = pressure.SETTINGS.from_args(_parse(pressure, ["--quick", "--families", "2"])).record()
    assert cfg["families"] == 2
    assert cfg["levels"] == load_config("pressure", "quick")["levels"] and cfg["seeds"] == 1
    assert cfg["programs"] == load_config("pressure", "quick")["programs"] and cfg["budget"] == 128_000
    full = pressure.SETTINGS.from_args(_parse(pressure, [])).record()
    assert full["levels"] == [8000, 16000, 32000, 64000, 128000, 256000]
    assert (full["families"], full["seeds"], full["budget"]) == (15, 5, 128_000)


def test_window_ablations_cost_explicit_flags_win_over_quick():
    w = window.SETTINGS.from_args(_parse(window, ["--quick", "--windows", "8000", "--queries", "5"])).record()
    assert w["windows"] == [8000] and w["queries"] == 5
    w = window.SETTINGS.from_args(_parse(window, ["--quick", "--seeds", "2"])).record()
    assert w["windows"] == load_config("window", "quick")["windows"] and w["queries"] == 16 and w["seeds"] == 2
    a = ablations.SETTINGS.from_args(_parse(ablations, ["--quick", "--families", "4", "--seeds", "2"])).record()
    assert (a["families"], a["seeds"]) == (4, 2)
    assert a["programs"] == load_config("ablations", "quick")["programs"]
    c = cost.SETTINGS.from_args(_parse(cost, ["--quick", "--growth", "64000", "--programs", "masking"])).record()
    assert c["growth"] == 64000 and c["programs"] == ["masking"] and c["families"] == 6


def test_pressure_quick_sidecar_records_explicit_flags(tmp_path):
    import json

    assert main(["run", "pressure", "--quick", "--out", str(tmp_path), "--no-progress",
                 "--levels", "16000", "--families", "2", "--seeds", "1",
                 "--programs", "react", "vista", "--budget", "8000"]) == 0
    side = json.loads((tmp_path / "pressure.json").read_text())["config"]
    assert side["levels"] == [16000] and side["families"] == 2
    assert side["programs"] == ["react", "vista"] and side["budget"] == 8000


def test_overhead_explicit_max_blocks_wins_and_quick_default():
    assert _parse(overhead, ["--quick", "--max-blocks", "7"]).max_blocks == 7


def test_overhead_leaves_no_workspace_dirs(tmp_path, monkeypatch):
    from sim.tasks.trajectory_tasks import trajectory_files

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    overhead.trace(trajectory_files()[0], 12_288, max_blocks=5)
    overhead.trace(trajectory_files()[0], None, max_blocks=5)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("module,options", [
    (pressure, ("--levels", "--programs", "--budget", "--families", "--seeds")),
    (window, ("--windows", "--queries", "--programs", "--seeds")),
    (ablations, ("--growth", "--budget", "--families", "--seeds")),
    (cost, ("--growth", "--programs", "--budget", "--families", "--seeds")),
    (overhead, ("--budget", "--max-blocks")),
])
def test_every_option_has_help_with_default(module, options):
    p = argparse.ArgumentParser()
    module.add_arguments(p)
    for action in p._actions:
        if action.option_strings and action.dest != "help":
            assert action.help, action.option_strings
    by_flag = {a.option_strings[0]: a for a in p._actions if a.option_strings}
    for opt in options:
        assert "default" in by_flag[opt].help, opt
    text = p.format_help()
    assert "tokens" in text
    if "--seed" in by_flag and "--seeds" in by_flag:
        assert "base random seed" in by_flag["--seed"].help
        assert "--seeds" in by_flag["--seed"].help
