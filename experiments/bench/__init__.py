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


def description(doc: str) -> str:
    """A benchmark's ``--help`` description: the first paragraph of its module
    docstring ``doc``, on one line (its first line alone may stop mid-sentence)."""
    return " ".join(doc.strip().split("\n\n")[0].split())
