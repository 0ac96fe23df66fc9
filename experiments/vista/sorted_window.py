"""``ctxsim run sorted_window``: the eviction game with a bounded ledger (THEORY.md §5).

(a) Block sizes drawn i.i.d. from the lognormal fitted to the bundled trajectories'
tool results: E[blocks archived] against the number w of listed rows (the largest
blocks), for several excess fractions rho, beside the full ledger (w = n), the
content-only agent (w = 0, noise sigma) and the blind agent (w = 0, random order).
(b) Theorem 1's two-point game: the sorted window against the uniform window of the
windowed-ledger channel (closed form), in blocks archived.

Writes ``sorted_window.csv`` (one row per rho and w, with standard errors and the
paired difference to the full ledger), ``sorted_window.png`` and
``sorted_window.json`` (configuration, the size fit, wall time).
"""

from __future__ import annotations

import time

import numpy as np

from experiments.intervals import Z_ROUNDED, normal_half_width
from experiments.settings.theory import SortedWindowSettings

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = SortedWindowSettings

NAME = "sorted_window"
COLUMNS = ("n", "rho", "sigma", "w", "EZ", "EZ_se", "EZ_full_ledger", "EZ_full_se",
           "EZ_minus_full", "EZ_minus_full_se", "P_equal_full", "EZ_content", "EZ_blind",
           "trials", "seed")


def add_arguments(parser) -> None:
    """``--out``, ``--quick``, ``--config``, ``--no-progress`` and the options of
    :class:`~experiments.settings.theory.SortedWindowSettings` (``--seed``, ``--n``,
    ``--rhos``, ``--sigma``, ``--trials``, ``--windows``)."""
    # --no-progress is accepted like every experiment's; this one prints no progress
    SortedWindowSettings.add_arguments(parser)


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0


def run(args) -> list:
    """Simulate every (rho, w) point and write CSV, PNG and JSON; returns the paths."""
    from experiments.output import (new_figure, prepare_out, save_figure, write_csv,
                                    write_sidecar)
    from experiments.vista.size_law import fit_tool_result_sizes
    from sim.games.sorted_window import SortedWindowGame, simulate

    out = prepare_out(args.out)
    cfg = SortedWindowSettings.from_args(args)
    n, sigma, trials = cfg.n, cfg.sigma, cfg.trials
    t0 = time.perf_counter()
    fit = fit_tool_result_sizes()
    mu, sd = fit["lognormal"]["mu"], fit["lognormal"]["sd"]
    table = []
    for i, rho in enumerate(cfg.rhos):
        # one seed per rho: every w of a rho sees the same sizes (common random numbers)
        seed = [cfg.seed, i]

        def game(w, s=sigma):
            return SortedWindowGame(n, w, mu=mu, sd=sd, rho=float(rho), sigma=s)
        content, _ = simulate(game(0), trials, seed)
        blind, _ = simulate(game(0, 0.0), trials, seed)
        for w in sorted(set(cfg.windows)):
            z, zs = simulate(game(w), trials, seed)
            ez, se = _mean_se(z)
            ef, sef = _mean_se(zs)
            d, sed = _mean_se(z - zs)
            table.append({"n": n, "rho": rho, "sigma": sigma, "w": w, "EZ": ez, "EZ_se": se,
                          "EZ_full_ledger": ef, "EZ_full_se": sef, "EZ_minus_full": d,
                          "EZ_minus_full_se": sed, "P_equal_full": float((z == zs).mean()),
                          "EZ_content": float(content.mean()),
                          "EZ_blind": float(blind.mean()), "trials": trials,
                          "seed": f"{cfg.seed}/{i}"})
    two_point = _two_point(n, cfg.kappa, trials, cfg.seed)
    wall = time.perf_counter() - t0
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, table)]
    paths.append(save_figure(_plot(table, two_point, cfg, new_figure), out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg.record(), {
        "wall_seconds": round(wall, 1), "size_fit": fit, "two_point": two_point,
        "summary": {f"rho={r['rho']}|w={r['w']}": round(r["EZ"], 3) for r in table}}))
    return paths


