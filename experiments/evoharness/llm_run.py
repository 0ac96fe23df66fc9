"""The real model under Evo-Harness: a small run of no-evolve against online updating
with standard feedback, the skill text in the model's prompt
(:class:`sim.evolve.evoharness.llm_skills.LLMSkillAgent`); with ``--reflector llm``
the same model also writes the online arm's lessons
(:class:`sim.evolve.evoharness.reflector.LLMReflector`)."""

from __future__ import annotations

import contextlib
import time

import numpy as np

from experiments.answers import answered_model, answers_path
from experiments.settings.evoharness import GridConfig
from experiments.output import new_figure, prepare_out, save_figure, write_csv, write_sidecar
from sim.agents.llm import LLMResponseError
from sim.cost import EpisodeResult
from sim.evolve.evoharness.budget import proportional_caps
from experiments.evoharness.grid import model_reflector
from sim.evolve.evoharness.curate import Curator
from sim.evolve.evoharness.llm_skills import LLMSkillAgent
from sim.evolve.evoharness.online import StreamConfig, StreamParts, run_stream
from sim.evolve.evoharness.skill_harness import SkillHarness
from sim.harness import run_episode
from sim.policies import make_program
from sim.tasks.loca import loca_task

NAME = "evoharness"


#: --backend llm: tasks (family, seed) in stream order (a family recurs, so a topic
#: skill can be used), their growth and budget (as ``ctxsim run pressure --agent llm``)
LLM_TASKS = ((0, 0), (1, 0), (0, 1))
LLM_GROWTH, LLM_BUDGET, LLM_PROGRAM = 4000, 2500, "vista"
LLM_COLUMNS = ("arm", "task_id", "solved", "invalid", "skills_shown", "harness_skills",
               "input_tokens", "prompt_tokens", "completion_tokens", "seconds", "error")


def run_llm(args, cfg: GridConfig) -> list:
    """A small real-model run: no-evolve against online updating with standard
    feedback on :data:`LLM_TASKS`, the skill text in the model's prompt
    (:class:`sim.evolve.evoharness.llm_skills.LLMSkillAgent`). Writes ``evoharness_llm.csv`` (one
    row per episode), ``evoharness_llm.png``, ``evoharness_llm.json`` (model, server,
    the call ledger: every episode's endpoint tokens, seconds and tool calls) and
    ``evoharness_llm_harness.json``. The answers go to ``cfg.cache`` (default: the
    model cache directory; :mod:`experiments.answers`): a rerun asks only what the file
    cannot answer, and an answer counts at the tokens and seconds it took when asked,
    so a replay writes the same CSV."""
    out = prepare_out(args.out)
    tasks = [loca_task(f, s, LLM_GROWTH, cfg.seed) for f, s in LLM_TASKS]
    rows, calls, harnesses, reflection = [], [], {}, {}
    t0 = time.perf_counter()
    path = answers_path(cfg, NAME)
    with contextlib.ExitStack() as stack:
        # answers replayed from the file; the embedded model starts at the first miss
        model = answered_model(args, stack, path)
        settings = model.settings
        for arm, mode in (("no-evolve", "none"), ("online-standard", "online")):
            agent = LLMSkillAgent(client=model.client(max_tokens=128))

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
                if not getattr(args, "no_progress", False):
                    print(f"[evoharness llm] {arm} {task.task_id}: solved "
                          f"{int(r.solved)} ({calls[-1]['seconds']} s)", flush=True)
                return r

            harness = SkillHarness(proportional_caps(
                sorted({t.family for t in tasks}), fraction=cfg.cap_fraction))
            reflector = model_reflector(settings, cfg, client=model.client()) \
                if cfg.reflector == "llm" and mode != "none" else None
            run_stream(tasks, StreamConfig(mode, "standard", LLM_BUDGET, cfg.b, cfg.seed),
                       StreamParts(lambda: make_program(LLM_PROGRAM), Curator(), harness,
                                   agent_factory=lambda agent=agent: agent,
                                   run_episode=runner, reflector=reflector))
            harnesses[arm] = harness
            if reflector is not None:
                reflection[arm] = reflector.ledger()
        record = model.record()
    wall = time.perf_counter() - t0
    for c in calls:
        rows.append({"arm": c["arm"], "task_id": c["task_id"], "solved": c["solved"],
                     "invalid": int(bool(c["error"])), "skills_shown": len(c["skills_shown"]),
                     "harness_skills": "", "input_tokens": c["input_tokens"],
                     "prompt_tokens": c["prompt_tokens"],
                     "completion_tokens": c["completion_tokens"], "seconds": c["seconds"],
                     "error": c["error"]})
    paths = [write_csv(out / f"{NAME}_llm.csv", LLM_COLUMNS, rows),
             harnesses["online-standard"].save(out / f"{NAME}_llm_harness.json",
                                               replace=True)]
    fig = figure(rows, record.get("model", "?"))
    paths.append(save_figure(fig, out / f"{NAME}_llm.png"))
    paths.append(write_sidecar(out / f"{NAME}_llm.json", {**cfg.to_dict(), "tasks": LLM_TASKS,
                                                           "growth": LLM_GROWTH,
                                                           "budget": LLM_BUDGET,
                                                           "program": LLM_PROGRAM}, {
        **record, "wall_seconds": round(wall, 1), "call_ledger": calls,
        "harness_skills": {a: [s.name for s in h.skills] for a, h in harnesses.items()},
        "reflection": reflection or {"reflector": "rules"}}))
    return paths


