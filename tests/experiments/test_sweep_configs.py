"""Every experiment with a grid reads it from ``experiments/configs/NAME.toml`` through
:func:`experiments.config.load_config`, with ``--config FILE`` over it (issue 24)."""

from __future__ import annotations

import argparse
import csv
import importlib.resources
import inspect
import json
import tomllib

import pytest

from experiments.cli import main
from experiments.config import SCHEMAS, ConfigValueError, load_config, validate
from experiments.contextevo import experiment as contextevo
from experiments.contextevo import setup as contextevo_setup
from experiments.evoharness import experiment as evoharness
from experiments.vista import ablations, cost, pressure, window

SWEEPS = {"pressure": pressure, "window": window, "ablations": ablations, "cost": cost}
CONFIGS = importlib.resources.files("experiments").joinpath("configs")


def _shipped():
    for path in sorted(CONFIGS.iterdir(), key=lambda p: p.name):
        if path.name.endswith(".toml"):
            name = path.name.removesuffix(".toml")
            for section in tomllib.loads(path.read_text()):
                yield name, section


def _parse(add_arguments, argv):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


@pytest.mark.parametrize("name, section", list(_shipped()))
def test_every_shipped_table_validates_against_a_schema(name, section):
    assert name in SCHEMAS  # a grid without a schema would pass unchecked
    cfg = load_config(name, section)
    assert validate(name, cfg) is cfg
    # a table may only override keys [default] has (load_config's typo guard)
    assert set(cfg) == set(load_config(name))


def test_shipped_defaults_agree_with_the_task_generators():
    from sim.policies import MAIN_PROGRAMS
    from sim.tasks.browse import WINDOWS
    from sim.tasks.loca import FAMILIES, GROWTH_LEVELS, SEEDS_PER_FAMILY

    p = pressure.SETTINGS.table()
    assert p["levels"] == list(GROWTH_LEVELS)
    assert p["programs"] == list(MAIN_PROGRAMS) + ["vista_bounded_ledger"]
    for d in (p, ablations.SETTINGS.table(), cost.SETTINGS.table()):
        assert (d["families"], d["seeds"]) == (len(FAMILIES), SEEDS_PER_FAMILY)
    assert window.SETTINGS.table()["windows"] == list(WINDOWS)
    assert ablations.SETTINGS.table()["programs"] == list(ablations.VARIANTS)
    assert cost.SETTINGS.table()["programs"] == list(MAIN_PROGRAMS)
    # contextevo's [default] is the loop's own default task sets
    from sim.evolve.contextevo.loop import browse_taskset, loca_taskset

    ce = load_config("contextevo")
    loca = inspect.signature(loca_taskset).parameters
    browse = inspect.signature(browse_taskset).parameters
    assert (ce["loca_growth"], ce["loca_budget"], ce["families"], ce["seeds"]) == tuple(
        loca[k].default for k in ("growth", "budget", "families", "seeds"))
    assert (ce["browse_window"], ce["queries"], ce["browse_seeds"]) == tuple(
        browse[k].default for k in ("window", "queries", "seeds"))


BAD = [
    ("pressure", "levels = [500]", "'levels'.*item 0 is 500.*in 1,000..10,000,000"),
    # sizes are bounded as on the command line (MAX_TOKENS, MAX_BLOCKS)
    ("pressure", "levels = [8000, 10_000_001]", "'levels'.*item 1 is 10000001.*in "
     "1,000..10,000,000"),
    ("pressure", "budget = 10_000_001", "'budget'.*got 10000001.*in 1..10,000,000"),
    ("ablations", "growth = 10_000_001", "'growth'.*got 10000001"),
    ("window", "windows = [10_000_001]", "'windows'.*item 0 is 10000001"),
    ("contextevo", "browse_window = 10_000_001", "'browse_window'.*got 10000001"),
    ("evoharness", "long_growth = 10_000_001", "'long_growth'.*got 10000001"),
    ("robustness", "windows = [4000, 10_000_001]", "'windows'.*item 1 is 10000001"),
    ("sorted_window", "n = 1_000_001", "'n'.*got 1000001.*in 1..1,000,000"),
    ("pressure", "families = 16", "'families'.*got 16.*in 1..15"),
    ("pressure", "programs = [\"nosuch\"]", "'programs'.*'nosuch'.*context program"),
    ("window", "windows = []", "'windows'.*empty"),
    ("window", "queries = 2.5", "'queries'.*got 2.5"),
    ("ablations", "growth = 999", "'growth'.*got 999"),
    ("cost", "budget = 0", "'budget'.*got 0"),
    ("cost", "seeds = true", "'seeds'.*got True"),
    ("contextevo", "loca_budget = -1", "'loca_budget'.*got -1"),
    ("evoharness", "profiles = [\"genius\"]", "'profiles'.*'genius'.*solver profile"),
    ("evoharness", "program = \"nosuch\"", "'program'.*'nosuch'"),
    ("evoharness", "b = -1", "'b'.*got -1"),
    ("sorted_window", "rhos = [0.5, 1.5]", "'rhos'.*item 1 is 1.5.*in \\(0, 1\\]"),
    ("sorted_window", "windows = [-1]", "'windows'.*item 0 is -1"),
    ("robustness", "samples = 12", "'samples'.*got 12.*power of two"),
    ("robustness", "tasks = 0", "'tasks'.*got 0"),
    ("proposition1", "c0 = 0.5", "'c0'.*got 0.5.*>= 1"),
    ("calibrate", "index = 0", "'index'.*got 0"),
    ("calibrate", "lengths = [10]", "'lengths'.*item 0 is 10"),
    ("calibrate", "needle_at = -5", "'needle_at'.*got -5"),
    ("calibrate", "cap = 50", "'cap'.*got 50"),
]


