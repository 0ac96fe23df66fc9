"""The eviction game E(n, kappa, channel) of VISTA's Theorem 1 (§2.6, Appendix B-E;
THEORY.md §2).

n blocks; a hidden J* ~ Uniform{1..n} is the bulky block (size L = kappa l), the
others are load-bearing (size l). The prompt is over budget by L tokens. The agent
sees the channel's observation Y, archives blocks in a (Y, U)-measurable order and
stops once the freed size reaches L. With tau the position of J* in the order:

* archives = min(tau, kappa) archive operations,
* Z = min(tau - 1, kappa) archived load-bearing blocks, each a later recovery
  (the recovery burden; retrieves = Z).

:func:`play` runs the game with either the exact O(1)-per-trial sampler or the
brute-force kernel that draws the observation of every block.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from sim.games import kernels
from sim.games.burden_law import Z_variance, mc_halfwidth
from sim.games.channels import (BLIND, CONTENT, LEDGER, LIST, WINDOWED, Channel,
                                validate_game)
from sim.rng import as_seed_sequence, chunk_layout, chunk_seeds

ORDERS = ("bayes", "random")
METHODS = ("exact", "brute")


@dataclasses.dataclass(frozen=True)
class EvictionResult:
    """Per-trial outcome of :func:`play`.

    Attributes:
        n, kappa: game size; channel: the observation channel; order: "bayes" or
            "random"; method: "exact" or "brute"; seed: the entropy used.
        tau: int64 array (trials,), 1-based archive position of J*, censored at
            kappa + 1: the agent stops after at most kappa archives, so a later
            position is never played (every reported quantity is a function of
            min(tau, kappa + 1)). Use :mod:`sim.games.kernels` for uncensored tau.
    """

    n: int
    kappa: int
    channel: Channel
    order: str
    method: str
    seed: int
    tau: np.ndarray

    @property
    def trials(self) -> int:
        """Number of trials."""
        return int(self.tau.size)

    @functools.cached_property
    def Z(self) -> np.ndarray:
        """int64 (trials,): archived load-bearing blocks, min(tau - 1, kappa)
        (computed once: :attr:`EZ` and :attr:`EZ_se_sample` both read it)."""
        return np.minimum(self.tau - 1, self.kappa)

    @property
    def archives(self) -> np.ndarray:
        """int64 (trials,): archive operations until the freed size reaches L."""
        return np.minimum(self.tau, self.kappa)

    @property
    def retrieves(self) -> np.ndarray:
        """int64 (trials,): recoveries needed later, one per archived load-bearing block."""
        return self.Z

    @property
    def EZ(self) -> float:
        """Monte Carlo estimate of the recovery burden E[Z] (blocks)."""
        return float(self.Z.mean())

    @property
    def Z_variance(self) -> float:
        """Exact Var Z (blocks^2) from the law of Z (:mod:`sim.games.burden_law`)."""
        return Z_variance(self.n, self.kappa, self.channel, self.order)

    @property
    def EZ_se(self) -> float:
        """Standard error of :attr:`EZ`: sqrt(Var Z / trials) with the exact Var Z.

        Valid in rare-event rows, where the sample SD is often 0 or far too small."""
        return math.sqrt(self.Z_variance / self.trials)

    @property
    def EZ_se_sample(self) -> float:
        """The plug-in standard error (sample SD / sqrt(trials)), for comparison."""
        if self.trials < 2:
            return math.inf
        return float(self.Z.std(ddof=1) / math.sqrt(self.trials))

    def EZ_halfwidth(self, alpha: float = 6.3e-5) -> float:
        """Half-width around E[Z] that :attr:`EZ` leaves with probability <= alpha
        (Bernstein with the exact variance, Z in [0, kappa]; see
        :func:`sim.games.burden_law.mc_halfwidth`)."""
        return mc_halfwidth(self.Z_variance, self.trials, self.kappa, alpha)


def Z_moments(tau: np.ndarray, kappa) -> tuple[np.ndarray, np.ndarray]:
    """``(EZ, EZ_se_sample)`` of every game of a batch at once, each float64
    ``(games,)``: row ``i`` of ``tau`` (int64 ``(games, trials)``) holds game ``i``'s
    draws as :attr:`EvictionResult.tau`, ``kappa[i]`` its kappa (ints, ``(games,)``).

    Bit for bit :attr:`EvictionResult.EZ` and :attr:`EvictionResult.EZ_se_sample` of
    each row: the same numpy operations in the same order as ``Z.mean()`` and
    ``Z.std(ddof=1)`` (the mean's sum is of integers below 2^53, so exact in any
    order; the squared deviations are summed over the row as one contiguous 1-D
    reduction, pairwise, as ``ndarray.std`` sums them). Two row-sized scratch
    buffers are reused across the rows, so a grid's thousands of games neither
    allocate nor fault in fresh 160 kB arrays for every game (what the properties,
    called per result, cost).
    """
    tau = np.asarray(tau)
    games, trials = tau.shape
    z = np.empty(trials, dtype=np.int64)
    dev = np.empty(trials)
    ez, se = np.empty(games), np.full(games, math.inf)
    root = math.sqrt(trials)
    for i in range(games):
        np.subtract(tau[i], 1, out=z)
        np.minimum(z, kappa[i], out=z)
        ez[i] = mean = int(np.add.reduce(z)) / trials
        if trials >= 2:
            np.subtract(z, mean, out=dev)
            np.multiply(dev, dev, out=dev)
            se[i] = math.sqrt(np.add.reduce(dev) / (trials - 1)) / root
    return ez, se


def seed_chunks(seed, trials: int, work_per_trial: int = 1):
    """Chunk streams for a kernel call: ``(seeds, chunk_trials, entropy)``.

    ``seeds`` is the uint64 ``(n_chunks, 4)`` array of :func:`sim.rng.chunk_seeds`
    (one PCG64 stream per chunk); ``entropy`` is an int identifying the stream
    (recorded in tables).

    Raises:
        ValueError: naming ``trials`` if it is not a positive integer.
    """
    n_chunks, chunk = chunk_layout(trials, work_per_trial)
    ss = as_seed_sequence(seed)
    entropy = ss.entropy if isinstance(ss.entropy, int) else int(ss.generate_state(1)[0])
    return chunk_seeds(ss, n_chunks), chunk, int(entropy)


#: every channel code a kernel plays (sim.games.channels; the base class's -1 is none)
KERNEL_CODES = (LEDGER, BLIND, CONTENT, LIST, WINDOWED)


def _checked(n, kappa, channel):
    """``(n, kappa)`` validated for ``channel`` (see :func:`play` for the errors)."""
    n, kappa = validate_game(n, kappa)
    if not isinstance(channel, Channel):
        raise ValueError(f"channel must be a sim.games.channels.Channel, got {channel!r}")
    if channel.code not in KERNEL_CODES:
        # the kernels read an unknown code as another channel's: refuse it here
        raise ValueError(f"channel must be one the kernels play (Ledger, Blind, Content, "
                         f"ListChannel or WindowedLedger: codes {KERNEL_CODES}), got "
                         f"{channel!r} with code {channel.code!r}")
    channel.validate(n)
    return n, kappa


def _shift(code: int, kappa: int, real_par: float) -> float:
    """The content channel's score shift c = ln(kappa) / sigma (0 for the others)."""
    return math.log(kappa) / real_par if code == CONTENT else 0.0


