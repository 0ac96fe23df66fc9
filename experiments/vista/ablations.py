"""``ctxsim run ablations``: VISTA's mechanism ablations (§3.7, Fig. 8) on the LOCA-like
suite at one pressure level, with the same synthetic agent (one parameter set) in
every variant: what differs is only what the variant lets the agent observe and do.

Per variant: solved tasks and the paired difference from full VISTA (common random
numbers; a paired-bootstrap interval over tasks), archive events counted per call
(VISTA Fig. 8b counts tool calls) and per archived block, and recoveries with the
number of values they were for (recoveries per target) and the reads that did not
show the value (the search cost). The paper's counts stand beside ours: 38/75 solved
and 69 archives / 105 recoveries for the full method, 28/75 and 255 / 57 without the
dashboard, 27/75 without archive (§3.7).

The two interface-only variants (reworded protocol text, status-board rendering of
the same rows) change nothing a synthetic agent perceives, so they are not run: their
rows say "needs a real model". Recoveries count archived content brought back by
``Workspace.recover``; reads of results the wire-payload guard offloaded on entry are
reported apart (``offload_reads``). Writes ``ablations.csv``/``.png``/``.json`` and
``ablations_episodes.csv`` (one row per episode).
"""

from __future__ import annotations

import time

from experiments.claims.registry.vista import fig8_counts
from experiments.output import new_figure, prepare_out, save_figure, write_csv, write_sidecar
from experiments.paired import COLUMNS as PAIRED_COLUMNS
from experiments.paired import CRN_NOTE, bounded_comparison, paired_differences
from experiments.settings.vista import AblationsSettings
from experiments.sweep import (ROW_COLUMNS, calibrated_jobs, loca_specs, run_sweep,
                               split_calibrated)

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = AblationsSettings
NAME = "ablations"
#: the variants (the settings' default programs)
VARIANTS = tuple(AblationsSettings.default_of("programs"))
#: variants whose only change a synthetic agent cannot perceive, and why
NEEDS_REAL_MODEL = {
    "vista_reworded": "only the protocol wording changes; a synthetic agent reads no "
                      "prose",
    "vista_status_board": "the same ledger rows rendered differently; a synthetic "
                          "agent reads the rows, not their layout",
}
MEASURED = "synthetic agent"
#: VISTA §3.7 / Fig. 8 (Gemini-3-Flash, 75 LOCA-Bench tasks; full VISTA's 38/75 =
#: 50.7% is its 128K-growth result, §3.3): variant -> solved, archive and recovery
#: counts, held once in the claims registry
#: (:func:`experiments.claims.registry.vista.fig8_counts`)
PAPER = fig8_counts()
COLUMNS = ("program", "result", "n", "solved", "accuracy", "solved_diff_vs_vista",
           "solved_diff_lo", "solved_diff_hi", "archive_calls", "archived_blocks",
           "agent_archive_calls", "program_archive_calls", "deletes", "recoveries",
           "recovery_targets", "recoveries_per_target", "failed_reads",
           "offload_reads", "mean_active", "paper_solved", "paper_archives",
           "paper_recoveries")


#: options: variants, growth level, budget, families, seeds (+ the sweeps' common ones)
add_arguments = AblationsSettings.add_arguments


def table(rows: list[dict], programs: list[str]) -> list[dict]:
    """One CSV row per variant from the per-episode ``rows``: totals over tasks,
    the paired difference in solved tasks from ``vista`` (when it ran) with its
    interval, and the paper's counts. Variants in :data:`NEEDS_REAL_MODEL` get a row
    that says so, with no synthetic numbers."""
    diffs = paired_differences(rows, "vista", by=()) if any(
        r["program"] == "vista" for r in rows) else {}
    out = []
    for prog in programs:
        paper = PAPER.get(prog, {})
        row = {c: "" for c in COLUMNS}
        row.update(program=prog, paper_solved=paper.get("solved", ""),
                   paper_archives=paper.get("archives", ""),
                   paper_recoveries=paper.get("recoveries", ""))
        if prog in NEEDS_REAL_MODEL:
            row["result"] = "needs a real model: " + NEEDS_REAL_MODEL[prog]
            out.append(row)
            continue
        rs = [r for r in rows if r["program"] == prog]
        n = len(rs)

        def total(col):
            return sum(int(r[col]) for r in rs)

        rec, targets = total("recoveries"), total("recovery_targets")
        row.update(result=MEASURED, n=n, solved=total("solved"),
                   accuracy=total("solved") / n,
                   agent_archive_calls=total("agent_archives"),
                   program_archive_calls=total("program_edits"),
                   archive_calls=total("agent_archives") + total("program_edits"),
                   archived_blocks=(total("agent_archived_blocks")
                                    + total("program_edited_blocks")),
                   deletes=total("deletes"), recoveries=rec, recovery_targets=targets,
                   recoveries_per_target=round(rec / targets, 3) if targets else "",
                   failed_reads=total("failed_reads"),
                   offload_reads=total("offload_reads"),
                   mean_active=round(sum(float(r["mean_active"]) for r in rs) / n, 1))
        if (prog,) in diffs:
            d, lo, hi = diffs[(prog,)]
            row.update(solved_diff_vs_vista=round(d * n, 2),
                       solved_diff_lo=round(lo * n, 2), solved_diff_hi=round(hi * n, 2))
        out.append(row)
    return out


