"""``ctxsim run window``: retrieval-then-synthesis accuracy against the window W
(VISTA §3.3, Fig. 6). The first gold document sits at a median depth of ~17K tokens
and the synthesis step needs two or three gold documents at once
(:mod:`sim.tasks.browse`); W is swept with budget = W. Writes
``window.csv`` (accuracy, mean active context, mean rendered dashboard tokens,
archives and recoveries per program and W, and the paired difference from VISTA),
``window_episodes.csv`` (one row per episode), ``window.png`` (accuracy per program
against W; VISTA - ReAct per W) and ``window.json``.

Expected pattern, from the mechanism rather than a tuned penalty: at tiny W the
protocol overhead, the dashboard (a row per registered block) and the synthesis
working set do not fit together, so VISTA's recoveries are refused and it fails like
ReAct; at large W nothing is evicted and both tie; VISTA's gain peaks in the middle.
"""

from __future__ import annotations

import time

from experiments.vista.pressure import REFERENCE, line_style, paired_errorbars, world_note
from experiments.output import new_figure, prepare_out, save_figure, write_csv, write_sidecar
from experiments.paired import CRN_NOTE, add_paired_columns
from experiments.settings.vista import WindowSettings
from experiments.sweep import ROW_COLUMNS, aggregate, browse_specs, run_sweep

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = WindowSettings
NAME = "window"
COLUMNS = ("level", "program", "n", "solved", "accuracy", "acc_diff_vs_vista",
           "acc_diff_lo", "acc_diff_hi", "mean_active", "mean_dashboard", "total_tokens",
           "archives", "archived_blocks", "recoveries", "recovery_targets",
           "failed_reads", "offload_reads")


#: options: windows, programs, queries, seeds (+ the sweeps' common ones)
add_arguments = WindowSettings.add_arguments


def run(args, executor=None) -> list:
    """Run the sweep and write CSV, PNG and JSON; returns the paths."""
    out = prepare_out(args.out)
    cfg = WindowSettings.from_args(args)
    specs = browse_specs(cfg)
    t0 = time.perf_counter()
    rows = run_sweep(specs, jobs=cfg.jobs, executor=executor, desc=NAME,
                     progress=not args.no_progress, scheduler=cfg.scheduler)
    wall = time.perf_counter() - t0
    table = sorted(aggregate(rows), key=lambda r: (r["program"], r["level"]))
    add_paired_columns(table, rows, "vista")
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, table),
             write_csv(out / f"{NAME}_episodes.csv", ROW_COLUMNS, rows)]
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(10, 4))
    acc = {}
    for i, prog in enumerate(cfg.programs):
        pts = [r for r in table if r["program"] == prog]
        acc[prog] = {r["level"]: r["accuracy"] for r in pts}
        style = line_style(prog, i)
        ax1.plot([r["level"] / 1e3 for r in pts], [100 * r["accuracy"] for r in pts],
                 label=prog, **style)
        paired_errorbars(ax1, pts, [r["level"] / 1e3 for r in pts], style["color"])
    gain = {}
    if "vista" in acc and "react" in acc:
        ws = cfg.windows
        gain = {w: acc["vista"][w] - acc["react"][w] for w in ws}
        react = {r["level"]: r for r in table if r["program"] == "react"}
        ticks = [f"{w / 1000:g}K" for w in ws]
        heights = [100 * gain[w] for w in ws]
        # the react row holds react - vista and its interval: the gain's is its negation
        lo = [100 * max(0.0, gain[w] + react[w]["acc_diff_hi"])
              if react[w]["acc_diff_hi"] != "" else 0.0 for w in ws]
        hi = [100 * max(0.0, -react[w]["acc_diff_lo"] - gain[w])
              if react[w]["acc_diff_lo"] != "" else 0.0 for w in ws]
        ax2.bar(ticks, heights, color="C2", yerr=[lo, hi], capsize=4,
                error_kw=dict(ecolor="k", elinewidth=1))
        # a marker at each bar's top: a zero-height bar is still seen
        ax2.scatter(ticks, heights, marker="_", s=200, color="k", zorder=3)
        ax2.axhline(0, color="grey", lw=0.8)
        ax2.set_ylabel("VISTA - ReAct (accuracy points)")
        ax2.set_xlabel("window W")
        best = max(ws, key=lambda w: gain[w])
        ax2.set_title(f"VISTA - ReAct gain per window (max {100 * gain[best]:+.0f} "
                      f"points at {best / 1000:g}K)")
    ax1.set_xscale("log", base=2)
    ax1.set_xticks([w / 1e3 for w in cfg.windows],
                   [f"{w / 1000:g}K" for w in cfg.windows])
    ax1.set_ylim(-3, 103)
    ax1.set_xlabel("window W = budget (tokens)")
    ax1.set_ylabel(f"accuracy (% of {cfg.queries * cfg.seeds} queries)")
    from sim.tasks.browse import MEDIAN_DEPTH

    ax1.axvline(MEDIAN_DEPTH / 1e3, label=f"median depth of the first gold document "
                f"({MEDIAN_DEPTH / 1000:g}K)", **REFERENCE)
    ax1.set_title("Retrieval then synthesis vs window (cf. VISTA Fig. 6)"
                  + world_note(dict(cfg.world)))
    # below the axes: inside, it covers the curves wherever it goes
    ax1.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3,
               frameon=False)
    fig.supxlabel(CRN_NOTE + ";\nerror bars: paired intervals of the difference from "
                  "vista (left: around each program's accuracy); values in window.csv.",
                  fontsize=7)
    paths.append(save_figure(fig, out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg.record(), {
        "wall_seconds": round(wall, 1), "episodes": len(rows), "pairing": CRN_NOTE,
        "paper_setting": cfg.paper_setting(),
        "gain_vista_minus_react": {str(w): round(g, 4) for w, g in gain.items()}}))
    return paths
