"""``ctxsim run theorem1``: the Theorem 1 curves and Proposition 2 (VISTA §2.6,
Appendices B-E; THEORY.md §2-§3).

For every (channel, n, kappa, parameter) of the grid it simulates the eviction game
with the exact sampler (E[Z] and its standard error), takes the channel's rate in
bits (exact, or the content channel's Monte Carlo estimate with its standard error)
and evaluates the sum-form bound and the affine floor at that rate. Writes
``theorem1.csv``/``.png``/``.json`` and, from the content-channel rows,
``proposition2.csv``/``.png``/``.json``.
"""

from __future__ import annotations

import argparse
import math
import pathlib

import numpy as np
from tqdm import tqdm

from experiments import proposition2
from experiments.config import load_config, non_negative_int
from experiments.output import (new_figure, prepare_out, save_figure, write_csv,
                                write_sidecar)
from sim.games.channels import (BLIND, CONTENT, LEDGER, LIST, WINDOWED, Blind, Content,
                                Ledger, ListChannel, WindowedLedger)
from sim.games.content_burden import content_EZ
from sim.games.eviction import play
from sim.games.information import content_rate_mc
from theory.bounds import (blind_EZ, bound_affine, bound_sum, list_achievability_EZ,
                           list_achievability_EZ_m, windowed_EZ)

COLUMNS = ["channel", "order", "method", "n", "kappa", "param", "rate_bits", "rate_se_bits",
           "EZ", "EZ_se", "EZ_over_kappa", "EZ_theory", "bound_sum", "bound_affine",
           "trials", "rate_trials", "seed"]


def channels_for(n: int, sigmas) -> list:
    """Every channel of the grid at n blocks: ledger, blind, content(sigma) for each
    sigma, list of rate r for r = 0..log2 n (integer m = n 2^-r), and the windowed
    ledger with n 2^-j unlisted rows for j = 0..log2 n, plus w = n/16, n/4 and n."""
    log2n = int(round(math.log2(n)))
    chans = [Ledger(), Blind()] + [Content(float(s)) for s in sigmas]
    chans += [ListChannel(m=n >> r) for r in range(log2n + 1)]
    # w = n - n 2^-j spreads the rates like the list channel's; n/16 and n/4 fill
    # the low-rate end.
    widths = sorted({n - (n >> j) for j in range(log2n + 1)} | {n >> 4, n >> 2, n})
    chans += [WindowedLedger(w=w) for w in widths]
    return chans


def point_seed(base: int, channel, n: int, kappa: int, index: int) -> np.random.SeedSequence:
    """A stream per grid point, independent of the grid's order and extent."""
    return np.random.SeedSequence([int(base), int(channel.code), int(n), int(kappa), int(index)])


def theory_EZ(channel, n: int, kappa: int) -> float:
    """The exact E[Z] of the channel's Bayes policy (closed form or quadrature)."""
    code = channel.code
    if code == LEDGER:
        return 0.0
    if code == BLIND:
        return float(blind_EZ(n, kappa))
    if code == LIST:
        return float(list_achievability_EZ_m(channel.list_size(n), kappa))
    if code == WINDOWED:
        return float(windowed_EZ(n, kappa, channel.w))
    assert code == CONTENT
    return content_EZ(n, kappa, channel.sigma)


