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
from experiments.paired import CRN_NOTE, add_paired_columns
from experiments.paired import COLUMNS as PAIRED_COLUMNS
from experiments.paired import bounded_comparison
from experiments.settings.vista import PressureLLMSettings, PressureSettings
from experiments.sweep import (ROW_COLUMNS, aggregate, calibrated_jobs, loca_specs,
                               run_sweep, split_calibrated)

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = PressureSettings
NAME = "pressure"
COLUMNS = ("level", "program", "n", "solved", "accuracy", "acc_diff_vs_vista",
           "acc_diff_lo", "acc_diff_hi", "mean_active", "total_tokens", "archives",
           "archived_blocks", "agent_archives", "program_edits", "recoveries",
           "recovery_targets", "failed_reads", "cost_usd")


def add_arguments(parser) -> None:
    """The options of :class:`~experiments.settings.vista.PressureSettings` (levels,
    programs, budget, families, seeds and the sweeps' common ones), then those of
    its real-model variant (:class:`~experiments.settings.vista.PressureLLMSettings`,
    ``--agent llm``)."""
    PressureSettings.add_arguments(parser)
    PressureLLMSettings.add_arguments(parser)


_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h")
_LINESTYLES = ("-", "--", "-.", ":")
#: the default cycle without grey (C7), which reference lines (budget, depth) use
_COLOURS = tuple(f"C{i}" for i in range(10) if i != 7)
#: style of reference lines (the budget, the median gold depth): grey, no series uses it
REFERENCE = dict(color="grey", ls=":", lw=1)


def line_style(program: str, index: int) -> dict:
    """Plot style of the ``index``-th program: VISTA thick black; the others a distinct
    colour, hollow marker (shrinking size) and dash pattern, so lines that coincide
    (tied programs) stay visible on top of each other. No two of the first 36
    programs share colour and dash pattern, and none is grey (:data:`REFERENCE`)."""
    if program == "vista":
        return dict(color="k", lw=2.5, marker="o", ms=6, zorder=3)
    return dict(color=_COLOURS[index % len(_COLOURS)], lw=1.4,
                ls=_LINESTYLES[index % len(_LINESTYLES)],
                marker=_MARKERS[index % len(_MARKERS)], ms=max(4, 11 - index),
                mfc="none", mew=1.4, zorder=4)


def paired_errorbars(ax, pts: list[dict], xs: list, colour, shift: float = 1.0) -> None:
    """Draw on ``ax`` each row's 95% paired-bootstrap interval of its accuracy
    difference from VISTA (``acc_diff_lo``/``acc_diff_hi``, fractions) as an error bar
    around its plotted accuracy (percent): the bar spans ``accuracy - diff + lo`` ..
    ``accuracy - diff + hi``, clipped to the axis' [0, 100] (an accuracy cannot leave
    it). Rows without an interval, and VISTA itself, get none. ``shift`` multiplies
    the x positions (on a log axis: a small sideways offset, so the bars of programs
    at the same level do not hide each other)."""
    keep = [(x, r) for x, r in zip(xs, pts)
            if r.get("acc_diff_lo", "") != "" and r["program"] != "vista"]
    if not keep:
        return
    y = [100 * r["accuracy"] for _, r in keep]
    base = [100 * (r["accuracy"] - r["acc_diff_vs_vista"]) for _, r in keep]
    low = [min(max(b + 100 * r["acc_diff_lo"], 0.0), yy) for b, (_, r), yy in zip(base, keep, y)]
    high = [max(min(b + 100 * r["acc_diff_hi"], 100.0), yy) for b, (_, r), yy in zip(base, keep, y)]
    lo = [yy - v for yy, v in zip(y, low)]
    hi = [v - yy for yy, v in zip(y, high)]
    # fmt="none": only the bars (a LineCollection), no extra unlabelled line
    ax.errorbar([x * shift for x, _ in keep], y, yerr=[lo, hi], fmt="none", ecolor=colour,
                elinewidth=1.0, alpha=0.7, capsize=0, zorder=2)


