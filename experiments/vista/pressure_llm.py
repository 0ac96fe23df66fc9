"""``ctxsim run pressure --agent llm``: a small pressure sweep with a real model.

The same LOCA-like tasks, harness and context programs as the synthetic sweep
(:mod:`experiments.vista.pressure`), but the agent is :class:`sim.agents.llm.LLMAgent`
against the embedded local model (or ``--base-url``). A CPU model reads ~100 tokens/s
and writes a few, so the sweep is small: a few families at context growth of a few
thousand tokens under budgets of a few thousand, for VISTA, ReAct truncation and
observation masking. Reported per (budget, program): solved / n with a Wilson 95%
interval, mean request size, the endpoint's token ledger, and answers the strict
parser refused (an episode whose model gives no valid call within the repairs counts
as unsolved and is tallied as ``invalid``).

Writes ``pressure_llm.csv`` (per budget and program), ``pressure_llm_episodes.csv``,
``pressure_llm.png`` and ``pressure_llm.json`` (model, sha256, server, seed).
"""

from __future__ import annotations

import time

NAME = "pressure_llm"
PROGRAMS = ("vista", "react", "masking")
COLUMNS = ("budget", "program", "n", "solved", "accuracy", "ci_low", "ci_high",
           "invalid", "mean_active", "agent_archives", "recoveries", "prompt_tokens",
           "completion_tokens", "seconds")
EPISODE_COLUMNS = ("budget", "program", "task_id", "growth", "solved", "invalid",
                   "requests", "mean_active", "agent_archives", "recoveries", "deletes",
                   "offloaded", "prompt_tokens", "completion_tokens", "seconds", "error")


#: the options of ``ctxsim run pressure`` that both agents read (the rest of its
#: options steer the synthetic sweep alone and are refused with ``--agent llm``)
BOTH_AGENTS = ("out", "quick", "no_progress", "seed", "agent")


def agent_only_options(llm: bool) -> tuple[dict[str, str], dict[str, object]]:
    """The options only one agent reads, as ``(dest -> flag, dest -> value when not
    given)`` for :func:`~experiments.arguments.given_flags`: with ``llm``, those of
    :class:`~experiments.settings.vista.PressureLLMSettings`; else the synthetic
    sweep's (:class:`~experiments.settings.vista.PressureSettings`, less
    :data:`BOTH_AGENTS`), its own grid first, then the sweep options, then
    ``--config``."""
    from experiments.settings import RUN_OPTIONS
    from experiments.settings.vista import PressureLLMSettings, PressureSettings

    if llm:
        options = PressureLLMSettings.parser_defaults()
    else:
        run = [o[2:].replace("-", "_") for o in RUN_OPTIONS]
        rank = {d: 2 if d in run else 1 if d in PressureSettings.COMMON else 0
                for d in PressureSettings.parser_defaults()}
        options = {d: o for d, o in sorted(PressureSettings.parser_defaults().items(),
                                           key=lambda kv: rank[kv[0]])
                   if d not in BOTH_AGENTS}
    return ({d: f for d, (f, _) in options.items()},
            {d: v for d, (_, v) in options.items()})


def check_agent_options(args) -> None:
    """Refuse the options of the other agent: ``--llm-*``, ``--base-url`` and
    ``--model`` without ``--agent llm``, the synthetic sweep's grid options with it
    (each run would silently ignore them).

    Raises:
        UsageError: naming them (exit 2).
    """
    from experiments.arguments import given_flags, only_with
    from experiments.settings.vista import PressureSettings

    if getattr(args, "agent", PressureSettings.default_of("agent")) == "llm":
        only_with("--agent synthetic (the default)",
                  given_flags(args, *agent_only_options(llm=False)))
    else:
        only_with("--agent llm", given_flags(args, *agent_only_options(llm=True)))


