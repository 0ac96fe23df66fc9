"""``ctxsim run overhead``: dashboard tokens against the number of registered blocks
on the bundled real trajectories (VISTA Appendix "Dashboard overhead", Fig. 10; no
model needed).

Each trajectory in ``sim/data/trajectories`` is replayed block by block into a fresh
workspace (cl100k_base, the factual ledger). After every block the request is
assembled and the dashboard's own tokens (message framing included; the fixed
system-prompt and tool-schema overhead is reported apart, as the paper subtracts it)
and the number of ledger rows and of visible blocks are recorded, for the full ledger
and for the bounded ledger (``--dashboard-tokens``, default 400; issue 14). Two
settings:

* ``unbounded``: no budget; every block stays visible, so the ledger grows one row
  per block (the linear worst case);
* ``W=<budget>``: the replay's ``archive-oldest`` policy keeps the request under
  the budget (default 12,288, the paper's BrowseComp-Plus window) by archiving the
  oldest items into groups, whose members leave the ledger's top level.

Writes ``overhead.csv`` (one row per trajectory, dashboard, setting and step),
``overhead.png`` ((a) dashboard tokens against registered blocks, with the paper's
~340 tokens as a reference line, (b) visible blocks) and ``overhead.json`` (per
trajectory, dashboard and setting: peak and final dashboard tokens and tokens per
row).
"""

from __future__ import annotations

import tempfile
import time
import warnings

from experiments.claims.registry.vista import FIG10
from experiments.settings.vista import OverheadSettings

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = OverheadSettings

NAME = "overhead"
#: VISTA Fig. 10's reported dashboard size (tokens), drawn as a reference line (held
#: once in the claims registry, :data:`experiments.claims.registry.vista.FIG10`)
PAPER_TOKENS = FIG10["peak"]
COLUMNS = ("trajectory", "dashboard", "setting", "registered", "ledger_rows", "visible",
           "dashboard_tokens", "fixed_overhead", "request_tokens", "archives")


def add_arguments(parser) -> None:
    """``--out``, ``--quick`` (the first 200 blocks of each trajectory), the options
    of :class:`~experiments.settings.vista.OverheadSettings` (``--budget`` in tokens,
    ``--max-blocks``, ``--seed``, ``--dashboard-tokens``)."""
    # --no-progress is accepted like every experiment's; this one prints no progress
    OverheadSettings.add_run_arguments(
        parser, quick_help="small, fast version: --max-blocks defaults to 200 (an "
        "explicit --max-blocks wins)")
    OverheadSettings.add_arguments(parser)


def trace(path, budget: int | None, max_blocks: int | None = None,
          dashboard: str = "ledger") -> list[dict]:
    """Replay ``path`` and return one record per registered block (columns of
    :data:`COLUMNS` but ``trajectory``/``dashboard``/``setting``). ``budget`` None:
    unbounded; ``dashboard``: a workspace dashboard name ("bounded_ledger:400")."""
    from sim.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="ctxsim-ws-") as tmp:
        return _trace(Workspace(tmp, budget=budget, strict=False, sync=False,
                                dashboard=dashboard), path, budget, max_blocks)


def _trace(ws, path, budget: int | None, max_blocks: int | None) -> list[dict]:
    """:func:`trace` on the fresh workspace ``ws`` (closed on return)."""
    from sim.workspace import BudgetWarning, import_trajectory
    from sim.workspace.blocks import BlockStatus
    from sim.workspace.trajectory_replay import archive_oldest

    rows: list[dict] = []
    archives = 0

    class Stop(Exception):
        pass

    def step(block) -> None:
        nonlocal archives
        if budget is not None:
            for _ in range(8):
                if archive_oldest(ws) is None:
                    break
                archives += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BudgetWarning)
            req = ws.assemble(strict=False)
        n = len(ws.blocks)
        visible = sum(b.status in (BlockStatus.VISIBLE, BlockStatus.PINNED)
                      for b in ws.blocks.values())
        shown = getattr(ws.assembler.dashboard, "shown", None)  # bounded ledger
        text = req.dashboard_text or ""
        body = text.split("Status\n", 1)[-1]
        rows.append({"registered": n,
                     "ledger_rows": body.count("\n") if shown is None else len(shown),
                     "visible": visible, "dashboard_tokens": req.dashboard,
                     "fixed_overhead": req.overhead, "request_tokens": req.total,
                     "archives": archives})
        if max_blocks is not None and n >= max_blocks:
            raise Stop

    try:
        import_trajectory(path, ws, on_step=step)
    except Stop:
        pass
    finally:
        ws.close()
    return rows


