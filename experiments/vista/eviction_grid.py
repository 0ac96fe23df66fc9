"""The eviction-game grid that ``ctxsim run theorem1`` and ``ctxsim run proposition2``
share (VISTA §2.6, Appendices B-E; THEORY.md §2-§3): the channels at each n, one
seed stream per point, the simulation of the points into CSV rows (E[Z] with its
exact standard error, the rate in bits, the bounds, the theory value; the closed
forms and bounds evaluated once on arrays, not once per point: issue 35), a
per-stage timer and the command-line options.

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
from sim.games.eviction import Z_moments, play_exact_many
from sim.rng import entropy_words
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
    """A stream per grid point, independent of the grid's order and extent: the
    SeedSequence of ``[base, channel code, n, kappa, index]`` (given as its uint32
    words, :func:`sim.rng.entropy_words`: the same stream, built faster)."""
    return np.random.SeedSequence(entropy_words([int(base), int(channel.code), int(n),
                                                 int(kappa), int(index)]))


#: E[Z] in closed form on arrays, ``(n, kappa, parameter) -> E[Z]``, per channel
#: kind (the parameter: the list size m, the window w; unused by the blind channel).
_CLOSED_FORMS = {BLIND: lambda n, kappa, _: blind_EZ(n, kappa),
                 LIST: lambda _, kappa, m: list_achievability_EZ_m(m, kappa),
                 WINDOWED: windowed_EZ}


def theory_EZ(points) -> np.ndarray:
    """The exact E[Z] of the channel's Bayes policy at every point (``(channel, n,
    kappa, ...)``, as :func:`grid_points`): float64 ``(len(points),)``, blocks.

    0 for the ledger; the blind, list and windowed channels' closed forms evaluated
    once per kind on the arrays of its points (:mod:`theory.bounds` broadcasts
    elementwise: the values of one call per point, without thousands of scalar
    input checks); the content channel's quadrature point by point."""
    codes = np.array([p[0].code for p in points], dtype=np.int64)
    n = np.array([p[1] for p in points], dtype=np.int64)
    kappa = np.array([p[2] for p in points], dtype=np.int64)
    par = np.array([ch.list_size(n_i) if ch.code == LIST else
                    ch.w if ch.code == WINDOWED else 0 for ch, n_i, *_ in points],
                   dtype=np.int64)
    out = np.zeros(len(points))
    for code, formula in _CLOSED_FORMS.items():
        sel = codes == code
        if sel.any():
            out[sel] = formula(n[sel], kappa[sel], par[sel])
    for i in np.flatnonzero(codes == CONTENT):
        channel, n_i, kappa_i = points[i][:3]
        out[i] = content_EZ(n_i, kappa_i, channel.sigma)
    unknown = ~np.isin(codes, [LEDGER, CONTENT, *_CLOSED_FORMS])
    if unknown.any():
        raise ValueError(f"no E[Z] theory for channel {points[np.argmax(unknown)][0]!r}")
    return out


