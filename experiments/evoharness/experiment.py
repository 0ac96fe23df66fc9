"""Evo-Harness: online skill harness learning under an enforced budget, and skills
against context-policy evolution (Evo-Harness Tables 2-4, Fig. 5; ContextEvo §6 Table 3).

``ctxsim run evoharness`` plays LOCA-like tasks (growth ``--growth`` tokens, budget
``--budget``, context program ``--program``) with :class:`SkillAwareAgent` s, skills
selected from the current harness (``b`` per task, a pinned block charged in every
request). Arms (``arm`` column), each scored on the same held-out tasks of
:func:`sim.evolve.split.split_tasks` with common random numbers, ``--reps`` replicates:

* ``no-evolve``; ``{online,train-split}-{self,minimal,standard}`` (the grid, per
  profile); ``general-only`` / ``topic-only`` (online, standard; Table 3);
  ``add-only`` (online, standard; every proposal appended, no budget, no merge);
* skill-only vs context-policy evolution vs combined on long-horizon tasks (128K
  growth, 128K budget as in ContextEvo's LOCA setting): the context policy is the one
  ContextEvo's loop (:mod:`sim.evolve.contextevo.loop`) evolves from ``react`` on the same
  held-in split (:func:`policy_comparison`).

``--backend llm`` runs :func:`run_llm` instead (a small real-model comparison).

Writes ``evoharness.csv`` (one row per arm), ``evoharness_policy.csv`` (the Table 3
comparison), ``evoharness.png``, ``evoharness.json`` (config, harness
trace; the verdicts on the papers' orderings are ``ctxsim claims``'s) and ``evoharness_harness.json`` (the final online-standard harness, medium
profile, replicate 0).
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

from experiments.claims.registry.evoharness import paper_tables
from experiments.output import (new_figure, prepare_out, save_figure, write_csv,
                                write_sidecar)
from experiments.paired import bootstrap_mean_ci

NAME = "evoharness"
FEEDBACK = ("self", "minimal", "standard")
#: the program ContextEvo starts from (and the skill-only arm keeps)
START = "react"
#: Evo-Harness Tables 3-4 and Fig. 5, ContextEvo Table 3: the papers' numbers, held once
#: in the claims registry (verdicts are ``ctxsim claims``'s alone)
PAPER = paper_tables()
COLUMNS = ("arm", "profile", "mode", "feedback", "levels", "curator", "n_tasks", "reps",
           "pass_rate", "pass_lo", "pass_hi", "diff_vs_no_evolve", "diff_lo", "diff_hi",
           "mean_tokens", "skills_shown", "skills_read", "final_skills",
           "final_skill_tokens")
POLICY_COLUMNS = ("arm", "program", "n_tasks", "reward", "reward_lo", "reward_hi",
                  "mean_tokens", "skill_tokens_in_harness", "paper_reward",
                  "paper_mean_tokens")


def defaults(quick: bool) -> dict:
    """The grid. Few task types with many tasks each (6 LOCA families x 15 seeds), as in
    the paper's benchmarks (CL-Bench: 4 categories; SWE-bench Lite: 12 repositories):
    a task-type procedure only pays off when its type recurs in the stream."""
    if quick:
        return {"profiles": ["medium"], "families": 6, "seeds": 5, "reps": 1,
                "growth": 48_000, "budget": 16_000, "long_growth": 64_000,
                "long_budget": 64_000,
                "long_families": 15, "long_seeds": 2, "b": 3, "batch": 1,
                "program": "vista_no_dashboard"}
    return {"profiles": ["strong", "medium", "weak"], "families": 6, "seeds": 15,
            "reps": 3, "growth": 48_000, "budget": 16_000, "long_growth": 128_000,
            "long_budget": 128_000,
            "long_families": 15, "long_seeds": 4, "b": 3, "batch": 1,
            "program": "vista_no_dashboard"}


from experiments.arguments import nonnegative_int as _nonneg  # noqa: E402
from experiments.arguments import positive_int as _pos  # noqa: E402


def add_arguments(parser) -> None:
    """Options: --quick, --backend, --seed, --out, --reps, --b, --batch, --program."""
    parser.add_argument("--out", default="figures",
                        help="output directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="one profile, 30 tasks, one replicate (default: off)")
    parser.add_argument("--backend", choices=("synthetic", "llm"), default="synthetic",
                        help="solver backend (default: %(default)s)")
    parser.add_argument("--seed", type=_nonneg, default=0,
                        help="base seed of tasks and agent draws (default: %(default)s)")
    parser.add_argument("--reps", type=_pos, default=None,
                        help="stream replicates (default: 3; --quick 1)")
    parser.add_argument("--b", type=_nonneg, default=None,
                        help="skills selected per task, >= 0 (default: 3)")
    parser.add_argument("--batch", type=_pos, default=None,
                        help="tasks per harness update |B_i| (default: 1, per-task)")
    parser.add_argument("--program", default=None,
                        help="context program of the grid (default: vista_no_dashboard)")
    parser.add_argument("--no-progress", action="store_true", help="accepted; this experiment draws no bar (default: off)")
    parser.add_argument("--base-url", default=None,
                        help="--backend llm: OpenAI-compatible endpoint (default: the "
                             "embedded local model, started for the run)")
    parser.add_argument("--model", default=None, help="--backend llm: model name (default: the endpoint's)")


def config(args) -> dict:
    from sim.evolve.evoharness.select import check_b

    cfg = defaults(args.quick)
    cfg["seed"] = args.seed
    cfg["backend"] = args.backend
    cfg["quick"] = bool(args.quick)
    for k in ("reps", "b", "program", "batch"):
        if getattr(args, k) is not None:
            cfg[k] = getattr(args, k)
    check_b(cfg["b"])
    from sim.policies import PROGRAMS

    if cfg["program"] not in PROGRAMS:
        raise ValueError(f"unknown --program {cfg['program']!r}; known: {sorted(PROGRAMS)}")
    return cfg


def arms(profiles) -> list[dict]:
    """The arms: per profile the no-evolve baseline, the feedback x mode grid, the
    general-only / topic-only ablations and the ADD-only curator."""
    out = []
    for p in profiles:
        out.append(dict(arm="no-evolve", profile=p, mode="none", feedback="standard",
                        levels="general+topic", curator="budgeted"))
        for mode in ("online", "train-split"):
            for fb in FEEDBACK:
                out.append(dict(arm=f"{mode}-{fb}", profile=p, mode=mode, feedback=fb,
                                levels="general+topic", curator="budgeted"))
        for lv in ("general", "topic"):
            out.append(dict(arm=f"{lv}-only", profile=p, mode="online",
                            feedback="standard", levels=lv, curator="budgeted"))
        out.append(dict(arm="add-only", profile=p, mode="online", feedback="standard",
                        levels="general+topic", curator="add-only"))
    return out


def _curator_and_harness(curator: str, levels: str):
    from sim.evolve.evoharness.curate import AddOnlyCurator, Curator
    from sim.evolve.evoharness.skill_harness import UNBOUNDED, SkillHarness

    lv = ("general", "topic") if levels == "general+topic" else (levels,)
    if curator == "add-only":
        return AddOnlyCurator(levels=lv), SkillHarness(UNBOUNDED)
    return Curator(levels=lv), SkillHarness()


def _tasks(families: int, seeds: int, growth: int, base_seed: int):
    from sim.tasks.loca import loca_task

    return [loca_task(f, s, growth, base_seed) for f in range(families)
            for s in range(seeds)]


def _run_arm(arm: dict, train, test, cfg: dict, program, rep: int,
             b: int | None = None):
    """One arm's stream; ``program`` is a program name or a factory of programs."""
    from sim.evolve.evoharness.online import run_stream
    from sim.policies import make_program

    curator, harness = _curator_and_harness(arm["curator"], arm["levels"])
    return run_stream(test, mode=arm["mode"], feedback=arm["feedback"],
                      profile=arm["profile"],
                      program_factory=program if callable(program)
                      else (lambda: make_program(program)),
                      budget=cfg["budget"], b=cfg["b"] if b is None else b,
                      seed=cfg["seed"] * 1000 + rep, curator=curator, harness=harness,
                      train_tasks=train, batch=cfg.get("batch", 1))


