"""Mutation testing of the correctness core (issue 38): mutmut for Python code,
cosmic-ray for numba kernels, and the survivors judged against equivalents.toml.

    python3 -m mutation.run MODULE [MODULE ...]   # modules as named in modules.toml
    python3 -m mutation.run --all                 # every module of modules.toml
    python3 -m mutation.run --changed [REV]       # those a change touches (default HEAD)
    python3 -m mutation.run --list [...]          # print the selection and exit

A change touches a module when ``git diff REV`` (the working tree included, and
untracked files) names the module or one of the test files mapped to it.

Two tools, chosen by measurement (README.md, "Mutation testing"): mutmut 3 runs a
mutant in a forked process that has imported everything (about 4 mutants a second
here) but leaves every decorated function alone, so it never mutates an ``@njit``
kernel; cosmic-ray edits the source on disk and starts the tests afresh per mutant
(5-6 s a mutant here), which is what a compiled kernel needs. So mutmut mutates every
function it can, and cosmic-ray only the bodies of ``@njit`` functions, each mutant's
tests run with a fresh, empty ``NUMBA_CACHE_DIR`` (``--run-tests``): the kernel is
compiled from the mutated source, never taken from another mutant's cache or run
with the JIT disabled.

Each run copies the tracked and untracked-but-not-ignored files to a temporary
directory and mutates that copy, so the checkout is never left mutated. cosmic-ray's
mutants are filtered before exec (counted as "filtered", never run): operators
matching ``settings.exclude-operators`` in modules.toml, positions outside an
``@njit`` function, and positions inside a type annotation.

A kernel module's cosmic-ray run takes hours on two cores (a fresh compile per
mutant), longer than one sitting. ``--session DIR`` keeps each module's cosmic-ray
database in DIR and a later run with the same DIR resumes it: only mutants without a
result run, and an interrupted run loses at most the mutant in flight. A database is
resumed while its state (the module and its mapped tests with every file of the
repository they import, the settings and tool versions: :func:`session_state`) is
unchanged; where tests were only added, its survivors run again and its kills stand
(:func:`resume_mode`); any other change stops the run with exit 2, naming the files
to delete.

A survivor listed in equivalents.toml counts as equivalent; any other survivor, or a
listing that no mutant of a module that ran matches any more (its code changed), is
reported and makes the exit status 1. So does a cosmic-ray mutant that could not run
(its worker raised or died, it had no mutation to apply, its test command could not
start, or exec left it without a result): counted as "not run", never as killed.
Exit 2: a usage error or a bad configuration (one line naming it); 1: unexplained
survivors, mutants not run, stale listings, or tests that fail on the unmutated code.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODULES = HERE / "modules.toml"
EQUIVALENTS = HERE / "equivalents.toml"


class ConfigError(ValueError):
    """A bad modules.toml or equivalents.toml (the message names file and entry)."""


@dataclasses.dataclass(frozen=True)
class ModuleSpec:
    """One module to mutate: its path, the pytest node ids that cover it and the
    ``ctxsim theory`` filters run after them."""

    path: str
    tests: tuple[str, ...]
    theory: tuple[str, ...] = ()

    def test_files(self) -> set[str]:
        return {t.split("::", 1)[0] for t in self.tests}


@dataclasses.dataclass(frozen=True)
class Config:
    timeout: float
    exclude_operators: tuple[str, ...]
    modules: dict[str, ModuleSpec]


@dataclasses.dataclass(frozen=True)
class Equivalent:
    """A surviving mutant listed as equivalent, with the reason. ``tool``: "mutmut"
    (``where`` is the function as mutmut names it, e.g. ``x_gap_verdict`` or
    ``xǁTotalBoundǁafter``) or "cosmic-ray" (``where`` is the operator, e.g.
    ``core/NumberReplacer``, and ``line`` the line). ``text``: the mutated line(s) as
    the mutant reads them, stripped (mutmut) or the clean line (cosmic-ray).
    ``mutated`` (cosmic-ray only, optional): the line as the mutant reads it, stripped;
    without it the listing covers every mutant of its operator on its line (one
    operator can make several there: NumberReplacer moves each number up and down)."""

    tool: str
    module: str
    where: str
    text: str
    reason: str
    line: int | None = None
    mutated: str | None = None

    def key(self) -> tuple:
        return (self.tool, self.module, self.where, self.line, self.text.strip(),
                None if self.mutated is None else self.mutated.strip())


def _strings(value, what: str, empty_ok: bool = True) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value) \
            or not (value or empty_ok):
        raise ConfigError(f"{what} must be a list of non-empty strings"
                          f"{'' if empty_ok else ' (at least one)'}, got {value!r}")
    return tuple(value)


def load_config(text: str, where: str = "modules.toml") -> Config:
    """Parse modules.toml. Raises :class:`ConfigError` naming the bad entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    settings = data.get("settings", {})
    timeout = settings.get("timeout", 180)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ConfigError(f"{where}: settings.timeout must be a number of seconds > 0, "
                          f"got {timeout!r}")
    excl = _strings(settings.get("exclude-operators", []), f"{where}: exclude-operators")
    for pattern in excl:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(f"{where}: exclude-operators {pattern!r}: {exc}") from None
    mods = {}
    raw = data.get("modules")
    if not isinstance(raw, dict) or not raw:
        raise ConfigError(f"{where}: expected a [modules.\"PATH\"] table per module")
    for path, spec in raw.items():
        if not path.endswith(".py") or not isinstance(spec, dict):
            raise ConfigError(f"{where}: module {path!r} must be a .py path with a table")
        unknown = set(spec) - {"tests", "theory"}
        if unknown:
            raise ConfigError(f"{where}: module {path!r}: unknown keys {sorted(unknown)}")
        tests = _strings(spec.get("tests"), f"{where}: {path} tests", empty_ok=False)
        theory = _strings(spec.get("theory", []), f"{where}: {path} theory")
        mods[path] = ModuleSpec(path, tests, theory)
    return Config(float(timeout), excl, mods)