def run(args, executor=None) -> list:
    """Run the variants a synthetic agent can tell apart and write CSV, PNG and JSON;
    returns the paths."""
    out = prepare_out(args.out)
    cfg = AblationsSettings.from_args(args)
    runnable = [p for p in cfg.programs if p not in NEEDS_REAL_MODEL]
    specs = loca_specs(cfg, programs=runnable)
    t0 = time.perf_counter()
    rows = run_sweep(specs + calibrated_jobs(specs, cfg), jobs=cfg.jobs,
                     executor=executor, desc=NAME, progress=not args.no_progress,
                     scheduler=cfg.scheduler) if runnable else []
    wall = time.perf_counter() - t0
    rows, cal = split_calibrated(rows, specs)
    ordered = table(rows, cfg.programs)
    # the synthetic agent at the real model's measured point: one more row
    ordered += table(cal, sorted({r["program"] for r in cal}))
    rows += cal
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, ordered),
             write_csv(out / f"{NAME}_episodes.csv", ROW_COLUMNS, rows)]
    bounded = bounded_comparison(rows, runnable, None)
    if bounded:
        paths.append(write_csv(out / f"{NAME}_bounded.csv", PAIRED_COLUMNS, bounded))
    paths.append(save_figure(_figure(ordered, cfg), out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg.record(), {
        "wall_seconds": round(wall, 1), "episodes": len(rows), "pairing": CRN_NOTE,
        "paper_setting": cfg.paper_setting(),
        "bounded_ledger": bounded,
        "needs_real_model": {p: NEEDS_REAL_MODEL[p] for p in cfg.programs
                             if p in NEEDS_REAL_MODEL}}))
    return paths


#: a solved share at least this tall holds its three-line label inside the bar (the
#: label is ~0.12 of the axis at 7 pt on the 5 in figure); a shorter bar has it above
INSIDE_MIN_SHARE = 0.15
#: points between a label and the mark under it (the paper's diamond is ~7 pt across)
LABEL_PAD_PT = 2
PAPER_MARK_PAD_PT = 6


def solved_label(row: dict) -> str:
    """A bar's label, one short item a line so neighbouring labels stay within their
    bar's width: ``solved/n``, then the paired difference in solved tasks from vista
    and its 95% interval (variants other than vista, when the difference was run)."""
    label = f"{row['solved']}/{row['n']}"
    if row["solved_diff_vs_vista"] != "" and row["program"] != "vista":
        label += (f"\n{row['solved_diff_vs_vista']:+g}\n"
                  f"[{row['solved_diff_lo']:+g}, {row['solved_diff_hi']:+g}]")
    return label


def label_anchor(share: float, paper_share) -> tuple[float, bool, int]:
    """Where a bar's label goes, in data coordinates: ``(y, inside, offset_pt)``.

    A bar at least :data:`INSIDE_MIN_SHARE` tall holds its label at its base (inside,
    white), clear of the paper's diamond, which marks a share above the label's top
    unless the paper's share is below ~0.12; a shorter bar has it above the higher of
    its top and the paper's diamond (``paper_share``: a share, or ``""`` when the paper
    reports none), so a label never sits under a diamond."""
    if share >= INSIDE_MIN_SHARE:
        return 0.0, True, LABEL_PAD_PT
    if paper_share != "" and paper_share >= share:
        return float(paper_share), False, PAPER_MARK_PAD_PT
    return float(share), False, LABEL_PAD_PT


def _needs_real_model(ax, i) -> None:
    # upright along the empty slot: two neighbouring slots' labels cannot touch
    ax.annotate("needs a real model", (i, 0), ha="center", va="bottom", rotation=90,
                fontsize=7, xytext=(0, 3), textcoords="offset points", color="grey")