def _per_task(rows, col="solved"):
    by = defaultdict(list)
    for r in rows:
        by[r["task_id"]].append(float(r[col]))
    return {k: float(np.mean(v)) for k, v in by.items()}


def table(results: dict, arm_list: list[dict], cfg: dict) -> list[dict]:
    """One row per arm: pass rate (mean over tasks of the per-task mean over
    replicates) with a bootstrap interval over tasks, and the paired difference from
    the same profile's no-evolve arm."""
    out = []
    for a in arm_list:
        key = (a["arm"], a["profile"])
        rows = [r for res in results[key] for r in res.rows]
        pt = _per_task(rows)
        ids = sorted(pt)
        m, lo, hi = bootstrap_mean_ci([pt[i] for i in ids], seed=cfg["seed"])
        base = _per_task([r for res in results[("no-evolve", a["profile"])]
                          for r in res.rows])
        d, dlo, dhi = bootstrap_mean_ci([pt[i] - base[i] for i in ids], seed=cfg["seed"])
        finals = [res.harness for res in results[key]]
        out.append({**a, "n_tasks": len(ids), "reps": len(results[key]),
                    "pass_rate": round(m, 4), "pass_lo": round(lo, 4),
                    "pass_hi": round(hi, 4), "diff_vs_no_evolve": round(d, 4),
                    "diff_lo": round(dlo, 4), "diff_hi": round(dhi, 4),
                    "mean_tokens": round(float(np.mean([r["tokens"] for r in rows])), 1),
                    "skills_shown": round(float(np.mean([r["skills_shown"] for r in rows])), 3),
                    "skills_read": round(float(np.mean([r["skills_read"] for r in rows])), 3),
                    "final_skills": round(float(np.mean([len(h) for h in finals])), 2),
                    "final_skill_tokens": round(float(np.mean(
                        [h.total_tokens for h in finals])), 1)})
    return out


