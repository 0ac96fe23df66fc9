"""Each experiment setting followed from its declaration to its use (issue 36): the
settings class (:mod:`experiments.settings`) is the one source of every default, and
its fields are exactly the experiment's TOML keys and command-line options; the
shipped TOML files are the classes' text; ``--budget`` reaches the episode as one
typed value."""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import pickle
import re
import tomllib

import pytest

from experiments.cli import EXPERIMENTS, build_parser
from experiments.settings import REGISTRY, RUN_OPTIONS, settings_for

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: options that are no field: what the run is (pressure's real-model variant is
#: the ``PressureLLMSettings`` fields, checked with pressure's)
ALSO = {"pressure": "pressure_llm"}


def _parser(name: str) -> argparse.ArgumentParser:
    argv = ["run", name]
    parser = build_parser(argv)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    run = sub.choices["run"]
    sub = next(a for a in run._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def _classes(name: str) -> list:
    out = [settings_for(name)]
    if name in ALSO:
        out.append(settings_for(ALSO[name]))
    return out


def _settings_name(experiment: str) -> str:
    # proposition2 plays theorem1's grid (one table, experiments/configs/theorem1.toml)
    return "theorem1" if experiment == "proposition2" else experiment


RUN_EXPERIMENTS = sorted(EXPERIMENTS)


@pytest.mark.parametrize("experiment", RUN_EXPERIMENTS)
def test_every_option_is_a_field_and_every_field_an_option(experiment):
    """``ctxsim run NAME``'s options are the run options plus one per field, with the
    field's name as ``dest``; an option of a TOML key defaults to None (the table
    decides) and any other to the declared default."""
    parser = _parser(experiment)
    classes = _classes(_settings_name(experiment))
    flags = {}
    for cls in classes:
        flags.update(cls.options())
    actions = {a.option_strings[0]: a for a in parser._actions
               if a.option_strings and a.dest != "help"}
    assert set(actions) == set(flags) | set(RUN_OPTIONS) - (
        set() if any(c.toml_keys() for c in classes) else {"--config"}), experiment
    for flag, name in flags.items():
        cls = next(c for c in classes if name in c.options().values())
        action = actions[flag]
        assert action.dest == name, flag
        meta = {f.name: m for f, m in cls.specs()}[name]
        if action.default is not None and not isinstance(action.default, bool):
            assert not meta["toml"], flag
            want = cls.default_of(name)
            assert (list(action.default) if isinstance(action.default, tuple)
                    else action.default) == want, flag
        assert action.help and ("default" in action.help or "--quick" in action.help), flag


def _argv(name: str, quick: bool) -> list[str]:
    claims = {"robustness": "--robustness", "posterior": "--posterior"}
    argv = ["claims", claims[name]] if name in claims else ["run", name]
    return argv + (["--quick"] if quick else [])


@pytest.mark.parametrize("name", sorted(REGISTRY))
@pytest.mark.parametrize("quick", [False, True])
def test_the_class_is_the_only_source_of_defaults(name, quick):
    """With no option given, the settings are the class's table (``[quick]`` under
    ``--quick``) and its declared defaults (or ``--quick`` values): no parser
    default, TOML file or copied dict decides a value."""
    from experiments.settings import _NO_QUICK, _frozen

    cls = settings_for(name)
    argv = _argv(name, quick)
    args = build_parser(argv).parse_args(argv)
    got = cls.from_args(args)
    section = "quick" if quick else "default"
    table = cls.table(section)
    want = {}
    for f, m in cls.specs():
        if m["toml"]:
            want[f.name] = table[f.name]
        elif quick and m["quick"] is not _NO_QUICK:
            want[f.name] = m["quick"]
        else:
            want[f.name] = cls.default_of(f.name)
    # what the class derives from the declared values (its finish) is its own rule
    want = cls.finish(want, args)
    for f, _ in cls.specs():
        assert getattr(got, f.name) == _frozen(want[f.name]), (name, f.name)


@pytest.mark.parametrize("name", sorted(n for n in REGISTRY if settings_for(n).toml_keys()))
def test_the_shipped_toml_is_the_class_text(name):
    """``experiments/configs/NAME.toml`` is generated from the class (``python -m
    experiments.settings write``): its text is the class's, its tables hold the
    class's values, and every TOML key is a field."""
    cls = settings_for(name)
    path = ROOT / "experiments" / "configs" / f"{name}.toml"
    assert path.read_text() == cls.toml_text(), (
        f"{path.name} differs from its class: run `python -m experiments.settings write`")
    tables = tomllib.loads(path.read_text())
    assert list(tables) == cls.sections()
    for section, keys in tables.items():
        assert set(keys) <= set(cls.toml_keys())
        assert {**tables["default"], **keys} == cls.table(section)
    assert set(tables["default"]) == set(cls.toml_keys())


def test_the_check_command_names_a_stale_file(tmp_path, monkeypatch, capsys):
    from experiments.settings import __main__ as tool

    monkeypatch.setattr(tool, "CONFIGS", tmp_path)
    assert tool.main(["check"]) == 1     # no file written yet: every one is stale
    assert "pressure.toml: differs" in capsys.readouterr().err
    assert tool.main(["write"]) == 0 and tool.main(["check"]) == 0
    (tmp_path / "cost.toml").write_text((tmp_path / "cost.toml").read_text()
                                        .replace("seeds = 5", "seeds = 4"))
    assert tool.main(["check"]) == 1
    assert tool.main(["nonsense"]) == 2


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_user_toml_with_the_shipped_keys_still_works(tmp_path, name):
    """A user's file that copies the shipped tables (the same keys) gives the same
    settings; ``[quick]`` keeps working."""
    cls = settings_for(name)
    if not cls.toml_keys():
        pytest.skip("no TOML keys")
    path = tmp_path / "mine.toml"
    path.write_text(cls.toml_text())
    for section in cls.sections():
        assert cls.load(section, path) == cls.table(section)


def test_removed_sources_of_defaults_are_gone():
    """No ``PAPER_SETTINGS``, no copied ``config(args)``, no hand-written sweep
    options or schema dicts in the experiments this step moved."""
    moved = [ROOT / "experiments" / p for p in (
        "sweep.py", "config.py", "vista", "calibrate", "claims/robustness")]
    files = [f for p in moved for f in ([p] if p.is_file() else p.rglob("*.py"))]
    text = {f: f.read_text() for f in files}
    for f, t in text.items():
        for gone in ("PAPER_SETTINGS", "def sweep_config", "def add_common_arguments",
                     "def add_loca_task_arguments", "def add_loca_level_arguments",
                     "def fmt_default", "def resolve(", "def defaults("):
            assert gone not in t, (f, gone)
        if "robustness" not in str(f):
            assert not re.search(r"^def config\(args", t, re.M), f
    # the schema of every experiment comes from its class: no hand-written schema left
    import experiments.config as config

    assert not hasattr(config, "LEGACY_SCHEMAS")


def test_budget_walks_as_one_typed_value(monkeypatch):
    """``--budget 9k`` -> ``PressureSettings.budget`` (an int) -> every
    ``JobSpec.setup.budget`` (built by keyword, picklable) -> the episode's ``budget``."""
    from experiments.settings.vista import PressureSettings
    from experiments.sweep import JobSetup, JobSpec, TaskSpec, loca_specs, run_job

    argv = ["run", "pressure", "--quick", "--budget", "9k", "--levels", "2000",
            "--families", "1", "--programs", "vista"]
    settings = PressureSettings.from_args(build_parser(argv).parse_args(argv))
    assert settings.budget == 9000 and type(settings.budget) is int
    specs = loca_specs(settings)
    assert [s.setup.budget for s in specs] == [9000] * len(specs) == [9000]
    assert pickle.loads(pickle.dumps(specs[0])) == specs[0]   # a Dask worker gets it whole
    with pytest.raises(TypeError):   # by keyword only: no positional slot to confuse
        JobSetup(9000, ("vista",))
    with pytest.raises(TypeError):
        TaskSpec("loca", 0, 0, 8000)
    with pytest.raises(TypeError):
        JobSpec(specs[0].task, specs[0].setup)
    seen = []
    import sim.harness

    real = sim.harness.run_episode

    def spy(*args, **kw):
        seen.append(kw["budget"])
        return real(*args, **kw)

    monkeypatch.setattr(sim.harness, "run_episode", spy)
    rows = run_job(specs[0])
    assert seen == [9000] and [r["budget"] for r in rows] == [9000]


def test_paper_setting_is_the_declared_default():
    """A sweep's paper setting is its fields declared ``paper=True`` at their
    defaults: written once, recorded with the departures of a run."""
    from experiments.settings.vista import PressureSettings

    paper = PressureSettings.paper()
    assert set(paper) == {"levels", "budget", "families", "seeds", "source"}
    assert all(PressureSettings.default_of(k) == v for k, v in paper.items()
               if k != "source")
    off = dataclasses.replace(PressureSettings(), budget=64_000)
    assert off.paper_setting()["differs"] == {"budget": [64_000, 128_000]}


@pytest.mark.parametrize("experiment", RUN_EXPERIMENTS)
def test_every_experiment_module_names_its_settings(experiment):
    """The module ``ctxsim run NAME`` runs declares its settings class (``SETTINGS``),
    the registry's class for NAME's grid."""
    import importlib

    module = importlib.import_module(EXPERIMENTS[experiment][0])
    assert module.SETTINGS is settings_for(_settings_name(experiment))


def test_the_robustness_options_are_its_fields():
    """``ctxsim claims --robustness``: every option of its group but ``--robustness``
    and the run options is a field of ``RobustnessSettings``, and back."""
    from experiments.settings.robustness import RobustnessSettings

    argv = ["claims"]
    parser = build_parser(argv)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    claims = sub.choices["claims"]
    [group] = [g for g in claims._action_groups if g.title == "robustness (--robustness)"]
    flags = {a.option_strings[0]: a.dest for a in group._group_actions}
    assert set(flags) - {"--robustness"} == set(RobustnessSettings.options()) | {
        "--config", "--quick", "--no-progress"}
    assert all(flags[f] == name for f, name in RobustnessSettings.options().items())


@pytest.mark.parametrize("name", ["contextevo", "evoharness"])
def test_the_quick_help_is_the_classs_quick_table(name):
    # generated from the class, so a changed --quick value changes the help; checked
    # against the shipped TOML's [quick] table (an independent route: the file)
    cls = settings_for(name)
    (quick,) = [a for a in _parser(name)._actions if "--quick" in a.option_strings]
    assert quick.help == cls.quick_help()
    shipped = tomllib.loads((ROOT / "experiments" / "configs" / f"{name}.toml").read_text())
    for key, value in shipped["quick"].items():
        shown = (" ".join(map(str, value)) if isinstance(value, list)
                 else f"{value:,}")
        assert f"{key}={shown}" in quick.help, key
    for table, when in cls.TABLE_WHEN.items():
        tail = quick.help.split(f"{when}: ")[1]
        for key, value in shipped[table].items():
            assert f"{key}={value:,}" in tail, (table, key)


def test_settings_check_says_so_in_one_line_when_every_file_is_up_to_date(capsys):
    from experiments.settings.__main__ import generated, main

    assert main(["check"]) == 0
    n = sum(1 for _ in (ROOT / "experiments" / "configs").glob("*.toml")
            if _.stem in {p.stem for p in generated()})
    assert capsys.readouterr().out == f"{n} shipped config files up to date\n"
    assert n == len(generated()) > 0
