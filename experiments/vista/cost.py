"""``ctxsim run cost``: cache-aware dollar cost per task per program (VISTA Table 2,
THEORY.md §4: $0.50/M uncached input, $0.05/M cached, $3.00/M output incl. thinking;
an edit at prompt position p invalidates the cached prefix from p). LOCA-like suite at
one growth level; the token ledger of every request is priced. Writes
``cost.csv``/``.png``/``.json`` and ``cost_episodes.csv`` (one row per episode: the
pairing the claims scorecard needs).
"""

from __future__ import annotations

from experiments.output import new_figure, prepare_out, save_figure, write_csv, write_sidecar
from experiments.paired import CRN_NOTE, paired_differences
from experiments.settings.vista import CostSettings
from experiments.sweep import ROW_COLUMNS, run_loca
from sim.cost import PRICES

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = CostSettings
NAME = "cost"
COLUMNS = ("program", "n", "accuracy", "input_tokens", "cached_tokens", "output_tokens",
           "total_tokens", "cache_hit", "cost_usd", "cost_diff_vs_vista", "cost_diff_lo",
           "cost_diff_hi", "requests")


#: options: programs, growth, budget, families, seeds (+ the sweeps' common ones)
add_arguments = CostSettings.add_arguments


def run(args, executor=None) -> list:
    """Price every program's ledger and write CSV, PNG and JSON; returns the paths."""
    out = prepare_out(args.out)
    cfg = CostSettings.from_args(args)
    rows, per_program, wall = run_loca(cfg, executor, desc=NAME,
                                       progress=not args.no_progress)
    table = {r["program"]: r for r in per_program}
    ordered = sorted((table[p] for p in cfg.programs), key=lambda r: r["cost_usd"])
    diffs = paired_differences(rows, "vista", column="cost_usd", by=()) if \
        "vista" in table else {}
    for r in ordered:
        r["cache_hit"] = r["cached_tokens"] / max(1.0, r["input_tokens"])
        d = diffs.get((r["program"],))
        r["cost_diff_vs_vista"], r["cost_diff_lo"], r["cost_diff_hi"] = (
            ("", "", "") if d is None else tuple(round(v, 6) for v in d))
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, ordered),
             write_csv(out / f"{NAME}_episodes.csv", ROW_COLUMNS, rows)]
    fig = figure(ordered, rows, cfg)
    paths.append(save_figure(fig, out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg.record(), {
        "wall_seconds": round(wall, 1), "episodes": len(rows), "pairing": CRN_NOTE,
        "paper_setting": cfg.paper_setting(),
        "prices_per_million": dict(PRICES)}))
    return paths


def figure(table: list[dict], rows: list[dict], cfg: CostSettings):
    """Cost against accuracy, one point per program of ``table`` (the rows of
    ``cost.csv``), with each program's 95% paired-bootstrap intervals of its
    difference from VISTA drawn around its point: across, the cost difference
    (``cost_diff_lo``/``cost_diff_hi``); up and down, the accuracy difference,
    paired over the episodes ``rows`` (``cost_episodes.csv``). A whisker crosses
    VISTA's value exactly when its interval holds 0; VISTA has none. Labels are
    placed clear of each other and of the points (:func:`experiments.labels.place_labels`)."""
    from matplotlib.collections import LineCollection
    from matplotlib.transforms import Bbox

    from experiments.labels import place_labels
    from experiments.vista.pressure import line_style

    acc = paired_differences(rows, "vista", column="solved", by=()) if any(
        r["program"] == "vista" for r in rows) else {}
    fig, ax = new_figure(figsize=(7.5, 4.4))
    xy, names, colours, right = [], [], [], []
    for i, r in enumerate(table):
        x, y = float(r["cost_usd"]), 100 * float(r["accuracy"])
        colour = line_style(r["program"], i)["color"]
        # clip_on=False: a point at 0% or 100% sits on the axis' edge, still whole
        ax.scatter(x, y, s=40, color=colour, clip_on=False, zorder=3)
        d = acc.get((r["program"],))
        if r["program"] != "vista" and r.get("cost_diff_lo", "") != "" and d is not None:
            c, clo, chi = (float(r[k]) for k in ("cost_diff_vs_vista", "cost_diff_lo",
                                                 "cost_diff_hi"))
            a, alo, ahi = (100 * v for v in d)
            right.append(x + chi - c)
            ax.errorbar(x, y, xerr=[[c - clo], [chi - c]], yerr=[[a - alo], [ahi - a]],
                        fmt="none", ecolor=colour, elinewidth=1, alpha=0.7, capsize=2,
                        zorder=2)
        xy.append((x, y))
        names.append(r["program"])
        colours.append(colour)
    ax.set_xlabel("cache-aware cost per task ($)")
    # a cost: from $0, to past the last point and whisker
    ax.set_xlim(0, max([x for x, _ in xy] + right) * 1.1)
    ax.set_ylim(0, 100)  # an accuracy in percent: never below 0 even when all are 0
    ax.set_ylabel(f"accuracy (% of {cfg.families * cfg.seeds} tasks)")
    ax.set_title(f"Cost vs accuracy at {cfg.growth / 1000:g}K growth, budget "
                 f"{cfg.budget / 1000:g}K (cf. Table 2)")
    fig.supxlabel(CRN_NOTE + ";\nwhiskers: each program's interval of its difference "
                  "from vista (cost across, accuracy up and down), drawn around its point;"
                  " values in cost.csv.", fontsize=6)
    fig.canvas.draw()
    half = 40 ** 0.5 / 2 * fig.dpi / 72
    marks = [Bbox([[px - half, py - half], [px + half, py + half]])
             for px, py in ax.transData.transform(xy)]
    # the whiskers too (each segment's box, a pixel wide): a label over one hides it
    whiskers = [Bbox(ax.transData.transform(seg)).padded(1)
                for c in ax.collections if isinstance(c, LineCollection)
                for seg in c.get_segments()]
    place_labels(ax, xy, names, avoid=marks, prefer_clear=whiskers, colours=colours)
    return fig