def policy_comparison(cfg: dict) -> tuple[list[dict], dict]:
    """Skill-only vs context-policy evolution vs combined on the same long-horizon tasks
    (ContextEvo Table 3), medium profile, held-out split:

    * ``baseline``: the start program ``react``, no skills;
    * ``skill-only``: ``react`` with skills evolved on the held-in split (standard
      feedback, train-split mode), frozen;
    * ``context-policy``: the program ContextEvo's loop (:func:`sim.evolve.contextevo.loop.evolve`,
      synthetic back-end, two iterations) evolves from ``react`` on the same held-in
      split, no skills;
    * ``combined``: that evolved program with skills evolved on held-in under it.
    """
    from sim.evolve.contextevo.backends import SyntheticBackend
    from sim.evolve.contextevo.compile import compile_spec, spec_of
    from sim.evolve.contextevo.loop import EvolveConfig, evolve, loca_taskset
    from sim.evolve.evoharness.online import split_stream

    ts = loca_taskset(cfg["long_growth"], cfg["long_budget"], cfg["long_families"],
                      cfg["long_seeds"], cfg["seed"])
    tasks = [ts.tasks[n] for n in ts.names]
    train, test = split_stream(tasks)
    res = evolve(spec_of(START), ts, SyntheticBackend(cfg["seed"]),
                 EvolveConfig(seed=cfg["seed"]))
    if [t.task_id for t in test] != list(res.held_out):
        raise RuntimeError("ContextEvo's held-out split differs from Evo-Harness's")
    stage = list(res.specs)[-1]
    evolved = res.specs[stage]
    lcfg = {**cfg, "budget": cfg["long_budget"]}
    noev = dict(arm="no-evolve", profile="medium", mode="none", feedback="standard",
                levels="general+topic", curator="budgeted")
    evo = {**noev, "mode": "train-split"}
    policy = lambda: compile_spec(evolved)  # noqa: E731 - a fresh program per episode
    runs = {"baseline": _run_arm(noev, train, test, lcfg, START, 0),
            "skill-only": _run_arm(evo, train, test, lcfg, START, 0),
            "context-policy": _run_arm(noev, train, test, lcfg, policy, 0),
            "combined": _run_arm(evo, train, test, lcfg, policy, 0)}
    rows = []
    for arm, r in runs.items():
        s = [x["solved"] for x in r.rows]
        m, lo, hi = bootstrap_mean_ci(s, seed=cfg["seed"])
        pr, pt = PAPER["contextevo_table3"][arm]
        rows.append({"arm": arm, "program": evolved.name if arm in (
                     "context-policy", "combined") else START, "n_tasks": len(s),
                     "reward": round(m, 4), "reward_lo": round(lo, 4),
                     "reward_hi": round(hi, 4),
                     "mean_tokens": round(float(np.mean([x["tokens"] for x in r.rows])), 1),
                     "skill_tokens_in_harness": r.harness.total_tokens,
                     "paper_reward": pr, "paper_mean_tokens": pt})
    info = {"contextevo_stage": stage,
            "contextevo_spec": evolved.to_dict(),
            "contextevo_held_in_log": res.log,
            "split": {"held_in": len(train), "held_out": len(test)}}
    return rows, info


