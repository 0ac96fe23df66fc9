"""The eviction-game grid that ``ctxsim run theorem1`` and ``ctxsim run proposition2``
share (VISTA §2.6, Appendices B-E; THEORY.md §2-§3): the channels at each n, one
seed stream per point, the simulation of one point into a CSV row (E[Z] with its
exact standard error, the rate in bits, the bounds, the theory value), a per-stage
timer and the command-line options.

Both experiments import this module; neither imports the other's internals
(:mod:`experiments.vista.theorem1` calls :func:`experiments.vista.proposition2.write`).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import time

import numpy as np

from sim.games.channels import (BLIND, CONTENT, LEDGER, LIST, WINDOWED, Blind, Content,
                                Ledger, ListChannel, WindowedLedger)
from sim.games.content_burden import content_EZ
from sim.games.content_rate import content_rate_exact
from sim.games.eviction import play
from theory.bounds import (blind_EZ, bound_affine, bound_sum, list_achievability_EZ_m,
                           windowed_EZ)


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


def simulate_point(channel, n: int, kappa: int, index: int, config, seed: int,
                   timer: StageTimer | None = None) -> dict:
    """One CSV row: E[Z] (exact sampler, ``trials`` draws) with its exact standard
    error sqrt(Var Z / trials), the rate in bits, the bounds and the theory value.
    ``config``: the grid's :class:`~experiments.settings.theory.Theorem1Settings`.

    ``EZ_se`` uses the exact Var Z of :mod:`sim.games.burden_law` (the plug-in
    ``EZ_se_sample`` is 0 in rows where every draw was equal although Var Z > 0).
    """
    timer = timer or StageTimer()
    ss = point_seed(seed, channel, n, kappa, index)
    game_ss, _ = ss.spawn(2)   # the second stream fed the Monte Carlo rate (kept: same E[Z] draws)
    with timer("E[Z] sampling"):
        result = play(n, kappa, channel, trials=int(config.trials), seed=game_ss)
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


def grid_points(config) -> list[tuple]:
    """(channel, n, kappa, index) for every point of the grid (n > kappa only) of
    ``config`` (:class:`~experiments.settings.theory.Theorem1Settings`)."""
    points = []
    for log2n in config.log2_n:
        n = 2 ** int(log2n)
        for kappa in config.kappas:
            if n <= kappa:
                continue
            for index, channel in enumerate(channels_for(n, config.sigmas)):
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ctxsim run theorem1`` and ``ctxsim run proposition2`` (one grid,
    :class:`~experiments.settings.theory.Theorem1Settings`)."""
    from experiments.settings.theory import Theorem1Settings

    Theorem1Settings.add_arguments(parser)
