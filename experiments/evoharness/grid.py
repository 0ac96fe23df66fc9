"""Running the Evo-Harness grid: every arm's streams (in worker processes; the result
does not depend on how many), summarised as :class:`StreamSummary` records."""

from __future__ import annotations

from dataclasses import dataclass, field

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
        reflection: the model reflector's ledger
            (:meth:`sim.evolve.evoharness.reflector.LLMReflector.ledger`; empty under
            the rules).
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
    reflection: dict = field(default_factory=dict)


def tasks(families: int, seeds: int, growth: int, base_seed: int):
    """The grid's tasks: ``families`` LOCA families x ``seeds`` instances."""
    return [loca_task(f, s, growth, base_seed) for f in range(families)
            for s in range(seeds)]


def topics(families: int) -> tuple[str, ...]:
    """The task types (LOCA family names) of the first ``families`` families."""
    return FAMILIES[:families]


def run_arm(arm: Arm, train, test, cfg: GridConfig, program, rep: int,
            budget: int | None = None, topic_names=None,
            reflector=None) -> StreamSummary:
    """One arm's stream; ``program`` is a program name or a factory of programs;
    ``reflector``: the solver-side proposal in place of the rules
    (:attr:`sim.evolve.evoharness.online.StreamParts.reflector`; None: the rules)."""
    curator, harness = curator_and_harness(
        arm, topic_names or sorted({t.family for t in list(train) + list(test)}),
        cfg.cap_fraction)
    config = StreamConfig(arm.mode, arm.feedback, cfg.budget if budget is None else budget,
                          cfg.b, cfg.seed * 1000 + rep, profile=arm.profile,
                          batch=cfg.batch, reflect=arm.reflect)
    factory = program if callable(program) else (lambda: make_program(program))
    res = run_stream(test, config, StreamParts(factory, curator, harness,
                                               reflector=reflector), train)
    counts = dict.fromkeys(("ACCEPT", "MERGE", "SKIP"), 0)
    for _, d in res.decisions:
        counts[d.action] += 1
    return StreamSummary(arm, rep, tuple(res.rows), tuple(res.trace),
                         harness.to_dict()["caps"], counts, budget_counts(res.decisions),
                         len(harness), harness.total_tokens, harness.to_dict(),
                         reflector.ledger() if reflector is not None else {})


def model_reflector(llm_settings, cfg: GridConfig, client=None):
    """The model as reflector (``--reflector llm``) over the endpoint
    ``llm_settings`` (or the ready chat ``client``, e.g. an
    :class:`experiments.answers.AnswerClient`), with ``cfg.reflector_calls`` calls."""
    from sim.agents.llm import ChatClient
    from sim.evolve.evoharness.reflector import LLMReflector

    return LLMReflector(client or ChatClient(llm_settings), max_calls=cfg.reflector_calls)


def _job(args) -> StreamSummary:
    arm, rep, cfg, llm_settings = args
    train, test = split_stream(tasks(cfg.families, cfg.seeds, cfg.growth, cfg.seed))
    # a fresh reflector per stream: its call budget and answer cache are the stream's
    reflector = model_reflector(llm_settings, cfg) \
        if llm_settings is not None and arm.reflect and arm.mode != "none" else None
    return run_arm(arm, train, test, cfg, cfg.program, rep,
                   topic_names=topics(cfg.families), reflector=reflector)


def run_grid(arm_list, cfg: GridConfig,
             llm_settings=None) -> dict[tuple[str, str], list[StreamSummary]]:
    """Every arm's ``cfg.reps`` streams: ``{(arm, profile): [StreamSummary, ...]}``
    in replicate order; ``llm_settings`` (a :class:`sim.agents.llm.LLMSettings`):
    the endpoint of ``--reflector llm`` (None: the rules reflect)."""
    jobs = [(a, rep, cfg, llm_settings) for a in arm_list for rep in range(cfg.reps)]
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
