"""Per-stage times of ``ctxsim run theorem1`` (run: ``python -m experiments.bench.bench_theorem1``).

1. Runs the grid in this process (``--grid default``, or ``quick``, or the default
   grid cut to ``--log2-n`` sizes) with :class:`experiments.vista.theorem1.StageTimer` and
   prints the wall seconds of each stage (E[Z] sampling, exact Var Z and the E[Z]
   quadrature, rates, bounds, Proposition 2's extra points, figures), the total,
   and the largest standard errors of the rows.
2. Times, at every content point of the grid and of Proposition 2's extra sizes,
   the content channel's E[Z] and E[Z^2] both ways in this process: the tabulated
   quadrature the grid uses (:func:`sim.games.content_burden.content_Z_moments`, one
   table per (n, kappa)) and the plain adaptive quadrature it replaced
   (:func:`sim.games.reference.content_moment_quad`, one ``binom.sf`` call per
   evaluation, once per power), with the largest difference between them; and the
   grid's total with the old stage swapped in.
3. Compares, at the same (n, kappa, sigma) points, the content rate's exact 2-D
   quadrature (:mod:`sim.games.content_rate`, what the grid uses) with the best plain
   implementation of the Monte Carlo it replaced: the numba brute-force rate kernel
   with its control variate (n draws and a log-sum-exp per trial) at the trial count
   the old grid used. Reported: seconds per point and the SE in bits of each.

4. The floor (issue 35), in CPU seconds of this run: a warm ``ctxsim run theorem1``
   in a child process (after one unmeasured run that warms numba's cache) against
   what any implementation must spend: importing what the run imports
   (``experiments.vista.theorem1`` and ``matplotlib.pyplot``, in a child process), the kernels alone (the
   batched exact sampler over every point of the grid and of Proposition 2's extra
   sizes, its seeds prepared outside the timing; the content channel's rate tables,
   the rate's quadrature sum at each content point, and the E[Z] tables), and
   drawing the two figures once each. The LAST
   line is the warm run's ratio to that floor (issue 35's goal: at most 1.5x).
   CPU time counts every numba thread, so the ratio means the same at any thread
   count; the figures are drawn in this process after matplotlib is warm, so the
   floor is if anything low.

Timings are single runs after a warm-up point (numba JIT and the rate tables of
the first (kappa, sigma) excluded); on a shared machine say so when quoting them.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from experiments.bench import description
from experiments.settings.theory import Theorem1Settings
from experiments.vista import proposition2
from experiments.vista.theorem1 import StageTimer, run_grid, simulate_point
from experiments.vista.eviction_grid import (_BLOCK_TRIALS, channels_for, grid_points,
                                             point_seed)
from experiments.vista.theorem1 import plot_theorem1
from sim.games import content_burden
from sim.games.channels import Content
from sim.games.content_rate import _tables, content_rate_exact
from sim.games.eviction import ExactBatch
from sim.games.information import content_rate_mc
from sim.games.reference import content_moment_quad

#: The old grid's Monte Carlo budget: at most 2^27 normal draws per content point,
#: between 256 and 4000 trials.
OLD_RATE_WORK, OLD_MIN_TRIALS, OLD_MAX_TRIALS = 2**27, 256, 4000


def stage_table(grid: str, log2_n: list[int] | None
                ) -> tuple[float, list[tuple], list, object]:
    """Run the grid with a stage timer and print the per-stage table; returns the
    total seconds, the (n, kappa, sigma) of every content point (grid and extras),
    the grid's rows and its settings."""
    table = Theorem1Settings.load(grid)
    config = Theorem1Settings.build({**table, "log2_n": log2_n or table["log2_n"]})
    # warm-up: JIT of the sampler and one rate table (excluded from the table)
    simulate_point(Content(1.0), 64, 4, 2, config, 0)
    timer = StageTimer()
    t0 = time.perf_counter()
    rows = run_grid(config, seed=1, progress=False, timer=timer)
    grid_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as out:
        with timer("figures"):
            plot_theorem1(rows, config.panels, pathlib.Path(out) / "theorem1.png")
        t1 = time.perf_counter()
        prop_timer = StageTimer()
        proposition2.write(rows, config, 1, pathlib.Path(out), grid, progress=False,
                           timer=prop_timer)
        prop_s = time.perf_counter() - t1
    total = sum(timer.seconds.values()) + prop_s
    print(f"grid {grid!r}, log2 n = {config.log2_n}, {len(rows)} points, "
          f"numba threads {numba.get_num_threads()}")
    print(f"{'stage':40s} {'seconds':>9s} {'share':>7s} {'CPU s':>7s}")
    for stage, sec in sorted(timer.seconds.items(), key=lambda kv: -kv[1]):
        print(f"{stage:40s} {sec:9.2f} {sec / total:7.1%} {timer.cpu_seconds[stage]:7.2f}")
    print(f"{'proposition2 (extra n, csv, figure)':40s} {prop_s:9.2f} {prop_s / total:7.1%}")
    print(f"{'total':40s} {total:9.2f}   (grid loop {grid_s:.2f} s)")
    worst_ez = max(r["EZ_se"] / r["kappa"] for r in rows)
    worst_rate = max(r["rate_se_bits"] for r in rows)
    print(f"max EZ_se / kappa = {worst_ez:.3%}, max rate error = {worst_rate:.2g} bits")
    content = [(r["n"], r["kappa"], r["param"]) for r in rows if r["channel"] == "content"]
    content += [(2**int(e), int(k), float(sg)) for e in config.prop2_extra_log2_n
                for k in config.kappas for sg in config.sigmas]
    return total, content, rows, config


