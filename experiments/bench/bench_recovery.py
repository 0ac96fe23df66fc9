"""Benchmark: recovery-game numba kernels against the plain-Python references.

Reports trials per second of :func:`sim.games.recovery.simulate` (numba, all
threads) and of :func:`sim.games.recovery_strategies.evaluate` with the matching
reference compressor, on the same games in the same process, and their ratio.
Compilation is excluded (one warm-up call first). Not a test: nothing asserts a
time.

    python3 experiments/bench/bench_recovery.py [--seconds S]
"""

from __future__ import annotations

import argparse
import time

import numba

from experiments.bench import description
from sim.games.recovery import simulate
from sim.games.recovery_strategies import (KeepPrefixes, KeepWholeBlocks, LinearHash,
                                           RecoverableArchive, evaluate)

GAMES = [(16, 8, 100), (256, 16, 3000), (4096, 64, 73728)]
REFERENCES = {"keep_blocks": KeepWholeBlocks, "keep_prefix": KeepPrefixes,
              "recoverable": RecoverableArchive}


def _rate(fn, trials: int, seconds: float) -> float:
    """Trials per second, repeating ``fn(trials)`` until ``seconds`` have passed."""
    done, start = 0, time.perf_counter()
    while True:
        fn(trials)
        done += trials
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def main(argv=None) -> int:
    """Print one line per (strategy, game): kernel and reference trials/s, ratio."""
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = parser.parse_args(argv)
    print(f"numba threads: {numba.get_num_threads()}")
    print(f"{'strategy':12s} {'N':>5s} {'k':>3s} {'B':>6s} {'kernel/s':>12s} "
          f"{'reference/s':>12s} {'ratio':>8s}")
    for N, k, B in GAMES:
        for name, ref in REFERENCES.items():
            simulate(name, N, k, B, 64, seed=0)          # compile / load cache
            kern = _rate(lambda t: simulate(name, N, k, B, t, seed=1), 20000 if N < 1000
                         else 2000, args.seconds)
            plain = _rate(lambda t: evaluate(ref(), N, k, B, t, seed=1), 200 if N < 1000
                          else 20, args.seconds)
            print(f"{name:12s} {N:5d} {k:3d} {B:6d} {kern:12.0f} {plain:12.0f} "
                  f"{kern / plain:8.1f}")
    lh = _rate(lambda t: evaluate(LinearHash(), 16, 8, 100, t, seed=1), 200, args.seconds)
    print(f"{'linear_hash':12s} {16:5d} {8:3d} {100:6d} {'(no kernel)':>12s} {lh:12.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