@pytest.mark.parametrize("name, text, match", BAD)
def test_a_bad_value_is_refused_naming_the_key(tmp_path, name, text, match):
    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigValueError, match=match):
        load_config(name, "quick", path)


@pytest.mark.parametrize("name, text", [
    ("pressure", "levels = [1_000, 10_000_000]\nbudget = 10_000_000"),
    ("cost", "growth = 10_000_000\nbudget = 1"),
    ("window", "windows = [1, 10_000_000]"),
    ("contextevo", "loca_growth = 10_000_000\nbrowse_window = 10_000_000"),
    ("evoharness", "long_growth = 10_000_000\nlong_budget = 10_000_000"),
    ("sorted_window", "n = 1_000_000\nwindows = [0, 1_000_000]"),
])
def test_sizes_at_the_bound_are_taken(tmp_path, name, text):
    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    grid = load_config(name, "quick", path)
    for key, value in tomllib.loads(text).items():   # taken as written, not refused
        assert grid[key] == value, key


@pytest.mark.parametrize("name", ["pressure", "window", "ablations", "cost", "contextevo",
                                  "evoharness", "sorted_window", "proposition1",
                                  "calibrate"])
def test_cli_refuses_an_unknown_key_in_one_line(tmp_path, capsys, name):
    path = tmp_path / "c.toml"
    path.write_text("famlies = 3\n")
    out = tmp_path / "out"
    assert main(["run", name, "--quick", "--config", str(path), "--out", str(out),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "unknown key(s) ['famlies']" in err[0], err
    assert not out.exists()


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_config_file_overrides_one_key_and_options_win_over_it(tmp_path, name):
    mod = SWEEPS[name]
    path = tmp_path / "c.toml"
    path.write_text("[quick]\nseeds = 3\n")
    cfg = mod.SETTINGS.from_args(_parse(mod.add_arguments, ["--quick", "--config", str(path)])).record()
    quick = load_config(name, "quick")
    assert cfg["seeds"] == 3 != quick["seeds"]
    assert {k: cfg[k] for k in quick if k != "seeds"} == {
        k: v for k, v in quick.items() if k != "seeds"}
    cfg = mod.SETTINGS.from_args(_parse(mod.add_arguments, ["--quick", "--config", str(path),
                                                "--seeds", "2"])).record()
    assert cfg["seeds"] == 2


def test_pressure_run_uses_the_config_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("levels = [8_000]\nfamilies = 2\nprograms = [\"react\", \"vista\"]\n")
    out = tmp_path / "out"
    assert main(["run", "pressure", "--quick", "--config", str(path), "--out", str(out),
                 "--no-progress"]) == 0
    with open(out / "pressure.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert sorted(r["program"] for r in rows) == ["react", "vista"]
    assert {r["level"] for r in rows} == {"8000"}
    assert {r["n"] for r in rows} == {"2"}  # 2 families x 1 seed ([quick])
    side = json.loads((out / "pressure.json").read_text())
    assert side["config"]["families"] == 2 and side["config"]["levels"] == [8000]


def _contextevo_args(argv):
    return contextevo_setup.settings_of(_parse(contextevo.add_arguments, argv))


def test_contextevo_task_sets_follow_the_tables_and_the_file(tmp_path):
    quick = contextevo_setup.tasksets(_contextevo_args(["--quick"]))
    assert [len(ts.tasks) for ts in quick] == [15 * 2, 15 * 1]
    llm = contextevo_setup.tasksets(_contextevo_args(["--quick", "--backend", "llm"]))
    assert [(ts.name, ts.budget, len(ts.tasks)) for ts in llm] == [("loca8k", 6_000, 15)]
    path = tmp_path / "c.toml"
    path.write_text("queries = 4\n")
    sets = contextevo_setup.tasksets(_contextevo_args(["--quick", "--config", str(path)]))
    assert [len(ts.tasks) for ts in sets] == [15 * 2, 4 * 1]


def test_evoharness_grid_follows_the_file_and_options_win(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("seeds = 3\nprofiles = [\"weak\"]\n")
    args = _parse(evoharness.add_arguments, ["--quick", "--config", str(path)])
    cfg = evoharness.SETTINGS.from_args(args)
    assert (cfg.seeds, cfg.profiles, cfg.long_seeds) == (3, ("weak",), 2)
    args = _parse(evoharness.add_arguments, ["--config", str(path), "--reps", "1"])
    cfg = evoharness.SETTINGS.from_args(args)
    assert (cfg.seeds, cfg.reps, cfg.long_seeds, cfg.quick) == (3, 1, 4, False)
    quick = argparse.Namespace(quick=True)
    assert evoharness.SETTINGS.from_args(quick) == evoharness.SETTINGS.from_args(
        argparse.Namespace(quick=True, config=None))


def test_robustness_design_comes_from_its_config(tmp_path, capsys):
    """``claims --robustness --config`` reads the design from the file (and refuses an
    unknown key in one line, before any work)."""
    from experiments.claims.robustness.run import config as robustness_config
    from experiments.claims.robustness.run import add_arguments as robustness_arguments

    path = tmp_path / "c.toml"
    path.write_text("tasks = 3\nwindows = [8_000]\n")
    args = _parse(robustness_arguments, ["--robustness", "--quick", "--config", str(path)])
    for k in ("jobs", "scheduler", "seed", "claims", "params"):
        args.__dict__.setdefault(k, None)
    args.jobs = 1
    cfg = robustness_config(args)
    # the file's keys, then --quick's (no Sobol' stage, 2 Morris trajectories)
    assert (cfg.tasks, cfg.windows, cfg.samples, cfg.trajectories) == (3, (8_000,), 0, 2)
    path.write_text("famlies = 3\n")
    assert main(["claims", "--robustness", "--config", str(path), "--out",
                 str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "unknown key(s) ['famlies']" in err[0], err


def test_calibrate_sizes_follow_the_tables_the_file_and_size_options(tmp_path):
    """``ctxsim run calibrate``: the table, then ``--config``'s keys, then ``--size``."""
    from experiments import calibrate

    def sizes(argv):
        return calibrate.sizes(_parse(calibrate.add_arguments, argv))

    for argv, section in (([], "default"), (["--quick"], "quick")):
        table = load_config("calibrate", section)
        assert sizes(argv) == {k: tuple(v) if isinstance(v, list) else v
                               for k, v in table.items()}
    path = tmp_path / "c.toml"
    path.write_text("[quick]\nindex = 5\nlengths = [300, 900]\n")
    got = sizes(["--quick", "--config", str(path)])
    assert (got["index"], got["lengths"]) == (5, (300, 900))
    assert got["confabulate"] == load_config("calibrate", "quick")["confabulate"]
    got = sizes(["--quick", "--config", str(path), "--size", "index=2", "trials=4"])
    assert (got["index"], got["trials"], got["lengths"]) == (2, 4, (300, 900))


def test_proposition1_run_uses_the_config_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[quick]\nbudget_trials = 100\nsep_max = 12\n")
    out = tmp_path / "out"
    assert main(["run", "proposition1", "--quick", "--config", str(path), "--out",
                 str(out), "--no-progress"]) == 0
    side = json.loads((out / "proposition1.json").read_text())
    assert (side["config"]["budget_trials"], side["config"]["sep_max"]) == (100, 12)
    with open(out / "proposition1.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    sep = {int(r["N"]) for r in rows if r["panel"] == "separation"}
    assert max(sep) == 2**12
    sim = [r for r in rows if r["panel"] == "budget" and r["source"] == "simulated"
           and r["strategy"] != "linear_hash"]
    assert sim and {r["trials"] for r in sim} == {"100"}


@pytest.mark.parametrize("text, match", [
    ("sep_sim_max = 30", "'sep_max'.*got 20.*at least sep_sim_max = 30"),
    ("fixed_sim_max = 25.0", "'fixed_sim_max'.*got 25.0.*at most fixed_max = 20"),
    ("budget_N = 1", "'budget_N'.*N = 1, .*N must be >= 2, got 1"),
    ("fixed_B = 1", "'fixed_B'.*fixed-budget point N = 1 .*N must be >= 2"),
    ("fixed_k = 100000", "'fixed_k'.*fixed-budget point N = 1 "),
    ("sep_min = 1\nsep_sim_max = 1", "'sep_min'.*separation point N = 2\\^2 .*B must be < N\\*k"),
    # every point is a game, but the threshold N* needs B > k (was rc 1 after the grid)
    ("fixed_B = 1\nfixed_k = 1", "'fixed_k', 'fixed_B'.*fixed_k = 1 is not below "
     "fixed_B = 1"),
])
def test_proposition1_refuses_a_grid_point_that_is_no_game(tmp_path, capsys, text, match):
    """A grid whose panel reaches a point outside T(N, k, B) is a usage error (exit 2,
    one line naming the keys) before anything is computed."""
    import re

    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    out = tmp_path / "out"
    assert main(["run", "proposition1", "--quick", "--config", str(path), "--out",
                 str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and re.search(match, err[0]), err
    assert not out.exists()


def test_proposition1_shipped_grids_are_games():
    """Both shipped grids pass the check, and the same grids with one point moved off
    the game fail it (so the check can fail)."""
    from experiments.vista.proposition1 import check_grid, fixed_budget_grid

    for section in ("default", "quick"):
        cfg = load_config("proposition1", section)
        assert check_grid(cfg) is None and len(fixed_budget_grid(
            cfg["fixed_B"], cfg["fixed_k"], cfg["fixed_max"], cfg["c0"])) > 2
        with pytest.raises(ConfigValueError, match="'fixed_B'.*N = 1 "):
            check_grid({**cfg, "fixed_B": 1})
        with pytest.raises(ConfigValueError, match="'budget_N'.*N = 1, "):
            check_grid({**cfg, "budget_N": 1})
    # the smallest fixed budget above k passes
    assert check_grid({**load_config("proposition1", "quick"), "fixed_B": 2,
                       "fixed_k": 1}) is None


@pytest.mark.parametrize("argv, match", [
    (["--size", "cap=50"], "'cap' in --size: got 50"),
    (["--size", "index=0"], "'index' in --size: got 0 \\(int\\); expected an integer >= 1"),
    (["--size", "trials=-1"], "'trials' in --size: got -1"),
    (["--size", "index=99999999999999999999999"], "'index' in --size: got 9+.*below 2\\*\\*62"),
    (["--n-ctx", "16k"], "'lengths'.*16,000 cl100k tokens needs about 25,760 .*--n-ctx 16,000"),
])
def test_calibrate_refuses_bad_sizes_before_any_model_starts(tmp_path, capsys, monkeypatch,
                                                             argv, match):
    import re

    import experiments.answers as answers

    def no_model(args):
        raise AssertionError("the model server was started")

    monkeypatch.setattr(answers, "_endpoint", no_model)
    out = tmp_path / "out"
    assert main(["run", "calibrate", *argv, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and re.search(match, err[0]), err
    assert not out.exists()


def test_calibrate_context_window_check_is_exact_at_the_edge():
    from experiments.calibrate import check_context_window
    from experiments.config import ConfigValueError

    size = {"lengths": (250, 1000)}          # 1000 * 1.6 + 160 = 1760 model tokens
    check_context_window(size, 1760)
    with pytest.raises(ConfigValueError, match="needs about 1,760"):
        check_context_window(size, 1759)


def test_sorted_window_kappa_is_what_the_two_point_game_takes(tmp_path, capsys):
    """Panel (b)'s two-point game needs kappa >= 2: kappa = 1 is refused before any
    work (was rc 1 from the game), kappa = 2 is taken."""
    path = tmp_path / "c.toml"
    path.write_text("kappa = 1\n")
    out = tmp_path / "out"
    assert main(["run", "sorted_window", "--quick", "--config", str(path), "--out",
                 str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "config key 'kappa'" in err[0] and "got 1 " in err[0]
    assert not out.exists()
    path.write_text("kappa = 2\n")
    assert load_config("sorted_window", "quick", path)["kappa"] == 2
