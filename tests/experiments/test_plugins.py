"""Plugin programs and agents (issue 33): a program defined outside the package runs
through a sweep beside VISTA, its sidecar records where it came from, ``figures
--verify`` reruns it (and says what is missing when it does not import); a plugin
that breaks the protocol is refused in one line with exit 2 and nothing written;
entry points and ``register_program`` / ``register_agent`` name them too."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from experiments import cli
from experiments.output import ROOT
from sim import plugins
from sim.plugins import protocol as plugin_protocol
from sim.plugins import sidecar as plugin_sidecar
from sim.plugin_spec import PluginError, import_attr

#: a plugin module as a user would write it (the docs' minimal example, plus broken ones)
PLUGIN = textwrap.dedent('''
    import numpy as np

    from sim.agents.protocol import ANSWER, TASK, Action
    from sim.agents.synthetic import find_value
    from sim.policies.base import ContextProgram


    class KeepLast(ContextProgram):
        """Archive all but the newest ``keep`` tool results over 80% of the budget."""
        DEFAULTS = {"keep": 4}
        dashboard = "ledger"
        agent_tools = frozenset({"recover"})
        show_handles = True

        def maintenance_planning(self, ctx):
            return ctx.used() > 0.8 * ctx.budget

        def representation_update(self, ctx):
            results = ctx.stream(types=("tool_result",))
            old = [b.id for b in results[: max(0, len(results) - self.keep)]]
            if old:
                ctx.archive(old, None, hidden=False, each=True)


    class SaysYes(KeepLast):
        def maintenance_planning(self, ctx):
            return "yes"


    class Raises(KeepLast):
        def observation_entry(self, ctx, block):
            raise RuntimeError("boom")


    class NoMethods:
        dashboard = "none"


    class BadDashboard(KeepLast):
        dashboard = "fancy"


    class ScriptReader:
        """Follows the task's script; answers with the newest value in view."""
        name = "script-reader"

        def __init__(self, profile):
            self.profile = profile

        def reset(self, task, seed):
            self.task, self.pos = task, 0

        def act(self, view):
            step = self.task.steps[self.pos]
            self.pos += 1
            if step.kind == "observe":
                return Action(TASK, tool=step.tool, args=step.args)
            values = {k: find_value(view.entries, self.task.facts[k]) or "unknown"
                      for k in step.needs}
            return Action(ANSWER if step.kind == "final" else TASK, tool=step.tool,
                          values=values)


    class Mute(ScriptReader):
        def act(self, view):
            return None


    class Dancer(ScriptReader):
        def act(self, view):
            return Action("dance")


    # break the protocol only after the check episode (played at budget 3,000)
    class LateDancer(ScriptReader):
        def act(self, view):
            return Action("dance") if view.budget > 3000 else super().act(view)


    class LateLater(KeepLast):
        def maintenance_planning(self, ctx):
            return "later" if ctx.budget > 3000 else super().maintenance_planning(ctx)


    class LateBoom(KeepLast):
        def maintenance_planning(self, ctx):
            if ctx.budget > 3000:
                raise ValueError(f"late failure at {ctx.used()} tokens")
            return super().maintenance_planning(ctx)


    class NumpyBools(KeepLast):
        show_handles = np.True_

        def maintenance_planning(self, ctx):
            return np.bool_(ctx.used() > 0.8 * ctx.budget)