def world_note(world: dict) -> str:
    """The title suffix naming a non-default ``--world`` point ("" for the default)."""
    if not world:
        return ""
    return "\nworld: " + ", ".join(f"{k}={v:g}" for k, v in sorted(world.items()))


def run(args, executor=None) -> list:
    """Run the sweep and write CSV, PNG and JSON; returns the paths."""
    from experiments.vista.pressure_llm import check_agent_options

    check_agent_options(args)
    if getattr(args, "agent", PressureSettings.default_of("agent")) == "llm":
        from experiments.vista.pressure_llm import run_llm

        return run_llm(args)
    out = prepare_out(args.out)
    cfg = PressureSettings.from_args(args)
    specs = loca_specs(cfg)
    t0 = time.perf_counter()
    rows = run_sweep(specs + calibrated_jobs(specs, cfg), jobs=cfg.jobs,
                     executor=executor, desc=NAME, progress=not args.no_progress,
                     scheduler=cfg.scheduler)
    wall = time.perf_counter() - t0
    rows, cal = split_calibrated(rows, specs)
    table = sorted(aggregate(rows), key=lambda r: (r["program"], r["level"]))
    add_paired_columns(table, rows, "vista")
    # the synthetic agent at the real model's measured point: one more row per level
    table += [{**dict.fromkeys(COLUMNS, ""), **r}  # no paired columns: another agent
              for r in sorted(aggregate(cal), key=lambda r: (r["program"], r["level"]))]
    rows += cal
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, table),
             write_csv(out / f"{NAME}_episodes.csv", ROW_COLUMNS, rows)]
    bounded = bounded_comparison(rows, cfg.programs, "level")
    if bounded:
        paths.append(write_csv(out / f"{NAME}_bounded.csv", PAIRED_COLUMNS, bounded))
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(11, 4.2))
    for i, prog in enumerate(cfg.programs):
        pts = [r for r in table if r["program"] == prog]
        style = line_style(prog, i)
        ax1.plot([r["level"] for r in pts], [100 * r["accuracy"] for r in pts],
                 label=prog, **style)
        paired_errorbars(ax1, pts, [r["level"] for r in pts], style["color"],
                         shift=2 ** (0.05 * (i - (len(cfg.programs) - 1) / 2)))
        ax2.plot([r["level"] for r in pts], [r["mean_active"] / 1e3 for r in pts],
                 label=prog, **style)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(cfg.levels, [f"{lv // 1000}K" for lv in cfg.levels])
        ax.set_xlabel("context growth (tokens)")
        ax.axvline(cfg.budget, label=f"budget B = {cfg.budget / 1000:g}K",
                   **REFERENCE)
    ax1.set_ylim(-3, 103)
    ax1.set_ylabel(f"accuracy (% of {cfg.families * cfg.seeds} tasks)")
    ax1.set_title(f"Pressure sweep, budget {cfg.budget / 1000:g}K (cf. VISTA Fig. 4)"
                  + world_note(dict(cfg.world)))
    ax2.set_ylabel("mean active context (K tokens)")
    # below the axes: the accuracy axis runs to 100%, a legend inside covers points
    ax1.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.16),
               frameon=False)
    ax2.legend(handles=ax2.get_lines()[-1:], fontsize=7, loc="upper left")
    fig.supxlabel(CRN_NOTE + ";\nerror bars: each program's interval of its difference "
                  "from vista, drawn around its accuracy (clipped to 0-100%, offset sideways "
                  "per program); values in pressure.csv.",
                  fontsize=7)
    paths.append(save_figure(fig, out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg.record(), {
        "wall_seconds": round(wall, 1), "episodes": len(rows), "pairing": CRN_NOTE,
        "paper_setting": cfg.paper_setting(),
        "bounded_ledger": bounded,
        "summary": {f"{r['program']}@{r['level']}": r["solved"] for r in table}}))
    return paths
