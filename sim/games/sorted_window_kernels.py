"""Numba kernel of the sorted-window eviction game (THEORY.md §5).

Same layout as :mod:`sim.games.kernels`: ``trials`` trials in chunks of ``chunk``;
chunk ``c`` draws only from ``gens[c]`` (:func:`sim.rng.chunk_generators`), so the
output depends on the seed alone, never on the thread count.

Per trial the draws are, in this order: the sizes (``n`` standard normals for the
lognormal law; one ``integers(0, n)`` for the two-point law), then ``n`` standard
normals of content noise (only when ``sigma > 0``), then ``n`` uniform tie keys.
:func:`sim.games.sorted_window.reference_z` draws the same numbers with plain NumPy.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

#: size laws
LOGNORMAL, TWO_POINT = 0, 1


@njit(cache=True)
def _order(primary, key):
    """Indices by decreasing ``primary``, ties by decreasing ``key`` (a stable sort
    by primary after a sort by key)."""
    by_key = np.argsort(-key)
    return by_key[np.argsort(-primary[by_key], kind="mergesort")]


@njit(cache=True)
def _count_to(order, sizes, need):
    """Blocks archived in ``order`` until the freed tokens reach ``need``."""
    freed = 0.0
    k = 0
    for i in order:
        if freed >= need:
            break
        freed += sizes[i]
        k += 1
    return k


@njit(cache=True)
def _trial(g, n, w, law, a, b, rho, sigma):
    sizes = np.ones(n)
    if law == LOGNORMAL:
        for i in range(n):
            sizes[i] = math.exp(a + b * g.standard_normal())
        need = rho * sizes.sum()
    else:  # TWO_POINT: one bulky block of size kappa = a among size-1 blocks
        sizes[g.integers(0, n)] = a
        need = a
    score = np.log(sizes)
    if sigma > 0.0:
        for i in range(n):
            score[i] += sigma * g.standard_normal()
    key = np.empty(n)
    for i in range(n):
        key[i] = g.random()
    exact = _order(sizes, key)
    z_star = _count_to(exact, sizes, need)
    if sigma <= 0.0:
        score = key  # blind beyond the listed rows: a uniformly random order
    # the w listed rows (the largest, exact sizes) first, then the rest by score
    order = np.empty(n, dtype=np.int64)
    m = min(w, n)
    order[:m] = exact[:m]
    rest = exact[m:]
    order[m:] = rest[_order(score[rest], key[rest])]
    return _count_to(order, sizes, need), z_star


@njit(parallel=True, cache=True)
def sorted_window_z(n, w, law, a, b, rho, sigma, gens, chunk, trials):
    """Blocks archived per trial by the sorted-window agent and by the full ledger.

    Args:
        n: blocks; w: listed rows (>= 0; w >= n is the full ledger); law:
            :data:`LOGNORMAL` (``ln s ~ N(a, b^2)``, excess ``rho * sum(s)``) or
            :data:`TWO_POINT` (one block of size ``a = kappa`` among size-1 blocks,
            excess kappa: Theorem 1's game); sigma: content noise of the unlisted
            blocks' perceived log size (0: blind, a uniformly random order).
        gens, chunk, trials: the chunk layout (:mod:`sim.rng`).

    Returns:
        ``(z, z_star)``: int64 arrays (trials,), blocks archived until the freed
        tokens reach the excess, with the sorted window and with the full ledger.
    """
    z = np.empty(trials, dtype=np.int64)
    z_star = np.empty(trials, dtype=np.int64)
    for c in prange(len(gens)):
        g = gens[np.int64(c)]
        for t in range(c * chunk, min(trials, (c + 1) * chunk)):
            z[t], z_star[t] = _trial(g, n, w, law, a, b, rho, sigma)
    return z, z_star
