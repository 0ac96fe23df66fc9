"""Evo-Harness: online skill harness learning under an enforced budget, and skills
against context-policy evolution (Evo-Harness Tables 2-4, Fig. 5; ContextEvo §6 Table 3).

``ctxsim run evoharness`` plays LOCA-like tasks (growth ``growth`` tokens, budget
``budget``, context program ``--program``) with
:class:`~sim.evolve.evoharness.lesson_agent.SkillAwareAgent` s, skills selected from
the current harness (``b`` per task, a pinned block charged in every request). The
arms (:func:`experiments.evoharness.arms.arms`), each scored on the same held-out tasks
of :func:`sim.evolve.split.split_tasks` with common random numbers over ``reps``
replicates: no-evolve; online / train-split x self / minimal / standard feedback;
general-only, topic-only and No-Propose (Table 3); ADD-only. Every harness runs under
caps holding ``cap_fraction`` of the lesson catalogue of its levels
(:func:`sim.evolve.evoharness.budget.proportional_caps`), so budget decisions happen.
Then skill-only vs context-policy evolution vs combined on long-horizon tasks
(:mod:`experiments.evoharness.policy`). ``--backend llm`` runs
:func:`experiments.evoharness.llm_run.run_llm` instead.

Writes ``evoharness.csv`` (one row per arm: pass rate, paired difference from
no-evolve, the budget-forced ACCEPT/MERGE/SKIP counts), ``evoharness_pairs.csv`` (every
ordering the papers state, per profile: the paired difference and its 95% interval),
``evoharness_policy.csv`` (per arm: reward, tokens, and the runs that read a skill
body), ``evoharness_policy_pairs.csv`` (every pair of its arms' paired differences in
reward and tokens),
``evoharness.png`` (arms; harness size against the caps over the stream; skills vs
policy), ``evoharness.json`` (config, the paired comparisons as numbers,
``budget_decisions`` per evolving arm, the harness traces, the paper numbers) and
``evoharness_harness.json`` (the final online-standard harness, medium profile,
replicate 0). The numbers are judged against the paper by the claims judge, not here.
"""

from __future__ import annotations

import time
from dataclasses import asdict

from experiments.evoharness import options
from experiments.evoharness.arms import arms
from experiments.evoharness.figure import figure
from experiments.answers import refuse_unanswered
from experiments.endpoint import endpoint
from experiments.evoharness.grid import run_grid, split_stream, tasks
from experiments.evoharness.llm_run import run_llm
from experiments.evoharness.paper import PAPER
from experiments.evoharness.policy import (POLICY_COLUMNS, POLICY_PAIRS_COLUMNS,
                                           policy_comparison)
from experiments.evoharness.table import (COLUMNS, PAIRS_COLUMNS, budget_decisions,
                                          comparisons, resolution, table)
from experiments.output import prepare_out, save_figure, write_csv, write_sidecar
from experiments.settings.evoharness import GridConfig
from sim.evolve.evoharness.propose import EVOLVER_PRIOR, Evolver
from sim.evolve.evoharness.uptake import SKILL_USE_PRIOR, SkillUse
from sim.evolve.evoharness.skill_harness import HarnessCaps, SkillHarness

NAME = "evoharness"
#: the options (the CLI reads them from here, as from every experiment module)
add_arguments = options.add_arguments
#: the settings class of ``ctxsim run evoharness``
SETTINGS = GridConfig
#: arms whose harness size over the stream the figure shows
TRACED = ("online-standard", "online-minimal", "online-self", "general-only",
          "topic-only", "no-propose", "add-only")


def run(args) -> list:
    """Run the grid and the policy comparison; write CSV, PNG, JSON; return paths."""
    cfg = GridConfig.from_args(args)
    if cfg.backend == "llm":
        return run_llm(args, cfg)
    out = prepare_out(args.out)
    t0 = time.perf_counter()
    train, test = split_stream(tasks(cfg.families, cfg.seeds, cfg.growth, cfg.seed))
    arm_list = arms(cfg.profiles)
    reflection = {}
    if cfg.reflector == "llm":
        # the synthetic grid's reflectors ask from worker processes, with no answer
        # file: a replay-only run must not start the model here
        refuse_unanswered("--reflector llm with the synthetic backend")
        with endpoint(args) as (settings, record):
            results = run_grid(arm_list, cfg, settings)
        reflection = {"endpoint": record, "streams": {
            f"{a}/{p}/{s.rep}": s.reflection for (a, p), ss in results.items()
            for s in ss if s.reflection}}
    else:
        results = run_grid(arm_list, cfg)
    tab = table(results, arm_list, cfg.seed)
    comps = comparisons(results, cfg.profiles, cfg.seed)
    res = resolution(comps)
    prow, ppairs, pinfo = policy_comparison(cfg)
    wall = time.perf_counter() - t0
    prof = "medium" if "medium" in cfg.profiles else cfg.profiles[0]
    traces = {f"{a}/{prof}": (list(results[(a, prof)][0].trace),
                              results[(a, prof)][0].caps) for a in TRACED}
    final = SkillHarness.from_dict(results[("online-standard", prof)][0].harness,
                                   HarnessCaps(**results[("online-standard", prof)][0].caps))
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, tab),
             write_csv(out / f"{NAME}_pairs.csv", PAIRS_COLUMNS, comps),
             write_csv(out / f"{NAME}_policy.csv", POLICY_COLUMNS, prow),
             write_csv(out / f"{NAME}_policy_pairs.csv", POLICY_PAIRS_COLUMNS, ppairs),
             final.save(out / f"{NAME}_harness.json", replace=True),
             save_figure(figure(tab, traces, prow, cfg, ppairs), out / f"{NAME}.png")]
    if cfg.quick:
        print(f"[evoharness --quick] {res['resolved']} of {res['total']} paired "
              f"comparisons have a 95% interval excluding 0; --quick cannot show the "
              f"direction of: {', '.join(res['unresolved']) or 'none'}", flush=True)
    paths.append(write_sidecar(out / f"{NAME}.json", cfg.to_dict(), {
        "wall_seconds": round(wall, 1),
        "split": {"held_in": len(train), "held_out": len(test)},
        "comparisons": comps, "resolution": res,
        "budget_decisions": budget_decisions(results),
        "policy_comparison": pinfo,
        **({"reflection": reflection} if reflection else {}),
        "harness_trace": {k: {"trace": [asdict(u) for u in t], "caps": c}
                          for k, (t, c) in traces.items()},
        "parameters": {"evolver": Evolver().__dict__, "evolver_prior": EVOLVER_PRIOR,
                       "skill_use": SkillUse().__dict__,
                       "skill_use_prior": SKILL_USE_PRIOR},
        "paper": PAPER,
        "pairing": "every arm plays the same held-out tasks with the same episode "
                   "seeds (common random numbers); intervals are percentile bootstrap "
                   "over tasks (95%) of the per-task mean over replicates"}))
    return paths
