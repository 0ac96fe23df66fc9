"""The fast episode path (in-memory scratch workspace, memoised request and stream)
writes byte-identical episode CSVs to the durable path, on every program of the
pressure sweep, below and above the budget, and on the browse generator."""

import pytest

from experiments.output import write_csv
from experiments.sweep import (ROW_COLUMNS, JobSetup, JobSpec, TaskSpec, loca_specs,
                               run_job)
from experiments.vista import pressure


def _csv(tmp_path, name, rows) -> bytes:
    return write_csv(tmp_path / f"{name}.csv", ROW_COLUMNS, rows).read_bytes()


def test_pressure_episode_csv_is_byte_identical(tmp_path):
    programs = pressure.SETTINGS.table()["programs"]
    specs = loca_specs(pressure.SETTINGS(levels=(8_000, 256_000), families=1, seeds=1,
                                         seed=3, dashboard_tokens=None))
    durable = [r for s in specs for r in run_job(s, fast=False)]
    fast = [r for s in specs for r in run_job(s, fast=True)]
    assert len(fast) == len(specs) * len(programs)
    assert _csv(tmp_path, "fast", fast) == _csv(tmp_path, "durable", durable)
    # the grid exercises what the memo must get right: archives, recoveries, a
    # bounded ledger and offloads
    assert sum(r["recoveries"] for r in fast) > 0
    assert sum(r["program_edits"] + r["agent_archives"] for r in fast) > 0


@pytest.mark.parametrize("spec", [
    JobSpec(task=TaskSpec(generator="browse", family=1, seed=0, level=4, base_seed=5),
            setup=JobSetup(budget=20_000, programs=("react", "vista", "auto_archive"),
                           profile="weak")),
    JobSpec(task=TaskSpec(generator="loca", family=3, seed=1, level=64_000, base_seed=2),
            setup=JobSetup(budget=16_000, profile="strong",
                           programs=("vista", "vista_bounded_ledger", "masking"))),
])
def test_other_jobs_are_byte_identical(tmp_path, spec):
    assert _csv(tmp_path, "fast", run_job(spec, fast=True)) == \
        _csv(tmp_path, "durable", run_job(spec, fast=False))
