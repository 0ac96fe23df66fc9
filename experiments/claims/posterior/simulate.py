"""The paper numbers simulated at one world point: the episodes a set of cells
needs (:data:`~experiments.claims.robustness.stats.STATS` says, per cell, the
program, the growth level or window, the column and the unit) and their values.

Every program a cell reads at a level is played on the same task instances (common
random numbers), seeded by the point's design seed."""

from __future__ import annotations

from typing import Mapping, Sequence

#: the growth levels and windows (tokens) of the LOCA-like and BrowseComp-like tasks
LOW, HIGH, BUDGET = 8_000, 128_000, 128_000


def _design():
    from experiments.claims.robustness.model import Design

    return Design(tasks=1, queries=1, windows=(4_000, 12_000, 64_000),
                  parts=("pressure",), low_growth=LOW, growth=HIGH, budget=BUDGET)


def programs_by_level(cell_ids: Sequence[str]) -> dict[object, tuple[str, ...]]:
    """``{"low" | "high" | window: programs}`` the cells read, programs in first-use
    order.

    Raises:
        KeyError: naming a cell that no point simulates.
    """
    from experiments.claims.robustness.stats import STATS

    out: dict[object, list[str]] = {}
    for cid in cell_ids:
        if cid not in STATS:
            raise KeyError(f"cell {cid!r} is not simulated; simulated: {sorted(STATS)}")
        s = STATS[cid]
        progs = out.setdefault(s.level, [])
        if s.program not in progs:
            progs.append(s.program)
    return {k: tuple(v) for k, v in out.items()}


def point_specs(cell_ids: Sequence[str], values: Mapping[str, float], seed: int,
                tasks: int, queries: int) -> list:
    """The jobs that simulate ``cell_ids`` at world point ``values`` (name -> value;
    the others at their defaults) with design seed ``seed``: ``tasks`` LOCA-like
    tasks per growth level, ``queries`` BrowseComp-like queries per window."""
    from experiments.claims.robustness.model import task_ids, world_point
    from experiments.sweep import JobSetup, JobSpec, TaskSpec, world_of

    world = world_of(world_point(values))
    specs = []
    for level, progs in programs_by_level(cell_ids).items():
        if level in ("low", "high"):
            growth = LOW if level == "low" else HIGH
            setup = JobSetup(budget=BUDGET, programs=progs)
            specs += [JobSpec(task=TaskSpec(generator="loca", family=f, seed=s,
                                            level=growth, base_seed=seed),
                              setup=setup, world=world) for f, s in task_ids(tasks)]
        else:
            w = int(level)
            specs += [JobSpec(task=TaskSpec(generator="browse", family=q, seed=0,
                                            level=w, base_seed=seed),
                              setup=JobSetup(budget=w, programs=progs), world=world)
                      for q in range(queries)]
    return specs


def stats_of(cell_ids: Sequence[str], rows: list[dict]) -> dict[str, float]:
    """Each cell's simulated value from one point's episode rows.

    Raises:
        ValueError: naming a cell the rows do not cover.
    """
    from experiments.claims.robustness.stats import point_stats

    got = point_stats(_design(), rows)
    missing = [c for c in cell_ids if got.get(c) is None]
    if missing:
        raise ValueError(f"the episodes do not cover cell(s) {missing}")
    return {c: float(got[c]) for c in cell_ids}


def simulate(cell_ids: Sequence[str], values: Mapping[str, float], seed: int,
             tasks: int, queries: int = 1) -> dict[str, float]:
    """The cells' simulated values at one world point, played in this process."""
    from experiments.sweep import run_job

    rows = [r for s in point_specs(cell_ids, values, seed, tasks, queries)
            for r in run_job(s)]
    return stats_of(cell_ids, rows)
