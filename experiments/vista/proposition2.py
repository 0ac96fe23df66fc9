"""Proposition 2: the content-only channel carries O(1) bits (VISTA §2.6; THEORY.md §3).

From the content-channel points of the Theorem 1 grid (or its own run): the exact
rate (2-D quadrature, :mod:`sim.games.content_rate`) against n for each sigma, with the paper's bound, the tighter centroid
bound and the threshold log2(n/kappa) that Theorem 1 needs for E[Z] <= 0; and
E[Z]/kappa rising to 1 as n grows (continued to n = 2^40 by the exact sampler, with
the rate there too).
"""

from __future__ import annotations

import argparse
import math
import pathlib

import numpy as np
from matplotlib.lines import Line2D

from experiments.settings.theory import Theorem1Settings
from experiments.output import (new_figure, prepare_out, save_figure, write_csv,
                                write_sidecar)
from experiments.progress import CompileAwareProgress
# add_arguments: ``ctxsim run proposition2`` takes the options of the shared grid.
from experiments.vista.eviction_grid import (add_arguments, channels_for, grid_points,
                                             simulate_points)
from sim.games.channels import Content
from theory.bounds import prop2_centroid_bound_bits, prop2_paper_bound_bits


#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = Theorem1Settings

COLUMNS = ["n", "kappa", "sigma", "rate_bits", "rate_se_bits", "rate_method",
           "paper_bound_bits", "centroid_bound_bits", "threshold_bits", "ledger_rate_bits",
           "EZ", "EZ_se", "EZ_se_sample", "EZ_over_kappa", "EZ_quadrature", "trials", "seed"]


def _row(r: dict) -> dict:
    n, kappa, sigma = r["n"], r["kappa"], r["param"]
    return {"n": n, "kappa": kappa, "sigma": sigma, "rate_bits": r["rate_bits"],
            "rate_se_bits": r["rate_se_bits"], "rate_method": r["rate_method"],
            "paper_bound_bits": float(prop2_paper_bound_bits(kappa, sigma)),
            "centroid_bound_bits": float(prop2_centroid_bound_bits(n, kappa, sigma)),
            "threshold_bits": math.log2(n / kappa), "ledger_rate_bits": math.log2(n),
            "EZ": r["EZ"], "EZ_se": r["EZ_se"], "EZ_se_sample": r["EZ_se_sample"],
            "EZ_over_kappa": r["EZ_over_kappa"], "EZ_quadrature": r["EZ_theory"],
            "trials": r["trials"], "seed": r["seed"]}


def content_rows(theorem1_rows: list[dict], config, seed: int, progress: bool,
                 timer=None) -> list[dict]:
    """Proposition 2 rows: the grid's content points plus points at the
    ``prop2_extra_log2_n`` sizes (up to 2^40: the exact sampler and the rate
    quadrature cost the same at any n)."""
    rows = [_row(r) for r in theorem1_rows if r["channel"] == "content"]
    extra = []
    for e in config.prop2_extra_log2_n:
        n = 2**int(e)
        chans = channels_for(n, config.sigmas)
        extra += [(Content(float(s)), n, int(k), chans.index(Content(float(s))))
                  for k in config.kappas for s in config.sigmas]
    rows += [_row(r) for r in simulate_points(
        extra, config, seed, timer, progress=lambda p: CompileAwareProgress(
            p, desc="proposition2", disable=not progress))]
    return sorted(rows, key=lambda r: (r["kappa"], r["sigma"], r["n"]))


#: Horizontal offset (in log2 n) of each sigma's points, so coincident values (rates
#: at log2 n, E[Z]/kappa at 1) stay visible; stated in the figure.
_OFFSET = 0.12


def _title(rows: list[dict], near: float = 0.9) -> str:
    """The figure's title: the limit as the paper states it (n -> infinity), and the
    (kappa, sigma) series that are still below ``near`` at the largest plotted n, so
    the title is true of what the figure shows."""
    last: dict[tuple, dict] = {}
    for r in rows:
        key = (r["kappa"], r["sigma"])
        if key not in last or r["n"] > last[key]["n"]:
            last[key] = r
    lagging = sorted(k for k, r in last.items() if r["EZ_over_kappa"] < near)
    title = ("Proposition 2: a content-only channel carries O(1) bits, so E[Z]/kappa -> 1 "
             "as n -> infinity")
    if not last:
        return title
    n_max = max(r["n"] for r in last.values())
    if not lagging:
        return f"{title}; every series is above {near:g} by n = 2^{math.log2(n_max):g}"
    listed = ", ".join(f"kappa={k:g} sigma={s:g}" for k, s in lagging)
    return (f"{title}\n{len(last) - len(lagging)} of {len(last)} series are above "
            f"{near:g} by n = 2^{math.log2(n_max):g}; still below it there: {listed}")


