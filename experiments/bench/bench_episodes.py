"""Cost of one synthetic episode, the durable path against the fast path (run:
``python -m experiments.bench.bench_episodes``).

Plays the same pressure-sweep jobs (LOCA-like tasks, every program of the default
sweep, every growth level) both ways in this process, job by job and alternating
which path goes first, so load on a shared machine hits both alike:

* reference: :func:`experiments.sweep.run_job` with ``fast=False``: each episode on
  a durable :class:`sim.workspace.Workspace` (payload files, journal, lock) and a
  fresh assembly for every read of the request;
* fast: ``fast=True``: the same workspace core on an in-memory
  :class:`sim.workspace.memory.ScratchWorkspace`, with the request and stream reused
  while the workspace state is unchanged, and each request assembled incrementally
  (:mod:`sim.workspace.incremental`: only the items an operation touched are
  re-rendered; a registration's what-if request is the next request when that
  registration is committed; native messages made once per process).

Checks that both give identical episode rows, and prints CPU seconds (process time,
less sensitive to other processes than wall time) and milliseconds per episode of
each, then as its last line ``speed-up N.Nx`` (reference / fast).
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments.settings.vista import PressureSettings
from experiments.sweep import loca_specs, run_job


def main(argv=None) -> int:
    """Play the jobs both ways, compare the rows, print the times and the ratio."""
    d = PressureSettings.table()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--levels", type=int, nargs="+", default=d["levels"],
                   help="growth levels in tokens (default: the pressure sweep's)")
    p.add_argument("--families", type=int, default=2,
                   help="task families per level (default: 2)")
    p.add_argument("--seeds", type=int, default=1, help="seeds per family (default: 1)")
    p.add_argument("--programs", nargs="+", default=d["programs"],
                   help="programs (default: the pressure sweep's)")
    args = p.parse_args(argv)
    # dashboard_tokens None: each program's registered cap
    specs = loca_specs(PressureSettings(levels=tuple(args.levels),
                                        programs=tuple(args.programs),
                                        families=args.families, seeds=args.seeds,
                                        dashboard_tokens=None))
    run_job(specs[0], fast=False)       # warm-up: imports, tokenizer, vocabularies
    run_job(specs[0], fast=True)
    seconds = {False: 0.0, True: 0.0}
    rows = {False: [], True: []}
    wall = time.perf_counter()
    for i, spec in enumerate(specs):
        for fast in ((False, True) if i % 2 == 0 else (True, False)):
            t0 = time.process_time()
            rows[fast] += run_job(spec, fast=fast)
            seconds[fast] += time.process_time() - t0
    wall = time.perf_counter() - wall
    episodes = len(rows[True])
    if rows[True] != rows[False]:
        diff = next(i for i, (a, b) in enumerate(zip(rows[False], rows[True])) if a != b)
        print(f"ROWS DIFFER at episode {diff}: {rows[False][diff]} vs {rows[True][diff]}")
        return 1
    print(f"{episodes} episodes ({len(specs)} jobs x {len(args.programs)} programs, levels "
          f"{args.levels}), identical rows both ways; wall {wall:.1f} s for both")
    for fast, name in ((False, "reference (durable store, fresh assembly)"),
                       (True, "fast (in-memory store, memoised views)")):
        print(f"{name:44s} {seconds[fast]:8.2f} CPU s {1000 * seconds[fast] / episodes:8.1f} "
              f"ms/episode")
    print(f"speed-up {seconds[False] / seconds[True]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
