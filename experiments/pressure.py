"""``ctxsim run pressure``: accuracy per program per context-growth level at a fixed
budget (VISTA §3.3, Fig. 4, Appendix Table 9).

75 LOCA-like tasks per level (15 families x 5 seeds), growth 8K..256K tokens, budget
128K, one medium synthetic agent. Writes ``pressure.csv`` (per level and program:
solved/n, mean active-context tokens, total tokens, archives, recoveries per task),
``pressure_episodes.csv`` (one row per episode), ``pressure.png`` and ``pressure.json``.
Expected pattern: programs tied at 8K, the gap opening as growth passes the budget.
"""

from __future__ import annotations

import time

from experiments.output import new_figure, prepare_out, save_figure, write_csv, write_sidecar
from experiments.sweep import (ROW_COLUMNS, add_common_arguments, aggregate, loca_specs,
                               run_sweep)

NAME = "pressure"
COLUMNS = ("level", "program", "n", "solved", "accuracy", "mean_active", "total_tokens",
           "archives", "agent_archives", "program_edits", "recoveries", "cost_usd")


def add_arguments(parser) -> None:
    """Options: levels, programs, budget, families, seeds (+ the common ones)."""
    from sim.policies import MAIN_PROGRAMS
    from sim.tasks.loca import GROWTH_LEVELS

    add_common_arguments(parser)
    parser.add_argument("--levels", type=int, nargs="+", default=list(GROWTH_LEVELS))
    parser.add_argument("--programs", nargs="+", default=list(MAIN_PROGRAMS))
    parser.add_argument("--budget", type=int, default=128_000)
    parser.add_argument("--families", type=int, default=15)
    parser.add_argument("--seeds", type=int, default=5)
    from experiments.pressure_llm import add_llm_arguments

    add_llm_arguments(parser)  # --agent llm: the small real-model sweep


def config(args) -> dict:
    """The effective configuration (``--quick`` shrinks it)."""
    cfg = {"levels": list(args.levels), "programs": list(args.programs),
           "budget": args.budget, "families": args.families, "seeds": args.seeds,
           "profile": args.profile, "seed": args.seed, "jobs": args.jobs}
    if args.quick:
        cfg.update(levels=[8_000, 256_000], families=8, seeds=1,
                   programs=[p for p in args.programs
                             if p in ("react", "masking", "summarization", "vista")])
    return cfg


def run(args, executor=None) -> list:
    """Run the sweep and write CSV, PNG and JSON; returns the paths."""
    if getattr(args, "agent", "synthetic") == "llm":
        from experiments.pressure_llm import run_llm

        return run_llm(args)
    out = prepare_out(args.out)
    cfg = config(args)
    specs = loca_specs(cfg["levels"], cfg["programs"], cfg["budget"], cfg["families"],
                       cfg["seeds"], cfg["profile"], cfg["seed"])
    t0 = time.perf_counter()
    rows = run_sweep(specs, jobs=args.jobs, executor=executor, desc=NAME,
                     progress=not args.no_progress)
    wall = time.perf_counter() - t0
    table = sorted(aggregate(rows), key=lambda r: (r["program"], r["level"]))
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, table),
             write_csv(out / f"{NAME}_episodes.csv", ROW_COLUMNS, rows)]
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(11, 4.2))
    for prog in cfg["programs"]:
        pts = [r for r in table if r["program"] == prog]
        style = dict(lw=2.5, color="k") if prog == "vista" else dict(lw=1.2)
        ax1.plot([r["level"] for r in pts], [100 * r["accuracy"] for r in pts], "o-",
                 label=prog, **style)
        ax2.plot([r["level"] for r in pts], [r["mean_active"] / 1e3 for r in pts], "o-",
                 label=prog, **style)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(cfg["levels"], [f"{lv // 1000}K" for lv in cfg["levels"]])
        ax.set_xlabel("context growth (tokens)")
        ax.axvline(cfg["budget"], color="grey", ls=":", lw=1)
    ax1.set_ylabel(f"accuracy (% of {cfg['families'] * cfg['seeds']} tasks)")
    ax1.set_title(f"Pressure sweep, budget {cfg['budget'] // 1000}K (cf. VISTA Fig. 4)")
    ax2.set_ylabel("mean active context (K tokens)")
    ax1.legend(fontsize=7, ncol=2)
    paths.append(save_figure(fig, out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg, {
        "wall_seconds": round(wall, 1), "episodes": len(rows),
        "summary": {f"{r['program']}@{r['level']}": r["solved"] for r in table}}))
    return paths