''')

#: the smallest pressure grid: one level, two tasks
SMALL = ["--quick", "--levels", "8000", "--families", "2", "--seeds", "1", "--no-progress"]


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    """A directory outside the package holding ``byo_plugin.py``, on sys.path."""
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "byo_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(d))
    yield d
    sys.modules.pop("byo_plugin", None)
    plugins.forget_module("byo_plugin")


def _env(*paths):
    env = dict(os.environ)
    env.pop("CTXSIM_DEBUG", None)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), str(ROOT)])
    return env


def _ctxsim(args, env):
    return subprocess.run([sys.executable, "-m", "experiments.cli", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.e2e
def test_an_outside_plugin_runs_beside_vista_and_verifies(plugin_dir, tmp_path):
    out = tmp_path / "out"
    env = _env(plugin_dir)
    run = _ctxsim(["run", "pressure", *SMALL, "--programs", "vista", "byo_plugin:KeepLast",
                   "--out", str(out)], env)
    assert run.returncode == 0, run.stderr
    rows = (out / "pressure.csv").read_text().splitlines()
    assert {r.split(",")[1] for r in rows[1:]} == {"vista", "byo_plugin:KeepLast"}
    side = json.loads((out / "pressure.json").read_text())
    [rec] = side["plugins"]
    digest = hashlib.sha256(b"byo_plugin.py\0" + PLUGIN.encode() + b"\0").hexdigest()
    assert rec == {"kind": "program", "spec": "byo_plugin:KeepLast", "module": "byo_plugin",
                   "qualname": "KeepLast", "version": None, "sha256": digest,
                   "files": ["byo_plugin.py"], "directory": str(plugin_dir.resolve()),
                   "rerunnable": True}
    assert "byo_plugin:KeepLast" in side["command"]
    listing = _ctxsim(["figures", "--dir", str(out)], env)
    assert "[plugin: byo_plugin:KeepLast]" in listing.stdout
    ok = _ctxsim(["figures", "--dir", str(out), "--verify", "pressure"], env)
    assert ok.returncode == 0, ok.stderr
    assert "2 CSV file(s) identical" in ok.stdout
    # without the plugin on the path: one line naming the module and the recorded hash
    gone = _ctxsim(["figures", "--dir", str(out), "--verify", "pressure"], _env())
    assert gone.returncode == 2
    [line] = gone.stderr.strip().splitlines()
    assert "cannot import module 'byo_plugin'" in line and digest[:12] in line
    assert line.endswith(f"try PYTHONPATH={plugin_dir.resolve()}]")
    listing = _ctxsim(["figures", "--dir", str(out)], _env())
    assert "plugin missing (byo_plugin:KeepLast, file byo_plugin.py)" in listing.stdout
    # the plugin's source changed since: not current
    (plugin_dir / "byo_plugin.py").write_text(PLUGIN + "\n# edited\n")
    listing = _ctxsim(["figures", "--dir", str(out)], env)
    assert "plugin changed" in listing.stdout
    # a change of behaviour: the rerun differs, and --verify names the plugin as what
    # changed since (not the package's code)
    (plugin_dir / "byo_plugin.py").write_text(PLUGIN.replace(
        "return ctx.used() > 0.8 * ctx.budget", "return True").replace(
        '{"keep": 4}', '{"keep": 0}'))
    moved = _ctxsim(["figures", "--dir", str(out), "--verify", "pressure"], env)
    assert moved.returncode == 1, moved.stderr
    assert ("pressure differs from its rerun at HEAD (plugin changed since it was made: "
            "byo_plugin:KeepLast, file byo_plugin.py)") in moved.stdout
    sys.modules.pop("byo_plugin", None)     # this process imported the old source
    plugins.forget_module("byo_plugin")
    assert plugins.changed(rec) is True


@pytest.mark.parametrize("layout", ["byo_here_xyz.py", "byo_here_xyz/__init__.py"])
def test_a_plugin_in_the_current_directory_off_the_path_says_so(tmp_path, monkeypatch,
                                                                 layout):
    """``ctxsim`` (a console script) does not search the current directory; a user
    with ``byo_here_xyz.py`` beside them is told that, not asked about PYTHONPATH."""
    (tmp_path / layout).parent.mkdir(exist_ok=True)
    (tmp_path / layout).write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path
                                      if p not in ("", ".", str(tmp_path))])
    with pytest.raises(PluginError) as err:
        import_attr("program", "byo_here_xyz:KeepLast")
    assert str(err.value).endswith(f"./{layout} is in the current directory, which is "
                                   "not on the module search path: run with PYTHONPATH=.")
    # a module missing everywhere, or one whose own import fails, keeps its question
    with pytest.raises(PluginError, match=r"is it on PYTHONPATH\?$"):
        import_attr("program", "byo_nowhere_xyz:KeepLast")


@pytest.mark.parametrize("kind", ["program", "agent"])
def test_a_dotted_path_or_a_miscased_class_gets_the_spelling_to_use(plugin_dir, kind):
    """``mypkg.mod.Class`` (the dotted form of other tools) and a class name in the
    wrong case name the spelling that would load."""
    from sim.agents.registry import resolve_agent
    from sim.policies import resolve_program

    resolve = resolve_program if kind == "program" else resolve_agent
    with pytest.raises(PluginError) as err:
        resolve("byo_plugin.KeepLast")
    assert str(err.value).startswith(f"unknown {kind} 'byo_plugin.KeepLast'")
    assert str(err.value).endswith("(a plugin is written MODULE:CLASS, with a colon: "
                                   "did you mean 'byo_plugin:KeepLast'?)")
    with pytest.raises(PluginError) as err:
        resolve("byo_plugin:keeplast")
    assert str(err.value).endswith("has no attribute 'keeplast'; did you mean "
                                   "'KeepLast'?")
    with pytest.raises(PluginError) as err:    # nothing close: no guess
        resolve("byo_plugin:Zzyzx")
    assert str(err.value).endswith("has no attribute 'Zzyzx'")
    with pytest.raises(PluginError) as err:
        resolve("nodots")
    assert "did you mean" not in str(err.value)


def test_verify_reruns_a_plugin_found_only_on_this_processs_path(plugin_dir, tmp_path,
                                                                   capsys):
    """A plugin on this process's sys.path but not on PYTHONPATH (a module in the
    current directory under ``python -m``) imports here, so --verify must rerun it:
    the rerun, run in the checkout, is given the plugin's directory (it failed with
    "cannot import module")."""
    assert str(plugin_dir) not in os.environ.get("PYTHONPATH", "")
    out = tmp_path / "out"
    assert cli.main(["run", "pressure", *SMALL, "--programs", "vista",
                     "byo_plugin:KeepLast", "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["figures", "--dir", str(out), "--verify", "pressure"]) == 0
    assert "2 CSV file(s) identical" in capsys.readouterr().out


@pytest.mark.parametrize("spec, broke", [
    ("byo_plugin:SaysYes", "maintenance_planning returned str 'yes'; expected a bool"),
    ("byo_plugin:Raises", "observation_entry raised RuntimeError: boom"),
    ("byo_plugin:NoMethods", "it has no method observation_entry"),
    ("byo_plugin:BadDashboard", "broke the protocol: its dashboard is 'fancy'; expected one of"),
    ("byo_plugin:Missing", "module 'byo_plugin' has no attribute 'Missing'"),
    ("no_such_module_xyz:P", "cannot import module 'no_such_module_xyz'"),
])
def test_a_program_that_breaks_the_protocol_is_one_line_exit_2_nothing_written(
        plugin_dir, tmp_path, capsys, monkeypatch, spec, broke):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    out = tmp_path / "never"
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "pressure", *SMALL, "--programs", "vista", spec, "--out", str(out)])
    assert exc.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()   # one line, no usage block
    assert line.startswith("ctxsim run pressure: error: argument --programs: ")
    assert line.endswith(" (see --help)")
    assert spec in line and broke in line, line
    assert not out.exists()


def test_an_agent_plugin_runs_and_one_that_breaks_is_refused(plugin_dir, tmp_path, capsys,
                                                             monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    out = tmp_path / "agent"
    assert cli.main(["run", "pressure", *SMALL, "--programs", "react", "vista",
                     "--agent", "byo_plugin:ScriptReader", "--out", str(out)]) == 0
    side = json.loads((out / "pressure.json").read_text())
    assert side["config"]["agent"] == "byo_plugin:ScriptReader"
    assert [p["spec"] for p in side["plugins"]] == ["byo_plugin:ScriptReader"]
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "pressure", *SMALL, "--agent", "byo_plugin:Mute",
                  "--out", str(tmp_path / "never")])
    assert exc.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert ("agent plugin 'byo_plugin:Mute' broke the protocol: act returned NoneType None; "
            "expected a sim.agents.protocol.Action") in line
    assert not (tmp_path / "never").exists()


def test_register_program_and_agent_name_them_in_this_process(plugin_dir, tmp_path):
    import byo_plugin

    plugins.register_program("keep_two", byo_plugin.KeepLast, knobs={"keep": 2})
    plugins.register_agent("reader", byo_plugin.ScriptReader)
    try:
        assert "keep_two" in plugins.program_names()
        assert "reader" in plugins.agent_names()
        prog = plugins.resolve_program("keep_two")
        assert prog == (byo_plugin.KeepLast, {"keep": 2})
        out = tmp_path / "reg"
        assert cli.run_command(["run", "pressure", *SMALL, "--programs", "keep_two",
                                "--agent", "reader", "--out", str(out)]) == 0
        recs = {p["spec"]: p for p in json.loads((out / "pressure.json").read_text())
                ["plugins"]}
        # another process cannot resolve an in-process name: verify says so
        assert recs["keep_two"]["rerunnable"] is False
        assert plugins.missing(recs["keep_two"]).startswith(
            "it was made with program 'keep_two', registered in-process (module "
            "'byo_plugin'), which another process cannot load")
        with pytest.raises(ValueError, match="built-in"):
            plugins.register_program("vista", byo_plugin.KeepLast)
        with pytest.raises(ValueError, match="reserved"):
            plugins.register_agent("synthetic", byo_plugin.ScriptReader)
    finally:
        plugins.unregister("program", "keep_two")
        plugins.unregister("agent", "reader")
    with pytest.raises(PluginError, match="unknown program 'keep_two'"):
        plugins.resolve_program("keep_two")


def test_entry_points_are_discovered_with_their_distribution_version(tmp_path,
                                                                     monkeypatch):
    site = tmp_path / "site"
    info = site / "byo_dist-1.2.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: byo-dist\nVersion: 1.2.3\n")
    (info / "top_level.txt").write_text("byo_ep\n")
    (info / "entry_points.txt").write_text(
        "[ctxsim.programs]\nbyo_keep_last = byo_ep:KeepLast\n"
        "[ctxsim.agents]\nreader = byo_ep:ScriptReader\n")
    (site / "byo_ep.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(site))
    # a name of its own: the README's example registers keep_last in this process
    try:
        assert "byo_keep_last" in plugins.program_names()
        assert "reader" in plugins.agent_names()
        plugins.check_program("byo_keep_last")
        plugins.check_agent("reader")
        rec = plugins.record("program", "byo_keep_last")
        assert (rec["module"], rec["version"], rec["rerunnable"]) == ("byo_ep", "1.2.3", True)
        assert plugins.missing(rec) is None and plugins.changed(rec) is False
    finally:
        sys.modules.pop("byo_ep", None)
        plugins.unregister("program", "byo_keep_last")
        plugins.unregister("agent", "reader")


def test_a_config_naming_a_broken_plugin_is_refused_before_anything_is_written(
        plugin_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    config = tmp_path / "grid.toml"
    config.write_text('programs = ["vista", "byo_plugin:SaysYes"]\n')
    out = tmp_path / "never"
    code = cli.main(["run", "pressure", *SMALL, "--config", str(config), "--out", str(out)])
    assert code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "program plugin 'byo_plugin:SaysYes' broke the protocol" in line
    assert not out.exists()
    # a config naming a module that does not import is a config error (exit 2)
    config.write_text('programs = ["no_such_module_xyz:P"]\n')
    assert cli.main(["run", "pressure", *SMALL, "--config", str(config),
                     "--out", str(out)]) == 2
    assert "MODULE:CLASS" in capsys.readouterr().err
    assert not out.exists()


def test_evoharness_program_takes_a_plugin_and_refuses_a_broken_one(plugin_dir, capsys,
                                                                     monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    from experiments.cli import build_parser

    argv = ["run", "evoharness", "--program", "byo_plugin:KeepLast"]
    assert build_parser(argv).parse_args(argv).program == "byo_plugin:KeepLast"
    argv = ["run", "evoharness", "--program", "byo_plugin:Raises"]
    with pytest.raises(SystemExit) as exc:
        build_parser(argv).parse_args(argv)
    assert exc.value.code == 2
    assert "observation_entry raised RuntimeError: boom" in capsys.readouterr().err


def test_an_evoharness_episode_names_the_task_a_plugin_broke_on(plugin_dir):
    from sim.evolve.evoharness.online import play
    from sim.evolve.evoharness.lesson_agent import SkillAwareAgent
    from sim.harness import run_episode
    from sim.plugin_spec import PluginRuntimeError
    from sim.tasks.loca import loca_task

    task = loca_task(0, 0, 8000)
    common = dict(agent=SkillAwareAgent("medium"), b=0, seed=3, run_episode=run_episode)
    res, ex = play(task, None, budget=8000, **common,
                   program_factory=lambda: plugins.make_program("byo_plugin:KeepLast"))
    assert ex.task_id == task.task_id                      # a sound plugin plays through
    with pytest.raises(PluginRuntimeError) as err:
        play(task, None, budget=8000, **common,
             program_factory=lambda: plugins.make_program("byo_plugin:LateBoom"))
    line = str(err.value)
    assert "program plugin 'byo_plugin:LateBoom': maintenance_planning raised " in line
    assert line.endswith(f" on task {task.task_id} (Evo-Harness replicate 3)"), line
    assert "\n" not in line


def test_an_agent_returning_an_invalid_action_kind_is_refused_by_its_check(
        plugin_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "pressure", *SMALL, "--agent", "byo_plugin:Dancer",
                  "--out", str(tmp_path / "never")])
    assert exc.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert ("agent plugin 'byo_plugin:Dancer' broke the protocol: act returned an Action "
            "of kind 'dance'; expected one of task, archive, delete, recover, answer") in line
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("option, spec, broke", [
    ("--programs", "byo_plugin:LateLater",
     "program plugin 'byo_plugin:LateLater' broke the protocol: maintenance_planning "
     "returned str 'later'; expected a bool on task "),
    ("--programs", "byo_plugin:LateBoom",
     "program plugin 'byo_plugin:LateBoom': maintenance_planning raised ValueError: "
     "late failure at "),
    ("--agent", "byo_plugin:LateDancer",
     "agent plugin 'byo_plugin:LateDancer' broke the protocol: act returned an Action "
     "of kind 'dance'; expected one of task, archive, delete, recover, answer on task "),
])
def test_a_plugin_that_breaks_after_its_check_stops_the_run_naming_it_exit_1(
        plugin_dir, tmp_path, capsys, monkeypatch, option, spec, broke):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    out = tmp_path / "never"
    assert cli.main(["run", "pressure", *SMALL, option, spec, "--out", str(out)]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("ctxsim run pressure: error: PluginRuntimeError: "), line
    assert broke in line and line.count(" on task ") == 1, line
    assert "(level 8000)" in line
    assert not out.exists()


def test_numpy_bools_are_taken_as_bools(plugin_dir):
    import numpy as np
    from types import SimpleNamespace

    plugins.check_program("byo_plugin:NumpyBools")          # refused before: np.bool_
    assert plugin_protocol._conform("maintenance_planning", "bool", np.False_) is False
    prog = plugins.make_program("byo_plugin:NumpyBools")
    assert prog.show_handles is True
    due = prog.maintenance_planning(SimpleNamespace(used=lambda: 900, budget=1000))
    assert due is True and type(due) is bool
    # a NumPy integer is not a bool: still refused, saying what it got
    with pytest.raises(plugin_protocol._Broke, match=r"returned int64 .*1\)?; expected a bool"):
        plugin_protocol._conform("maintenance_planning", "bool", np.int64(1))


def test_the_guard_wraps_plugins_only_and_survives_pickling(plugin_dir):
    import pickle

    from sim.policies import make_program
    from sim.plugin_spec import PluginRuntimeError

    vista = make_program("vista")
    assert plugins.guard("program", "vista", vista) is vista          # built-in: as is
    from sim.agents import SyntheticAgent, get_profile

    assert type(plugins.make_agent("synthetic", get_profile("medium"))) is SyntheticAgent
    late = pickle.loads(pickle.dumps(plugins.make_program("byo_plugin:LateLater")))
    assert late.keep == 4 and late.dashboard == "ledger"
    from types import SimpleNamespace

    with pytest.raises(PluginRuntimeError, match="'byo_plugin:LateLater' broke the "
                       "protocol: maintenance_planning returned str 'later'"):
        late.maintenance_planning(SimpleNamespace(budget=8000, used=lambda: 0))
    err = pickle.loads(pickle.dumps(PluginRuntimeError("agent plugin 'x': act raised")))
    assert isinstance(err, PluginRuntimeError) and str(err) == "agent plugin 'x': act raised"


def test_replay_names_an_agent_plugin_that_breaks_the_protocol(plugin_dir):
    from experiments.replay_report import play
    from sim.plugin_spec import PluginRuntimeError

    from sim.tasks.trajectory_tasks import DATA

    traj = DATA / "sweagent_marshmallow-1867.traj"
    with pytest.raises(PluginRuntimeError, match=r"agent plugin 'byo_plugin:LateDancer' "
                       r"broke the protocol: act returned an Action of kind 'dance'.* on "
                       r"the replay of sweagent_marshmallow-1867\.traj"):
        play(traj, "vista", 8000, agent="byo_plugin:LateDancer")


def test_the_record_names_the_directory_and_a_missing_plugin_suggests_it(plugin_dir):
    rec = plugins.record("program", "byo_plugin:KeepLast")
    assert rec["files"] == ["byo_plugin.py"]
    assert rec["directory"] == str(plugin_dir.resolve())
    # a package module's directory is the one above the package
    pkg = plugin_dir / "byo_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "progs.py").write_text("from byo_plugin import KeepLast\n")
    try:
        assert plugins.record("program", "byo_pkg.progs:KeepLast")["directory"] == \
            str(plugin_dir.resolve())   # KeepLast's module is byo_plugin's
        import byo_pkg.progs  # noqa: F401
        assert plugin_sidecar.import_root("byo_pkg.progs") == str(plugin_dir.resolve())
        assert plugin_sidecar.import_root("byo_pkg") == str(plugin_dir.resolve())
    finally:
        for m in ("byo_pkg.progs", "byo_pkg"):
            sys.modules.pop(m, None)
        plugins.forget_module("byo_pkg.progs")
    gone = {**rec, "spec": "byo_gone_xyz:KeepLast", "module": "byo_gone_xyz",
            "directory": "/home/me/plugins"}
    why = plugins.missing(gone)
    assert "cannot import module 'byo_gone_xyz'" in why
    assert why.endswith("it was imported from /home/me/plugins: try "
                        "PYTHONPATH=/home/me/plugins]")
    assert "PYTHONPATH=" not in plugins.missing({**gone, "directory": None}).split("?")[-1]


@pytest.mark.parametrize("option, spec, says", [
    ("--agent", "vista", "'vista' is a context program, not an agent"),
    ("--agent", "byo_plugin:KeepLast",
     "agent plugin 'byo_plugin:KeepLast' is a context program, not an agent"),
    ("--programs", "synthetic", "'synthetic' is an agent, not a context program"),
    ("--programs", "byo_plugin:ScriptReader",
     "program plugin 'byo_plugin:ScriptReader' is an agent, not a context program"),
])
def test_a_spec_of_the_other_kind_is_refused_saying_so(plugin_dir, capsys, option, spec,
                                                       says):
    from experiments.cli import build_parser

    argv = ["run", "pressure", option, spec]
    with pytest.raises(SystemExit) as exc:
        build_parser(argv).parse_known_args(argv)
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip() == (
        f"ctxsim run pressure: error: argument {option}: {says} (see --help)")


def test_replay_says_why_neutrally_for_an_agent_plugin_that_did_not_recover(plugin_dir):
    from experiments.replay_report import ARCHIVED, _cut, play
    from sim.tasks.trajectory_tasks import DATA

    report = play(DATA / "sweagent_marshmallow-1867.traj", "auto_archive", 2500,
                  agent="byo_plugin:ScriptReader")   # it never recovers anything
    archived = [q for q in report.questions if q.evidence == ARCHIVED and not q.correct]
    assert archived
    for q in archived:   # not the synthetic agent's reasons (archive index, read budget)
        assert q.why == ("the evidence is archived under a handle the agent was shown, "
                         "but the agent did not recover it")
    text = "\n".join(report.lines())
    assert "(solved means: every answer exact and no failure unrelated to context)" in text
    assert _cut("x" * 80, 80) == "x" * 80
    assert _cut("x" * 81, 80) == "x" * 79 + "\u2026"
