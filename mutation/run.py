"""Run cosmic-ray over the correctness core and judge its survivors (issue 38).

    python3 -m mutation.run MODULE [MODULE ...]   # modules as named in modules.toml
    python3 -m mutation.run --all                 # every module of modules.toml
    python3 -m mutation.run --changed [REV]       # those a change touches (default HEAD)
    python3 -m mutation.run --list [...]          # print the selection and exit

A change touches a module when ``git diff REV`` (the working tree included, and
untracked files) names the module or one of the test files mapped to it.

Each run copies the tracked and untracked-but-not-ignored files to a temporary
directory and mutates that copy (cosmic-ray edits the source on disk, one mutant at a
time), so the checkout is never left mutated. Every mutant's tests run in a new
process with a fresh ``NUMBA_CACHE_DIR`` (``--run-tests``), so a numba kernel is
recompiled from the mutated source, never taken from another mutant's cache or run
with the JIT disabled.

Before exec, mutants are filtered (counted as "filtered", never run): operators
matching ``settings.exclude-operators`` in modules.toml, and mutations inside a type
annotation (never evaluated: every module has ``from __future__ import annotations``).
A survivor listed in equivalents.toml (same module, operator, line and line text)
counts as equivalent; any other survivor, or a listing whose line text no longer
matches, is reported and makes the exit status 1. Exit 2: a usage error or a bad
configuration (one line naming it); 1: unexplained survivors, stale listings, or
tests that fail on the unmutated code.

Mutant counts and times: README.md, "Mutation testing".
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
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
    """A surviving mutant listed as equivalent, with the reason."""

    module: str
    operator: str
    line: int
    text: str
    reason: str

    def key(self) -> tuple[str, str, int]:
        return (self.module, self.operator, self.line)


def _strings(value, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{what} must be a list of non-empty strings, got {value!r}")
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
        tests = _strings(spec.get("tests"), f"{where}: {path} tests")
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
        missing = {"module", "operator", "line", "text", "reason"} - set(e)
        if missing:
            raise ConfigError(f"{where}: entry {i} lacks {sorted(missing)}")
        line = e["line"]
        if isinstance(line, bool) or not isinstance(line, int) or line < 1:
            raise ConfigError(f"{where}: entry {i}: line must be an integer >= 1, got "
                              f"{line!r}")
        if not isinstance(e["reason"], str) or len(e["reason"].strip()) < 10:
            raise ConfigError(f"{where}: entry {i}: a reason of at least a few words is "
                              f"needed, got {e['reason']!r}")
        eq = Equivalent(str(e["module"]), str(e["operator"]), line, str(e["text"]),
                        e["reason"].strip())
        if eq.key() in seen:
            raise ConfigError(f"{where}: entry {i} repeats {eq.key()}")
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


def match_survivor(module: str, operator: str, line: int, line_text: str,
                   equivalents: list[Equivalent]) -> tuple[Equivalent | None, bool]:
    """The listing for a survivor and whether its line text still matches."""
    for eq in equivalents:
        if eq.key() == (module, operator, line):
            return eq, eq.text.strip() == line_text.strip()
    return None, False


# --------------------------------------------------------------------- running
def run_tests(spec: ModuleSpec, root: Path) -> int:
    """One mutant's commands (cosmic-ray's test command): pytest on the module's
    tests, then its ``ctxsim theory`` filters, each with a fresh numba cache."""
    cache = tempfile.mkdtemp(prefix="mut-numba-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(root))
    env.pop("NUMBA_DISABLE_JIT", None)  # kernels run compiled, from the mutated source
    try:
        cmds = [[sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                 *spec.tests]]
        cmds += [[sys.executable, "-m", "experiments.cli", "theory", f]
                 for f in spec.theory]
        for cmd in cmds:
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


def mutate_module(spec: ModuleSpec, cfg: Config, equivalents: list[Equivalent],
                  work: Path, log=print) -> dict:
    """Init, filter and exec one module's cosmic-ray session in the copy ``work``;
    the per-module summary (counts, seconds, unexplained survivors)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    tag = spec.path.replace("/", "_")
    conf, db = work / f".mut-{tag}.toml", work / f".mut-{tag}.sqlite"
    conf.write_text(_cr_config(spec, cfg))
    env = dict(os.environ, PYTHONPATH=str(work))
    t0 = time.monotonic()
    if run_tests(spec, work):
        return {"module": spec.path, "error": "tests fail on the unmutated code"}
    subprocess.run(["cosmic-ray", "init", str(conf), str(db)], cwd=work, env=env,
                   check=True, capture_output=True)
    source = (work / spec.path).read_text()
    lines = source.splitlines()
    spans = annotation_spans(source)
    excl = re.compile("|".join(f"(?:{p})" for p in cfg.exclude_operators)) \
        if cfg.exclude_operators else None
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        generated = wdb.num_work_items
        for item in list(wdb.pending_work_items):
            m = item.mutations[0]
            why = ("filtered operator" if excl and excl.match(m.operator_name) else
                   "in a type annotation" if in_spans(m.start_pos, spans) else None)
            if why:
                wdb.set_result(item.job_id, WorkResult(
                    worker_outcome=WorkerOutcome.SKIPPED, output=why))
        to_run = sum(1 for _ in wdb.pending_work_items)
    log(f"{spec.path}: {generated} mutants, {to_run} to run")
    t1 = time.monotonic()
    subprocess.run(["cosmic-ray", "exec", str(conf), str(db)], cwd=work, env=env,
                   check=True, capture_output=True)
    t2 = time.monotonic()
    counts = dict(generated=generated, filtered=generated - to_run, killed=0,
                  survived=0, equivalent=0, incompetent=0)
    unexplained, stale = [], []
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        for item, result in wdb.completed_work_items:
            if result.worker_outcome is WorkerOutcome.SKIPPED:
                continue
            if result.test_outcome is TestOutcome.INCOMPETENT or \
                    result.worker_outcome is not WorkerOutcome.NORMAL:
                counts["incompetent"] += 1
                continue
            if result.test_outcome is TestOutcome.KILLED:
                counts["killed"] += 1
                continue
            counts["survived"] += 1
            m = item.mutations[0]
            line = m.start_pos[0]
            eq, fresh = match_survivor(spec.path, m.operator_name, line,
                                       lines[line - 1], equivalents)
            if eq is not None and fresh:
                counts["equivalent"] += 1
                continue
            entry = {"line": line, "operator": m.operator_name,
                     "text": lines[line - 1].strip(), "diff": result.diff or ""}
            (stale if eq is not None else unexplained).append(entry)
    run = counts["killed"] + counts["survived"] + counts["incompetent"]
    return dict(module=spec.path, **counts, unexplained=unexplained, stale=stale,
                seconds=round(t2 - t0, 1),
                seconds_per_mutant=round((t2 - t1) / run, 2) if run else None)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m mutation.run", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("modules", nargs="*", help="module paths as in modules.toml")
    p.add_argument("--all", action="store_true", help="every module of modules.toml")
    p.add_argument("--changed", nargs="?", const="HEAD", metavar="REV",
                   help="the modules whose source or tests differ from REV (default HEAD)")
    p.add_argument("--list", action="store_true", help="print the selection and exit")
    p.add_argument("--out", type=Path, help="write the summary as JSON here")
    p.add_argument("--run-tests", metavar="MODULE", help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
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
    results = []
    with tempfile.TemporaryDirectory(prefix="ctxsim-mutation-") as tmp:
        work = Path(tmp)
        _copy_tree(work)
        for path in chosen:
            res = mutate_module(cfg.modules[path], cfg, equivalents, work,
                                log=lambda s: print(s, flush=True))
            results.append(res)
            if "error" in res:
                print(f"{path}: {res['error']}", flush=True)
                continue
            print(f"{path}: {res['generated']} generated, {res['filtered']} filtered, "
                  f"{res['killed']} killed, {res['survived']} survived "
                  f"({res['equivalent']} equivalent), {res['incompetent']} incompetent; "
                  f"{res['seconds']} s ({res['seconds_per_mutant']} s a mutant)", flush=True)
            for s in res["unexplained"]:
                print(f"  SURVIVED {path}:{s['line']} {s['operator']}: {s['text']}")
            for s in res["stale"]:
                print(f"  STALE equivalents.toml entry {path}:{s['line']} "
                      f"{s['operator']}: the line now reads {s['text']!r}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    failed = any("error" in r or r["unexplained"] or r["stale"] for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