def play_exact_many(games, seeds, *, trials: int = 10_000, order: str = "bayes",
                    out: np.ndarray | None = None) -> list[EvictionResult]:
    """:func:`play` with ``method="exact"`` for many games in one kernel call
    (:func:`sim.games.kernels.exact_tau_points`), their chunks spread over the numba
    threads. Game ``i`` draws exactly what ``play(*games[i], seed=seeds[i],
    trials=trials, order=order)`` draws, for any thread count.

    Args:
        games: sequence of ``(n, kappa, channel)``; seeds: one seed per game (int,
            SeedSequence or Generator, as :func:`play`); trials, order: as
            :func:`play`, the same for every game.
        out: optional int64 buffer of at least ``len(games) * trials`` entries; the
            results' ``tau`` are then views into it (valid until it is reused), so a
            caller going through a long grid block by block reuses one buffer
            instead of faulting in fresh pages (a 2,400-point grid at 20,000 trials
            would be 400 MB).

    Returns:
        list of :class:`EvictionResult`, one per game, in order.

    Raises:
        ValueError: as :func:`play`, if ``seeds`` and ``games`` differ in length, or
            if ``out`` is not a large enough int64 array.
    """
    batch = ExactBatch(games, seeds, trials, order)
    return batch.run(out)


class ExactBatch:
    """The arguments of one :func:`sim.games.kernels.exact_tau_points` call for
    ``games`` (validated, seed words drawn, chunk slices laid out), built once so a
    benchmark can time the kernel alone (:meth:`run`). See :func:`play_exact_many`.
    """

    def __init__(self, games, seeds, trials: int, order: str = "bayes"):
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
        games = list(games)
        seeds = list(seeds)
        if len(seeds) != len(games):
            raise ValueError(f"need one seed per game: {len(games)} games, "
                             f"{len(seeds)} seeds")
        n_chunks, chunk = chunk_layout(trials, 1)
        size = len(games)
        n_arr, code_arr, ipar_arr, cap_arr = (np.empty(size, dtype=np.int64)
                                              for _ in range(4))
        shift_arr = np.empty(size)
        seed_rows = np.empty((size * n_chunks, 4), dtype=np.uint64)
        self.games, self.entropies = [], []
        for i, ((n, kappa, channel), seed) in enumerate(zip(games, seeds)):
            n, kappa = _checked(n, kappa, channel)
            rows, _, entropy = seed_chunks(seed, trials, 1)
            seed_rows[i * n_chunks:(i + 1) * n_chunks] = rows
            code, real_par, int_par = channel.kernel_args(n, kappa)
            n_arr[i], code_arr[i], ipar_arr[i], cap_arr[i] = n, code, int_par, kappa + 1
            shift_arr[i] = _shift(code, kappa, real_par)
            self.games.append((n, kappa, channel))
            self.entropies.append(entropy)
        # chunk c of game i covers out[i trials + c chunk, ...), capped at its trials
        local = np.arange(n_chunks, dtype=np.int64) * chunk
        base = np.repeat(np.arange(size, dtype=np.int64) * trials, n_chunks)
        starts = base + np.tile(local, size)
        stops = base + np.tile(np.minimum(local + chunk, trials), size)
        chunk_point = np.repeat(np.arange(size, dtype=np.int64), n_chunks)
        self.trials, self.order, self.size = int(trials), order, size
        self.args = (n_arr, code_arr, shift_arr, ipar_arr, np.full(size, order == "bayes"),
                     cap_arr, chunk_point, starts, stops, seed_rows)

    def buffer(self, out: np.ndarray | None = None) -> np.ndarray:
        """``out`` checked (or a new buffer) for the batch's ``size * trials`` draws."""
        need = self.size * self.trials
        if out is None:
            return np.empty(need, dtype=np.int64)
        if (not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.ndim != 1
                or out.size < need):
            raise ValueError(f"out must be a 1-D int64 array of at least {need} "
                             f"entries, got {getattr(out, 'shape', out)!r}")
        return out

    def draw(self, out: np.ndarray) -> None:
        """The kernel call alone: fill ``out`` (see :meth:`buffer`) with every game's
        min(tau, kappa + 1). The seeds are consumed at construction, so drawing again
        repeats the same values."""
        kernels.exact_tau_points(*self.args, out)

    def run(self, out: np.ndarray | None = None) -> list[EvictionResult]:
        """Draw and wrap: one :class:`EvictionResult` per game, ``tau`` a view of
        ``out``."""
        out = self.buffer(out)
        self.draw(out)
        t = self.trials
        return [EvictionResult(n, kappa, channel, self.order, "exact", entropy,
                               out[i * t:(i + 1) * t])
                for i, ((n, kappa, channel), entropy) in enumerate(zip(self.games,
                                                                       self.entropies))]