def run(args) -> list:
    """Run the grid and the policy comparison; write CSV, PNG, JSON; return paths."""
    cfg = config(args)
    if cfg["backend"] == "llm":
        return run_llm(args, cfg)
    out = prepare_out(args.out)
    from sim.evolve.evoharness.online import split_stream

    t0 = time.perf_counter()
    tasks = _tasks(cfg["families"], cfg["seeds"], cfg["growth"], cfg["seed"])
    train, test = split_stream(tasks)
    arm_list = arms(cfg["profiles"])
    results = {}
    for a in arm_list:
        results[(a["arm"], a["profile"])] = [
            _run_arm(a, train, test, cfg, cfg["program"], rep) for rep in range(cfg["reps"])]
    tab = table(results, arm_list, cfg)
    prow, pinfo = policy_comparison(cfg)
    wall = time.perf_counter() - t0
    prof = "medium" if "medium" in cfg["profiles"] else cfg["profiles"][0]
    final = results[("online-standard", prof)][0].harness
    traces = {f"{a}/{prof}": results[(a, prof)][0].trace
              for a in ("online-standard", "add-only", "online-self")}
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, tab),
             write_csv(out / f"{NAME}_policy.csv", POLICY_COLUMNS, prow)]
    paths.append(final.save(out / f"{NAME}_harness.json"))
    paths.append(save_figure(_figure(tab, traces, prow, cfg), out / f"{NAME}.png"))
    decisions = defaultdict(int)
    for res in results[("online-standard", prof)]:
        for _, d in res.decisions:
            decisions[d.action] += 1
    paths.append(write_sidecar(out / f"{NAME}.json", cfg, {
        "wall_seconds": round(wall, 1), "split": {"held_in": len(train),
                                                   "held_out": len(test)},
        "paper": PAPER, "policy_comparison": pinfo,
        "harness_trace": traces, "curation_decisions_online_standard": dict(decisions),
        "pairing": "every arm plays the same held-out tasks with the same episode "
                   "seeds (common random numbers); intervals are percentile bootstrap "
                   "over tasks (95%)"}))
    return paths


