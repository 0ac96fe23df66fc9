"""The sorted-window eviction game: what a bounded ledger (a dashboard listing only the
w largest blocks plus a remainder aggregate) is worth (THEORY.md §5; issue 14).

Game S(n, w, law, rho, sigma). n blocks with sizes s_i drawn i.i.d. from ``law``; the
request is over budget by D tokens (D = rho * sum(s) for the lognormal law; D =
kappa for the two-point law, Theorem 1's game). The agent observes the exact sizes
of the w largest blocks (the listed rows, sorted), the exact used total, and for
each unlisted block only the content channel ``ln s_i + sigma * eps_i`` (sigma = 0:
nothing, a uniformly random order). It archives the listed blocks largest first,
then the unlisted ones in decreasing perceived size, and stops as soon as the freed
tokens reach D (the budget bar is exact). Z counts the blocks archived, each a later
recovery obligation; the full ledger (w >= n) archives the fewest possible, Z*.

Exact anchors (checked in tests): Z = Z* whenever Z* <= w (draw for draw); Z >= Z*
always; two-point law: Z = 1 for every w >= 1; w = 0 and sigma = 0 gives
E[Z] = kappa - kappa (kappa - 1) / (2 n); w = 0 and sigma > 0 is the content channel
(Proposition 2) with E[Z] = 1 + E_eps sum_{t=1}^{kappa-1} P(Bin(n-1, q(eps)) >= t).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from sim.games.sorted_window_kernels import LOGNORMAL, TWO_POINT, sorted_window_z
from sim.rng import chunk_generators, chunk_layout

#: lognormal MLE fit of the tool-result sizes (cl100k tokens) of the bundled
#: trajectories (418 results; :func:`experiments.vista.size_law.fit_tool_result_sizes`): ln s ~ N(MU, SD^2)
FIT_MU, FIT_SD = 3.7343, 1.6367


@dataclasses.dataclass(frozen=True)
class SortedWindowGame:
    """One game: ``n`` blocks, ``w`` listed rows, size ``law`` ("lognormal" with
    ``mu``/``sd`` of ln s, excess ``rho`` of the total; or "two_point" with ``kappa``)
    and content noise ``sigma`` of the unlisted blocks (0: blind).

    Raises:
        ValueError: naming the bad parameter.
    """

    n: int
    w: int
    law: str = "lognormal"
    mu: float = FIT_MU
    sd: float = FIT_SD
    rho: float = 0.5
    kappa: int = 2
    sigma: float = 1.0

    def __post_init__(self):
        if not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n must be a positive integer number of blocks, got {self.n!r}")
        if not isinstance(self.w, int) or self.w < 0:
            raise ValueError(f"w must be a non-negative integer of rows, got {self.w!r}")
        if self.law not in ("lognormal", "two_point"):
            raise ValueError(f"law must be 'lognormal' or 'two_point', got {self.law!r}")
        if self.law == "lognormal" and not (0.0 < self.rho <= 1.0 and self.sd >= 0.0):
            raise ValueError(f"rho must be in (0, 1] and sd >= 0, got rho={self.rho!r}, "
                             f"sd={self.sd!r}")
        if self.law == "two_point" and not (isinstance(self.kappa, int)
                                            and 2 <= self.kappa < self.n):
            raise ValueError(f"kappa must be an integer in 2..n-1, got {self.kappa!r}")
        if not (self.sigma >= 0.0 and math.isfinite(self.sigma)):
            raise ValueError(f"sigma must be finite and >= 0, got {self.sigma!r}")

    def kernel_args(self) -> tuple:
        """``(n, w, law code, a, b, rho, sigma)`` for the kernel."""
        if self.law == "lognormal":
            return (self.n, self.w, LOGNORMAL, float(self.mu), float(self.sd),
                    float(self.rho), float(self.sigma))
        return (self.n, self.w, TWO_POINT, float(self.kappa), 0.0, 1.0, float(self.sigma))


def _seed(seed):
    """A fresh SeedSequence per call (a list of ints is its entropy), so two calls
    with the same seed draw the same numbers (a SeedSequence object would spawn new
    children on every call)."""
    if isinstance(seed, (list, tuple)):
        return np.random.SeedSequence([int(s) for s in seed])
    return seed


def simulate(game: SortedWindowGame, trials: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """``(z, z_star)`` per trial (int64, shape (trials,)): blocks archived with the
    sorted window and with the full ledger; reproducible from ``seed`` (an int or a
    list of ints) for any thread count."""
    n_chunks, chunk = chunk_layout(trials, work_per_trial=4 * game.n)
    return sorted_window_z(*game.kernel_args(), chunk_generators(_seed(seed), n_chunks),
                           chunk, trials)


def reference_z(game: SortedWindowGame, trials: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """:func:`simulate` in plain NumPy (the test oracle): the same chunk generators and
    draws, orders built with ``np.lexsort``, freed tokens with ``np.cumsum``."""
    n, w = game.n, game.w
    n_chunks, chunk = chunk_layout(trials, work_per_trial=4 * n)
    z = np.empty(trials, dtype=np.int64)
    z_star = np.empty(trials, dtype=np.int64)
    for c, g in enumerate(chunk_generators(_seed(seed), n_chunks)):
        for t in range(c * chunk, min(trials, (c + 1) * chunk)):
            if game.law == "lognormal":
                sizes = np.exp(game.mu + game.sd * g.standard_normal(n))
                need = game.rho * sizes.sum()
            else:
                sizes = np.ones(n)
                sizes[g.integers(0, n)] = game.kappa
                need = game.kappa
            noise = g.standard_normal(n) if game.sigma > 0 else np.zeros(n)
            key = g.random(n)
            exact = np.lexsort((-key, -sizes))
            listed = exact[:w]
            rest = np.setdiff1d(np.arange(n), listed)
            score = np.log(sizes) + game.sigma * noise if game.sigma > 0 else key
            order = np.concatenate([listed, rest[np.lexsort((-key[rest], -score[rest]))]])
            z[t], z_star[t] = (_archived(sizes[order], need), _archived(sizes[exact], need))
    return z, z_star


def _archived(sizes_in_order: np.ndarray, need: float) -> int:
    """Blocks taken in order until their cumulative size reaches ``need``."""
    before = np.concatenate([[0.0], np.cumsum(sizes_in_order)[:-1]])
    return int(np.count_nonzero(before < need))


def two_point_blind_ez(n: int, kappa: int):
    """Exact E[Z] for the two-point law, w = 0, sigma = 0 (a sympy Rational):
    sum_{t=1}^{kappa} P(tau >= t) with tau uniform on 1..n."""
    import sympy as sp

    t = sp.symbols("t", integer=True, positive=True)
    return sp.simplify(sp.summation((n - t + 1) / sp.Integer(n), (t, 1, kappa)))


def two_point_content_ez(n: int, kappa: int, sigma: float) -> float:
    """E[Z] for the two-point law, w = 0, sigma > 0 by quadrature over J*'s noise:
    1 + E_eps sum_{t=1}^{kappa-1} P(Binomial(n - 1, q(eps)) >= t),
    q(eps) = 1 - Phi(ln(kappa)/sigma + eps) (THEORY.md §3)."""
    from scipy import integrate, stats

    c = math.log(kappa) / sigma
    ts = np.arange(1, kappa)

    def f(eps: float) -> float:
        q = stats.norm.sf(c + eps)
        return float(stats.binom.sf(ts - 1, n - 1, q).sum()) * stats.norm.pdf(eps)

    return 1.0 + integrate.quad(f, -12, 12, limit=200)[0]
