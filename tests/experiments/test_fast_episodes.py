"""The fast episode path (in-memory scratch workspace, memoised request and stream)
writes byte-identical episode CSVs to the durable path, on every program of the
pressure sweep, below and above the budget, and on the browse generator."""

import pytest

from experiments.output import write_csv
from experiments.sweep import ROW_COLUMNS, JobSpec, loca_specs, run_job
from experiments.vista import pressure


def _csv(tmp_path, name, rows) -> bytes:
    return write_csv(tmp_path / f"{name}.csv", ROW_COLUMNS, rows).read_bytes()


def test_pressure_episode_csv_is_byte_identical(tmp_path):
    programs = pressure.defaults()["programs"]
    specs = loca_specs([8_000, 256_000], programs, 128_000, 1, 1, "medium", 3, None)
    durable = [r for s in specs for r in run_job(s, fast=False)]
    fast = [r for s in specs for r in run_job(s, fast=True)]
    assert len(fast) == len(specs) * len(programs)
    assert _csv(tmp_path, "fast", fast) == _csv(tmp_path, "durable", durable)
    # the grid exercises what the memo must get right: archives, recoveries, a
    # bounded ledger and offloads
    assert sum(r["recoveries"] for r in fast) > 0
    assert sum(r["program_edits"] + r["agent_archives"] for r in fast) > 0


@pytest.mark.parametrize("spec", [
    JobSpec("browse", 1, 0, 4, 20_000, ("react", "vista", "auto_archive"), "weak", 5),
    JobSpec("loca", 3, 1, 64_000, 16_000, ("vista", "vista_bounded_ledger", "masking"),
            "strong", 2),
])
def test_other_jobs_are_byte_identical(tmp_path, spec):
    assert _csv(tmp_path, "fast", run_job(spec, fast=True)) == \
        _csv(tmp_path, "durable", run_job(spec, fast=False))