def load_equivalents(text: str, where: str = "equivalents.toml") -> list[Equivalent]:
    """Parse equivalents.toml. Raises :class:`ConfigError` naming the bad entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    out, seen = [], set()
    for i, e in enumerate(data.get("equivalent", []), 1):
        missing = {"tool", "module", "where", "text", "reason"} - set(e)
        if missing:
            raise ConfigError(f"{where}: entry {i} lacks {sorted(missing)}")
        if e["tool"] not in ("mutmut", "cosmic-ray"):
            raise ConfigError(f"{where}: entry {i}: tool must be mutmut or cosmic-ray, "
                              f"got {e['tool']!r}")
        line = e.get("line")
        if e["tool"] == "cosmic-ray" and (isinstance(line, bool) or not isinstance(line, int)
                                          or line < 1):
            raise ConfigError(f"{where}: entry {i}: a cosmic-ray entry needs line, an "
                              f"integer >= 1, got {line!r}")
        if not isinstance(e["reason"], str) or len(e["reason"].split()) < 3:
            raise ConfigError(f"{where}: entry {i}: a reason of at least a few words is "
                              f"needed, got {e['reason']!r}")
        mutated = e.get("mutated")
        if mutated is not None and (e["tool"] != "cosmic-ray" or not isinstance(mutated, str)
                                    or not mutated.strip()):
            raise ConfigError(f"{where}: entry {i}: mutated is for a cosmic-ray entry, the "
                              f"mutant's line as a non-empty string, got {mutated!r}")
        eq = Equivalent(e["tool"], str(e["module"]), str(e["where"]), str(e["text"]),
                        e["reason"].strip(), line if e["tool"] == "cosmic-ray" else None,
                        mutated)
        if eq.key() in seen:
            raise ConfigError(f"{where}: entry {i} repeats an earlier one")
        seen.add(eq.key())
        out.append(eq)
    return out


def select_changed(changed: set[str], modules: dict[str, ModuleSpec]) -> list[str]:
    """Modules whose source or one of whose test files is in ``changed`` (paths
    relative to the repository root), in modules.toml's order."""
    return [p for p, spec in modules.items() if p in changed or spec.test_files() & changed]


