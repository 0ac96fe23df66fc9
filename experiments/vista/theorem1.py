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
import contextlib
import math
import pathlib
import time

import numpy as np
from tqdm import tqdm

from experiments.vista import proposition2
from experiments.config import load_config, non_negative_int
from experiments.output import (new_figure, prepare_out, save_figure, write_csv,
                                write_sidecar)
from sim.games.channels import (BLIND, CONTENT, LEDGER, LIST, WINDOWED, Blind, Content,
                                Ledger, ListChannel, WindowedLedger)
from sim.games.content_burden import content_EZ
from sim.games.eviction import play
from sim.games.content_rate import content_rate_exact
from theory.bounds import (blind_EZ, bound_affine, bound_sum, list_achievability_EZ,
                           list_achievability_EZ_m, windowed_EZ)

COLUMNS = ["channel", "order", "method", "n", "kappa", "param", "rate_bits", "rate_se_bits",
           "rate_method", "EZ", "EZ_se", "EZ_se_sample", "EZ_over_kappa", "EZ_theory",
           "bound_sum", "bound_affine", "trials", "seed"]


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


def channel_rate(channel, n: int, kappa: int) -> tuple[float, float, str]:
    """``(bits, error_bits, method)``: the channel's exact rate, the content channel's
    by the 2-D quadrature of :mod:`sim.games.content_rate` (error: its estimate)."""
    if channel.code == CONTENT:
        bits, err = content_rate_exact(n, kappa, channel.sigma)
        return bits, err, "quadrature"
    return float(channel.exact_rate_bits(n, kappa)), 0.0, "exact"


class StageTimer:
    """Wall time per stage of :func:`simulate_point` (seconds), for the benchmark."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, stage: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start


def simulate_point(channel, n: int, kappa: int, index: int, config: dict, seed: int,
                   timer: StageTimer | None = None) -> dict:
    """One CSV row: E[Z] (exact sampler, ``trials`` draws) with its exact standard
    error sqrt(Var Z / trials), the rate in bits, the bounds and the theory value.

    ``EZ_se`` uses the exact Var Z of :mod:`sim.games.burden_law` (the plug-in
    ``EZ_se_sample`` is 0 in rows where every draw was equal although Var Z > 0).
    """
    timer = timer or StageTimer()
    ss = point_seed(seed, channel, n, kappa, index)
    game_ss, _ = ss.spawn(2)   # the second stream fed the Monte Carlo rate (kept: same E[Z] draws)
    with timer("E[Z] sampling"):
        result = play(n, kappa, channel, trials=int(config["trials"]), seed=game_ss)
        ez, ez_se_sample = result.EZ, result.EZ_se_sample
    with timer("exact Var Z and E[Z] theory"):
        ez_se = result.EZ_se
        ez_theory = theory_EZ(channel, n, kappa)
    with timer("rate"):
        rate, rate_err, rate_method = channel_rate(channel, n, kappa)
    with timer("bounds"):
        low_sum = float(bound_sum(rate, n, kappa))
        low_affine = float(bound_affine(rate, n, kappa))
    return {
        "channel": channel.name, "order": "random" if channel.code == BLIND else "bayes",
        "method": result.method, "n": n, "kappa": kappa, "param": channel.param(n),
        "rate_bits": rate, "rate_se_bits": rate_err, "rate_method": rate_method,
        "EZ": ez, "EZ_se": ez_se, "EZ_se_sample": ez_se_sample,
        "EZ_over_kappa": ez / kappa, "EZ_theory": ez_theory,
        "bound_sum": low_sum, "bound_affine": low_affine,
        "trials": result.trials, "seed": seed,
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


@contextlib.contextmanager
def one_numba_thread():
    """Run numba kernels on one thread inside the block (restored after).

    A grid point's 20000 exact-sampler trials take ~1 ms on one thread; spread over
    threads, the parallel region's start-up and, on a shared machine, waiting for a
    descheduled thread cost up to 10x that. Results do not depend on the thread count
    (one Generator per fixed-size chunk, sim.rng)."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def run_grid(config: dict, seed: int, progress: bool = True,
             timer: StageTimer | None = None) -> list[dict]:
    """Simulate every grid point; returns the CSV rows in grid order."""
    points = grid_points(config)
    with one_numba_thread():
        return [simulate_point(ch, n, kappa, i, config, seed, timer)
                for ch, n, kappa, i in tqdm(points, desc="theorem1", unit="pt",
                                            disable=not progress, mininterval=1.0)]


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
    timer = StageTimer()
    rows = run_grid(config, args.seed, progress=not args.no_progress, timer=timer)
    paths = [write_csv(out / "theorem1.csv", COLUMNS, rows)]
    with timer("figures"):
        paths.append(plot_theorem1(rows, config["panels"], out / "theorem1.png"))
    paths.append(write_sidecar(out / "theorem1.json",
                               {"grid": section, **config, "seed": args.seed},
                               {"rows": len(rows), "columns": COLUMNS}))
    paths += proposition2.write(rows, config, args.seed, out, section,
                                progress=not args.no_progress, timer=timer)
    return paths
