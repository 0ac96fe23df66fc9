"""Worker pools that stop when the run stops (issue 33).

Ctrl-C or SIGTERM during a ``--jobs N`` or ``--scheduler`` run must cancel the queued
jobs and end the workers within about a second, not let them finish the queue:
``concurrent.futures.ProcessPoolExecutor.shutdown()`` (what ``with`` calls) waits for
every pending job, and its workers, forked from the CLI, inherit its SIGTERM handler
(:class:`experiments.cli.Terminated`), so a worker asked to stop raises an exception
that the pool sends back as the job's result and takes the next job.

:func:`process_pool` gives workers the default SIGTERM action (so ``terminate()`` ends
them) and ignores SIGINT in them (a terminal's Ctrl-C reaches the whole process group:
the parent alone decides to stop, then ends them); on any exception leaving its block
it cancels what is queued and ends the workers (:func:`stop_pool`).
:func:`cancel_futures` cancels submitted futures of any executor (a Dask ``Client``'s
included, which are cancelled on the cluster).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import signal
import time

#: seconds a worker has to exit after SIGTERM before it is killed
GRACE_SECONDS = 0.5


def _worker_signals() -> None:
    """A pool worker's initializer: SIGINT ignored (the parent handles Ctrl-C),
    SIGTERM at its default action (the parent's ``Terminated`` handler would let a
    worker survive ``terminate()``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def process_pool(workers: int):
    """A ``ProcessPoolExecutor`` of ``workers`` processes: shut down normally (waiting
    for its jobs) when the block ends normally, stopped at once
    (:func:`stop_pool`) when an exception (``KeyboardInterrupt`` included) leaves it."""
    pool = cf.ProcessPoolExecutor(max_workers=workers, initializer=_worker_signals)
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown()


def stop_pool(pool: cf.ProcessPoolExecutor, grace: float = GRACE_SECONDS) -> None:
    """Cancel ``pool``'s queued jobs and end its workers: SIGTERM, then SIGKILL for
    any still alive after ``grace`` seconds. Returns once every worker has exited."""
    # the worker processes: Python >= 3.14 can end them itself; before, the
    # executor's own table (``shutdown`` clears it, so it is read first)
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        with contextlib.suppress(Exception):
            terminate()
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join()


def ordered_map(fn, jobs, executor=None) -> list:
    """``[fn(j) for j in jobs]``, on ``executor`` when given (one future a job), in job
    order whatever the executor or the order jobs finish in. On any exception
    (Ctrl-C, SIGTERM, a failed job) the jobs not yet finished are cancelled
    (:func:`cancel_futures`) before it propagates, so a stopped run queues nothing."""
    jobs = list(jobs)
    if executor is None:
        return [fn(j) for j in jobs]
    futures = [executor.submit(fn, j) for j in jobs]
    try:
        return [f.result() for f in futures]
    except BaseException:
        cancel_futures(futures, executor)
        raise


def cancel_futures(futures, executor=None) -> None:
    """Cancel every future not yet finished: on a Dask ``Client`` (``executor`` with
    a ``cancel`` method) in one call, so the cluster drops the tasks; on a
    ``concurrent.futures`` executor each future (a running one cannot be cancelled;
    :func:`stop_pool` ends its worker)."""
    futures = list(futures)
    bulk = getattr(executor, "cancel", None)
    if bulk is not None:
        with contextlib.suppress(Exception):
            bulk(futures)
            return
    for f in futures:
        with contextlib.suppress(Exception):
            f.cancel()
