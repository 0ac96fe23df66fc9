"""Running the Evo-Harness grid: every arm's streams (in worker processes; the result
does not depend on how many), summarised as :class:`StreamSummary` records."""

from __future__ import annotations

from dataclasses import dataclass

from experiments.evoharness.arms import Arm, curator_and_harness
from experiments.settings.evoharness import GridConfig
from experiments.executors import process_pool
from sim.evolve.evoharness.curate import budget_counts
from sim.evolve.evoharness.online import (StreamConfig, StreamParts, TaskRecord,
                                          UpdateRecord, run_stream, split_stream)
from sim.plugins import make_program   # a plugin program guarded (sim.plugins.guard)
from sim.tasks.loca import FAMILIES, loca_task


@dataclass(frozen=True)
class StreamSummary:
    """One stream of one arm.

    Attributes:
        arm: the arm; rep: the replicate.
        rows: one record per scored task.
        trace: the harness after each update.
        caps: the caps (dict); decisions: ACCEPT/MERGE/SKIP counts of all decisions;
        budget: ACCEPT/MERGE/SKIP counts of the budget-forced ones.
        final_skills, final_tokens: the final harness's size.
        harness: the final harness document (``SkillHarness.to_dict``).
    """

    arm: Arm
    rep: int
    rows: tuple[TaskRecord, ...]
    trace: tuple[UpdateRecord, ...]
    caps: dict
    decisions: dict
    budget: dict
    final_skills: int
    final_tokens: int
    harness: dict


def tasks(families: int, seeds: int, growth: int, base_seed: int):
    """The grid's tasks: ``families`` LOCA families x ``seeds`` instances."""
    return [loca_task(f, s, growth, base_seed) for f in range(families)
            for s in range(seeds)]


def topics(families: int) -> tuple[str, ...]:
    """The task types (LOCA family names) of the first ``families`` families."""
    return FAMILIES[:families]


def run_arm(arm: Arm, train, test, cfg: GridConfig, program, rep: int,
            budget: int | None = None, topic_names=None) -> StreamSummary:
    """One arm's stream; ``program`` is a program name or a factory of programs."""
    curator, harness = curator_and_harness(
        arm, topic_names or sorted({t.family for t in list(train) + list(test)}),
        cfg.cap_fraction)
    config = StreamConfig(arm.mode, arm.feedback, cfg.budget if budget is None else budget,
                          cfg.b, cfg.seed * 1000 + rep, profile=arm.profile,
                          batch=cfg.batch, reflect=arm.reflect)
    factory = program if callable(program) else (lambda: make_program(program))
    res = run_stream(test, config, StreamParts(factory, curator, harness), train)
    counts = dict.fromkeys(("ACCEPT", "MERGE", "SKIP"), 0)
    for _, d in res.decisions:
        counts[d.action] += 1
    return StreamSummary(arm, rep, tuple(res.rows), tuple(res.trace),
                         harness.to_dict()["caps"], counts, budget_counts(res.decisions),
                         len(harness), harness.total_tokens, harness.to_dict())


def _job(args) -> StreamSummary:
    arm, rep, cfg = args
    train, test = split_stream(tasks(cfg.families, cfg.seeds, cfg.growth, cfg.seed))
    return run_arm(arm, train, test, cfg, cfg.program, rep,
                   topic_names=topics(cfg.families))


def run_grid(arm_list, cfg: GridConfig) -> dict[tuple[str, str], list[StreamSummary]]:
    """Every arm's ``cfg.reps`` streams: ``{(arm, profile): [StreamSummary, ...]}``
    in replicate order."""
    jobs = [(a, rep, cfg) for a in arm_list for rep in range(cfg.reps)]
    if cfg.workers > 1:
        # an interrupt cancels the queued arms and ends the workers (issue 33)
        with process_pool(cfg.workers) as pool:
            done = list(pool.map(_job, jobs, chunksize=1))
    else:
        done = [_job(j) for j in jobs]
    out: dict[tuple[str, str], list[StreamSummary]] = {}
    for s in done:
        out.setdefault((s.arm.arm, s.arm.profile), []).append(s)
    return out
