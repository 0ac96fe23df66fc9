"""``ctxsim run theorem1``: the Theorem 1 curves and Proposition 2 (VISTA §2.6,
Appendices B-E; THEORY.md §2-§3).

For every (channel, n, kappa, parameter) of the grid it simulates the eviction game
with the exact sampler (E[Z], with the standard error of the exact Var Z), takes the
channel's rate in bits (closed forms; the content channel's by the exact 2-D
quadrature of :mod:`sim.games.content_rate`) and evaluates the sum-form bound and
the affine floor at that rate. Writes
``theorem1.csv``/``.png``/``.json`` and, from the content-channel rows,
``proposition2.csv``/``.png``/``.json``.
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

from experiments.settings.theory import Theorem1Settings
from experiments.output import (new_figure, prepare_out, save_figure, write_csv,
                                write_sidecar)
from experiments.progress import CompileAwareProgress
from experiments.vista import proposition2
from experiments.vista.eviction_grid import (StageTimer, add_arguments, grid_points,
                                             simulate_point, simulate_points)
from theory.bounds import bound_affine, bound_sum, list_achievability_EZ


#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = Theorem1Settings

__all__ = ["COLUMNS", "StageTimer", "add_arguments", "plot_theorem1", "run", "run_grid",
           "simulate_point", "simulate_points"]

COLUMNS = ["channel", "order", "method", "n", "kappa", "param", "rate_bits", "rate_se_bits",
           "rate_method", "EZ", "EZ_se", "EZ_se_sample", "EZ_over_kappa", "EZ_theory",
           "bound_sum", "bound_affine", "trials", "seed"]


def run_grid(config: Theorem1Settings, seed: int, progress: bool = True,
             timer: StageTimer | None = None) -> list[dict]:
    """Simulate every point of the grid ``config`` (one batched sampler call over
    every numba thread, :func:`simulate_points`); returns the CSV rows in grid
    order, the same for any thread count."""
    return simulate_points(grid_points(config), config, seed, timer, progress=lambda p: (
        CompileAwareProgress(p, desc="theorem1", unit="pt", disable=not progress)))


#: marker, colour, size, filled: hollow markers of decreasing size nest where
#: channels coincide (rate 0: blind = list m = n = windowed w = 0; rate log2 n:
#: ledger = list m = 1 = windowed w = n), so none hides another.
_STYLE = {"ledger": ("s", "tab:green", 11, False), "blind": ("h", "black", 13, False),
          "list": ("^", "tab:purple", 8, False), "windowed": ("D", "tab:orange", 5.5, False),
          "content": ("o", "tab:blue", 4, True)}


def plot_theorem1(rows: list[dict], panels, path: pathlib.Path) -> pathlib.Path:
    """E[Z]/kappa against rate (bits) for the panels' (log2 n, kappa): the sum-form
    bound, the affine floor, the list achievability curve and every channel's
    simulated points with 1-SE error bars (exact Var Z)."""
    panels = [(int(a), int(b)) for a, b in panels]
    cols = min(2, len(panels))
    nrows = -(-len(panels) // cols)
    fig, axes = new_figure(nrows, cols, figsize=(6.2 * cols, 4.4 * nrows + 0.9),
                           squeeze=False)
    for ax, (log2n, kappa) in zip(axes.flat, panels):
        n = 2**log2n
        I = np.linspace(0.0, log2n, 400)
        ax.plot(I, bound_sum(I, n, kappa) / kappa, color="tab:red", lw=2,
                label="lower bound, sum form")
        ax.plot(I, bound_affine(I, n, kappa) / kappa, color="tab:red", ls="--", lw=1.5,
                label=r"affine floor $[1-(I+1)/\nu]_+$, $\nu=\log_2(n/\kappa)$")
        ax.plot(I, list_achievability_EZ(n, kappa, I) / kappa, color="grey", lw=1.5,
                label="achievability (list channel)")
        for name, (marker, color, size, filled) in _STYLE.items():
            sel = [r for r in rows if r["channel"] == name and r["n"] == n
                   and r["kappa"] == kappa]
            if not sel:
                continue
            ax.errorbar([r["rate_bits"] for r in sel], [r["EZ_over_kappa"] for r in sel],
                        xerr=[r["rate_se_bits"] for r in sel],
                        yerr=[r["EZ_se"] / kappa for r in sel], fmt=marker, color=color,
                        ms=size, mfc=color if filled else "none", mew=1.2, capsize=2,
                        lw=0.8, ls="none", label=f"simulated: {name}", alpha=0.85)
        ax.set_title(f"n = 2^{log2n}, kappa = {kappa}")
        ax.set_xlabel("rate I(J*; Y) [bits]")
        ax.set_ylabel("E[Z] / kappa (recovery burden)")
        ax.set_xlim(-0.3, log2n + 0.3)
        ax.set_ylim(-0.03, 1.03)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=7.5,
               title="error bars: 1 SE from the exact Var Z; content rates by exact "
                     "quadrature; hollow markers nest where channels coincide",
               title_fontsize=7.5)
    fig.suptitle("Theorem 1: without size information, eviction costs recovery work")
    # Constrained layout keeps the outside legend and the title in the figure: one
    # draw, no tight crop (which would draw it twice).
    return save_figure(fig, path, tight=False)


def run(args: argparse.Namespace) -> list[pathlib.Path]:
    """Run the grid and write theorem1.* and proposition2.*; returns the paths."""
    section = "quick" if args.quick else "default"
    config = Theorem1Settings.from_args(args)
    out = prepare_out(args.out)
    timer = StageTimer()
    rows = run_grid(config, config.seed, progress=not args.no_progress, timer=timer)
    paths = [write_csv(out / "theorem1.csv", COLUMNS, rows)]
    with timer("figures"):
        paths.append(plot_theorem1(rows, config.panels, out / "theorem1.png"))
    paths.append(write_sidecar(out / "theorem1.json",
                               {"grid": section, **config.record()},
                               {"rows": len(rows), "columns": COLUMNS}))
    paths += proposition2.write(rows, config, config.seed, out, section,
                                progress=not args.no_progress, timer=timer)
    return paths