def moments_comparison(points: list[tuple], total: float) -> None:
    """The content channel's exact E[Z] and E[Z^2] at ``points``, tabulated against
    the plain quadrature, timed in this process (tables built inside the timing)."""
    content_burden._table.cache_clear()
    t0 = time.perf_counter()
    new = [content_burden.content_Z_moments(n, k, sg) for n, k, sg in points]
    t_new = time.perf_counter() - t0
    t0 = time.perf_counter()
    old = [(content_moment_quad(n, k, sg, 1), content_moment_quad(n, k, sg, 2))
           for n, k, sg in points]
    t_old = time.perf_counter() - t0
    diff = max(max(abs(a[0] - b[0]) / k, abs(a[1] - b[1]) / k**2)
               for a, b, (_, k, _) in zip(new, old, points))
    print(f"content E[Z], E[Z^2] at {len(points)} points: tabulated {t_new:.2f} s, plain "
          f"quadrature {t_old:.2f} s ({t_old / t_new:.0f}x); max difference "
          f"{diff:.1e} (relative to kappa^p; the plain path's tolerance is 1e-10)")
    print(f"grid total with the plain quadrature: {total - t_new + t_old:.2f} s; "
          f"tabulated: {total:.2f} s ({(total - t_new + t_old) / total:.1f}x)")