def plot(rows: list[dict], path: pathlib.Path) -> pathlib.Path:
    """Top: rate (bits) against log2 n per sigma with both bounds and the threshold.
    Bottom: E[Z]/kappa against log2 n per sigma. One column per kappa."""
    kappas = sorted({r["kappa"] for r in rows})
    fig, axes = new_figure(2, len(kappas), figsize=(4.6 * len(kappas), 8.6), squeeze=False)
    sigmas = sorted({r["sigma"] for r in rows})
    # No sigma takes black or grey: those belong to the threshold and the ledger line.
    colors = dict(zip(sigmas, ["tab:blue", "tab:orange", "tab:green", "tab:red",
                               "tab:purple", "tab:brown", "tab:pink"] * 3))
    shift = {s: _OFFSET * (i - (len(sigmas) - 1) / 2) for i, s in enumerate(sigmas)}
    for col, kappa in enumerate(kappas):
        top, bottom = axes[0, col], axes[1, col]
        sel = [r for r in rows if r["kappa"] == kappa]
        all_x = np.array(sorted({math.log2(r["n"]) for r in sel}))
        top.plot(all_x, all_x - math.log2(kappa), color="black", lw=1.5,
                 label=r"threshold $\log_2(n/\kappa)$")
        top.plot(all_x, all_x, color="grey", lw=1.2, ls="-.", label=r"ledger $\log_2 n$")
        for sigma in sigmas:
            pts = [r for r in sel if r["sigma"] == sigma]
            x = np.array([math.log2(r["n"]) for r in pts])
            c = colors[sigma]
            top.errorbar(x + shift[sigma], [r["rate_bits"] for r in pts],
                         yerr=[r["rate_se_bits"] for r in pts], fmt="o-", ms=3,
                         color=c, lw=1, capsize=2, label=f"sigma={sigma:g}")
            top.plot(x, [r["centroid_bound_bits"] for r in pts], color=c, ls="--", lw=1)
            top.axhline(pts[0]["paper_bound_bits"], color=c, ls=":", lw=1)
            bottom.errorbar(x + shift[sigma], [r["EZ_over_kappa"] for r in pts],
                            yerr=[r["EZ_se"] / kappa for r in pts], fmt="o", ms=3, color=c,
                            capsize=2)
            bottom.plot(x, [r["EZ_quadrature"] / kappa for r in pts], color=c, lw=1)
        # The paper's bound can reach hundreds of bits; frame the centroid bounds.
        # Show where the threshold starts, so it stays visible above small rates.
        top.set_ylim(0, min(max(all_x) + 1,
                            max(1.25 * max(r["centroid_bound_bits"] for r in sel),
                                min(all_x) - math.log2(kappa) + 1.5)))
        top.set_title(f"kappa = {kappa}: rate I(J*; Y)", fontsize=9)
        top.set_xlabel("log2 n")
        top.set_ylabel("I(J*; Y) [bits]")
        bottom.set_title(f"kappa = {kappa}: recovery burden", fontsize=9)
        bottom.set_xlabel("log2 n")
        bottom.set_ylabel("E[Z] / kappa")
        bottom.set_ylim(-0.03, 1.03)
        for ax in (top, bottom):
            ax.grid(alpha=0.3)
    # One legend below the panels: inside a panel it would cover the small-n points.
    # Line styles shared by every sigma get one grey proxy entry each.
    handles, labels = axes[0, 0].get_legend_handles_labels()
    proxies = [
        (Line2D([], [], color="dimgrey", ls="--", lw=1), "centroid bound (sigma's colour)"),
        (Line2D([], [], color="dimgrey", ls=":", lw=1), "paper's bound (sigma's colour)"),
        (Line2D([], [], color="dimgrey", marker="o", ms=3, ls="none"),
         "bottom: E[Z]/kappa simulated, exact sampler, +-1 exact SE"),
        (Line2D([], [], color="dimgrey", lw=1), "bottom: E[Z]/kappa by quadrature"),
    ]
    handles += [h for h, _ in proxies]
    labels += [lab for _, lab in proxies]
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8,
               title=f"top: rate by exact quadrature (error bars: its error estimate); "
                     f"points offset by up to +-{_OFFSET * (len(sigmas) - 1) / 2:.2g} in "
                     f"log2 n per sigma so coincident values stay visible",
               title_fontsize=8)
    fig.suptitle(_title(rows))
    # Constrained layout keeps the outside legend and the title in the figure: one
    # draw, no tight crop (which would draw it twice).
    return save_figure(fig, path, tight=False)


def write(theorem1_rows: list[dict], config, seed: int, out: pathlib.Path, section: str,
          progress: bool = True, timer=None) -> list[pathlib.Path]:
    """Write proposition2.csv/.png/.json from the Theorem 1 rows."""
    rows = content_rows(theorem1_rows, config, seed, progress, timer)
    return [write_csv(out / "proposition2.csv", COLUMNS, rows),
            plot(rows, out / "proposition2.png"),
            write_sidecar(out / "proposition2.json", {"grid": section, **config.record()},
                          {"rows": len(rows), "columns": COLUMNS})]


def run(args: argparse.Namespace) -> list[pathlib.Path]:
    """Only the content-channel points of the Theorem 1 grid, then :func:`write`."""
    section = "quick" if args.quick else "default"
    config = Theorem1Settings.from_args(args)
    out = prepare_out(args.out)
    points = [p for p in grid_points(config) if isinstance(p[0], Content)]
    rows = simulate_points(points, config, config.seed, progress=lambda p: (
        CompileAwareProgress(p, desc="content points", disable=args.no_progress)))
    return write(rows, config, config.seed, out, section, progress=not args.no_progress)