def git_changed(rev: str, root: Path = ROOT) -> set[str]:
    """Paths that differ from ``rev`` in the working tree, plus untracked files."""
    def git(*args):
        r = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
        if r.returncode:
            raise ConfigError(f"git {' '.join(args)}: {r.stderr.strip() or r.returncode}")
        return {line for line in r.stdout.splitlines() if line}

    return git("diff", "--name-only", rev, "--") | git("ls-files", "-o", "--exclude-standard")


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions, (line, column), of every type annotation in ``source``."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        anns = []
        if isinstance(node, ast.arg) and node.annotation is not None:
            anns.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            anns.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            anns.append(node.annotation)
        for a in anns:
            spans.append(((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)))
    return spans


def in_spans(pos: tuple[int, int], spans) -> bool:
    return any(start <= tuple(pos) < end for start, end in spans)


def njit_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of the body of every function decorated with numba's ``njit`` or
    ``jit`` (``@njit``, ``@nb.njit(...)``, ``@numba.jit(...)``)."""
    def is_jit(d):
        f = d.func if isinstance(d, ast.Call) else d
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        return name in ("njit", "jit")

    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any(map(is_jit, node.decorator_list)):
            first = node.body[0]
            spans.append(((first.lineno, first.col_offset),
                          (node.end_lineno, node.end_col_offset)))
    return spans


def mutmut_applicable(source: str) -> bool:
    """Whether mutmut has anything to mutate: a function or method without a
    decorator (mutmut 3 leaves decorated ones, ``@njit`` kernels included, alone)."""
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.decorator_list
               for n in ast.walk(ast.parse(source)))


def mutmut_module(name: str) -> tuple[str, str]:
    """(module path, function) of a mutmut mutant name, e.g.
    ``experiments.claims.rules.x_gap_verdict__mutmut_7`` ->
    ("experiments/claims/rules.py", "x_gap_verdict")."""
    head, sep, _ = name.rpartition("__mutmut_")
    if not sep:
        raise ValueError(f"not a mutmut mutant name: {name!r}")
    module, _, func = head.rpartition(".")
    return module.replace(".", "/") + ".py", func


def mutated_text(diff: str) -> str:
    """The lines a mutant adds (a unified diff's ``+`` lines), stripped, joined by
    newlines: what identifies the mutant inside its function."""
    return "\n".join(line[1:].strip() for line in diff.splitlines()
                     if line.startswith("+") and not line.startswith("+++"))


def is_listed(key: tuple, equivalents: list[Equivalent]) -> Equivalent | None:
    """The listing for a survivor's key (:meth:`Equivalent.key`), or None."""
    return next((e for e in equivalents if e.key() == key), None)


# --------------------------------------------------------------------- running
def commands(spec: ModuleSpec) -> list[list[str]]:
    """One mutant's commands: pytest on the module's tests (stop at the first
    failure), then each of its ``ctxsim theory`` filters."""
    cmds = [[sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
             *spec.tests]]
    return cmds + [[sys.executable, "-m", "experiments.cli", "theory", f]
                   for f in spec.theory]


def run_tests(spec: ModuleSpec, root: Path, cmds: list[list[str]] | None = None) -> int:
    """cosmic-ray's test command for one mutant: :func:`commands` (or ``cmds``) in
    ``root``, each with a fresh numba cache; 1 at the first that fails, else 0."""
    cache = tempfile.mkdtemp(prefix="mut-numba-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(root))
    env.pop("NUMBA_DISABLE_JIT", None)  # kernels run compiled, from the mutated source
    try:
        for cmd in commands(spec) if cmds is None else cmds:
            r = subprocess.run(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if r.returncode:
                return 1
        return 0
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _copy_tree(dest: Path) -> None:
    r = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                       capture_output=True, check=True)
    for name in r.stdout.decode().split("\0"):
        if not name:
            continue
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def _cr_config(spec: ModuleSpec, cfg: Config) -> str:
    cmd = f"{sys.executable} -m mutation.run --run-tests {spec.path}"
    return (f"[cosmic-ray]\nmodule-path = {json.dumps(spec.path)}\n"
            f"timeout = {cfg.timeout}\nexcluded-modules = []\n"
            f"test-command = {json.dumps(cmd)}\n\n"
            "[cosmic-ray.distributor]\nname = \"local\"\n")


def _module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def dependency_files(spec: ModuleSpec, root: Path) -> list[str]:
    """The files (relative paths under ``root``) one module's mutation results depend
    on: the module and its mapped test files with everything of the repository they
    import transitively (``sim``, ``theory``, ``experiments``, ``tests`` helpers and
    the packages' ``__init__.py``: :func:`experiments.figures_cli.import_closure`),
    every ``conftest.py`` on a test file's way down from ``tests/``, and
    pyproject.toml (pytest's settings).

    Raises:
        experiments.figures_cli.UsageError: the module or a mapped test file is
            missing under ``root``."""
    from experiments.figures_cli import import_closure

    paths = [spec.path, *dict.fromkeys(t.split("::")[0] for t in spec.tests)]
    packages = tuple({"sim", "theory", "experiments", "tests", spec.path.split("/")[0]})
    files = {"pyproject.toml"} if (root / "pyproject.toml").is_file() else set()
    for path in paths:
        files.update(import_closure(_module_name(path), root, packages))
        for parent in Path(path).parents:
            if (root / parent / "conftest.py").is_file():
                files.add((parent / "conftest.py").as_posix())
    return sorted(files)


def session_state(spec: ModuleSpec, cfg: Config, root: Path) -> dict:
    """What one module's cosmic-ray results depend on: ``files``, the sha256 (hex) of
    each file of :func:`dependency_files` under ``root``; ``tests``, the mapped test
    ids; ``settings``, the sha256 of the theory filters, the timeout, the excluded
    operators and the cosmic-ray and numba versions.

    Raises:
        experiments.figures_cli.UsageError: as :func:`dependency_files`."""
    import cosmic_ray
    import numba

    files = {name: hashlib.sha256((root / name).read_bytes()).hexdigest()
             for name in dependency_files(spec, root)}
    settings = json.dumps([spec.theory, cfg.timeout, cfg.exclude_operators,
                           getattr(cosmic_ray, "__version__", "?"), numba.__version__])
    return {"files": files, "tests": list(spec.tests),
            "settings": hashlib.sha256(settings.encode()).hexdigest()}


def resume_mode(saved: dict, now: dict) -> str | None:
    """How a session saved with state ``saved`` (:func:`session_state`) goes on under
    ``now``: "resume" (nothing changed: every result stands), "rerun survivors"
    (tests were only added: new test files or helpers under ``tests/``, none of them a
    conftest.py, every old file and test id unchanged, the same settings; a mutant
    the old tests killed is still killed, a survivor must meet the new tests), or
    None (anything else changed: no result can be trusted)."""
    if saved == now:
        return "resume"
    if saved.get("settings") != now["settings"]:
        return None
    old, new = saved.get("files", {}), now["files"]
    if any(new.get(name) != digest for name, digest in old.items()):
        return None
    added = set(new) - set(old)
    if any(not a.startswith("tests/") or a.endswith("conftest.py") for a in added):
        return None
    if not set(saved.get("tests", [])) <= set(now["tests"]):
        return None
    return "rerun survivors"


def _tag(spec: ModuleSpec) -> str:
    """A file-name stem for ``spec``'s cosmic-ray files (its path, / as _)."""
    return spec.path.replace("/", "_")


def session_files(spec: ModuleSpec, cfg: Config, session: Path, root: Path
                  ) -> tuple[Path, Path, str, dict]:
    """(database, metadata, mode, state) of ``spec``'s cosmic-ray session in
    ``session``: ``state`` is :func:`session_state` of ``root``; mode "new" when there
    is no database, else :func:`resume_mode` of the state the metadata saved against it.

    Raises:
        ConfigError: a database whose metadata is missing or unreadable, or whose
            code, tests or settings changed other than by added tests."""
    db, meta = session / f"{_tag(spec)}.sqlite", session / f"{_tag(spec)}.json"
    now = session_state(spec, cfg, root)
    if not db.exists():
        return db, meta, "new", now
    try:
        saved = json.loads(meta.read_text())["state"]
        if not isinstance(saved, dict):
            raise TypeError(f"state is a {type(saved).__name__}")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{meta}: no readable state for {db} ({exc}); delete "
                          f"both files to start {spec.path}'s session afresh") from None
    mode = resume_mode(saved, now)
    if mode is None:
        changed = sorted(n for n in {*saved.get("files", {}), *now["files"]}
                         if saved.get("files", {}).get(n) != now["files"].get(n))
        raise ConfigError(f"{db}: made for other code or tests than {spec.path}'s now "
                          f"(changed: {', '.join(changed[:5]) or 'settings or test ids'}"
                          f"{' ...' if len(changed) > 5 else ''}); delete it and "
                          f"{meta.name} to start afresh")
    return db, meta, mode, now


def _empty_counts() -> dict:
    return dict(generated=0, filtered=0, killed=0, survived=0, equivalent=0, not_run=0,
                seconds=0.0)


def _value(outcome) -> str | None:
    """An outcome enum's value ("normal", "killed", ...), or the string or None given."""
    return getattr(outcome, "value", outcome)


def cosmic_ray_outcome(result) -> str:
    """How one cosmic-ray job counts here: "skipped" (filtered before exec),
    "killed" (its tests ran and failed or passed the timeout: worker outcome
    ``normal``, test outcome ``killed``), "survived" (they ran and passed), or
    "not run": no result (None: still pending after exec), a worker that raised
    (``exception``), died (``abnormal``) or found no mutation to apply (``no-test``),
    or a test command that could not start (``incompetent``). cosmic-ray's own
    ``WorkResult.is_killed`` calls every job that did not survive killed, these
    included; here they are neither a kill nor a survivor, and fail the run."""
    if result is None:
        return "not run"
    worker, test = _value(result.worker_outcome), _value(result.test_outcome)
    if worker == "skipped":
        return "skipped"
    if worker == "normal" and test in ("killed", "survived"):
        return test
    return "not run"


def tally_cosmic_ray(path: str, lines: list[str], jobs, equivalents: list[Equivalent],
                     counts: dict | None = None) -> tuple[dict, list[dict], set, list[dict]]:
    """Count one module's cosmic-ray ``jobs``, (work item, result or None) pairs, by
    :func:`cosmic_ray_outcome` into ``counts`` (killed, survived, equivalent,
    not_run; a new :func:`_empty_counts` if None), ``lines`` being the module's
    clean source lines: (counts, unexplained survivors, keys of listed survivors,
    mutants not run)."""
    counts = _empty_counts() if counts is None else counts
    unexplained, listed, not_run = [], set(), []
    for item, result in jobs:
        verdict = cosmic_ray_outcome(result)
        if verdict == "skipped":
            continue
        if verdict == "killed":
            counts["killed"] += 1
            continue
        m = item.mutations[0]
        line = m.start_pos[0]
        text = lines[line - 1].strip()
        if verdict == "not run":
            counts["not_run"] += 1
            why = ("no result" if result is None else
                   f"{_value(result.worker_outcome)}/{_value(result.test_outcome)}")
            not_run.append({"tool": "cosmic-ray", "module": path, "where": m.operator_name,
                            "line": line, "text": text, "outcome": why,
                            "output": ((result.output or "") if result else "")[-2000:]})
            continue
        counts["survived"] += 1
        key = ("cosmic-ray", path, m.operator_name, line, text)
        mutated = mutated_text(result.diff or "") or None
        entry = (is_listed((*key, mutated), equivalents) if mutated else None) \
            or is_listed((*key, None), equivalents)
        if entry:
            counts["equivalent"] += 1
            listed.add(entry.key())
            continue
        unexplained.append({"tool": "cosmic-ray", "module": path, "where": m.operator_name,
                            "line": line, "text": text, "mutated": mutated,
                            "diff": result.diff or ""})
    return counts, unexplained, listed, not_run


def cosmic_ray_kernels(spec: ModuleSpec, cfg: Config, equivalents: list[Equivalent],
                       work: Path, log=print, session: Path | None = None
                       ) -> tuple[dict, list[dict], set, list[dict]]:
    """Init, filter (only ``@njit`` bodies) and exec one module's cosmic-ray session in
    the copy ``work``: (counts, unexplained survivors, keys of listed survivors,
    mutants not run: :func:`tally_cosmic_ray`). With ``session`` (a directory) the
    database lives there and one left by an earlier run is resumed
    (:func:`session_files`); ``counts["seconds"]`` then sums every run's exec time.

    Raises:
        ConfigError: a session database that cannot be resumed."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    counts = _empty_counts()
    source = (work / spec.path).read_text()
    kernels = njit_spans(source)
    if not kernels:
        return counts, [], set(), []
    conf = work / f".mut-{_tag(spec)}.toml"
    if session is None:
        db, meta, mode, state = work / f".mut-{_tag(spec)}.sqlite", None, "new", None
    else:
        session.mkdir(parents=True, exist_ok=True)
        db, meta, mode, state = session_files(spec, cfg, session, work)
    resume = mode != "new"
    if mode == "rerun survivors":  # the added tests may kill them: run them again
        with sqlite3.connect(db) as con:
            rerun = con.execute("DELETE FROM work_results WHERE worker_outcome = 'NORMAL' "
                                "AND test_outcome = 'SURVIVED'").rowcount
        log(f"cosmic-ray {spec.path}: tests were added since the session began; "
            f"its {rerun} survivors run again")
    conf.write_text(_cr_config(spec, cfg))
    env = dict(os.environ, PYTHONPATH=str(work))
    t0 = time.monotonic()
    before = json.loads(meta.read_text()).get("seconds", 0.0) if resume else 0.0
    if not resume:
        subprocess.run(["cosmic-ray", "init", str(conf), str(db)], cwd=work, env=env,
                       check=True, capture_output=True)
    lines = source.splitlines()
    spans = annotation_spans(source)
    excl = re.compile("|".join(f"(?:{p})" for p in cfg.exclude_operators)) \
        if cfg.exclude_operators else None
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        counts["generated"] = wdb.num_work_items
        for item in ([] if resume else list(wdb.pending_work_items)):
            m = item.mutations[0]
            why = ("outside the numba kernels (mutmut's)" if not in_spans(m.start_pos, kernels)
                   else "filtered operator" if excl and excl.match(m.operator_name)
                   else "in a type annotation" if in_spans(m.start_pos, spans) else None)
            if why:
                wdb.set_result(item.job_id, WorkResult(
                    worker_outcome=WorkerOutcome.SKIPPED, output=why))
        to_run = sum(1 for _ in wdb.pending_work_items)
        counts["filtered"] = sum(1 for _, r in wdb.completed_work_items
                                 if _value(r.worker_outcome) == "skipped")
    done = counts["generated"] - counts["filtered"] - to_run
    log(f"cosmic-ray {spec.path}: {to_run} kernel mutants to run "
        f"(of {counts['generated']}" + (f"; {done} run before, resumed from {db})"
                                       if resume else ")"))
    if meta is not None:
        meta.write_text(json.dumps({"module": spec.path, "seconds": before,
                                    "state": state}) + "\n")
    try:
        subprocess.run(["cosmic-ray", "exec", str(conf), str(db)], cwd=work, env=env,
                       check=True, capture_output=True)
    finally:  # an interrupted run keeps its time for the next
        counts["seconds"] = round(before + time.monotonic() - t0, 1)
        if meta is not None:
            meta.write_text(json.dumps({"module": spec.path, "seconds": counts["seconds"],
                                        "state": state}) + "\n")
    with use_db(str(db), WorkDB.Mode.open) as wdb:  # a job still pending: not run
        jobs = [*wdb.completed_work_items, *((item, None) for item in wdb.pending_work_items)]
    return tally_cosmic_ray(spec.path, lines, jobs, equivalents, counts)


#: mutmut's statuses that count as killed (a timeout or a crash is a detection)
MUTMUT_KILLED = {"killed", "timeout", "segfault", "caught by type check"}
#: statuses of a mutant no test detected ("no tests": no selected test runs its code)
MUTMUT_SURVIVED = {"survived", "no tests", "suspicious"}


def mutmut_modules(specs: list[ModuleSpec], equivalents: list[Equivalent], work: Path,
                   log=print, jobs: int | None = None) -> tuple[dict, list[dict], set]:
    """One mutmut session over ``specs`` in the copy ``work`` (its pyproject.toml
    gains a [tool.mutmut] table), with ``jobs`` workers (None: mutmut's default, one
    per CPU): (counts by module, unexplained survivors, keys of listed survivors)."""
    tests = sorted({t for s in specs for t in s.tests})
    table = ("\n[tool.mutmut]\n"
             f"source_paths = {json.dumps([s.path for s in specs])}\n"
             f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
             'also_copy = ["sim", "theory", "experiments", "tests", "mutation"]\n'
             # forked straight from mutmut's main process (which ran the suite for
             # its stats), a worker inherits numba's started threading layer and
             # aborts in its first parallel kernel: fork from a clean server instead
             'process_isolation = "forkserver"\n')
    with open(work / "pyproject.toml", "a") as fh:
        fh.write(table)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    t0 = time.monotonic()
    jobs_args = [] if jobs is None else ["--max-children", str(jobs)]
    r = subprocess.run(["mutmut", "run", *jobs_args], cwd=work, env=env, capture_output=True,
                       text=True)
    seconds = time.monotonic() - t0
    if r.returncode:
        raise RuntimeError(f"mutmut run failed ({r.returncode}): "
                           f"{(r.stdout + r.stderr)[-2000:]}")
    out = subprocess.run(["mutmut", "results", "--all", "true"], cwd=work, env=env,
                         capture_output=True, text=True, check=True).stdout
    counts = {s.path: _empty_counts() for s in specs}
    unexplained, listed = [], set()
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if not sep:
            continue
        module, func = mutmut_module(name)
        c = counts[module]
        c["generated"] += 1
        if status in MUTMUT_KILLED:
            c["killed"] += 1
        elif status in MUTMUT_SURVIVED:
            c["survived"] += 1
            diff = subprocess.run(["mutmut", "show", name], cwd=work, env=env,
                                  capture_output=True, text=True).stdout
            text = mutated_text(diff)
            key = ("mutmut", module, func, None, text, None)
            if is_listed(key, equivalents):
                c["equivalent"] += 1
                listed.add(key)
            else:
                unexplained.append({"tool": "mutmut", "module": module, "where": func,
                                    "status": status, "name": name, "text": text,
                                    "diff": diff})
        else:  # skipped, not checked, interrupted: not run, so not counted as killed
            c["filtered"] += 1
    ran = sum(c["killed"] + c["survived"] for c in counts.values())
    for c in counts.values():  # one session: its time shared by mutants run
        n = c["killed"] + c["survived"]
        c["seconds"] = round(seconds * n / ran, 1) if ran else 0.0
    log(f"mutmut: {ran} mutants in {seconds:.0f} s")
    return counts, unexplained, listed


#: the two halves of a run, each over its own part of a module
TOOLS = ("mutmut", "cosmic-ray")


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return n


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m mutation.run", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("modules", nargs="*", help="module paths as in modules.toml")
    p.add_argument("--all", action="store_true", help="every module of modules.toml")
    p.add_argument("--changed", nargs="?", const="HEAD", metavar="REV",
                   help="the modules whose source or tests differ from REV (default HEAD)")
    p.add_argument("--list", action="store_true", help="print the selection and exit")
    p.add_argument("--jobs", type=_positive_int, metavar="N",
                   help="mutmut workers (default: one per CPU); cosmic-ray runs one")
    p.add_argument("--tool", choices=TOOLS, help="run only this tool's mutants (mutmut: "
                   "Python functions; cosmic-ray: @njit kernel bodies); default: both")
    p.add_argument("--out", type=Path, help="write the summary as JSON here")
    p.add_argument("--session", type=Path, metavar="DIR",
                   help="keep cosmic-ray's kernel sessions in DIR and resume those an "
                   "earlier run left there (same code and tests only)")
    p.add_argument("--run-tests", metavar="MODULE", help=argparse.SUPPRESS)
    return p


def _exit_on_sigterm(signum, frame):
    # a stopped run unwinds like an interrupted one: a kernel session records its
    # time and the temporary copy is removed (the default action skips both)
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring); a SIGTERM ends it as SystemExit(143)."""
    if threading.current_thread() is not threading.main_thread():
        return _main(argv)
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        return _main(argv)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        cfg = load_config(MODULES.read_text(), str(MODULES))
        equivalents = load_equivalents(EQUIVALENTS.read_text(), str(EQUIVALENTS))
        if args.run_tests:
            return run_tests(cfg.modules[args.run_tests], Path.cwd())
        if sum(map(bool, (args.modules, args.all, args.changed))) != 1:
            raise ConfigError("give module paths, --all or --changed [REV] (one of them)")
        bad = [m for m in args.modules if m not in cfg.modules]
        if bad:
            raise ConfigError(f"not in modules.toml: {', '.join(bad)}; expected one of "
                              f"{', '.join(cfg.modules)}")
        chosen = (list(cfg.modules) if args.all else args.modules or
                  select_changed(git_changed(args.changed), cfg.modules))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.list or not chosen:
        print("\n".join(chosen) if chosen else "no module to mutate")
        return 0
    specs = [cfg.modules[p] for p in chosen]
    session = args.session.resolve() if args.session is not None else None
    if session is not None and args.tool != "mutmut":
        try:  # before anything runs: a session that cannot be resumed is a usage error
            for spec in specs:
                session_files(spec, cfg, session, ROOT)
        except ConfigError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    checked = set()  # modules that share their tests (theory/'s) run them once
    for spec in specs:
        if (spec.tests, spec.theory) in checked:
            continue
        checked.add((spec.tests, spec.theory))
        if run_tests(spec, ROOT):
            print(f"error: the tests of {spec.path} fail on the unmutated code",
                  file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory(prefix="ctxsim-mutation-") as tmp:
        work = Path(tmp)
        _copy_tree(work)
        say = lambda s: print(s, flush=True)  # noqa: E731
        tools = (args.tool,) if args.tool else TOOLS
        python = [s for s in specs if "mutmut" in tools and
                  mutmut_applicable((work / s.path).read_text())]
        counts, unexplained, listed = (mutmut_modules(python, equivalents, work, log=say,
                                                      jobs=args.jobs)
                                       if python else ({}, [], set()))
        counts.update({s.path: _empty_counts() for s in specs if s not in python})
        not_run = []
        for spec in specs:
            kc, ku, kl, kn = (cosmic_ray_kernels(spec, cfg, equivalents, work, log=say,
                                                 session=session)
                              if "cosmic-ray" in tools else (_empty_counts(), [], set(), []))
            counts[spec.path] = {"mutmut": counts[spec.path], "cosmic-ray": kc}
            unexplained += ku
            listed |= kl
            not_run += kn
    ran = {s.path for s in specs}
    # a listing is stale only where its own tool ran over its module
    stale = [e for e in equivalents if e.module in ran and e.tool in tools
             and e.key() not in listed]
    for path, by_tool in counts.items():
        for tool, c in by_tool.items():
            if c["generated"]:
                print(f"{path} [{tool}]: {c['generated']} generated, {c['filtered']} "
                      f"filtered, {c['killed']} killed, {c['survived']} survived "
                      f"({c['equivalent']} equivalent), {c['not_run']} not run; "
                      f"{c['seconds']} s")
    for u in unexplained:
        where = f"{u['module']}:{u['line']}" if u.get("line") else u["module"]
        print(f"  SURVIVED [{u['tool']}] {where} {u['where']}: {u['text']}")
    for n in not_run:
        print(f"  NOT RUN [{n['tool']}] {n['module']}:{n['line']} {n['where']} "
              f"({n['outcome']}): {n['text']}")
    for e in stale:
        print(f"  STALE equivalents.toml: no surviving mutant matches {e.key()}")
    if args.out:
        args.out.write_text(json.dumps({"counts": counts, "unexplained": unexplained,
                                        "not_run": not_run,
                                        "stale": [dataclasses.asdict(e) for e in stale]},
                                       indent=1) + "\n")
    return 1 if unexplained or stale or not_run else 0


if __name__ == "__main__":
    sys.exit(main())