def _figure(tab, traces, prow, cfg):
    fig, axes = new_figure(1, 3, figsize=(16, 4.8))
    ax = axes[0]
    order = [a["arm"] for a in tab if a["profile"] == tab[0]["profile"]]
    profiles = list(dict.fromkeys(r["profile"] for r in tab))
    w = 0.8 / len(profiles)
    for j, p in enumerate(profiles):
        rs = {r["arm"]: r for r in tab if r["profile"] == p}
        x = np.arange(len(order)) + (j - (len(profiles) - 1) / 2) * w
        y = np.array([rs[a]["pass_rate"] for a in order])
        lo = y - np.array([rs[a]["pass_lo"] for a in order])
        hi = np.array([rs[a]["pass_hi"] for a in order]) - y
        ax.bar(x, y, w, yerr=[lo, hi], capsize=2, label=p)
    ax.set_xticks(np.arange(len(order)), order, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("pass rate (held-out tasks, 95% CI)")
    ax.set_title(f"Arms ({cfg['program']}, {cfg['growth'] // 1000}K growth, "
                 f"B={cfg['budget'] // 1000}K, b={cfg['b']})", fontsize=9)
    ax.legend(fontsize=7, title="profile", title_fontsize=7)
    ax.set_ylim(0, 1)
    ax = axes[1]
    for name, tr in traces.items():
        ax.plot([t["step"] for t in tr], [t["tokens"] for t in tr], label=f"{name} tokens")
    ax.set_xlabel("update step (tasks of the stream)")
    ax.set_ylabel("harness tokens (cl100k)")
    ax2 = ax.twinx()
    for name, tr in traces.items():
        ax2.plot([t["step"] for t in tr], [t["skills"] for t in tr], ls=":",
                 label=f"{name} skills")
    ax2.set_ylabel("skills (dotted)")
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("Harness size over the task stream", fontsize=9)
    ax = axes[2]
    for r in prow:
        ax.errorbar(r["mean_tokens"] / 1e3, r["reward"],
                    yerr=[[r["reward"] - r["reward_lo"]], [r["reward_hi"] - r["reward"]]],
                    fmt="o", capsize=3, label=f"{r['arm']} ({r['program']})")
    ax.set_xlabel("mean input tokens per run (K)")
    ax.set_ylabel("reward (pass rate, held-out)")
    ax.set_title(f"Skills vs ContextEvo context policy, {cfg['long_growth'] // 1000}K "
                 f"growth, B={cfg['long_budget'] // 1000}K", fontsize=9)
    ax.legend(fontsize=7)
    return fig


#: --backend llm: tasks (family, seed) in stream order (a family recurs, so a topic
#: skill can be used), their growth and budget (as ``ctxsim run pressure --agent llm``)
LLM_TASKS = ((0, 0), (1, 0), (0, 1))
LLM_GROWTH, LLM_BUDGET, LLM_PROGRAM = 4000, 2500, "vista"
LLM_COLUMNS = ("arm", "task_id", "solved", "invalid", "skills_shown", "harness_skills",
               "input_tokens", "prompt_tokens", "completion_tokens", "seconds", "error")


def run_llm(args, cfg: dict) -> list:
    """A small real-model run: no-evolve against online updating with standard
    feedback on :data:`LLM_TASKS`, the skill text in the model's prompt
    (:class:`sim.evolve.evoharness.llm_skills.LLMSkillAgent`). Writes ``evoharness_llm.csv`` (one
    row per episode), ``evoharness_llm.png``, ``evoharness_llm.json`` (model, server,
    the call ledger: every episode's endpoint tokens, seconds and tool calls) and
    ``evoharness_llm_harness.json``."""
    from dataclasses import replace

    from experiments.vista.perception import endpoint
    from sim.agents.llm import LLMResponseError
    from sim.cost import EpisodeResult
    from sim.evolve.evoharness.curate import Curator
    from sim.evolve.evoharness.llm_skills import LLMSkillAgent
    from sim.evolve.evoharness.online import run_stream
    from sim.evolve.evoharness.skill_harness import SkillHarness
    from sim.harness import run_episode
    from sim.policies import make_program
    from sim.tasks.loca import loca_task

    out = prepare_out(args.out)
    tasks = [loca_task(f, s, LLM_GROWTH, cfg["seed"]) for f, s in LLM_TASKS]
    rows, calls, harnesses = [], [], {}
    t0 = time.perf_counter()
    with endpoint(args) as (settings, record):
        for arm, mode in (("no-evolve", "none"), ("online-standard", "online")):
            agent = LLMSkillAgent(replace(settings, max_tokens=128))

            def runner(task, program, agent_, *, budget, seed, pinned=(), arm=arm):
                led = agent_.ledger
                before = (led.prompt, led.completion, led.seconds)
                err = ""
                try:
                    r = run_episode(task, program, agent_, budget=budget, seed=seed,
                                    pinned=pinned)
                except LLMResponseError as exc:
                    r, err = EpisodeResult(task.task_id, program.name, solved=False), \
                        str(exc)[:200]
                calls.append({"arm": arm, "task_id": task.task_id, "solved": int(r.solved),
                              "error": err, "skills_shown": list(agent_.skills_shown),
                              "prompt_tokens": led.prompt - before[0],
                              "completion_tokens": led.completion - before[1],
                              "seconds": round(led.seconds - before[2], 1),
                              "input_tokens": r.input_tokens, "calls": list(agent_.log)})
                print(f"[evoharness llm] {arm} {task.task_id}: solved {int(r.solved)} "
                      f"({calls[-1]['seconds']} s)", flush=True)
                return r

            harness = SkillHarness()
            run_stream(tasks, mode=mode, feedback="standard", profile="medium",
                       program_factory=lambda: make_program(LLM_PROGRAM),
                       budget=LLM_BUDGET, b=cfg["b"], seed=cfg["seed"],
                       curator=Curator(), harness=harness,
                       agent_factory=lambda agent=agent: agent, run_episode=runner)
            harnesses[arm] = harness
    wall = time.perf_counter() - t0
    for c in calls:
        rows.append({"arm": c["arm"], "task_id": c["task_id"], "solved": c["solved"],
                     "invalid": int(bool(c["error"])), "skills_shown": len(c["skills_shown"]),
                     "harness_skills": "", "input_tokens": c["input_tokens"],
                     "prompt_tokens": c["prompt_tokens"],
                     "completion_tokens": c["completion_tokens"], "seconds": c["seconds"],
                     "error": c["error"]})
    paths = [write_csv(out / f"{NAME}_llm.csv", LLM_COLUMNS, rows),
             harnesses["online-standard"].save(out / f"{NAME}_llm_harness.json")]
    fig, axes = new_figure(1, 2, figsize=(9, 3.6))
    for j, arm in enumerate(("no-evolve", "online-standard")):
        rs = [r for r in rows if r["arm"] == arm]
        x = np.arange(len(rs)) + (j - 0.5) * 0.4
        axes[0].bar(x, [r["solved"] for r in rs], 0.4, label=arm)
        axes[1].bar(x, [r["prompt_tokens"] for r in rs], 0.4, label=arm)
    for ax, lab in ((axes[0], "solved (0/1)"), (axes[1], "prompt tokens (endpoint)")):
        ax.set_xticks(range(len(tasks)), [t.task_id.split("/")[1] + "/" +
                                          t.task_id.split("/")[2] for t in tasks],
                      fontsize=7)
        ax.set_ylabel(lab)
        ax.legend(fontsize=7)
    axes[0].set_title(f"Real model ({record.get('model', '?')}), {LLM_PROGRAM}, "
                      f"B={LLM_BUDGET}", fontsize=9)
    paths.append(save_figure(fig, out / f"{NAME}_llm.png"))
    paths.append(write_sidecar(out / f"{NAME}_llm.json", {**cfg, "tasks": LLM_TASKS,
                                                           "growth": LLM_GROWTH,
                                                           "budget": LLM_BUDGET,
                                                           "program": LLM_PROGRAM}, {
        **record, "wall_seconds": round(wall, 1), "call_ledger": calls,
        "harness_skills": {a: [s.name for s in h.skills] for a, h in harnesses.items()}}))
    return paths