def _two_point(n: int, kappa: int, trials: int, seed: int) -> dict:
    """Theorem 1's game: blocks archived with the sorted window (simulated) and the
    uniform window (closed form, THEORY.md §2) for w = 0..2 kappa."""
    from sim.games.sorted_window import SortedWindowGame, simulate

    ws = list(range(0, 2 * kappa + 1))
    sorted_ez = [float(simulate(SortedWindowGame(n, w, law="two_point", kappa=kappa,
                                                 sigma=0.0), trials, [seed, 99])[0].mean())
                 for w in ws]
    uniform = [w / n + (1 - w / n) * (kappa - kappa * (kappa - 1) / (2 * (n - w)))
               for w in ws]
    return {"n": n, "kappa": kappa, "w": ws, "sorted_EZ": sorted_ez, "uniform_EZ": uniform}


def _plot(table: list[dict], tp: dict, cfg, new_figure):
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(11, 4.2))
    for i, rho in enumerate(cfg.rhos):
        pts = [r for r in table if r["rho"] == rho]
        x = [max(r["w"], 0.5) for r in pts]  # w = 0 drawn at 0.5 on the log axis
        ax1.errorbar(x, [r["EZ"] for r in pts], yerr=[normal_half_width(r["EZ_se"], z=Z_ROUNDED) for r in pts],
                     color=f"C{i}", marker="o", ms=4, lw=1.4, capsize=2,
                     label=f"sorted window, rho={rho:g}")
        ref = pts[0]
        ax1.axhline(ref["EZ_full_ledger"], color=f"C{i}", ls="--", lw=1)
        ax1.axhline(ref["EZ_content"], color=f"C{i}", ls=":", lw=1)
        ax1.axhline(ref["EZ_blind"], color=f"C{i}", ls="-.", lw=0.8)
    ax1.set_xscale("log", base=2)
    ax1.set_yscale("log")
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    # plain numbers on both log axes: 0.5, 1, 2, ... 64, never 6x10^1
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax1.xaxis.set_major_locator(LogLocator(base=2))
    ax1.xaxis.set_major_formatter(plain)
    ax1.xaxis.set_minor_formatter(NullFormatter())
    ax1.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax1.yaxis.set_major_formatter(plain)
    ax1.yaxis.set_minor_formatter(NullFormatter())
    # the reference lines' dash patterns, in the legend (colour: the rho of the series)
    refs = [Line2D([], [], color="grey", ls=ls, lw=1, label=label) for ls, label in
            (("--", "full ledger (colour: rho)"), (":", "content-only"),
             ("-.", "blind"))]
    ax1.set_xlabel("listed rows w (w = 0 drawn at 0.5)")
    ax1.set_ylabel("E[blocks archived]  (recovery obligations)")
    ax1.set_title(f"(a) lognormal sizes (trajectory fit), n={cfg.n}, "
                  f"sigma={cfg.sigma:g}", fontsize=9)
    handles, _ = ax1.get_legend_handles_labels()
    ax1.legend(handles=handles + refs, fontsize=7)
    ax2.plot(tp["w"], tp["sorted_EZ"], "ko-", ms=4, label="sorted window (simulated)")
    ax2.plot(tp["w"], tp["uniform_EZ"], "C3s--", ms=4, mfc="none",
             label="uniform window (closed form)")
    ax2.axhline(1, color="0.3", ls=":", lw=1.6, zorder=1,
                label="E[Z] = 1: one block archived (the least possible)")
    ax2.set_ylim(bottom=min(0.9, ax2.get_ylim()[0]))  # the y = 1 line inside the axes
    # written on the line too: the sorted window's curve lies on it from w = 1 on
    ax2.annotate("E[Z] = 1 (least possible)", (tp["w"][len(tp["w"]) // 2], 1),
                 xytext=(0, 4), textcoords="offset points", ha="center", va="bottom",
                 fontsize=8, color="0.3")
    ax2.set_xlabel("listed rows w")
    ax2.set_ylabel("E[blocks archived]")
    ax2.set_title(f"(b) Theorem 1 game, n={tp['n']}, kappa={tp['kappa']}, blind beyond "
                  "the rows", fontsize=9)
    ax2.legend(fontsize=7)
    return fig