def bounds(rate_bits: np.ndarray, n: np.ndarray, kappa: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """``(bound_sum, bound_affine)`` at every point, float64 ``(points,)`` each, from
    the points' rates (bits), n and kappa (``(points,)`` each): one call of each
    bound per distinct kappa. Per kappa, not over every point at once, because
    :func:`theory.bounds.bound_sum` pads each point's sum over t = 1..kappa with
    zeros up to the largest kappa of its call, and numpy's pairwise sum of a padded
    row can round differently in the last bit from the point's own sum."""
    rate_bits, n, kappa = (np.asarray(a) for a in (rate_bits, n, kappa))
    low_sum, low_affine = np.empty(rate_bits.shape), np.empty(rate_bits.shape)
    for k in np.unique(kappa):
        sel = kappa == k
        low_sum[sel] = bound_sum(rate_bits[sel], n[sel], kappa[sel])
        low_affine[sel] = bound_affine(rate_bits[sel], n[sel], kappa[sel])
    return low_sum, low_affine


def channel_rate(channel, n: int, kappa: int) -> tuple[float, float, str]:
    """``(bits, error_bits, method)``: the channel's exact rate, the content channel's
    by the 2-D quadrature of :mod:`sim.games.content_rate` (error: its estimate)."""
    if channel.code == CONTENT:
        bits, err = content_rate_exact(n, kappa, channel.sigma)
        return bits, err, "quadrature"
    return float(channel.exact_rate_bits(n, kappa)), 0.0, "exact"


class StageTimer:
    """Wall and CPU time per stage of :func:`simulate_points` (seconds), for the
    benchmark: ``seconds`` (wall) and ``cpu_seconds`` (this process, every thread)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, stage: str):
        start, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start
            self.cpu_seconds[stage] = (self.cpu_seconds.get(stage, 0.0)
                                       + time.process_time() - cpu)


def simulate_points(points, config, seed: int, timer: StageTimer | None = None,
                    progress=None) -> list[dict]:
    """The CSV rows of ``points`` (``(channel, n, kappa, index)``, as
    :func:`grid_points`), in order: every point's E[Z] from one batched exact-sampler
    call (:func:`sim.games.eviction.play_exact_many`, ``trials`` draws each, the
    points' chunks spread over the numba threads, one stream per point from
    :func:`point_seed`), its E[Z] and plug-in SE (:func:`sim.games.eviction.Z_moments`,
    a block of points at a time), then per point its exact standard error
    sqrt(Var Z / trials) and the rate in bits, and for all points at once the theory
    value (:func:`theory_EZ`) and the bounds (:func:`bounds`).
    ``config``: the grid's :class:`~experiments.settings.theory.Theorem1Settings`;
    ``progress``: an optional wrapper of the per-point loop (a progress bar).

    ``EZ_se`` uses the exact Var Z of :mod:`sim.games.burden_law` (the plug-in
    ``EZ_se_sample`` is 0 in rows where every draw was equal although Var Z > 0).
    """
    timer = timer or StageTimer()
    points = list(points)
    trials = int(config.trials)
    # Blocks of points share one reused buffer (a whole grid's draws at once would
    # be 400 MB of fresh pages); a block still spans every numba thread.
    block = max(1, _BLOCK_TRIALS // trials)
    buffer = np.empty(min(len(points), block) * trials, dtype=np.int64)
    sampled = []            # per point: (method, trials, EZ, EZ_se, EZ_se_sample)
    rates = []              # per point: channel_rate's (bits, error_bits, method)
    bar = iter(progress(range(len(points))) if progress else range(len(points)))
    for start in range(0, len(points), block):
        part = points[start:start + block]
        with timer("E[Z] sampling"):
            # the second child fed the Monte Carlo rate once (kept: same E[Z] draws)
            game_seeds = [point_seed(seed, ch, n, kappa, index).spawn(2)[0]
                          for ch, n, kappa, index in part]
            results = play_exact_many([(n, kappa, ch) for ch, n, kappa, _ in part],
                                      game_seeds, trials=trials, out=buffer)
        # each stage timed once per block, not per point: thousands of timer
        # entries cost more than some of the stages
        with timer("E[Z] and its sample SE"):
            ez, ez_se_sample = Z_moments(buffer[:len(part) * trials].reshape(-1, trials),
                                         [kappa for _, _, kappa, _ in part])
        with timer("exact Var Z and E[Z] theory"):
            sampled += [(r.method, r.trials, mean, r.EZ_se, se) for r, mean, se
                        in zip(results, ez.tolist(), ez_se_sample.tolist())]
        with timer("rate"):
            rates += [channel_rate(ch, n, kappa) for ch, n, kappa, _ in part]
        for _ in part:
            next(bar, None)
    for _ in bar:     # let a progress bar finish
        pass
    with timer("exact Var Z and E[Z] theory"):
        ez_theory = theory_EZ(points).tolist()
    with timer("bounds"):
        low_sum, low_affine = bounds(np.array([bits for bits, _, _ in rates]),
                                     *(np.array([p[i] for p in points], dtype=np.int64)
                                       for i in (1, 2)))
    return [_point_row(*args, seed) for args in zip(points, sampled, rates, ez_theory,
                                                    low_sum.tolist(), low_affine.tolist())]


#: Draws per batched sampler call (one reused int64 buffer: 8 bytes each).
_BLOCK_TRIALS = 1 << 21


def simulate_point(channel, n: int, kappa: int, index: int, config, seed: int,
                   timer: StageTimer | None = None) -> dict:
    """One CSV row (:func:`simulate_points` of the one point)."""
    return simulate_points([(channel, n, kappa, index)], config, seed, timer)[0]


def _point_row(point: tuple, sampled: tuple, rate: tuple, ez_theory: float,
               low_sum: float, low_affine: float, seed: int) -> dict:
    """The CSV row of one point (``(channel, n, kappa, index)``) from its sampled
    values ``(method, trials, EZ, EZ_se, EZ_se_sample)``, its
    :func:`channel_rate`, its :func:`theory_EZ` and its two :func:`bounds`."""
    channel, n, kappa, _ = point
    method, trials, ez, ez_se, ez_se_sample = sampled
    bits, error_bits, rate_method = rate
    return {
        "channel": channel.name, "order": "random" if channel.code == BLIND else "bayes",
        "method": method, "n": n, "kappa": kappa, "param": channel.param(n),
        "rate_bits": bits, "rate_se_bits": error_bits, "rate_method": rate_method,
        "EZ": ez, "EZ_se": ez_se, "EZ_se_sample": ez_se_sample,
        "EZ_over_kappa": ez / kappa, "EZ_theory": ez_theory,
        "bound_sum": low_sum, "bound_affine": low_affine,
        "trials": trials, "seed": seed,
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ctxsim run theorem1`` and ``ctxsim run proposition2`` (one grid,
    :class:`~experiments.settings.theory.Theorem1Settings`)."""
    from experiments.settings.theory import Theorem1Settings

    Theorem1Settings.add_arguments(parser)
