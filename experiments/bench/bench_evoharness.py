"""Benchmark of ``ctxsim run evoharness`` (run: ``python -m experiments.bench.bench_evoharness``).

Measures, in one process:

1. the wall time of the default synthetic grid (``run`` with the defaults; the bar is
   under 10 minutes on 2 cores), reported with its episode count;
2. the Evo-Harness overhead per episode as a ratio against a reference measured in the
   same run: episodes of the no-evolve arm (a plain episode with the skill-reading
   agent and no block) against episodes of the online-standard arm (Select, the
   pinned block, reflection and curation after each task), on the same tasks.

``--quick`` times the quick grid instead of the default one.
"""

from __future__ import annotations

import argparse
import tempfile
import time


from experiments.bench import description
from experiments.evoharness import experiment as ev
from experiments.evoharness.arms import arms
from experiments.evoharness.grid import run_arm, tasks as grid_tasks


def _arm_time(arm: str, tasks, cfg) -> float:
    a = next(x for x in arms(["medium"]) if x.arm == arm)
    t0 = time.perf_counter()
    run_arm(a, [], tasks, cfg, cfg.program, 0)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> dict:
    """Run both measurements and print one line each; returns them."""
    p = argparse.ArgumentParser(description=description(__doc__))
    p.add_argument("--quick", action="store_true", help="time the quick grid")
    args = p.parse_args(argv)
    cfg = ev.SETTINGS.from_args(argparse.Namespace(quick=args.quick)).with_(seed=0)
    tasks = grid_tasks(cfg.families, 2, cfg.growth, 0)
    _arm_time("no-evolve", tasks[:2], cfg)  # warm-up: imports, tokenizer, caches
    ref = min(_arm_time("no-evolve", tasks, cfg) for _ in range(2))
    evo = min(_arm_time("online-standard", tasks, cfg) for _ in range(2))
    print(f"online-standard / no-evolve time per episode on {len(tasks)} tasks: "
          f"{evo / ref:.2f} (no-evolve {ref / len(tasks) * 1e3:.1f} ms/episode)")
    with tempfile.TemporaryDirectory() as d:
        ns = argparse.Namespace(out=d, quick=args.quick, backend="synthetic", seed=0,
                                reps=None, b=None, batch=None, program=None,
                                workers=None, no_progress=True)
        t0 = time.perf_counter()
        ev.run(ns)
        wall = time.perf_counter() - t0
    grid = "quick" if args.quick else "default"
    print(f"{grid} synthetic grid: {wall:.1f} s wall with {cfg.workers} worker(s) "
          f"(bar: 600 s on 2 cores; includes the ContextEvo loop)")
    return {"overhead_ratio": evo / ref, "grid_seconds": wall}


if __name__ == "__main__":  # pragma: no cover
    main()
