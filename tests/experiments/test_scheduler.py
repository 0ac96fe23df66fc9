"""Sweeps on a Dask distributed cluster from the command line (issue 10, item 12):
``--scheduler ADDRESS`` gives the CSV of ``--jobs 1`` byte for byte, and the sidecar
records the executor. Runs on a real ``LocalCluster`` (one in-process worker, two
threads); skipped only where the ``dask`` extra is not installed."""

from __future__ import annotations

import json

import pytest

from experiments import cli

distributed = pytest.importorskip(
    "dask.distributed", reason="the [dask] extra (dask[distributed]) is not installed")

SWEEP = ["run", "pressure", "--levels", "8000", "--families", "2", "--seeds", "1",
         "--programs", "react", "vista", "--no-progress"]


def test_scheduler_run_matches_the_in_process_run(tmp_path):
    assert cli.main([*SWEEP, "--out", str(tmp_path / "local")]) == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert cli.main([*SWEEP, "--scheduler", address,
                         "--out", str(tmp_path / "dask")]) == 0
    for name in ("pressure.csv", "pressure_episodes.csv"):
        assert (tmp_path / "dask" / name).read_bytes() == \
            (tmp_path / "local" / name).read_bytes()
    local = json.loads((tmp_path / "local" / "pressure.json").read_text())["config"]
    dask = json.loads((tmp_path / "dask" / "pressure.json").read_text())["config"]
    assert local["executor"] == "in-process"
    assert dask["executor"] == f"dask {address}" and dask["scheduler"] == address


def test_jobs_is_recorded_as_processes(tmp_path):
    assert cli.main([*SWEEP, "--jobs", "2", "--out", str(tmp_path)]) == 0
    config = json.loads((tmp_path / "pressure.json").read_text())["config"]
    assert config["executor"] == "processes 2"


def test_unreachable_scheduler_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    import experiments.sweep

    monkeypatch.setattr(experiments.sweep, "CONNECT_TIMEOUT", "1s")
    assert cli.main([*SWEEP, "--scheduler", "tcp://127.0.0.1:9",
                     "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in err[0]
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["pressure", "window", "ablations", "cost"])
def test_every_sweep_takes_scheduler_and_jobs(name):
    args = cli.build_parser(["run", name]).parse_args(
        ["run", name, "--scheduler", "tcp://h:1", "--jobs", "3"])
    assert (args.scheduler, args.jobs) == ("tcp://h:1", 3)


@pytest.mark.parametrize("name", ["pressure", "window", "ablations", "cost"])
def test_every_sweep_refuses_an_impossible_budget_before_computing(name, tmp_path,
                                                                   capsys):
    budget = ["--windows", "300"] if name == "window" else ["--budget", "300"]
    assert cli.main(["run", name, "--quick", *budget, "--no-progress",
                     "--out", str(tmp_path)]) == 2  # impossible input
    err = capsys.readouterr().err.splitlines()
    assert "300 tokens is impossible" in err[0] and "fixed overhead" in err[0]
    assert not list(tmp_path.iterdir())
