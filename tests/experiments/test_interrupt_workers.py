"""Ctrl-C and SIGTERM stop a ``--jobs N`` or ``--scheduler`` sweep (issue 33): the
queued jobs are cancelled, the worker processes end, the CLI exits 130 / 143 at
once, and ``--out`` keeps its earlier set with no staging folder left.

Before the fix a SIGINT to a ``--jobs 2`` window sweep exited after 20 s here
(85 s on a loaded machine) while the workers went on through the queue. The issue
asks for an exit within 2 s; on this machine it takes about 0.1 s. The bound
asserted is :data:`EXIT_BOUND` (2 s plus a margin for a loaded 2-core CI runner
starting no new process): a regression to "workers finish the queue" takes many
times longer than the bound, so the test cannot pass by luck."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiments import cli
from experiments.output import STAGING_PREFIX
from tests.experiments.vista.test_output_set import SMALL, files, staging_left

#: seconds from the signal to the CLI's exit (the issue's 2 s plus a 3 s margin
#: for a loaded CI machine; measured ~0.1 s on an idle 2-core one)
EXIT_BOUND = 5.0

#: a window sweep of a few hundred jobs: minutes on two workers, so it is computing
#: (queue far from drained) whenever the signal arrives
LONG = ["run", "window", "--windows", "8000", "16000", "32000", "--queries", "50",
        "--seeds", "3", "--no-progress"]


def children(pid: int) -> set[int]:
    """The child processes of ``pid`` (Linux's /proc)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return {int(c) for c in path.read_text().split()} if path.exists() else set()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")  # a zombie has exited (its parent is gone)
    return stat.exists() and stat.read_text().split(") ", 1)[1][0] != "Z"


def start(argv, out: Path, new_session: bool = False) -> subprocess.Popen:
    def child_setup():
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # see default_sigint
        if new_session:
            os.setsid()

    return subprocess.Popen([sys.executable, "-m", "experiments.cli", *argv,
                             "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(Path.cwd())),
                            preexec_fn=child_setup)


def wait_for(condition, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {timeout} s")


def stop(proc: subprocess.Popen, signum: int, group: bool) -> tuple[float, str]:
    """Send ``signum`` (to the process group when ``group``: a terminal's Ctrl-C);
    ``(seconds to exit, stderr)``."""
    t0 = time.monotonic()
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return time.monotonic() - t0, err


# behind the ``signals`` marker (about 4 s each; ``pytest -m signals`` in .ci/run):
# the default suite is near its 5-minute budget
@pytest.mark.parametrize("signum, status, word, group", [
    pytest.param(signal.SIGINT, 130, "interrupted", False, id="sigint",
                 marks=pytest.mark.signals),
    # Ctrl-C in a terminal: the signal reaches every process of the group
    pytest.param(signal.SIGINT, 130, "interrupted", True, id="ctrl-c-group",
                 marks=pytest.mark.signals),
    pytest.param(signal.SIGTERM, 143, "terminated", False, id="sigterm",
                 marks=pytest.mark.signals),
])
def test_a_signal_stops_a_jobs_sweep_and_its_workers(tmp_path, signum, status, word,
                                                     group):
    out = tmp_path / "out"
    assert cli.main([*SMALL, "--out", str(out)]) == 0
    before = files(out)
    proc = start([*LONG, "--jobs", "2"], out, new_session=group)
    workers = wait_for(lambda: children(proc.pid) if len(children(proc.pid)) >= 2
                       else None, "two worker processes")
    time.sleep(0.5)  # jobs running, most of the queue waiting
    assert proc.poll() is None, "the sweep ended before the signal"
    seconds, err = stop(proc, signum, group)
    print(f"{word} --jobs 2 sweep exited {seconds:.2f} s after the signal")
    assert proc.returncode == status, err
    assert err.strip().splitlines()[-1] == f"ctxsim: {word}"
    assert seconds < EXIT_BOUND, f"exit took {seconds:.1f} s"
    assert not [w for w in workers if alive(w)], "a worker outlived the sweep"
    assert files(out) == before  # the earlier set, whole and unchanged
    assert staging_left(tmp_path) == []


@pytest.mark.signals
def test_an_interrupted_scheduler_sweep_cancels_its_tasks(tmp_path):
    """``--scheduler``: the tasks queued on the cluster are cancelled (the
    scheduler holds none of the run's tasks afterwards), and the CLI exits 130.
    Closing the client would release them too; the sweep cancels them itself
    (:func:`experiments.executors.cancel_futures`, tested in test_executors.py)
    so that the cluster drops them whatever happens to the client."""
    distributed = pytest.importorskip(
        "dask.distributed", reason="the [dask] extra (dask[distributed]) is not installed")
    # a worker thread in this process; TCP so that the CLI's process can connect
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        def tasks(dask_scheduler=None):
            return len(dask_scheduler.tasks)

        proc = start([*LONG, "--scheduler", cluster.scheduler_address],
                     tmp_path / "out")
        wait_for(lambda: proc.poll() is not None or client.run_on_scheduler(tasks) > 10,
                 "tasks on the cluster")
        assert proc.poll() is None, proc.communicate()[1]
        seconds, err = stop(proc, signal.SIGINT, group=False)
        print(f"interrupted --scheduler sweep exited {seconds:.2f} s after SIGINT")
        assert proc.returncode == 130, err
        assert seconds < EXIT_BOUND, f"exit took {seconds:.1f} s"
        # the scheduler forgets a cancelled (or released) task; the one running on
        # the worker thread finishes and is dropped
        wait_for(lambda: client.run_on_scheduler(tasks) == 0, "the tasks cancelled",
                 timeout=30)
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(STAGING_PREFIX)]