def run(args) -> list:
    """Replay every bundled trajectory in both settings; write CSV, PNG and JSON."""
    from experiments.output import (new_figure, prepare_out, save_figure, write_csv,
                                    write_sidecar)
    from sim.tasks.trajectory_tasks import trajectory_files

    out = prepare_out(args.out)
    cfg = OverheadSettings.from_args(args)
    files = trajectory_files()
    max_blocks = cfg.max_blocks
    settings = [("unbounded", None), (f"W={cfg.budget}", cfg.budget)]
    dashboards = ["ledger", f"bounded_ledger:{cfg.dashboard_tokens}"]
    t0 = time.perf_counter()
    table, summary = [], {}
    for f in files:
        for dash in dashboards:
            for label, budget in settings:
                recs = trace(f, budget, max_blocks, dash)
                for r in recs:
                    table.append({"trajectory": f.stem, "dashboard": dash, "setting": label,
                                  **r})
                peak = max(recs, key=lambda r: r["dashboard_tokens"])
                summary[f"{f.stem}|{dash}|{label}"] = {
                    "blocks": recs[-1]["registered"],
                    "peak_dashboard_tokens": peak["dashboard_tokens"],
                    "peak_at_blocks": peak["registered"],
                    "final_dashboard_tokens": recs[-1]["dashboard_tokens"],
                    "final_ledger_rows": recs[-1]["ledger_rows"],
                    "tokens_per_row": round(recs[-1]["dashboard_tokens"]
                                            / max(1, recs[-1]["ledger_rows"]), 2),
                    "fixed_overhead": recs[-1]["fixed_overhead"],
                    "archives": recs[-1]["archives"]}
    wall = time.perf_counter() - t0
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, table)]
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(11, 5.6))
    colors = {f.stem: f"C{i}" for i, f in enumerate(files)}
    for f in files:
        for dash in dashboards:
            bounded = dash != "ledger"
            for label, _ in settings:
                pts = [r for r in table if r["trajectory"] == f.stem
                       and r["dashboard"] == dash and r["setting"] == label]
                ls = "-" if label == "unbounded" else "--"
                kw = dict(color=colors[f.stem], ls=ls, lw=0.9 if bounded else 1.4,
                          alpha=0.75 if bounded else 1.0)
                if bounded:
                    kw.update(marker="|", markevery=max(1, len(pts) // 12), ms=6)
                ax1.plot([r["registered"] for r in pts],
                         [r["dashboard_tokens"] for r in pts], **kw)
                ax2.plot([r["registered"] for r in pts], [r["visible"] for r in pts], **kw)
    from matplotlib.lines import Line2D

    trajectories = [Line2D([], [], color=colors[f.stem], lw=1.4, label=f.stem)
                    for f in files]
    keys = [Line2D([], [], color="grey", lw=1.4, label="full ledger"),
             Line2D([], [], color="grey", lw=0.9, marker="|", ms=6,
                    label=f"bounded ledger ({cfg.dashboard_tokens} tokens)"),
             Line2D([], [], color="grey", ls="--", label=f"W={cfg.budget:,}"),
             ax1.axhline(PAPER_TOKENS, color="k", ls=":", lw=1.4,
                         label=f"VISTA Fig. 10: ~{PAPER_TOKENS} tokens"),
             # the cap differs from the paper's line in colour, pattern and width
             # C9: no trajectory's colour (they take C0, C1, ...); under the curves
             ax1.axhline(cfg.dashboard_tokens, color="C9", ls="-.", lw=1.8, zorder=0.5,
                         label=f"bounded ledger's cap: {cfg.dashboard_tokens} tokens")]
    # both reference lines also named where they are drawn (they lie close together)
    for value, text, va in ((cfg.dashboard_tokens, f"cap {cfg.dashboard_tokens}",
                             "bottom" if cfg.dashboard_tokens >= PAPER_TOKENS else "top"),
                            (PAPER_TOKENS, f"~{PAPER_TOKENS} (paper)",
                             "top" if cfg.dashboard_tokens >= PAPER_TOKENS else "bottom")):
        ax1.annotate(text, (0.0, value), xycoords=("axes fraction", "data"),
                     xytext=(3, 2 if va == "bottom" else -2), textcoords="offset points",
                     va=va, fontsize=7, color="C9" if text.startswith("cap") else "k")
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("registered blocks N")
    ax1.set_ylabel("dashboard tokens (framing incl., fixed overhead excluded)")
    ax1.set_title("(a) dashboard footprint, full vs bounded ledger (| marks)\n"
                  "(cf. VISTA Fig. 10a)", fontsize=9)
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("registered blocks N")
    ax2.set_ylabel("visible blocks")
    ax2.set_title(f"(b) visible set; solid: unbounded, dashed: W={cfg.budget:,}",
                  fontsize=9)
    # legends below the panels, off the data: trajectories (colour) and line styles
    ax1.legend(handles=keys, fontsize=7, loc="upper center", ncol=2, frameon=False,
               bbox_to_anchor=(0.5, -0.14), title="line style", title_fontsize=7)
    ax2.legend(handles=trajectories, fontsize=7, loc="upper center", ncol=2,
               frameon=False, bbox_to_anchor=(0.5, -0.14),
               title="trajectory (colour, both panels)", title_fontsize=7)
    paths.append(save_figure(fig, out / f"{NAME}.png"))
    record = {**cfg.record(), "quick": bool(args.quick), "tokenizer": "cl100k_base",
              "dashboards": dashboards, "trajectories": [f.name for f in files]}
    paths.append(write_sidecar(out / f"{NAME}.json", record, {
        "wall_seconds": round(wall, 1), "summary": summary, "model": None}))
    return paths
