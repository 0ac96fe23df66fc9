"""Benchmark of the eviction-game kernels (run: ``python -m experiments.bench.bench_eviction``).

Everything runs in one process and is reported as a ratio against a reference
measured in the same run:

1. the exact O(1) content sampler (numba, all threads) against the same sampler in
   vectorised NumPy, in trials per second;
2. the brute-force and rate kernels (n normal draws per trial) against the reference
   rate the issue calls the machine's limit: the normal draws per second NumPy's
   Generator makes on all cores at once, filling arrays (one Generator per thread;
   NumPy releases the GIL). The kernels use the same ziggurat without writing the
   draws to memory, so they can exceed it. Each kernel is also compared with the
   vectorised NumPy brute force doing the same work: tau only for the brute-force
   kernel, tau and the log-sum-exp for the rate kernel (comparing the tau-only
   kernel with a NumPy version that also computes a log-sum-exp would flatter the
   kernel about twofold);
3. optionally (``--grid``) the wall time of the default ``ctxsim run theorem1`` grid
   (per-stage times: ``python -m experiments.bench.bench_theorem1``).

Timings are the best of ``--repeat`` runs after a warm-up (JIT compilation excluded).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from sim.games.channels import Content
from sim.games.eviction import play
from sim.games.information import content_rate_mc
from sim.games.reference import numpy_brute_content, numpy_exact_content_tau
from experiments.bench import best_time, description


def numpy_normal_limit(draws_per_thread: int, threads: int, repeat: int) -> float:
    """Normal draws per second from NumPy Generators filling arrays on ``threads`` threads."""
    gens = [np.random.default_rng(i) for i in range(threads)]
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        def fill():
            list(pool.map(lambda g: g.standard_normal(draws_per_thread), gens))
        return threads * draws_per_thread / best_time(fill, repeat)


def main(argv=None) -> int:
    """Run the benchmarks and print a table of rates and ratios."""
    p = argparse.ArgumentParser(description=description(__doc__))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--grid", action="store_true", help="also time the default theorem1 grid")
    args = p.parse_args(argv)
    threads = numba.get_num_threads()
    print(f"numba threads: {threads}, os.cpu_count: {os.cpu_count()}")

    n_big, kappa, sigma = 2**40, 8, 1.0
    trials = 4_000_000
    t_numba = best_time(lambda: play(n_big, kappa, Content(sigma), trials=trials, seed=1),
                        args.repeat)
    rng = np.random.default_rng(1)
    t_numpy = best_time(lambda: numpy_exact_content_tau(n_big, kappa, sigma, trials, rng),
                        args.repeat)
    print(f"exact sampler, n=2^40: numba {trials / t_numba:.3g} trials/s, vectorised NumPy "
          f"sampler (normal + binomial per trial) {trials / t_numpy:.3g} trials/s, ratio "
          f"{t_numpy / t_numba:.2f}x (target >= 1e7 trials/s)")

    limit = numpy_normal_limit(8_000_000, threads, args.repeat)
    n, brute_trials = 4096, 4096
    draws = n * brute_trials
    t_brute = best_time(lambda: play(n, kappa, Content(sigma), trials=brute_trials, seed=2,
                                     method="brute"), args.repeat)
    t_rate = best_time(lambda: content_rate_mc(n, kappa, sigma, trials=brute_trials, seed=3),
                       args.repeat)
    # NumPy references doing the same work as each kernel (a quarter of the trials,
    # scaled: the per-trial cost is constant).
    t_np_tau = best_time(lambda: numpy_brute_content(n, kappa, sigma, brute_trials // 4, rng,
                                                     want_rate=False), args.repeat) * 4
    t_np_rate = best_time(lambda: numpy_brute_content(n, kappa, sigma, brute_trials // 4,
                                                      rng), args.repeat) * 4
    print(f"reference ('machine limit'): NumPy Generator filling arrays on {threads} "
          f"threads: {limit:.3g} normals/s")
    for name, t, t_np, same in (
            ("brute-force kernel (tau only)", t_brute, t_np_tau, "NumPy tau-only brute force"),
            ("rate kernel (tau + log-sum-exp)", t_rate, t_np_rate,
             "NumPy brute force with log-sum-exp")):
        print(f"{name}, n={n}: {draws / t:.3g} normals/s = {draws / t / limit:.0%} of the "
              f"reference (target >= 50%), {t_np / t:.1f}x the {same}")

    if args.grid:
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "experiments.cli", "run", "theorem1",
                            "--out", out, "--no-progress"], check=True,
                           stdout=subprocess.DEVNULL)
            print(f"default theorem1 grid: {time.perf_counter() - t0:.0f} s wall "
                  f"(target < 180 s on 2 cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
