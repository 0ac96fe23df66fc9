"""``ctxsim run ablations``: VISTA's mechanism ablations (§3.7, Fig. 8) on the LOCA-like
suite at one pressure level: solved tasks and archive / retrieve counts per variant.
The paper's signature: without the dashboard, many more archives and fewer retrievals
(255/57 vs 69/105 events, Fig. 8b); removing archive or the dashboard costs solved
tasks, rewording or a status board does not. Retrievals count archived content
brought back by ``Workspace.recover``; reads of results the wire-payload guard
offloaded on entry are reported apart (``offload_reads``).
Writes ``ablations.csv``/``.png``/``.json``.
"""

from __future__ import annotations


from experiments.output import new_figure, prepare_out, save_figure, write_csv, write_sidecar
from experiments.paired import COLUMNS as PAIRED_COLUMNS
from experiments.paired import bounded_comparison
from experiments.sweep import (add_common_arguments, add_loca_task_arguments, fmt_default,
                               growth_tokens, run_loca_config, sweep_config)

NAME = "ablations"
VARIANTS = ("vista", "vista_no_archive", "vista_no_dashboard", "vista_no_recover",
            "vista_fixed_archive", "vista_reworded", "vista_status_board",
            "vista_bounded_ledger")
COLUMNS = ("program", "n", "solved", "accuracy", "archives", "agent_archives",
           "program_edits", "deletes", "recoveries", "offload_reads", "total_archives",
           "total_recoveries", "mean_active")


#: ``--quick`` defaults of the options the user did not give
QUICK = {"families": 8, "seeds": 1,
         "programs": ["vista", "vista_no_dashboard", "vista_no_recover"]}


def defaults() -> dict:
    """The full defaults (VISTA Fig. 8)."""
    from sim.tasks.loca import FAMILIES, SEEDS_PER_FAMILY

    return {"growth": 256_000, "budget": 128_000, "families": len(FAMILIES),
            "seeds": SEEDS_PER_FAMILY, "programs": list(VARIANTS)}


def add_arguments(parser) -> None:
    """Options: growth level, budget, families, seeds (+ the common ones)."""
    d = defaults()
    add_common_arguments(parser)
    parser.add_argument("--growth", type=growth_tokens, default=None, metavar="TOKENS",
                        help="context growth: tool-result tokens per task, >= 1,000 "
                             f"({fmt_default(d['growth'])})")
    add_loca_task_arguments(parser, d, QUICK)


def config(args) -> dict:
    """The effective configuration: explicit options win; ``--quick`` shrinks the
    defaults of the others (and runs three of the variants)."""
    return sweep_config(args, defaults(), QUICK)


def run(args, executor=None) -> list:
    """Run the variants and write CSV, PNG and JSON; returns the paths."""
    out = prepare_out(args.out)
    cfg = config(args)
    rows, per_program, wall = run_loca_config(cfg, args.jobs, executor, desc=NAME,
                                              progress=not args.no_progress)
    table = {r["program"]: r for r in per_program}
    ordered = [table[p] for p in cfg["programs"]]
    for r in ordered:
        r["total_archives"] = round(r["archives"] * r["n"])
        r["total_recoveries"] = round(r["recoveries"] * r["n"])
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, ordered)]
    bounded = bounded_comparison(rows, cfg["programs"], None)
    if bounded:
        paths.append(write_csv(out / f"{NAME}_bounded.csv", PAIRED_COLUMNS, bounded))
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(11, 4))
    names = [p.replace("vista_", "") for p in cfg["programs"]]
    ax1.bar(names, [r["solved"] for r in ordered], color="C0")
    ax1.set_ylabel(f"solved / {ordered[0]['n']}")
    ax1.set_title(f"VISTA ablations at {cfg['growth'] / 1000:g}K growth (cf. Fig. 8a)")
    x = range(len(names))
    ax2.bar([i - 0.2 for i in x], [r["total_archives"] for r in ordered], 0.4,
            label="archives")
    ax2.bar([i + 0.2 for i in x], [r["total_recoveries"] for r in ordered], 0.4,
            label="recoveries")
    ax2.set_xticks(list(x), names)
    # log scale: archives outnumber retrievals by 10-100x without the dashboard
    ax2.set_yscale("symlog", linthresh=10)
    top = max([1] + [max(r["total_archives"], r["total_recoveries"]) for r in ordered])
    ax2.set_ylim(0, top * 4)  # headroom (symlog) for the count labels above the bars
    for i, r in zip(x, ordered):
        ax2.annotate(f"{r['total_archives']}/{r['total_recoveries']}",
                     (i, max(r["total_archives"], r["total_recoveries"])),
                     ha="center", va="bottom", fontsize=7, xytext=(0, 3),
                     textcoords="offset points")
    ax2.set_ylabel("events over all tasks (archives/retrievals)")
    ax2.set_title("archive / retrieve events (cf. Fig. 8b)")
    ax2.legend()
    for ax in (ax1, ax2):
        ax.tick_params(axis="x", rotation=35, labelsize=8)
    paths.append(save_figure(fig, out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg, {
        "wall_seconds": round(wall, 1), "episodes": len(rows), "bounded_ledger": bounded}))
    return paths
