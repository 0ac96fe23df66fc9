"""The progress bar leaves numba's compilation out of its rate and ETA (issue 33:
theorem1's bar promised hours while numba compiled)."""

from __future__ import annotations

import io
import time

from numba.core import event

from experiments.progress import CompileAwareProgress


def test_compilation_is_left_out_of_the_rate():
    out = io.StringIO()
    progress = CompileAwareProgress(range(50), desc="t", file=out)
    for i in progress:
        if i == 0:  # the first point compiles, a nested compilation inside
            event.start_event("numba:compile")
            event.start_event("numba:compile")
            time.sleep(0.4)
            event.end_event("numba:compile")
            time.sleep(0.2)
            event.end_event("numba:compile")
    bar = progress.bar
    assert 0.55 < progress.compile_seconds < 1.5  # the outer event, counted once
    elapsed = bar.format_dict["elapsed"]
    assert elapsed < 0.3  # the 50 fast points only (the bar's clock moved on)
    # the mean rate is that of the fast points, not 50 / 0.6 s
    assert bar.format_dict["rate"] is None or bar.format_dict["rate"] > 150
    assert "numba compile 1 s not in the rate" in out.getvalue() or \
        "numba compile 0 s not in the rate" in out.getvalue()


def test_without_compilation_it_is_a_plain_bar():
    progress = CompileAwareProgress(range(3), desc="t", file=io.StringIO())
    assert list(progress) == [0, 1, 2] and progress.compile_seconds == 0.0
    # events after the loop are not heard (the listener is removed)
    event.start_event("numba:compile")
    event.end_event("numba:compile")
    assert progress.compile_seconds == 0.0


def test_a_disabled_bar_listens_to_nothing():
    progress = CompileAwareProgress(range(3), desc="t", disable=True)
    assert list(progress) == [0, 1, 2] and progress.clock is None
