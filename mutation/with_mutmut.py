"""mutmut over a module's Python functions (mutmut 3 leaves decorated functions, the
numba kernels included, to cosmic-ray: :mod:`mutation.with_cosmic_ray`): one session
in a temporary copy, its survivors judged against equivalents.toml."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from mutation.config import Equivalent, ModuleSpec, empty_counts, is_listed
from mutation.source import mutated_text, mutmut_module

#: mutmut's statuses that count as killed (a timeout or a crash is a detection)
MUTMUT_KILLED = {"killed", "timeout", "segfault", "caught by type check"}
#: statuses of a mutant no test detected ("no tests": no selected test runs its code)
MUTMUT_SURVIVED = {"survived", "no tests", "suspicious"}


def count_status(c: dict, status: str) -> str:
    """Count one mutant's mutmut ``status`` into ``c`` (:func:`mutation.config.empty_counts`)
    and say how it counts: "killed" (``timeout`` also adds to ``timed_out``),
    "survived" (its listing is judged by the caller) or "filtered" (skipped, not
    checked, interrupted: not run, so not counted as killed)."""
    c["generated"] += 1
    if status in MUTMUT_KILLED:
        c["killed"] += 1
        c["timed_out"] += status == "timeout"
        return "killed"
    if status in MUTMUT_SURVIVED:
        c["survived"] += 1
        return "survived"
    c["filtered"] += 1
    return "filtered"


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
    counts = {s.path: empty_counts() for s in specs}
    unexplained, listed = [], set()
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if not sep:
            continue
        module, func = mutmut_module(name)
        c = counts[module]
        if count_status(c, status) != "survived":
            continue
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
    ran = sum(c["killed"] + c["survived"] for c in counts.values())
    for c in counts.values():  # one session: its time shared by mutants run
        n = c["killed"] + c["survived"]
        c["seconds"] = round(seconds * n / ran, 1) if ran else 0.0
    log(f"mutmut: {ran} mutants in {seconds:.0f} s")
    return counts, unexplained, listed