def _figure(ordered: list[dict], cfg: AblationsSettings):
    """Solved tasks with the paired difference from VISTA (left) and archive calls,
    archived blocks and recoveries beside the paper's counts (right)."""
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(14, 5),
                                 gridspec_kw={"width_ratios": [1.2, 1.0]})
    names = [r["program"].replace("vista_", "") for r in ordered]
    x = list(range(len(ordered)))
    n = next((r["n"] for r in ordered if r["n"] != ""), 0)
    for ax in (ax1, ax2):
        ax.set_xlim(-0.6, len(x) - 0.4)
    for i, r in zip(x, ordered):
        if r["result"] != MEASURED:
            for ax in (ax1, ax2):
                _needs_real_model(ax, i)
            continue
        ax1.bar(i, r["accuracy"], color="C0")
        paper_share = r["paper_solved"] / 75 if r["paper_solved"] != "" else ""
        y, inside, pad = label_anchor(r["accuracy"], paper_share)
        ax1.annotate(solved_label(r), (i, y), ha="center", va="bottom", fontsize=7,
                     color="white" if inside else "black", xytext=(0, pad),
                     textcoords="offset points", linespacing=1.1)
    paper = [(i, r["paper_solved"]) for i, r in zip(x, ordered) if r["paper_solved"] != ""]
    if paper:
        # both as a solved share: the paper's counts are of 75 tasks, the bars of n;
        # a red diamond with a black edge stays seen on a bar top it coincides with
        ax1.scatter([i for i, _ in paper], [v / 75 for _, v in paper], marker="D",
                    s=36, color="C3", edgecolor="k", zorder=4, clip_on=False,
                    label="paper: share solved\n(of its 75 tasks)")
        ax1.scatter([], [], marker="s", color="C0", label=f"this run: share solved\n"
                    f"(of {n} tasks)")
        # beside the axes' top right: near the bars, never over them
        ax1.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0),
                   frameon=False)
    ax1.set_xticks(x, names)
    ax1.set_ylabel("share of tasks solved")
    ax1.set_ylim(0, 1)
    ax1.set_title(f"VISTA ablations at {cfg.growth / 1000:g}K growth (cf. Fig. 8a)")
    w = 0.27
    series = (("archive_calls", "archive calls", "C1"),
              ("archived_blocks", "archived blocks", "C3"),
              ("recoveries", "recoveries", "C2"))
    for k, (col, label, color) in enumerate(series):
        pts = [(i, r[col]) for i, r in zip(x, ordered) if r["result"] == MEASURED]
        ax2.bar([i + (k - 1) * w for i, _ in pts], [v for _, v in pts], w,
                label=label, color=color)
    for i, r in zip(x, ordered):
        if r["result"] != MEASURED:
            continue
        # the smallest counts: printed, not read off a log axis; above the paper's
        # recoveries mark when that sits on the bar's top (within 3x on this axis)
        rec, mark = float(r["recoveries"]), r["paper_recoveries"]
        near = mark != "" and rec <= mark <= 3 * max(rec, 10.0)
        ax2.annotate(f"{r['recoveries']:g}", (i + w, mark if near else rec),
                     ha="center", va="bottom", fontsize=7, color="C2",
                     xytext=(0, PAPER_MARK_PAD_PT if near else 1),
                     textcoords="offset points")
    for col, marker, label in (("paper_archives", "v", "paper: archive calls"),
                               ("paper_recoveries", "^", "paper: recoveries")):
        pts = [(i, r[col]) for i, r in zip(x, ordered) if r[col] != ""]
        if pts:
            ax2.scatter([i + (-w if col == "paper_archives" else w) for i, _ in pts],
                        [v for _, v in pts], marker=marker, color="k", zorder=3,
                        label=label + " (75 tasks)")
    # log scale: archive counts exceed recoveries by 10-100x in some variants
    ax2.set_yscale("symlog", linthresh=10)
    top = max([10.0] + [float(r[c]) for r in ordered if r["result"] == MEASURED
                        for c in ("archive_calls", "archived_blocks", "recoveries")])
    ax2.set_ylim(0, top * 40)  # headroom (symlog) for the legend above the bars
    ax2.set_xticks(x, names)
    ax2.set_ylabel(f"events over all {n} tasks")
    full, blind = PAPER["vista"], PAPER["vista_no_dashboard"]
    ax2.set_title(f"archive and recovery events (cf. Fig. 8b: {full['archives']}/"
                  f"{full['recoveries']} full, {blind['archives']}/{blind['recoveries']} "
                  "no dashboard)", fontsize=9)
    ax2.legend(fontsize=7, ncol=3, loc="upper center")
    for ax in (ax1, ax2):
        ax.tick_params(axis="x", rotation=35, labelsize=8)
    # the caption (constrained layout keeps room for it)
    fig.supxlabel("Left labels: solved/n, then solved minus vista's on the same tasks, "
                  "then its [95% CI]. Same synthetic agent in every variant; "
                  + CRN_NOTE + ".", fontsize=7)
    return fig