def episode(task, program: str, budget: int, client, seed: int) -> dict:
    """One episode with a fresh :class:`LLMAgent` over ``client`` (a chat client of
    its own: its ledger is the episode's); a refused answer ends it unsolved.

    Raises:
        LLMTransportError: when the endpoint fails beyond its retries (the sweep
            stops: its numbers would be meaningless).
    """
    from sim.agents.llm import LLMAgent, LLMResponseError
    from sim.harness import run_episode
    from sim.plugins import make_program   # a plugin program guarded (sim.plugins.guard)

    agent = LLMAgent(client=client)
    row = {"budget": budget, "program": program, "task_id": task.task_id,
           "growth": task.observation_tokens, "invalid": 0, "error": ""}
    try:
        r = run_episode(task, make_program(program), agent, budget=budget, seed=seed)
        row.update(solved=int(r.solved), requests=r.requests,
                   mean_active=round(r.mean_active, 1), agent_archives=r.agent_archives,
                   recoveries=r.recoveries, deletes=r.deletes, offloaded=r.offloaded)
    except LLMResponseError as exc:
        row.update(solved=0, invalid=1, error=str(exc)[:200], requests=agent.ledger.requests,
                   mean_active="", agent_archives=agent.archives,
                   recoveries=agent.recoveries, deletes="", offloaded="")
    led = agent.ledger
    row.update(prompt_tokens=led.prompt, completion_tokens=led.completion,
               seconds=round(led.seconds, 1))
    return row


def run_llm(args) -> list:
    """Run the sweep with the real model; write CSV, PNG and JSON; return the paths."""
    import contextlib

    import numpy as np

    from experiments.answers import answered_model, answers_path
    from experiments.intervals import Z_ROUNDED, wilson
    from experiments.output import prepare_out, save_figure, write_csv, write_sidecar
    from experiments.settings.vista import PressureLLMSettings
    from sim.tasks.loca import loca_task

    out = prepare_out(args.out)
    cfg = PressureLLMSettings.from_args(args)  # --quick: one budget, three families
    seed = args.seed   # the sweeps' --seed (experiments.settings.sweeps.SweepSettings)
    tasks = [loca_task(f, 0, cfg.llm_growth, seed) for f in range(cfg.llm_families)]
    rows = []
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        # answers replayed from the file; the embedded model starts at the first miss
        model = answered_model(args, stack, answers_path(cfg, NAME))
        for budget in cfg.llm_budgets:
            for k, task in enumerate(tasks):
                for prog in PROGRAMS:
                    # max_tokens: room for 3 exact values
                    rows.append(episode(task, prog, budget, model.client(max_tokens=128),
                                        seed * 1000 + k))
                    r = rows[-1]
                    print(f"[pressure llm] B={budget} {task.task_id} {prog}: solved "
                          f"{r['solved']} invalid {r['invalid']} ({r['seconds']} s)",
                          flush=True)
        record = model.record()
    wall = time.perf_counter() - t0
    table = []
    for budget in cfg.llm_budgets:
        for prog in PROGRAMS:
            rs = [r for r in rows if r["budget"] == budget and r["program"] == prog]
            k, n = sum(r["solved"] for r in rs), len(rs)
            _, lo, hi = wilson(k, n, z=Z_ROUNDED)
            act = [r["mean_active"] for r in rs if r["mean_active"] != ""]
            table.append({"budget": budget, "program": prog, "n": n, "solved": k,
                          "accuracy": k / n, "ci_low": round(lo, 3), "ci_high": round(hi, 3),
                          "invalid": sum(r["invalid"] for r in rs),
                          "mean_active": round(float(np.mean(act)), 1) if act else "",
                          "agent_archives": sum(r["agent_archives"] for r in rs),
                          "recoveries": sum(r["recoveries"] for r in rs),
                          "prompt_tokens": sum(r["prompt_tokens"] for r in rs),
                          "completion_tokens": sum(r["completion_tokens"] for r in rs),
                          "seconds": round(sum(r["seconds"] for r in rs), 1)})
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, table),
             write_csv(out / f"{NAME}_episodes.csv", EPISODE_COLUMNS, rows)]
    fig = figure(table, record.get("model", "?"), cfg.llm_growth)
    paths.append(save_figure(fig, out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", {
        **cfg.record(), "programs": list(PROGRAMS), "seed": seed}, {
        **record, "wall_seconds": round(wall, 1),
        "summary": {f"{r['program']}@{r['budget']}": f"{r['solved']}/{r['n']}"
                    for r in table}}))
    return paths


