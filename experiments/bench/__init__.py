"""Benchmarks: each reports ratios against a reference run in the same process."""

import time


def best_time(fn, repeat: int) -> float:
    """Best wall time in seconds of ``repeat`` calls of ``fn``, after one warm-up
    call (which absorbs JIT compilation and cold caches)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
