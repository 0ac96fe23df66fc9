"""``JobSpec`` is a task (:class:`~experiments.sweep.TaskSpec`) plus its set-up
(:class:`~experiments.sweep.JobSetup`) and a world point: frozen, by keyword, and
whole after a pickle round trip (what a Dask or process-pool worker receives)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from experiments.sweep import (JobSetup, JobSpec, TaskSpec, browse_specs, calibrated_jobs,
                               episode_seed, loca_specs)
from sim.world import world_at


def _every_kind_of_job():
    from experiments.claims.robustness.model import Design, point_specs
    from experiments.settings.vista import PressureSettings, WindowSettings

    loca = loca_specs(PressureSettings(levels=(2000,), families=2, seeds=1,
                                       programs=("react", "vista"), dashboard_tokens=None))
    cal = calibrated_jobs(loca, _calibrated())
    browse = browse_specs(WindowSettings(windows=(4000,), queries=2, seeds=1))
    robust = point_specs(Design(tasks=2, queries=1, windows=(4000, 12000, 64000)),
                         {"agent.p_index": 0.3})
    return loca + cal + browse + robust


def _calibrated():
    from experiments.settings.vista import PressureSettings

    return PressureSettings(levels=(2000,), families=1, seeds=1,
                            programs=("react", "vista"), calibrated_row=("vista",),
                            calibration={"values": {"agent.p_index": 0.2}})


def test_every_kind_of_job_survives_a_pickle_round_trip():
    specs = _every_kind_of_job()
    assert {s.task.generator for s in specs} == {"loca", "browse"}
    assert any(s.world for s in specs) and any(not s.world for s in specs)
    back = pickle.loads(pickle.dumps(specs))
    assert back == specs and [hash(s) for s in back] == [hash(s) for s in specs]
    assert all(type(b.task) is TaskSpec and type(b.setup) is JobSetup for b in back)
    assert [episode_seed(b) for b in back] == [episode_seed(s) for s in specs]


def test_the_calibrated_row_changes_only_the_set_up_and_the_world():
    settings = _calibrated()
    (spec,) = loca_specs(settings)
    (cal,) = calibrated_jobs([spec], settings)
    assert cal.task == spec.task
    assert cal.setup == dataclasses.replace(spec.setup, programs=("vista",),
                                            profile="calibrated")
    assert cal.world == world_at({"agent.p_index": 0.2})


def test_the_parts_are_frozen_and_built_by_keyword():
    spec = JobSpec(task=TaskSpec(generator="loca", family=0, seed=0, level=2000),
                   setup=JobSetup(budget=4000, programs=("vista",)))
    for obj, field in ((spec, "world"), (spec.task, "level"), (spec.setup, "budget")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, field, 1)
    setup = spec.setup
    assert (spec.task.base_seed, setup.profile, setup.agent, setup.dashboard_tokens,
            spec.world) == (0, "medium", "synthetic", None, None)


@pytest.mark.parametrize("generator, family, seed, base_seed, expected", [
    # episode_seed of the flat JobSpec on main (136b2d2), before the split
    ("loca", 0, 0, 0, 1874364848),
    ("loca", 3, 1, 7, 831248110),
    ("browse", 2, 4, 0, 1185748594),
    ("browse", 9, 0, 11, 1302914185),
])
def test_episode_seed_is_the_task_s_and_unchanged(generator, family, seed, base_seed,
                                                  expected):
    from sim.evolve.contextevo.loop import _episode_seed   # ContextEvo's own copy

    task = TaskSpec(generator=generator, family=family, seed=seed, level=123,
                    base_seed=base_seed)
    seeds = {episode_seed(JobSpec(task=task, setup=JobSetup(budget=b, programs=p)))
             for b, p in ((1, ()), (64_000, ("react", "vista")))}
    assert seeds == {expected} == {_episode_seed(base_seed, generator, family, seed)}