def rate_trials_for(n: int, config: dict) -> int:
    """Content-rate trials at n blocks: ``rate_trials`` capped by ``rate_work / n``."""
    return int(max(config["rate_min_trials"], min(config["rate_trials"],
                                                  config["rate_work"] // n)))


def simulate_point(channel, n: int, kappa: int, index: int, config: dict, seed: int,
                   with_rate: bool = True) -> dict:
    """One CSV row: E[Z] (exact sampler), the rate, the bounds and the theory value.

    The content channel's Monte Carlo rate (clipped to [0, log2 n], the range of
    I(J*; Y), which round-off or sampling noise can leave by a little) costs O(n) per trial; ``with_rate=False`` skips it (rate and
    bounds NaN), for n too large to draw n observations.
    """
    ss = point_seed(seed, channel, n, kappa, index)
    game_ss, rate_ss = ss.spawn(2)
    result = play(n, kappa, channel, trials=int(config["trials"]), seed=game_ss)
    rate_se, r_trials = 0.0, 0
    if channel.code == CONTENT:
        if with_rate:
            r_trials = rate_trials_for(n, config)
            est = content_rate_mc(n, kappa, channel.sigma, trials=r_trials, seed=rate_ss)
            rate, rate_se = min(max(est.bits, 0.0), math.log2(n)), est.se_bits
        else:
            rate, rate_se = math.nan, math.nan
    else:
        rate = float(channel.exact_rate_bits(n, kappa))
    if math.isfinite(rate):
        low_sum, low_affine = float(bound_sum(rate, n, kappa)), float(bound_affine(rate, n, kappa))
    else:
        low_sum = low_affine = math.nan
    return {
        "channel": channel.name, "order": "random" if channel.code == BLIND else "bayes",
        "method": result.method, "n": n, "kappa": kappa, "param": channel.param(n),
        "rate_bits": rate, "rate_se_bits": rate_se, "EZ": result.EZ, "EZ_se": result.EZ_se,
        "EZ_over_kappa": result.EZ / kappa, "EZ_theory": theory_EZ(channel, n, kappa),
        "bound_sum": low_sum, "bound_affine": low_affine,
        "trials": result.trials, "rate_trials": r_trials, "seed": seed,
    }


def grid_points(config: dict) -> list[tuple]:
    """(channel, n, kappa, index) for every point of the grid (n > kappa only)."""
    points = []
    for log2n in config["log2_n"]:
        n = 2 ** int(log2n)
        for kappa in config["kappas"]:
            if n <= kappa:
                continue
            for index, channel in enumerate(channels_for(n, config["sigmas"])):
                points.append((channel, n, int(kappa), index))
    return points


def run_grid(config: dict, seed: int, progress: bool = True) -> list[dict]:
    """Simulate every grid point; returns the CSV rows in grid order."""
    points = grid_points(config)
    # Cost is dominated by content-rate points, O(n) each: weight the progress bar.
    return [simulate_point(ch, n, kappa, i, config, seed)
            for ch, n, kappa, i in tqdm(points, desc="theorem1", unit="pt",
                                        disable=not progress, mininterval=1.0)]


_STYLE = {"ledger": ("s", "tab:green"), "blind": ("X", "black"), "list": ("^", "tab:purple"),
          "windowed": ("D", "tab:orange"), "content": ("o", "tab:blue")}


def plot_theorem1(rows: list[dict], panels, path: pathlib.Path) -> pathlib.Path:
    """E[Z]/kappa against rate (bits) for the panels' (log2 n, kappa): the sum-form
    bound, the affine floor, the list achievability curve and every channel's
    simulated points with 1-SE error bars."""
    panels = [(int(a), int(b)) for a, b in panels]
    cols = min(2, len(panels))
    nrows = -(-len(panels) // cols)
    fig, axes = new_figure(nrows, cols, figsize=(6.2 * cols, 4.4 * nrows), squeeze=False)
    for ax, (log2n, kappa) in zip(axes.flat, panels):
        n = 2**log2n
        I = np.linspace(0.0, log2n, 400)
        ax.plot(I, bound_sum(I, n, kappa) / kappa, color="tab:red", lw=2,
                label="lower bound, sum form")
        ax.plot(I, bound_affine(I, n, kappa) / kappa, color="tab:red", ls="--", lw=1.5,
                label=r"affine floor $[1-(I+1)/\nu]_+$")
        ax.plot(I, list_achievability_EZ(n, kappa, I) / kappa, color="grey", lw=1.5,
                label="achievability (list channel)")
        for name, (marker, color) in _STYLE.items():
            sel = [r for r in rows if r["channel"] == name and r["n"] == n
                   and r["kappa"] == kappa]
            if not sel:
                continue
            ax.errorbar([r["rate_bits"] for r in sel], [r["EZ_over_kappa"] for r in sel],
                        xerr=[r["rate_se_bits"] for r in sel],
                        yerr=[r["EZ_se"] / kappa for r in sel], fmt=marker, color=color,
                        ms=5, capsize=2, lw=0.8, ls="none", label=f"simulated: {name}",
                        alpha=0.85)
        ax.set_title(f"n = 2^{log2n}, kappa = {kappa}")
        ax.set_xlabel("rate I(J*; Y) [bits]")
        ax.set_ylabel("E[Z] / kappa (recovery burden)")
        ax.set_xlim(-0.3, log2n + 0.3)
        ax.set_ylim(-0.03, 1.03)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7, loc="upper right")
    fig.suptitle("Theorem 1: without size information, eviction costs recovery work")
    return save_figure(fig, path)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ctxsim run theorem1``."""
    parser.add_argument("--quick", action="store_true", help="small grid, the [quick] table (seconds; default: off, "
                             "the [default] table)")
    parser.add_argument("--out", default="figures", help="output directory (default: figures)")
    parser.add_argument("--seed", type=non_negative_int, default=1,
                        help="base random seed, an integer >= 0 (default: 1)")
    parser.add_argument("--config", default=None,
                        help="TOML file overriding keys of experiments/configs/theorem1.toml "
                             "(default: none; format in README)")
    parser.add_argument("--no-progress", action="store_true",
                        help="hide the progress bar (default: shown)")


def run(args: argparse.Namespace) -> list[pathlib.Path]:
    """Run the grid and write theorem1.* and proposition2.*; returns the paths."""
    section = "quick" if args.quick else "default"
    config = load_config("theorem1", section, args.config)
    out = prepare_out(args.out)
    rows = run_grid(config, args.seed, progress=not args.no_progress)
    paths = [write_csv(out / "theorem1.csv", COLUMNS, rows),
             plot_theorem1(rows, config["panels"], out / "theorem1.png"),
             write_sidecar(out / "theorem1.json", {"grid": section, **config, "seed": args.seed},
                           {"rows": len(rows), "columns": COLUMNS})]
    paths += proposition2.write(rows, config, args.seed, out, section,
                                progress=not args.no_progress)
    return paths
