"""The mutation runner's own logic (mutation/: run.py and the modules it uses),
without running a mutant: the configuration's parsing and its consistency with the
tree, module selection from a diff, the equivalents file, the annotation filter, the
per-mutant test command's fresh numba cache, and resumable kernel sessions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mutation import config, sessions, source
from mutation import run as mr
from mutation import with_cosmic_ray as wcr
from mutation import with_mutmut as wmm

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_configuration_names_real_modules_and_tests():
    cfg = config.load_config(config.MODULES.read_text())
    assert cfg.timeout > 0 and cfg.exclude_operators
    for path, spec in cfg.modules.items():
        assert (ROOT / path).is_file(), path
        for f in spec.test_files():
            assert (ROOT / f).is_file(), (path, f)
    # the areas issue 38 names are all there
    for must in ("experiments/claims/rules.py", "sim/workspace/accounting.py",
                 "sim/workspace/ops.py", "sim/workspace/workspace.py",
                 "sim/workspace/journal.py", "sim/workspace/reopen.py",
                 "sim/games/sorted_window_kernels.py"):
        assert must in cfg.modules
    for sub in ("theory", "sim/games"):
        here = {str(p.relative_to(ROOT)) for p in (ROOT / sub).glob("*.py")
                if p.name != "__init__.py"}
        assert here <= set(cfg.modules), sorted(here - set(cfg.modules))
    config.load_equivalents(config.EQUIVALENTS.read_text())      # parses


def test_every_equivalent_listing_points_at_code_that_exists():
    """A cosmic-ray listing's line reads as listed; a mutmut listing's function is
    defined in its module (the runner itself reports a listing no survivor matches)."""
    import ast

    for eq in config.load_equivalents(config.EQUIVALENTS.read_text()):
        source = (ROOT / eq.module).read_text()
        if eq.tool == "cosmic-ray":
            lines = source.splitlines()
            assert eq.line <= len(lines) and lines[eq.line - 1].strip() == eq.text.strip(), eq
        else:
            names = {n.name for n in ast.walk(ast.parse(source))
                     if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            if eq.where.startswith("x_"):         # a function: x_NAME
                parts = [eq.where[2:]]
            else:                                 # a method: x<sep>Class<sep>method
                parts = [x for x in eq.where.split("\u01c1")[1:] if x]
            assert parts and all(x in names for x in parts), eq


def test_exclude_operators_filter_what_they_say():
    import re

    cfg = config.load_config(config.MODULES.read_text())
    rx = re.compile("|".join(f"(?:{p})" for p in cfg.exclude_operators))
    for name in ("core/ReplaceBinaryOperator_Mul_BitXor", "core/ReplaceBinaryOperator_Add_LShift",
                 "core/ReplaceComparisonOperator_Eq_Is", "core/ReplaceComparisonOperator_Is_Lt"):
        assert rx.match(name), name
    for name in ("core/ReplaceBinaryOperator_Mul_Add", "core/ReplaceBinaryOperator_BitXor_BitOr",
                 "core/ReplaceComparisonOperator_Lt_LtE", "core/ReplaceComparisonOperator_Is_IsNot",
                 "core/NumberReplacer", "core/ReplaceBinaryOperator_BitOr_BitAnd"):
        assert not rx.match(name), name


CFG = """
[settings]
timeout = 30
exclude-operators = ["core/X$"]
[modules."a/m.py"]
tests = ["tests/a/test_m.py::test_one", "tests/a/test_n.py"]
theory = ["Theorem 1"]
[modules."b/k.py"]
tests = ["tests/b/test_k.py"]
"""


def test_changed_selection_from_a_diff():
    mods = config.load_config(CFG).modules
    assert mods["a/m.py"].test_files() == {"tests/a/test_m.py", "tests/a/test_n.py"}
    assert mr.select_changed(set(), mods) == []
    assert mr.select_changed({"a/m.py"}, mods) == ["a/m.py"]
    assert mr.select_changed({"tests/a/test_m.py"}, mods) == ["a/m.py"]   # its tests
    assert mr.select_changed({"tests/b/test_k.py", "a/m.py", "README.md"}, mods) == \
        ["a/m.py", "b/k.py"]                                               # config order
    assert mr.select_changed({"a/m.pyc", "a/other.py", "tests/a"}, mods) == []


def test_git_changed_sees_the_working_tree_and_untracked_files(tmp_path):
    def git(*a):
        subprocess.run(["git", *a], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@t")
    git("config", "user.name", "t")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "m.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    git("add", ".")
    git("commit", "-qm", "one")
    assert mr.git_changed("HEAD", tmp_path) == set()
    (tmp_path / "a" / "m.py").write_text("x = 2\n")
    (tmp_path / "new.py").write_text("")
    assert mr.git_changed("HEAD", tmp_path) == {"a/m.py", "new.py"}
    with pytest.raises(config.ConfigError, match="git diff"):
        mr.git_changed("no-such-rev", tmp_path)


@pytest.mark.parametrize("text,match", [
    ("[settings]\ntimeout = 0\n[modules.'a.py']\ntests = ['t']", "timeout"),
    ("[settings]\ntimeout = true\n[modules.'a.py']\ntests = ['t']", "timeout"),
    ("[settings]\nexclude-operators = ['(']\n[modules.'a.py']\ntests = ['t']", "exclude-operators"),
    ("[modules.'a.py']\ntests = []\n", "non-empty"),
    ("[modules.'a.py']\ntests = ['t']\ntest = ['u']\n", "unknown keys"),
    ("[modules.'a.txt']\ntests = ['t']\n", ".py path"),
    ("[settings]\n", "modules"),
    ("[modules\n", "modules.toml"),
])
def test_a_bad_configuration_is_named(text, match):
    with pytest.raises(config.ConfigError, match=match):
        config.load_config(text)


EQ = """
[[equivalent]]
tool = "mutmut"
module = "a/m.py"
where = "x_f"
text = "return x * 3"
reason = "x is 0 on every path that reaches here"