def play(n: int, kappa: int, channel: Channel, *, order: str = "bayes",
         trials: int = 10_000, seed=0, method: str = "exact") -> EvictionResult:
    """Play ``trials`` independent rounds of E(n, kappa, channel).

    Args:
        n: number of blocks (integer > kappa; up to 2^62 with ``method="exact"``,
            brute force costs O(n) per trial).
        kappa: L / l, an integer >= 2.
        channel: a :class:`sim.games.channels.Channel`.
        order: "bayes" (decreasing posterior probability of being J*, ties in
            random order) or "random" (uniformly random, ignoring Y).
        trials: number of rounds (>= 1).
        seed: int, SeedSequence or Generator; same seed -> identical arrays for any
            number of numba threads.
        method: "exact" (O(1) per trial from tau's exact law) or "brute" (draws the
            observation of every block).

    Returns:
        :class:`EvictionResult`.

    Raises:
        ValueError: naming the bad parameter (n, kappa, channel, sigma, r, m, w,
            order, method, trials); a channel must be a Channel with a kernel code.
    """
    n, kappa = _checked(n, kappa, channel)
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "exact":
        return play_exact_many([(n, kappa, channel)], [seed], trials=trials, order=order)[0]
    seeds, chunk, entropy = seed_chunks(seed, trials, n)
    code, real_par, int_par = channel.kernel_args(n, kappa)
    bayes = order == "bayes"
    if bayes and code == CONTENT:
        tau = kernels.brute_content(n, math.log(kappa) / real_par, seeds, chunk, trials,
                                    False)[0]
    else:
        # A random order ignores Y: it is the blind channel's order.
        kcode = code if bayes else kernels.BLIND
        tau = kernels.brute_tau_discrete(n, kcode, int_par, seeds, chunk, trials)
    np.minimum(tau, kappa + 1, out=tau)
    return EvictionResult(n, kappa, channel, order, method, entropy, tau)
