"""Skill-only vs context-policy evolution vs combined on the same long-horizon tasks
(ContextEvo Table 3), medium profile, held-out split."""

from __future__ import annotations

import numpy as np

from experiments.evoharness.arms import Arm
from experiments.settings.evoharness import GridConfig
from experiments.evoharness.grid import run_arm
from experiments.evoharness.paper import PAPER
from experiments.evoharness.table import paired_runs
from experiments.intervals import bootstrap_mean_ci

#: the program ContextEvo starts from (and the skill-only arm keeps)
START = "react"
POLICY_COLUMNS = ("arm", "program", "n_tasks", "reward", "reward_lo", "reward_hi",
                  "mean_tokens", "skill_tokens_in_harness", "runs_read_skill",
                  "paper_reward", "paper_mean_tokens")
#: evoharness_policy_pairs.csv: ``arm`` minus ``reference`` of ``measure`` (reward:
#: solved per task; mean_tokens: tokens per run), paired over the held-out tasks
POLICY_PAIRS_COLUMNS = ("arm", "reference", "measure", "diff", "lo", "hi")
#: the per-task column of each measure, and the decimals it is written with
_MEASURES = {"reward": ("solved", 4), "mean_tokens": ("tokens", 1)}


def runs_read_skill(rows) -> int:
    """How many of ``rows`` (:class:`~sim.evolve.evoharness.online.TaskRecord`, one
    per run) read at least one skill body: ContextEvo §6.1's invocation gap counts
    "20 of 44 inspectable skill-only trajectories read a skill body"."""
    return sum(1 for x in rows if x.skills_read > 0)


def policy_comparison(cfg: GridConfig) -> tuple[list[dict], list[dict], dict]:
    """The four arms, each on the held-out long-horizon tasks:

    * ``baseline``: the start program ``react``, no skills;
    * ``skill-only``: ``react`` with skills evolved on the held-in split (standard
      feedback, train-split mode), frozen;
    * ``context-policy``: the program ContextEvo's loop
      (:func:`sim.evolve.contextevo.loop.evolve`, synthetic back-end) evolves from
      ``react`` on the same held-in split, no skills;
    * ``combined``: that evolved program with skills evolved on held-in under it.

    Returns ``(rows, pairs, info)``: one row per arm (:data:`POLICY_COLUMNS`), every
    ordered pair of arms' paired difference in reward and in tokens per run
    (:data:`POLICY_PAIRS_COLUMNS`; the claims judge reads ContextEvo Table 3's
    orderings from them), and the evolved program, its held-in log and the split.

    Raises:
        RuntimeError: if ContextEvo's held-out split differs from this one.
    """
    from sim.evolve.contextevo.backends import SyntheticBackend
    from sim.evolve.contextevo.compile import compile_spec, spec_of
    from sim.evolve.contextevo.loop import EvolveConfig, evolve, loca_taskset
    from sim.evolve.evoharness.online import split_stream

    ts = loca_taskset(cfg.long_growth, cfg.long_budget, cfg.long_families,
                      cfg.long_seeds, cfg.seed)
    tasks = [ts.tasks[n] for n in ts.names]
    train, test = split_stream(tasks)
    res = evolve(spec_of(START), ts, SyntheticBackend(cfg.seed),
                 EvolveConfig(seed=cfg.seed))
    if [t.task_id for t in test] != list(res.held_out):
        raise RuntimeError("ContextEvo's held-out split differs from Evo-Harness's")
    stage = list(res.specs)[-1]
    evolved = res.specs[stage]
    noev = Arm("no-evolve", "medium", "none")
    evo = Arm("train-split-standard", "medium", "train-split")
    policy = lambda: compile_spec(evolved)  # noqa: E731 - a fresh program per episode
    b = cfg.long_budget
    runs = {"baseline": run_arm(noev, train, test, cfg, START, 0, b),
            "skill-only": run_arm(evo, train, test, cfg, START, 0, b),
            "context-policy": run_arm(noev, train, test, cfg, policy, 0, b),
            "combined": run_arm(evo, train, test, cfg, policy, 0, b)}
    rows = []
    for arm, r in runs.items():
        s = [x.solved for x in r.rows]
        m, lo, hi = bootstrap_mean_ci(s, seed=cfg.seed)
        pr, pt = PAPER["contextevo_table3"][arm]
        rows.append({"arm": arm, "program": evolved.name if arm in (
                     "context-policy", "combined") else START, "n_tasks": len(s),
                     "reward": round(m, 4), "reward_lo": round(lo, 4),
                     "reward_hi": round(hi, 4),
                     "mean_tokens": round(float(np.mean([x.tokens for x in r.rows])), 1),
                     "skill_tokens_in_harness": r.final_tokens,
                     "runs_read_skill": runs_read_skill(r.rows),
                     "paper_reward": pr, "paper_mean_tokens": pt})
    pairs = []
    for arm in runs:
        for ref in runs:
            for measure, (col, digits) in ([] if arm == ref else _MEASURES.items()):
                d, lo, hi = paired_runs([runs[arm]], [runs[ref]], cfg.seed, col,
                                        f"{arm} and {ref}")
                pairs.append({"arm": arm, "reference": ref, "measure": measure,
                              "diff": round(d, digits), "lo": round(lo, digits),
                              "hi": round(hi, digits)})
    info = {"contextevo_stage": stage, "contextevo_spec": evolved.to_dict(),
            "contextevo_held_in_log": res.log,
            "split": {"held_in": len(train), "held_out": len(test)}}
    return rows, pairs, info