[[equivalent]]
tool = "cosmic-ray"
module = "a/k.py"
where = "core/NumberReplacer"
line = 3
text = "    return x * 2"
reason = "x is 0 on every path that reaches here"
"""


def test_equivalents_are_matched_by_tool_module_place_and_text():
    mm, cr = config.load_equivalents(EQ)
    assert mm.key() == ("mutmut", "a/m.py", "x_f", None, "return x * 3", None)
    assert cr.key() == ("cosmic-ray", "a/k.py", "core/NumberReplacer", 3, "return x * 2",
                        None)
    assert config.is_listed(("mutmut", "a/m.py", "x_f", None, "return x * 3", None),
                            [mm, cr]) is mm
    assert config.is_listed(("cosmic-ray", "a/k.py", "core/NumberReplacer", 3,
                             "return x * 2", None), [mm, cr]) is cr
    for other in [("mutmut", "a/m.py", "x_f", None, "return x * 4", None),  # another mutant
                  ("mutmut", "a/m.py", "x_g", None, "return x * 3", None),  # another function
                  ("mutmut", "b/m.py", "x_f", None, "return x * 3", None),
                  ("cosmic-ray", "a/k.py", "core/NumberReplacer", 4, "return x * 2", None),
                  ("cosmic-ray", "a/k.py", "core/AddNot", 3, "return x * 2", None),
                  ("cosmic-ray", "a/k.py", "core/NumberReplacer", 3, "return x * 5", None)]:
        assert config.is_listed(other, [mm, cr]) is None, other


def test_a_cosmic_ray_listing_with_mutated_covers_that_mutant_only():
    """NumberReplacer makes two mutants of ``x * 2`` (``x * 3``, ``x * 1``) under one
    operator and line: a listing that names the mutated line covers that one; the
    other survives unexplained; a listing without ``mutated`` covers both."""
    one = config.load_equivalents(EQ.replace('line = 3\n', 'line = 3\nmutated = "return x * 3"\n'))
    assert one[1].key()[-1] == "return x * 3"
    lines = ["def k(x):", "    y = x", "    return x * 2"]
    jobs = [_cr_job(3, "core/NumberReplacer", "normal", "survived",
                    diff=f"-    return x * 2\n+    return x * {v}") for v in (3, 1)]
    counts, unexplained, listed, _ = wcr.tally_cosmic_ray("a/k.py", lines, jobs, one)
    assert (counts["equivalent"], [u["mutated"] for u in unexplained]) == (1, ["return x * 1"])
    assert listed == {one[1].key()}
    counts, unexplained, _, _ = wcr.tally_cosmic_ray("a/k.py", lines, jobs,
                                                     config.load_equivalents(EQ))
    assert counts["equivalent"] == 2 and not unexplained
    with pytest.raises(config.ConfigError, match="mutated is for a cosmic-ray entry"):
        config.load_equivalents(EQ.replace('text = "return x * 3"',
                                           'text = "return x * 3"\nmutated = "y"'))


@pytest.mark.parametrize("old,new,match", [
    ('reason = "x is 0 on every path that reaches here"', 'reason = "equivalent"', "reason"),
    ("line = 3", "line = 0", "line"),
    ("line = 3", 'line = "3"', "line"),
    ('tool = "cosmic-ray"', 'tool = "mutpy"', "tool"),
    ('text = "    return x * 2"\n', "", "lacks"),
])
def test_a_bad_equivalents_entry_is_named(old, new, match):
    with pytest.raises(config.ConfigError, match=match):
        config.load_equivalents(EQ.replace(old, new))
    with pytest.raises(config.ConfigError, match="repeats"):
        config.load_equivalents(EQ + EQ)


def test_mutmut_names_and_diffs():
    assert source.mutmut_module("experiments.claims.rules.x_gap_verdict__mutmut_7") == \
        ("experiments/claims/rules.py", "x_gap_verdict")
    method = "x\u01c1TotalBound\u01c1after"
    assert source.mutmut_module(f"sim.workspace.accounting.{method}__mutmut_12") \
        == ("sim/workspace/accounting.py", method)
    with pytest.raises(ValueError, match="mutmut"):
        source.mutmut_module("experiments.claims.rules.x_gap_verdict")
    diff = ("--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def f(x):\n"
            "-    return x <= 1\n+    return x < 1\n")
    assert source.mutated_text(diff) == "return x < 1"


def test_njit_spans_cover_kernel_bodies_only():
    src = ("import numba as nb\nfrom numba import njit\n"
           "@nb.njit(cache=True)\ndef k(a):\n    return a + 1\n"
           "@njit\ndef j(a):\n    return a - 1\n"
           "def p(a):\n    return a * 2\n")
    spans = source.njit_spans(src)
    assert len(spans) == 2
    assert source.in_spans((5, 11), spans) and source.in_spans((8, 11), spans)
    assert not source.in_spans((10, 11), spans) and not source.in_spans((3, 1), spans)


def test_annotation_spans_cover_annotations_only():
    src = ("from __future__ import annotations\n"
           "def f(a: int | None, b=1) -> float | None:\n"
           "    x: dict[str, int] | None = None\n"
           "    return a | b\n")
    spans = source.annotation_spans(src)
    bitors = [(2, src.splitlines()[1].index("|")), (2, src.splitlines()[1].rindex("|")),
              (3, src.splitlines()[2].rindex("|"))]
    assert all(source.in_spans(p, spans) for p in bitors)
    assert not source.in_spans((4, src.splitlines()[3].index("|")), spans)   # real code
    assert not source.in_spans((2, src.splitlines()[1].index("b=1") + 2), spans)  # a default


def test_run_tests_gives_each_mutant_a_fresh_compiled_numba_cache(tmp_path, monkeypatch):
    """The per-mutant command sets a new, empty NUMBA_CACHE_DIR (removed afterwards)
    for every command, never NUMBA_DISABLE_JIT, and fails at a failing command."""
    seen = tmp_path / "seen"
    probe = [sys.executable, "-c",
             "import os, pathlib, sys\n"
             "d = os.environ['NUMBA_CACHE_DIR']\n"
             "assert 'NUMBA_DISABLE_JIT' not in os.environ and pathlib.Path(d).is_dir()\n"
             "assert not any(pathlib.Path(d).iterdir())\n"
             "(pathlib.Path(d) / 'x.nbi').write_text('compiled')\n"
             f"open({str(seen)!r}, 'a').write(d + '\\n')\n"]
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    spec = config.ModuleSpec("m.py", ("tests/test_m.py",))
    assert mr.run_tests(spec, tmp_path, [probe]) == 0
    assert mr.run_tests(spec, tmp_path, [probe]) == 0
    a, b = seen.read_text().split()
    assert a != b and not Path(a).exists() and not Path(b).exists()
    fail = [sys.executable, "-c", "raise SystemExit(3)"]
    assert mr.run_tests(spec, tmp_path, [fail, probe]) == 1
    assert len(seen.read_text().split()) == 2          # stopped at the failure


def test_the_commands_are_the_tests_then_the_theory_filters():
    spec = config.ModuleSpec("a/m.py", ("tests/a/test_m.py::t", "tests/a/test_n.py"),
                         ("Theorem 1", "blind"))
    (pytest_cmd, th1, th2) = mr.commands(spec)
    assert pytest_cmd[1:3] == ["-m", "pytest"] and "-x" in pytest_cmd
    assert pytest_cmd[-2:] == ["tests/a/test_m.py::t", "tests/a/test_n.py"]
    assert th1[1:] == ["-m", "experiments.cli", "theory", "Theorem 1"]
    assert th2[-1] == "blind"


def test_cli_usage_errors_exit_2():
    def cli(*a):
        return subprocess.run([sys.executable, "-m", "mutation.run", *a], cwd=ROOT,
                              capture_output=True, text=True)

    r = cli("no/such.py")
    assert r.returncode == 2 and "not in modules.toml: no/such.py" in r.stderr
    r = cli()
    assert r.returncode == 2 and "--all or --changed" in r.stderr
    r = cli("--list", "experiments/claims/rules.py")
    assert r.returncode == 0 and r.stdout.strip() == "experiments/claims/rules.py"
    for bad in ("0", "-1", "two"):
        r = cli("--jobs", bad, "--list", "experiments/claims/rules.py")
        assert r.returncode == 2 and f"expected a whole number >= 1, got {bad!r}" in r.stderr
    r = cli("--jobs", "1", "--list", "experiments/claims/rules.py")
    assert r.returncode == 0 and r.stdout.strip() == "experiments/claims/rules.py"


def test_mutmut_is_skipped_where_every_function_is_a_kernel():
    kernels = "from numba import njit\n@njit\ndef k(a):\n    return a + 1\n"
    assert not source.mutmut_applicable(kernels)
    assert source.mutmut_applicable(kernels + "def p(a):\n    return a * 2\n")
    assert source.mutmut_applicable("class C:\n    def m(self):\n        return 1\n")
    assert not source.mutmut_applicable("X = 1\n")
    assert not source.mutmut_applicable((ROOT / "sim/games/sorted_window_kernels.py").read_text())
    assert source.mutmut_applicable((ROOT / "experiments/claims/rules.py").read_text())


def _cr_job(line, operator, worker, test=None, output=None, diff=None):
    """A fabricated cosmic-ray (work item, result) pair: the attributes the runner reads
    (``WorkItem.mutations[0]``'s operator and position; ``WorkResult``'s outcomes as the
    strings cosmic-ray's StrEnums compare equal to)."""
    from types import SimpleNamespace as NS

    item = NS(mutations=[NS(operator_name=operator, start_pos=(line, 4))])
    return item, NS(worker_outcome=worker, test_outcome=test, output=output, diff=diff)


def test_a_cosmic_ray_mutant_that_could_not_run_is_not_counted_as_killed():
    """cosmic-ray's WorkResult.is_killed is ``test_outcome != SURVIVED``, so a worker
    that raised (test outcome incompetent), died, had no mutation to apply (no test
    outcome at all) or a job exec left without a result would read as killed: each
    counts as not run, is reported with its outcome, and only normal/killed kills."""
    import enum

    class Worker(enum.Enum):          # cosmic-ray's enums, by value
        NORMAL = "normal"

    lines = ["def k(a):", "    return a + 1", "    b = a * 2", "    c = a - 3", "    d = 4"]
    eq = config.load_equivalents(EQ.replace('module = "a/k.py"', 'module = "a/x.py"')
                                 .replace("line = 3", "line = 2")
                                 .replace('"    return x * 2"', '"return a + 1"'))
    jobs = [_cr_job(2, "core/NumberReplacer", "skipped", output="filtered operator"),
            _cr_job(2, "core/NumberReplacer", Worker.NORMAL, "killed"),
            _cr_job(2, "core/NumberReplacer", "normal", "killed", output="timeout"),
            _cr_job(2, "core/NumberReplacer", "normal", "survived"),      # listed
            _cr_job(3, "core/AddNot", "normal", "survived", diff="-x\n+y"),
            _cr_job(4, "core/A", "exception", "incompetent", output="Traceback ..."),
            _cr_job(4, "core/B", "normal", "incompetent", output="no such command"),
            _cr_job(5, "core/C", "no-test"),
            _cr_job(5, "core/D", "abnormal"),
            (_cr_job(5, "core/E", "normal")[0], None)]                     # still pending
    counts, unexplained, listed, not_run = wcr.tally_cosmic_ray("a/x.py", lines, jobs, eq)
    assert {k: counts[k] for k in ("killed", "timed_out", "survived", "equivalent",
                                   "not_run")} == \
        {"killed": 2, "timed_out": 1, "survived": 2, "equivalent": 1, "not_run": 5}
    assert listed == {("cosmic-ray", "a/x.py", "core/NumberReplacer", 2, "return a + 1",
                       None)}
    assert [(u["line"], u["where"], u["text"]) for u in unexplained] == \
        [(3, "core/AddNot", "b = a * 2")]
    assert [(n["where"], n["outcome"]) for n in not_run] == [
        ("core/A", "exception/incompetent"), ("core/B", "normal/incompetent"),
        ("core/C", "no-test/None"), ("core/D", "abnormal/None"), ("core/E", "no result")]
    assert not_run[0]["output"] == "Traceback ..." and not_run[0]["line"] == 4
    assert wcr.cosmic_ray_outcome(None) == "not run"
    assert wcr.cosmic_ray_outcome(jobs[0][1]) == "skipped"


@pytest.mark.parametrize("status, verdict, killed, timed_out, survived, filtered", [
    ("killed", "killed", 1, 0, 0, 0), ("timeout", "killed", 1, 1, 0, 0),
    ("segfault", "killed", 1, 0, 0, 0), ("caught by type check", "killed", 1, 0, 0, 0),
    ("survived", "survived", 0, 0, 1, 0), ("no tests", "survived", 0, 0, 1, 0),
    ("suspicious", "survived", 0, 0, 1, 0), ("skipped", "filtered", 0, 0, 0, 1),
    ("not checked", "filtered", 0, 0, 0, 1)])
def test_each_mutmut_status_counts_once_and_a_timeout_is_named(status, verdict, killed,
                                                               timed_out, survived, filtered):
    c = config.empty_counts()
    assert wmm.count_status(c, status) == verdict
    assert (c["generated"], c["killed"], c["timed_out"], c["survived"], c["filtered"]) == \
        (1, killed, timed_out, survived, filtered)


def test_the_summary_says_how_many_kills_were_timeouts(monkeypatch, capsys):
    """A timeout is a kill a loaded machine can make: the summary line names them."""
    spec = "experiments/claims/rules.py"

    def mutmut_half(specs, *a, **k):
        return {s.path: dict(config.empty_counts(), generated=5, killed=5, timed_out=2)
                for s in specs}, [], set()

    monkeypatch.setattr(mr, "mutmut_modules", mutmut_half)
    monkeypatch.setattr(mr, "load_equivalents", lambda *a: [])
    monkeypatch.setattr(mr, "run_tests", lambda *a, **k: 0)
    assert mr.main(["--tool", "mutmut", spec]) == 0
    assert "5 killed (2 by timeout), 0 survived" in capsys.readouterr().out
    assert mr._timed_out(dict(config.empty_counts(), killed=3)) == ""


def test_the_run_fails_when_a_cosmic_ray_mutant_did_not_run(monkeypatch, capsys, tmp_path):
    """main() reports a mutant not run (NOT RUN, its outcome, the JSON's not_run) and
    exits 1 even with no survivor; the tools are faked, nothing is mutated."""
    spec = "experiments/claims/rules.py"
    monkeypatch.setattr(mr, "run_tests", lambda *a, **k: 0)
    monkeypatch.setattr(mr, "_copy_tree", lambda dest: (dest / "experiments/claims").mkdir(
        parents=True) or (dest / spec).write_text("X = 1\n"))
    lines = ["X = 1"]

    def kernels(s, cfg, equivalents, work, log=print, session=None):
        counts = dict(config.empty_counts(), generated=1)
        return wcr.tally_cosmic_ray(s.path, lines, [_cr_job(1, "core/A", "exception",
                                                            "incompetent")], [], counts)

    def no_mutmut(*a, **k):
        raise AssertionError("mutmut must not run: the module has no function")

    monkeypatch.setattr(mr, "cosmic_ray_kernels", kernels)
    monkeypatch.setattr(mr, "mutmut_modules", no_mutmut)
    monkeypatch.setattr(mr, "load_equivalents", lambda *a: [])
    out = tmp_path / "m.json"
    assert mr.main([spec, "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "0 killed, 0 survived (0 equivalent), 1 not run" in text
    assert f"NOT RUN [cosmic-ray] {spec}:1 core/A (exception/incompetent)" in text

    report = json.loads(out.read_text())
    assert report["counts"][spec]["cosmic-ray"]["not_run"] == 1 and not report["unexplained"]
    assert report["not_run"][0]["outcome"] == "exception/incompetent"


def test_the_example_at_the_top_of_equivalents_toml_is_accepted_by_the_loader():
    """The commented example entries (the comment block before the first real entry),
    uncommented, parse with load_equivalents: one per tool, as documented there."""
    head = config.EQUIVALENTS.read_text().split("\n[[equivalent]]", 1)[0]
    example = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#")
                        for line in head.splitlines()
                        if line.startswith("#") and not line.startswith("# --"))
    body = example[example.index("[[equivalent]]"):]
    mm, cr = config.load_equivalents(body)
    assert (mm.tool, mm.line, mm.where) == ("mutmut", None, "x_order_verdict")
    assert (cr.tool, cr.line, cr.where) == ("cosmic-ray", 123,
                                           "core/ReplaceComparisonOperator_Gt_GtE")
    for eq in (mm, cr):
        assert eq.module.endswith(".py") and len(eq.reason.split()) >= 3


@pytest.mark.parametrize("tool", ["mutmut", "cosmic-ray"])
def test_tool_runs_one_half_and_judges_staleness_by_that_half_only(tool, monkeypatch,
                                                                    capsys):
    """--tool runs only the named tool (the other is faked to fail if called); a listing
    of the other tool is not reported stale (its tool never ran), one of the same tool
    that no survivor matched is."""
    spec = "sim/games/recovery_gf2.py"
    monkeypatch.setattr(mr, "run_tests", lambda *a, **k: 0)
    monkeypatch.setattr(mr, "_copy_tree", lambda dest: (dest / "sim/games").mkdir(
        parents=True) or (dest / spec).write_text("def f():\n    return 1\n"))

    def never(*a, **k):
        raise AssertionError("the other tool must not run")

    def mutmut_half(specs, equivalents, work, log=print, jobs=None):
        return {s.path: config.empty_counts() for s in specs}, [], set()

    def kernel_half(s, cfg, equivalents, work, log=print, session=None):
        return config.empty_counts(), [], set(), []

    monkeypatch.setattr(mr, "mutmut_modules", mutmut_half if tool == "mutmut" else never)
    monkeypatch.setattr(mr, "cosmic_ray_kernels", kernel_half if tool == "cosmic-ray"
                        else never)
    listings = [config.Equivalent("mutmut", spec, "x_f", "return 2", "a reason"),
                config.Equivalent("cosmic-ray", spec, "core/A", "x = 1", "a reason", line=3)]
    monkeypatch.setattr(mr, "load_equivalents", lambda *a: listings)
    assert mr.main([spec, "--tool", tool]) == 1      # the same tool's listing is stale
    stale = [line for line in capsys.readouterr().out.splitlines() if "STALE" in line]
    assert len(stale) == 1 and f"('{tool}', '{spec}'" in stale[0]


def test_an_unknown_tool_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        mr.main(["sim/games/recovery_gf2.py", "--tool", "mutpy"])
    assert info.value.code == 2
    assert "invalid choice: 'mutpy'" in capsys.readouterr().err


# -- resumable kernel sessions (--session) ---------------------------------------------

KERNEL = "import numba\n\n\n@numba.njit\ndef f(a):\n    b = a + 1\n    return b * 2\n"


def _tiny_tree(root: Path) -> tuple[config.ModuleSpec, config.Config]:
    (root / "k").mkdir(parents=True)
    (root / "k/m.py").write_text(KERNEL)
    (root / "tests").mkdir()
    (root / "tests/test_m.py").write_text("from sim.other import X\n\n\ndef test_f():\n"
                                          "    assert X == 1\n")
    (root / "tests/conftest.py").write_text("")
    (root / "sim").mkdir()
    (root / "sim/other.py").write_text("X = 1\n")
    (root / "sim/unused.py").write_text("Y = 1\n")
    (root / "README.md").write_text("prose\n")
    spec = config.ModuleSpec("k/m.py", ("tests/test_m.py::test_f",))
    return spec, config.Config(60, (), {spec.path: spec})


@pytest.mark.parametrize("edit, moves", [
    ("k/m.py", True), ("tests/test_m.py", True), ("sim/other.py", True),
    ("tests/conftest.py", True), ("sim/unused.py", False), ("README.md", False)])
def test_the_session_state_moves_with_the_code_and_tests_only(tmp_path, edit, moves):
    """Only what the module and its tests import (and conftest.py) counts: a session
    of a sim kernel survives an edit of code its tests never import."""
    spec, cfg = _tiny_tree(tmp_path)
    assert sessions.dependency_files(spec, tmp_path) == [
        "k/m.py", "sim/other.py", "tests/conftest.py", "tests/test_m.py"]
    before = sessions.session_state(spec, cfg, tmp_path)
    assert before == sessions.session_state(spec, cfg, tmp_path)
    (tmp_path / edit).write_text((tmp_path / edit).read_text() + "# edit\n")
    now = sessions.session_state(spec, cfg, tmp_path)
    assert (now != before) is moves
    assert sessions.resume_mode(before, now) == (None if moves else "resume")
    # the settings count too: another timeout is another session
    other = config.Config(61, (), cfg.modules)
    assert sessions.resume_mode(before, sessions.session_state(spec, other, tmp_path)) is None


def test_added_tests_rerun_the_survivors_and_any_other_change_starts_afresh(tmp_path):
    spec, cfg = _tiny_tree(tmp_path)
    before = sessions.session_state(spec, cfg, tmp_path)
    (tmp_path / "tests/test_more.py").write_text("def test_g():\n    pass\n")
    more = config.ModuleSpec(spec.path, (*spec.tests, "tests/test_more.py"))
    assert sessions.resume_mode(before, sessions.session_state(more, cfg, tmp_path)) == \
        "rerun survivors"
    fewer = config.ModuleSpec(spec.path, ("tests/test_more.py",))      # a test id dropped
    assert sessions.resume_mode(before, sessions.session_state(fewer, cfg, tmp_path)) is None
    (tmp_path / "sim/more.py").write_text("Z = 1\n")               # new code, not a test
    (tmp_path / "tests/test_more.py").write_text("import sim.more\n")
    assert sessions.resume_mode(before, sessions.session_state(more, cfg, tmp_path)) is None
    (tmp_path / "tests/test_more.py").write_text("def test_g():\n    pass\n")
    (tmp_path / "tests/sub").mkdir()                                 # a new conftest.py
    (tmp_path / "tests/sub/conftest.py").write_text("")
    (tmp_path / "tests/sub/test_x.py").write_text("")
    sub = config.ModuleSpec(spec.path, (*spec.tests, "tests/sub/test_x.py"))
    assert sessions.resume_mode(before, sessions.session_state(sub, cfg, tmp_path)) is None


def test_a_session_resumes_only_with_its_own_state(tmp_path):
    spec, cfg = _tiny_tree(tmp_path / "tree")
    root, session = tmp_path / "tree", tmp_path / "s"
    session.mkdir()
    db, meta, mode, state = sessions.session_files(spec, cfg, session, root)
    assert (db.name, meta.name, mode) == ("k_m.py.sqlite", "k_m.py.json", "new")
    assert state == sessions.session_state(spec, cfg, root)
    db.write_bytes(b"")
    with pytest.raises(config.ConfigError, match="no readable state.*delete both"):
        sessions.session_files(spec, cfg, session, root)
    meta.write_text(json.dumps({"state": sessions.session_state(spec, cfg, root)}))
    assert sessions.session_files(spec, cfg, session, root)[2] == "resume"
    (root / "k/m.py").write_text(KERNEL.replace("+ 1", "+ 2"))
    with pytest.raises(config.ConfigError, match=r"made for other code or tests than "
                                                 r"k/m.py's now \(changed: k/m.py\)"):
        sessions.session_files(spec, cfg, session, root)


def test_an_interrupted_kernel_session_resumes_where_it_stopped(tmp_path, monkeypatch):
    """cosmic-ray init runs for real on a one-kernel module; exec is faked: the first
    run records one mutant's result and is interrupted, the second (same --session)
    skips init and filtering, keeps that result, runs the rest and sums both runs'
    time; a third run after the kernel changed refuses to resume."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    work, session = tmp_path / "work", tmp_path / "session"
    spec, cfg = _tiny_tree(work)
    real_run = subprocess.run
    calls, done = [], []   # done: job ids given a result (the very first one survives)

    def fake_exec(stop_after):
        def run(cmd, **kw):
            calls.append(cmd[1])
            if cmd[1] != "exec":
                return real_run(cmd, **kw)
            with use_db(cmd[3], WorkDB.Mode.open) as wdb:
                for n, item in enumerate(list(wdb.pending_work_items)):
                    if n == stop_after:
                        raise KeyboardInterrupt
                    wdb.set_result(item.job_id, WorkResult(
                        worker_outcome=WorkerOutcome.NORMAL,
                        test_outcome=TestOutcome.KILLED if done else TestOutcome.SURVIVED,
                        diff="-x\n+y"))
                    done.append(item.job_id)
            return subprocess.CompletedProcess(cmd, 0)
        return run

    monkeypatch.setattr(wcr.subprocess, "run", fake_exec(stop_after=1))
    session.mkdir()
    with pytest.raises(KeyboardInterrupt):
        wcr.cosmic_ray_kernels(spec, cfg, [], work, log=lambda s: None,
                               session=sessions.session_files(spec, cfg, session, work))
    assert calls == ["init", "exec"]
    first = json.loads((session / "k_m.py.json").read_text())
    assert first["module"] == "k/m.py" and first["seconds"] > 0
    with use_db(str(session / "k_m.py.sqlite"), WorkDB.Mode.open) as wdb:
        total, pending = wdb.num_work_items, sum(1 for _ in wdb.pending_work_items)
    assert total > 2 and pending >= 1

    calls.clear()
    said = []
    monkeypatch.setattr(wcr.subprocess, "run", fake_exec(stop_after=None))
    counts, unexplained, _, not_run = wcr.cosmic_ray_kernels(
        spec, cfg, [], work, log=said.append,
        session=sessions.session_files(spec, cfg, session, work))
    assert calls == ["exec"]                                   # no second init
    assert f"{pending} kernel mutants to run (of {total};" in said[0]
    assert "run before, resumed from" in said[0]
    assert counts["generated"] == total and not not_run
    assert counts["killed"] + counts["survived"] + counts["filtered"] == total
    assert counts["survived"] == 1 and len(unexplained) == 1  # the first run's survivor
    assert counts["seconds"] >= first["seconds"]

    # a test file added: the survivor runs again (and is killed now), kills stand
    (work / "tests/test_more.py").write_text("def test_g():\n    pass\n")
    more = config.ModuleSpec(spec.path, (*spec.tests, "tests/test_more.py"))
    calls.clear()
    said.clear()
    counts, unexplained, _, not_run = wcr.cosmic_ray_kernels(
        more, cfg, [], work, log=said.append,
        session=sessions.session_files(more, cfg, session, work))
    assert calls == ["exec"]
    assert said[0] == "cosmic-ray k/m.py: tests were added since the session began; its 1 " \
                      "survivors run again"
    assert "1 kernel mutants to run" in said[1]
    assert counts["survived"] == 0 and counts["killed"] == total - counts["filtered"]
    assert not unexplained and not not_run

    (work / "k/m.py").write_text(KERNEL.replace("* 2", "* 3"))
    with pytest.raises(config.ConfigError, match="made for other code"):
        sessions.session_files(more, cfg, session, work)


def test_main_refuses_a_stale_session_before_running_anything(tmp_path, monkeypatch,
                                                              capsys):
    cfg = config.load_config(config.MODULES.read_text())
    spec = cfg.modules["sim/games/sorted_window_kernels.py"]
    tag = spec.path.replace("/", "_")
    (tmp_path / f"{tag}.sqlite").write_bytes(b"")
    (tmp_path / f"{tag}.json").write_text('{"state": {"files": {}, "tests": [], "settings": "0"}}')

    def never(*a, **k):
        raise AssertionError("nothing may run")

    monkeypatch.setattr(mr, "run_tests", never)
    assert mr.main([spec.path, "--tool", "cosmic-ray", "--session", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "made for other code or tests than sim/games/sorted_window_kernels.py" in err


def test_a_sigterm_unwinds_the_run_and_restores_the_handler(monkeypatch, tmp_path):
    """Stopped with SIGTERM, a run raises SystemExit(143) where it is, so finally
    blocks run (a kernel session records its time, the temporary copy goes); the
    caller's SIGTERM handler is back afterwards."""
    import os
    import signal

    spec = "sim/games/recovery_gf2.py"
    copies = []
    monkeypatch.setattr(mr, "run_tests", lambda *a, **k: 0)
    monkeypatch.setattr(mr, "_copy_tree", lambda dest: copies.append(dest) or (
        dest / "sim/games").mkdir(parents=True) or (dest / spec).write_text("X = 1\n"))

    def stopped(*a, **k):
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("the signal must interrupt before this line")

    monkeypatch.setattr(mr, "cosmic_ray_kernels", stopped)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as info:
        mr.main([spec, "--tool", "cosmic-ray"])
    assert info.value.code == 143
    assert copies and not copies[0].exists()
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_kernel_session_is_opened_on_the_copy_before_mutmut_edits_it(tmp_path,
                                                                       monkeypatch):
    """mutmut's half appends a [tool.mutmut] table to the copy's pyproject.toml, a file
    the session's state hashes: the state must be the checkout's (taken before
    mutmut runs), or the next run's check against the checkout refuses the session."""
    path = "sim/games/kernels.py"              # both halves: Python functions and kernels
    cfg = config.load_config(config.MODULES.read_text())
    spec = cfg.modules[path]
    seen = {}

    def copy(dest):
        for name in sessions.dependency_files(spec, ROOT):
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_bytes((ROOT / name).read_bytes())

    def fake_mutmut(specs, equivalents, work, log=print, jobs=None):
        with open(work / "pyproject.toml", "a") as fh:
            fh.write("\n[tool.mutmut]\n")
        seen["mutmut"] = True
        return {s.path: config.empty_counts() for s in specs}, [], set()

    def fake_kernels(spec, cfg, equivalents, work, log=print, session=None):
        seen["session"] = session
        return config.empty_counts(), [], set(), []

    monkeypatch.setattr(mr, "run_tests", lambda *a, **k: 0)
    monkeypatch.setattr(mr, "_copy_tree", copy)
    monkeypatch.setattr(mr, "mutmut_modules", fake_mutmut)
    monkeypatch.setattr(mr, "cosmic_ray_kernels", fake_kernels)
    monkeypatch.setattr(mr, "load_equivalents", lambda *a: [])
    assert mr.main([path, "--session", str(tmp_path / "s")]) == 0
    db, meta, mode, state = seen["session"]
    assert seen["mutmut"] and mode == "new"
    assert db == (tmp_path / "s").resolve() / "sim_games_kernels.py.sqlite"
    assert state == sessions.session_state(spec, cfg, ROOT)


def test_a_session_over_a_missing_test_file_is_a_usage_error(tmp_path, monkeypatch, capsys):
    from experiments.arguments import UsageError

    def missing(*a, **k):
        raise UsageError("tests/games/gone.py: no such file")

    monkeypatch.setattr(mr, "session_files", missing)
    monkeypatch.setattr(mr, "run_tests", lambda *a, **k: pytest.fail("nothing may run"))
    assert mr.main(["sim/games/kernels.py", "--tool", "cosmic-ray", "--session",
                    str(tmp_path)]) == 2
    assert capsys.readouterr().err == "error: tests/games/gone.py: no such file\n"
