"""Benchmark of the sweep machinery (run: ``python -m experiments.bench.bench_sweeps``).

Everything runs in one process and is reported as a ratio against a reference
measured in the same run:

1. sweep throughput (tasks per second) with ``--jobs 2`` against ``--jobs 1`` on the
   same LOCA-like jobs (the ideal on two free cores is 2.0);
2. the shared-task token-count cache (:class:`sim.token_cache.KnownCountTokenizer`: the
   task's content counts measured at generation, then a memo shared by every program
   on the task) against recounting every block with the plain cl100k tokenizer, in
   episodes per second;
3. the episode scratch directory: tmpfs (``/dev/shm``, the default where present)
   against the disk-backed temp dir, in episodes per second. Episodes already skip
   fsync (``sync=False``: a simulated workspace is thrown away), but creating and
   removing the payload store's many small files and directories still costs.

Timings are the best of ``--repeat`` runs after a warm-up.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from experiments.bench import best_time, description


def _episodes(task, programs, tokenizer_factory, budget: int) -> None:
    from sim.agents import SyntheticAgent
    from sim.harness import run_episode
    from sim.policies import make_program

    for name in programs:
        run_episode(task, make_program(name), SyntheticAgent("medium"), budget=budget,
                    seed=1, tokenizer=tokenizer_factory())


def main(argv: list[str] | None = None) -> dict:
    """Run the three comparisons and print one line each; returns the ratios."""
    from experiments.settings.vista import CostSettings
    from experiments.sweep import loca_specs, run_sweep
    from sim.token_cache import KnownCountTokenizer
    from sim.tasks.loca import loca_task
    from sim.workspace.tokenizer import get_tokenizer

    p = argparse.ArgumentParser(description=description(__doc__))
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--families", type=int, default=15)
    p.add_argument("--growth", type=int, default=256_000)
    args = p.parse_args(argv)
    programs = ("react", "masking", "summarization", "vista")
    specs = loca_specs(CostSettings(growth=args.growth, programs=programs,
                                    families=args.families, seeds=1,
                                    dashboard_tokens=None))

    t1 = best_time(lambda: run_sweep(specs, jobs=1, progress=False), args.repeat)
    t2 = best_time(lambda: run_sweep(specs, jobs=2, progress=False), args.repeat)
    jobs_ratio = t1 / t2
    print(f"sweep {len(specs)} tasks x {len(programs)} programs: jobs=1 "
          f"{len(specs) / t1:.2f} tasks/s, jobs=2 {len(specs) / t2:.2f} tasks/s, "
          f"ratio {jobs_ratio:.2f} (ideal 2.0 on 2 free cores)")

    task = loca_task(1, 0, args.growth)
    base = get_tokenizer("cl100k_base")
    known = {s.content: s.tokens for s in task.steps if s.content}
    shared = KnownCountTokenizer(base, known)
    t_cache = best_time(lambda: _episodes(task, programs, lambda: shared, 128_000),
                        args.repeat)
    t_count = best_time(lambda: _episodes(task, programs, lambda: base, 128_000),
                        args.repeat)
    cache_ratio = t_count / t_cache
    print(f"token counts, {len(programs)} episodes on one task: shared cache "
          f"{t_cache:.2f} s, recounting {t_count:.2f} s, speed-up {cache_ratio:.2f}x")

    old = os.environ.get("CTXSIM_SCRATCH")
    try:
        os.environ["CTXSIM_SCRATCH"] = tempfile.gettempdir()
        t_disk = best_time(lambda: _episodes(task, programs, lambda: shared, 128_000),
                           args.repeat)
    finally:
        if old is None:
            os.environ.pop("CTXSIM_SCRATCH", None)
        else:
            os.environ["CTXSIM_SCRATCH"] = old
    scratch_ratio = t_disk / t_cache
    print(f"scratch dir: default {t_cache:.2f} s, {tempfile.gettempdir()} {t_disk:.2f} s, "
          f"speed-up {scratch_ratio:.2f}x")
    return {"jobs2_over_jobs1": jobs_ratio, "cache_over_recount": cache_ratio,
            "tmpfs_over_disk": scratch_ratio}


if __name__ == "__main__":  # pragma: no cover
    main()