def figure(table: list[dict], model: str, growth: int):
    """Two panels from the per-(budget, program) rows of ``pressure_llm.csv``: (a) each
    program's solved share with its Wilson 95% interval and ``k/n``, program names on
    the axis (no legend: a bar of height 0 still has its name and a mark at 0); (b)
    each program's difference from VISTA with Newcombe's 95% interval (independent
    proportions: with a few tasks a paired bootstrap has almost no resamples to
    spread over, so its interval would look surer than the data are). ``n`` (tasks
    per bar) is named in the title."""
    import numpy as np

    from experiments.intervals import newcombe
    from experiments.output import new_figure

    budgets = list(dict.fromkeys(int(r["budget"]) for r in table))
    programs = list(dict.fromkeys(r["program"] for r in table))
    cell = {(int(r["budget"]), r["program"]): r for r in table}
    ns = sorted({int(r["n"]) for r in table})
    fig, (ax, dx) = new_figure(1, 2, figsize=(9, 3.9), width_ratios=[3, 2])
    width = 0.8 / len(programs)
    ticks, names, rows_b = [], [], []
    others = [p for p in programs if p != "vista"]
    for i, b in enumerate(budgets):
        for j, prog in enumerate(programs):
            r = cell.get((b, prog))
            if r is None:
                continue
            x = i + (j - (len(programs) - 1) / 2) * width
            k, n, acc = int(r["solved"]), int(r["n"]), float(r["accuracy"])
            colour = "k" if prog == "vista" else f"C{j}"
            ax.bar(x, acc, width * 0.9, color=colour)
            # a mark at the bar's value: a bar of height 0 is still seen
            ax.plot([x - width * 0.45, x + width * 0.45], [acc, acc], color=colour, lw=2.5,
                    solid_capstyle="butt")
            ax.errorbar(x, acc, [[max(0.0, acc - float(r["ci_low"]))],
                                 [max(0.0, float(r["ci_high"]) - acc)]],
                        fmt="none", ecolor="grey", capsize=3)
            ax.text(x, float(r["ci_high"]) + 0.02, f"{k}/{n}", ha="center", fontsize=7)
            ticks.append(x)
            names.append(f"{prog}\nB={b:,}" if len(budgets) > 1 else prog)
        ref = cell.get((b, "vista"))
        for j, prog in enumerate(others):
            r = cell.get((b, prog))
            if r is None or ref is None:
                continue
            d, lo, hi = newcombe(int(r["solved"]), int(r["n"]), int(ref["solved"]),
                                 int(ref["n"]))
            y = len(rows_b)
            dx.errorbar(d, y, xerr=[[d - lo], [hi - d]], fmt="o", color=f"C{j + 1}",
                        capsize=3)
            rows_b.append(f"{prog}" + (f", B={b:,}" if len(budgets) > 1 else "")
                          + f"\n{d:+.2f} [{lo:+.2f}, {hi:+.2f}]")
    ax.set_xticks(ticks, names, fontsize=8)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("solved share (Wilson 95%)")
    n_text = f"n = {ns[0]} tasks" if len(ns) == 1 else f"n = {ns[0]}-{ns[-1]} tasks"
    ax.set_title(f"(a) real model ({model}), growth ~{growth:,} tokens;\n"
                 f"{n_text} per bar" + (f", budget B={budgets[0]:,}" if len(budgets) == 1
                                        else ""), fontsize=9)
    dx.axvline(0.0, color="grey", lw=0.8)
    dx.set_xlim(-1.05, 1.05)
    dx.set_yticks(range(len(rows_b)), rows_b, fontsize=8)
    dx.set_ylim(len(rows_b) - 0.5, -0.5)
    dx.set_xlabel("solved share minus vista's (Newcombe 95%)")
    dx.set_title(f"(b) difference from vista, {n_text} each", fontsize=9)
    return fig
