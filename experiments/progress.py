"""A progress bar that does not estimate through numba's compilation (issue 33).

On a fresh clone the first points of the eviction grid compile numba kernels (tens
of seconds) and the rest take about a millisecond each: tqdm's rate, taken over the
first points, then promised hours. :class:`CompileAwareProgress` listens to numba's
``numba:compile`` events and moves the bar's start forward by the time spent
compiling, so its rate (the mean over the run, ``smoothing=0``) and the ETA count
only simulation; the bar says how many seconds of compilation it left out.
"""

from __future__ import annotations

import threading
import time
from typing import Iterable, Iterator

from tqdm import tqdm


class _CompileClock:
    """A numba event listener adding each outermost compilation's duration to
    ``bar``'s start time (nested compilations, a kernel compiling the functions it
    calls, count once)."""

    def __init__(self, bar):
        from numba.core import event

        class Listener(event.Listener):
            def on_start(inner, ev):
                self._start()

            def on_end(inner, ev):
                self._end()

        self.listener = Listener()
        self.bar = bar
        self.seconds = 0.0
        self._depth = 0
        self._t0 = 0.0
        self._lock = threading.Lock()

    def _start(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._t0 = time.monotonic()
            self._depth += 1

    def _end(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth:
                return
            spent = time.monotonic() - self._t0
            self.seconds += spent
        # tqdm's elapsed and mean rate leave it out; its last print moves with its
        # start (else close() takes the bar for one never shown and prints no end)
        self.bar.start_t += spent
        self.bar.last_print_t += spent
        self.bar.set_postfix_str(f"numba compile {self.seconds:.0f} s not in the "
                                 "rate", refresh=False)


class CompileAwareProgress:
    """Iterate ``iterable`` under a tqdm bar (``desc``, ``unit``, ``disable``; stderr,
    refreshed at most once a second) whose rate and ETA leave out numba compilation;
    ``compile_seconds``: the compilation left out so far."""

    def __init__(self, iterable: Iterable, *, desc: str, unit: str = "it",
                 disable: bool = False, file=None):
        if not disable:  # numba's first import, before the bar's clock starts
            import numba.core.event  # noqa: F401
        self.bar = tqdm(iterable, desc=desc, unit=unit, disable=disable,
                        mininterval=1.0, smoothing=0, file=file)
        self.clock = None if disable else _CompileClock(self.bar)

    @property
    def compile_seconds(self) -> float:
        return self.clock.seconds if self.clock else 0.0

    def __iter__(self) -> Iterator:
        if self.clock is None:
            yield from self.bar
            return
        from numba.core import event

        with event.install_listener("numba:compile", self.clock.listener):
            yield from self.bar