#: the two arms of the real-model run, in the order drawn
LLM_ARMS = ("no-evolve", "online-standard")


def figure(rows: list[dict], model: str):
    """Two panels from the per-episode rows of ``evoharness_llm.csv``: (a) each arm's
    solved share over its tasks with its Wilson 95% interval and ``k/n`` (one dot per
    task), and online-standard minus no-evolve with Newcombe's 95% interval
    (independent proportions: a paired bootstrap over a few tasks has almost nothing
    to resample); (b) the endpoint's prompt tokens per task and arm, an episode the
    model's answers ended marked ``invalid``. ``n`` (tasks per arm) is in the title."""
    from experiments.intervals import newcombe, wilson

    fig, (ax, bx) = new_figure(1, 2, figsize=(10, 3.8))
    per = {a: [r for r in rows if r["arm"] == a] for a in LLM_ARMS}
    ks = {a: sum(int(r["solved"]) for r in rs) for a, rs in per.items()}
    ns = {a: len(rs) for a, rs in per.items()}
    for j, arm in enumerate(LLM_ARMS):
        k, n = ks[arm], ns[arm]
        _, lo, hi = wilson(k, n)
        ax.errorbar(j, k / n, [[k / n - lo], [hi - k / n]], fmt="s", ms=8, color=f"C{j}",
                    capsize=4)
        ax.scatter(j + 0.15 + 0.05 * np.arange(n), [int(r["solved"]) for r in per[arm]],
                   s=14, color=f"C{j}", marker="o", zorder=3, clip_on=False)
        ax.text(j - 0.1, hi + 0.03, f"{k}/{n}", ha="right", fontsize=8)
    d, dlo, dhi = newcombe(ks[LLM_ARMS[1]], ns[LLM_ARMS[1]], ks[LLM_ARMS[0]], ns[LLM_ARMS[0]])
    ax.set_xticks(range(len(LLM_ARMS)), [f"{a}\n(n = {ns[a]} tasks)" for a in LLM_ARMS],
                  fontsize=8)
    ax.set_xlim(-0.5, len(LLM_ARMS) - 0.3)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("solved share (square: Wilson 95%; dots: tasks)")
    n_text = "n = " + "/".join(str(v) for v in sorted(set(ns.values()))) + " tasks per arm"
    ax.set_title(f"(a) real model ({model}), {LLM_PROGRAM}, B={LLM_BUDGET}; {n_text};\n"
                 f"{LLM_ARMS[1]} - {LLM_ARMS[0]}: {d:+.2f} [{dlo:+.2f}, {dhi:+.2f}] "
                 "(Newcombe 95%)", fontsize=8)
    tasks = list(dict.fromkeys(r["task_id"] for r in rows))
    for j, arm in enumerate(LLM_ARMS):
        got = {r["task_id"]: r for r in per[arm]}
        x = np.arange(len(tasks)) + (j - 0.5) * 0.4
        bx.bar(x, [int(got[t]["prompt_tokens"]) if t in got else 0 for t in tasks], 0.4,
               color=f"C{j}", label=arm)
        for xi, t in zip(x, tasks):
            if t in got and int(got[t]["invalid"]):
                bx.text(xi, int(got[t]["prompt_tokens"]) * 0.97, "invalid answer",
                        ha="center", va="top", fontsize=6, rotation=90, color="w")
    bx.set_xticks(range(len(tasks)), ["/".join(t.split("/")[1:3]) for t in tasks],
                  fontsize=7)
    bx.set_ylabel("prompt tokens (endpoint)")
    bx.set_ylim(0, bx.get_ylim()[1] * 1.15)
    bx.legend(fontsize=7, loc="upper left")
    bx.set_title("(b) prompt tokens per task (one episode each)", fontsize=8)
    return fig
