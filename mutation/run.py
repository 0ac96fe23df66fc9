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
repository they import, the settings and tool versions:
:func:`mutation.sessions.session_state`) is unchanged; where tests were only added, its
survivors run again and its kills stand (:func:`mutation.sessions.resume_mode`); any
other change stops the run with exit 2, naming the files to delete.

The parts, one job each: :mod:`mutation.config` (the two TOML files),
:mod:`mutation.source` (kernel bodies, annotations, a mutant's lines),
:mod:`mutation.sessions`, :mod:`mutation.with_mutmut` and
:mod:`mutation.with_cosmic_ray` (one tool's half each); this module selects the
modules, checks their tests on the unmutated code, runs both halves in a temporary
copy and reports.

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
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from mutation.config import (EQUIVALENTS, MODULES, ROOT, ConfigError, ModuleSpec,
                             empty_counts, load_config, load_equivalents)
from mutation.sessions import session_files
from mutation.source import mutmut_applicable
from mutation.with_cosmic_ray import cosmic_ray_kernels
from mutation.with_mutmut import mutmut_modules


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


def _timed_out(c: dict) -> str:
    """The text put after a killed count: ' (N by timeout)' where N > 0 of the kills
    were timeouts, else ''."""
    return f" ({c['timed_out']} by timeout)" if c.get("timed_out") else ""


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
        except ValueError as exc:  # ConfigError, or a mapped file missing (UsageError)
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
        opened = {}
        if session is not None and "cosmic-ray" in tools:
            session.mkdir(parents=True, exist_ok=True)
            try:  # the copy's state, before mutmut adds its table to its pyproject.toml
                opened = {s.path: session_files(s, cfg, session, work) for s in specs}
            except ValueError as exc:  # the checkout changed since the check above
                print(f"error: {exc}", file=sys.stderr)
                return 2
        python = [s for s in specs if "mutmut" in tools and
                  mutmut_applicable((work / s.path).read_text())]
        counts, unexplained, listed = (mutmut_modules(python, equivalents, work, log=say,
                                                      jobs=args.jobs)
                                       if python else ({}, [], set()))
        counts.update({s.path: empty_counts() for s in specs if s not in python})
        not_run = []
        for spec in specs:
            kc, ku, kl, kn = (cosmic_ray_kernels(spec, cfg, equivalents, work, log=say,
                                                 session=opened.get(spec.path))
                              if "cosmic-ray" in tools else (empty_counts(), [], set(), []))
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
                      f"filtered, {c['killed']} killed{_timed_out(c)}, "
                      f"{c['survived']} survived "
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