def rate_comparison(points) -> None:
    """Exact quadrature against the old Monte Carlo rate at the same points."""
    print(f"{'n':>8s} {'kappa':>5s} {'sigma':>5s} | {'quadrature s':>12s} {'err bits':>9s} | "
          f"{'MC s':>7s} {'MC trials':>9s} {'MC SE bits':>10s} | {'speed-up':>8s}")
    content_rate_mc(64, 4, 1.0, trials=64, seed=0)          # JIT warm-up
    for n, kappa, sigma in points:
        _tables.cache_clear()          # time the (kappa, sigma) table too
        t0 = time.perf_counter()
        _, err = content_rate_exact(n, kappa, sigma)
        t_quad = time.perf_counter() - t0
        trials = int(max(OLD_MIN_TRIALS, min(OLD_MAX_TRIALS, OLD_RATE_WORK // n)))
        t0 = time.perf_counter()
        mc = content_rate_mc(n, kappa, sigma, trials=trials, seed=1)
        t_mc = time.perf_counter() - t0
        print(f"{n:8d} {kappa:5d} {sigma:5g} | {t_quad:12.4f} {err:9.1e} | {t_mc:7.2f} "
              f"{trials:9d} {mc.se_bits:10.3g} | {t_mc / t_quad:7.0f}x")
    print("quadrature seconds include building the (kappa, sigma) table; later n at the "
          "same (kappa, sigma) reuse it")


def _child_cpu(argv: list[str]) -> float:
    """CPU seconds (user + system, every thread) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ, MPLBACKEND="Agg")
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _cpu(fn) -> float:
    """CPU seconds of this process (every thread) spent in ``fn()``."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def kernel_floor(config, seed: int) -> dict[str, float]:
    """CPU seconds of the kernels alone: the batched exact sampler over every point
    (grid and Proposition 2's extras, seeds prepared outside the timing, blocks as
    the run draws them, into one pre-touched buffer), and the rate and E[Z]
    quadrature tables built from empty caches."""
    points = list(grid_points(config))
    for e in config.prop2_extra_log2_n:
        n = 2**int(e)
        chans = channels_for(n, config.sigmas)
        points += [(Content(float(s)), n, int(k), chans.index(Content(float(s))))
                   for k in config.kappas for s in config.sigmas]
    trials = int(config.trials)
    block = max(1, _BLOCK_TRIALS // trials)
    batches = [ExactBatch([(n, k, ch) for ch, n, k, _ in points[i:i + block]],
                          [point_seed(seed, ch, n, k, j).spawn(2)[0]
                           for ch, n, k, j in points[i:i + block]], trials)
               for i in range(0, len(points), block)]
    out = np.zeros(block * trials, dtype=np.int64)
    batches[0].draw(out)                     # cache load and thread start-up
    sampler = _cpu(lambda: [b.draw(out) for b in batches])
    content = [(n, k, ch.sigma) for ch, n, k, _ in points if ch.code == Content.code]
    _tables.cache_clear()
    rates = _cpu(lambda: [_tables(k, float(s))
                          for k, s in sorted({(k, s) for _, k, s in content})])
    content_burden._table.cache_clear()
    burden = _cpu(lambda: [content_burden._table(n, k)
                           for n, k in sorted({(n, k) for n, k, _ in content})])
    # the rate's quadrature sum at each content point, over the tables just built
    sums = _cpu(lambda: [content_rate_exact(n, k, s) for n, k, s in content])
    return {"exact sampler kernel": sampler, "rate tables": rates,
            "rate quadrature sums (per point)": sums, "E[Z] tables": burden}


def floor_and_ratio(grid: str, rows, config) -> float:
    """Print the warm run's CPU seconds, the floor's parts and, last, their ratio."""
    with tempfile.TemporaryDirectory() as out:
        run = [sys.executable, "-m", "experiments.cli", "run", "theorem1", "--out", out,
               "--no-progress"] + (["--quick"] if grid == "quick" else [])
        _child_cpu(run)                      # warms numba's on-disk cache
        warm = _child_cpu(run)
        # what the run imports, pyplot included (the figures need it; the run
        # imports it on its first figure)
        imports = _child_cpu([sys.executable, "-c",
                              "import experiments.vista.theorem1, matplotlib; "
                              "matplotlib.use('Agg'); import matplotlib.pyplot"])
        parts = {"imports (child process)": imports, **kernel_floor(config, config.seed)}
        prop_rows = proposition2.content_rows(rows, config, config.seed, progress=False)
        parts["figure theorem1 (drawn once)"] = _cpu(
            lambda: plot_theorem1(rows, config.panels, pathlib.Path(out) / "t.png"))
        parts["figure proposition2 (drawn once)"] = _cpu(
            lambda: proposition2.plot(prop_rows, pathlib.Path(out) / "p.png"))
    floor = sum(parts.values())
    print(f"floor of `ctxsim run theorem1` ({grid!r} grid), CPU seconds:")
    for name, sec in parts.items():
        print(f"  {name:38s} {sec:7.2f}")
    print(f"  {'floor':38s} {floor:7.2f}")
    print(f"  {'warm run (child process)':38s} {warm:7.2f}")
    ratio = warm / floor
    print(f"theorem1 warm run / floor: {ratio:.2f}x")
    return ratio


def main(argv=None) -> int:
    """Print the per-stage table and the E[Z] and rate comparisons."""
    p = argparse.ArgumentParser(description=description(__doc__))
    p.add_argument("--grid", choices=("default", "quick"), default="default")
    p.add_argument("--log2-n", type=int, nargs="*", default=None,
                   help="cut the grid to these log2 n (default: the grid's own)")
    p.add_argument("--skip-rates", action="store_true",
                   help="skip the quadrature vs Monte Carlo comparison")
    p.add_argument("--skip-moments", action="store_true",
                   help="skip timing the plain E[Z] quadrature (~20 s at the default grid)")
    p.add_argument("--floor-only", action="store_true",
                   help="only the floor and the warm run's ratio to it (skips the "
                        "comparisons; the stage table still runs, it gives the rows)")
    args = p.parse_args(argv)
    if args.floor_only and args.log2_n:
        p.error("--floor-only measures the whole grid's run: drop --log2-n")
    total, content, rows, config = stage_table(args.grid, args.log2_n)
    if not (args.skip_moments or args.floor_only):
        moments_comparison(content, total)
    if not (args.skip_rates or args.floor_only):
        rate_comparison([(2**12, 4, 1.0), (2**16, 8, 0.5), (2**20, 16, 0.25),
                         (2**20, 2, 2.0)])
    if not args.log2_n:      # the floor is the whole run's: only for a whole grid
        floor_and_ratio(args.grid, rows, config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
