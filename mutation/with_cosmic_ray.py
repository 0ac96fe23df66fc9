"""cosmic-ray over the bodies of a module's numba kernels: each mutant edited on disk
in a temporary copy, its tests run afresh with an empty ``NUMBA_CACHE_DIR`` (the
kernel compiled from the mutated source, never from another mutant's cache nor with
the JIT disabled), in a throwaway or a resumable session (:mod:`mutation.sessions`),
and its outcomes tallied against equivalents.toml."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from mutation.config import Config, Equivalent, ModuleSpec, empty_counts, is_listed
from mutation.sessions import file_tag
from mutation.source import annotation_spans, in_spans, mutated_text, njit_spans


def _cr_config(spec: ModuleSpec, cfg: Config) -> str:
    cmd = f"{sys.executable} -m mutation.run --run-tests {spec.path}"
    return (f"[cosmic-ray]\nmodule-path = {json.dumps(spec.path)}\n"
            f"timeout = {cfg.timeout}\nexcluded-modules = []\n"
            f"test-command = {json.dumps(cmd)}\n\n"
            "[cosmic-ray.distributor]\nname = \"local\"\n")


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
    not_run; a new :func:`mutation.config.empty_counts` if None), ``lines`` being the module's
    clean source lines: (counts, unexplained survivors, keys of listed survivors,
    mutants not run)."""
    counts = empty_counts() if counts is None else counts
    unexplained, listed, not_run = [], set(), []
    for item, result in jobs:
        verdict = cosmic_ray_outcome(result)
        if verdict == "skipped":
            continue
        if verdict == "killed":
            counts["killed"] += 1
            # cosmic-ray's run_tests gives the output "timeout" for a command past it
            counts["timed_out"] += (result.output or "") == "timeout"
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
                       work: Path, log=print, session: tuple | None = None
                       ) -> tuple[dict, list[dict], set, list[dict]]:
    """Init, filter (only ``@njit`` bodies) and exec one module's cosmic-ray session in
    the copy ``work``: (counts, unexplained survivors, keys of listed survivors,
    mutants not run: :func:`tally_cosmic_ray`). With ``session``, the module's session
    as :func:`mutation.sessions.session_files` opened it (database, metadata, mode,
    state), the database lives in the session's directory and one left by an earlier
    run is resumed; ``counts["seconds"]`` then sums every run's exec time."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    counts = empty_counts()
    source = (work / spec.path).read_text()
    kernels = njit_spans(source)
    if not kernels:
        return counts, [], set(), []
    conf = work / f".mut-{file_tag(spec)}.toml"
    if session is None:
        db, meta, mode, state = work / f".mut-{file_tag(spec)}.sqlite", None, "new", None
    else:
        db, meta, mode, state = session
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
