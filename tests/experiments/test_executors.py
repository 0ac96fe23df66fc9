"""The pools that stop when the run stops (experiments.executors, issue 33), checked
in process: the CLI-level signal tests are in test_interrupt_workers.py."""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import time

import pytest

from experiments.executors import cancel_futures, ordered_map, process_pool, stop_pool
from experiments.sweep import _run_on


def _mark_and_sleep(path):
    path.touch()  # the job started
    time.sleep(30)


def ended(pid: int) -> bool:
    """Whether process ``pid`` has exited (gone, or a zombie not yet reaped). Read from
    /proc, not ``Process.is_alive()``: the pool's management thread reaps its workers
    too, and the ``Process`` object whose ``waitpid`` lost that race reports a dead
    worker as alive."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("needs /proc to tell an exited worker")
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def wait_until(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _raise_terminated(signum, frame):
    raise KeyboardInterrupt  # what experiments.cli installs for SIGTERM


@pytest.fixture
def cli_sigterm_handler():
    """The CLI's SIGTERM handler in this process, inherited by forked workers."""
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    yield
    signal.signal(signal.SIGTERM, previous)


def test_stop_pool_ends_running_workers_and_cancels_the_queue(cli_sigterm_handler,
                                                             tmp_path):
    pool = cf.ProcessPoolExecutor(2)  # a plain pool first: the bug, for contrast
    futs = [pool.submit(time.sleep, 30) for _ in range(2)]
    time.sleep(0.5)
    procs = list(pool._processes.values())
    for p in procs:
        p.terminate()  # the inherited handler turns SIGTERM into a job's exception
    time.sleep(0.5)
    assert all(p.is_alive() for p in procs)
    for p in procs:
        p.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    del futs

    with process_pool(2) as pool:
        futs = [pool.submit(_mark_and_sleep, tmp_path / str(i)) for i in range(6)]
        wait_until(lambda: len(list(tmp_path.iterdir())) == 2)  # 2 running, 4 queued
        procs = list(pool._processes.values())
        t0 = time.monotonic()
        stop_pool(pool)
        seconds = time.monotonic() - t0
    assert seconds < 2.0  # SIGTERM ends a worker at once; SIGKILL after 0.5 s
    assert len(procs) == 2 and all(ended(p.pid) for p in procs)
    assert all(f.done() and not f.cancelled() and f.exception() is not None or
               f.cancelled() for f in futs)  # none has a result
    time.sleep(0.5)
    assert len(list(tmp_path.iterdir())) == 2  # the queued jobs never started


@pytest.mark.signals
def test_process_pool_stops_on_an_exception_and_shuts_down_normally_else():
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with process_pool(2) as pool:
            futs = [pool.submit(time.sleep, 30) for _ in range(4)]
            time.sleep(0.3)
            procs = list(pool._processes.values())
            raise KeyboardInterrupt
    assert time.monotonic() - t0 < 5.0
    assert all(ended(p.pid) for p in procs)
    # queued futures are cancelled at once; a killed worker's running future is failed
    # by the pool's management thread, a moment after stop_pool returns
    wait_until(lambda: all(f.done() for f in futs), timeout=5.0)
    with process_pool(2) as pool:  # a normal end waits for the results
        futs = [pool.submit(pow, 2, k) for k in range(5)]
    assert [f.result() for f in futs] == [1, 2, 4, 8, 16]


@pytest.mark.signals
def test_workers_ignore_sigint():
    with process_pool(1) as pool:
        fut = pool.submit(time.sleep, 1.0)
        time.sleep(0.3)
        (proc,) = pool._processes.values()
        os.kill(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
        assert fut.result(timeout=10) is None  # the job finished regardless


class FakeClient:
    """A Dask-``Client``-like executor: ``submit`` and a bulk ``cancel``."""

    def __init__(self, fail_at: int):
        self.fail_at = fail_at
        self.cancelled: list = []

    def submit(self, fn, arg):
        client = self

        class Future:
            def __init__(self, index):
                self.index = index

            def result(self):
                if self.index == client.fail_at:
                    raise KeyboardInterrupt
                return [{"job": self.index}]

            def cancel(self):
                raise AssertionError("one by one, not in bulk")

        n = getattr(self, "n", 0)
        self.n = n + 1
        return Future(n)

    def cancel(self, futures):
        self.cancelled += [f.index for f in futures]


class Bar:
    def update(self):
        pass


def test_an_interrupted_foreign_sweep_cancels_its_futures_in_bulk():
    client = FakeClient(fail_at=2)
    out = [None] * 5
    with pytest.raises(KeyboardInterrupt):
        _run_on(client, [object()] * 5, out, Bar())
    assert sorted(client.cancelled) == [0, 1, 2, 3, 4]  # every future handed over
    assert out[:2] == [[{"job": 0}], [{"job": 1}]] and out[2:] == [None] * 3


def test_cancel_futures_of_a_stdlib_executor_cancels_the_pending():
    with cf.ThreadPoolExecutor(1) as ex:
        first = ex.submit(time.sleep, 0.5)
        rest = [ex.submit(time.sleep, 0.5) for _ in range(3)]
        cancel_futures([first, *rest], ex)
        assert all(f.cancelled() for f in rest)
        assert not first.cancelled()  # already running


def _slow_when_small(x):
    time.sleep(0.05 * (4 - x))   # the first jobs finish last
    return x * x


def _fail_at_one(x):
    if x == 1:
        raise ValueError("job 1 failed")
    time.sleep(0.3)
    return x


def test_ordered_map_keeps_job_order_in_process_and_on_a_pool():
    jobs = [0, 1, 2, 3]
    assert ordered_map(_slow_when_small, jobs) == [0, 1, 4, 9]
    with cf.ThreadPoolExecutor(4) as ex:
        assert ordered_map(_slow_when_small, jobs, ex) == [0, 1, 4, 9]


def test_ordered_map_cancels_the_queue_when_a_job_fails():
    with cf.ThreadPoolExecutor(1) as ex:
        submitted = []
        real = ex.submit

        def spy(fn, *a):
            f = real(fn, *a)
            submitted.append(f)
            return f

        ex.submit = spy
        with pytest.raises(ValueError, match="job 1 failed"):
            ordered_map(_fail_at_one, [0, 1, 2, 3, 4], ex)
        # job 2 may have started as job 1 failed (one worker); the two behind it not
        assert [f.cancelled() for f in submitted[3:]] == [True, True]
        assert not any(f.cancelled() for f in submitted[:2])
