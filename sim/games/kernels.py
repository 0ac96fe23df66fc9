"""Numba kernels of the eviction game (Theorem 1, THEORY.md §2-§3).

All kernels share one layout: ``trials`` trials split into ``len(gens)`` chunks of
``chunk`` trials; chunk ``c`` draws only from its own ``numpy.random.Generator``
``gens[c]`` (:func:`sim.rng.chunk_generators`), so the output depends on the seed
alone, never on the number of threads. Outputs are per-trial arrays of shape
``(trials,)``.

Two families:

* brute force: materialise the observation of all n blocks each trial (n random
  draws) and count the blocks the order puts before J*;
* exact samplers: draw tau from its exact distribution in O(1) per trial.

Block scores are expressed in units where the content channel reads
``z_i = eps_i + c [i = J*]`` with ``c = ln(kappa) / sigma`` (the constant ``ln l``
drops out of every comparison and of the posterior).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from sim.games.channels import BLIND, CONTENT, LEDGER, LIST, WINDOWED

_SQRT2 = math.sqrt(2.0)


@njit(cache=True)
def _tau_discrete_trial(g, n, code, ipar):
    """Brute-force position of J* in the Bayes order for one trial (no content)."""
    j = g.integers(0, n)
    higher = 0
    if code == LEDGER:
        # Observed sizes: kappa for J*, 1 for the others. Blocks are archived by
        # decreasing size, ties in random order.
        sj = float(ipar)
        uj = g.random()
        for i in range(n):
            if i != j and (1.0 > sj or (1.0 == sj and g.random() > uj)):
                higher += 1
        return higher + 1
    # Every other code breaks ties between equal scores by a uniform key, which makes
    # the order uniformly random among equally likely candidates.
    uj = g.random()
    if code == BLIND:
        for i in range(n):
            if i != j and g.random() > uj:
                higher += 1
        return higher + 1
    if code == LIST:
        # The list is J* plus ipar - 1 others chosen by selection sampling over the
        # n - 1 others; listed blocks (score 1) precede unlisted ones (score 0).
        need = ipar - 1
        remaining = n - 1
        for i in range(n):
            if i == j:
                continue
            if g.random() * remaining < need:
                need -= 1
                if g.random() > uj:
                    higher += 1
            remaining -= 1
        return higher + 1
    # WINDOWED: a uniform ipar-subset of rows is listed with exact sizes.
    w = ipar
    if g.random() * n < w:
        return 1  # J* is listed and identified
    need = w
    remaining = n - 1
    for i in range(n):
        if i == j:
            continue
        listed = g.random() * remaining < need
        remaining -= 1
        if listed:
            need -= 1  # known load-bearing: archived after every unlisted block
        elif g.random() > uj:
            higher += 1
    return higher + 1


@njit(parallel=True, cache=True)
def brute_tau_discrete(n, code, ipar, gens, chunk, trials):
    """Brute-force tau for the ledger, blind, list and windowed channels.

    Args:
        n: blocks; code: channel code (:mod:`sim.games.channels`); ipar: m for the
            list channel, w for the windowed ledger; gens: one Generator per chunk;
            chunk: trials per chunk; trials: total trials.

    Returns:
        int64 array (trials,): tau, the 1-based archive position of J*.
    """
    tau = np.empty(trials, dtype=np.int64)
    for c in prange(len(gens)):
        g = gens[np.int64(c)]
        for t in range(c * chunk, min(trials, (c + 1) * chunk)):
            tau[t] = _tau_discrete_trial(g, n, code, ipar)
    return tau


@njit(parallel=True, cache=True)
def brute_content(n, shift, gens, chunk, trials, want_rate):
    """Brute-force content channel with the Bayes order (decreasing Y), and the
    exact-posterior rate sample of each trial.

    Args:
        n: blocks; shift: ``c = ln(kappa) / sigma``; want_rate: also compute
            ``log2(n p(J*|Y))`` (costs one exp per block).

    Returns:
        ``(tau, rate_bits, eps_j)``: int64 (trials,) positions of J* in the order;
        float64 (trials,) per-trial ``log2(n p(J* | Y))`` in bits (zeros unless
        ``want_rate``); float64 (trials,) the noise ``eps_{J*}`` of each trial (a
        control variate with known mean 0).
    """
    tau = np.empty(trials, dtype=np.int64)
    rate = np.zeros(trials)
    eps_j = np.empty(trials)
    log2n = math.log2(n)
    inv_ln2 = 1.0 / math.log(2.0)
    for c in prange(len(gens)):
        g = gens[np.int64(c)]
        for t in range(c * chunk, min(trials, (c + 1) * chunk)):
            e = g.standard_normal()
            zj = shift + e
            higher = 0
            if want_rate:
                # Online log-sum-exp of shift * z_i, anchored at J*'s term.
                top = shift * zj
                acc = 1.0
                for _ in range(n - 1):
                    z = g.standard_normal()
                    if z > zj:
                        higher += 1
                    x = shift * z
                    if x <= top:
                        acc += math.exp(x - top)
                    else:
                        acc = acc * math.exp(top - x) + 1.0
                        top = x
                rate[t] = log2n + (shift * zj - top - math.log(acc)) * inv_ln2
            else:
                for _ in range(n - 1):
                    if g.standard_normal() > zj:
                        higher += 1
            tau[t] = higher + 1
            eps_j[t] = e
    return tau, rate, eps_j


@njit(cache=True)
def outrank_probability(shift, eps):
    """q(eps) = P(eps_i > c + eps) = 1 - Phi(c + eps) for one other block (THEORY.md §3)."""
    return 0.5 * math.erfc((shift + eps) / _SQRT2)


@njit(cache=True)
def censored_binomial(g, trials_n, q, cap):
    """Exact draw of min(C, cap) for C ~ Binomial(trials_n, q), by inversion over
    0..cap - 1 (O(cap) work, whatever trials_n: 2^40 costs the same as 2^4)."""
    if q <= 0.0:
        return 0
    if q >= 1.0:
        return min(trials_n, cap)
    u = g.random()
    # P(C = 0) = (1 - q)^N; underflow to 0 correctly sends the draw to the cap.
    pmf = math.exp(trials_n * math.log1p(-q))
    cdf = pmf
    odds = q / (1.0 - q)
    k = 0
    while u > cdf and k < cap:
        if k >= trials_n:
            return trials_n  # the whole law sits below the cap; round-off left u > cdf
        pmf *= (trials_n - k) / (k + 1.0) * odds
        cdf += pmf
        k += 1
    return k


@njit(parallel=True, cache=True)
def exact_tau(n, code, shift, ipar, bayes, cap, gens, chunk, trials):
    """Exact O(1)-per-trial sampler of min(tau, cap) for every channel and order.

    The game stops after kappa archives, so positions beyond kappa + 1 are never
    played; callers pass ``cap = kappa + 1`` and get tau censored there.

    Random order (``bayes`` false) or blind: tau ~ Uniform{1..n}. Ledger: tau = 1.
    List: Uniform{1..m}. Windowed: 1 with probability w/n, else Uniform{1..n-w}.
    Content (Bayes): eps ~ N(0,1), C ~ Binomial(n - 1, q(eps)), tau = C + 1, drawn
    censored by :func:`censored_binomial` (O(kappa) per trial for any n).

    Returns:
        int64 array (trials,) of min(tau, cap).
    """
    tau = np.empty(trials, dtype=np.int64)
    for c in prange(len(gens)):
        g = gens[np.int64(c)]
        for t in range(c * chunk, min(trials, (c + 1) * chunk)):
            if not bayes or code == BLIND:
                draw = 1 + g.integers(0, n)
            elif code == LEDGER:
                draw = 1
            elif code == LIST:
                draw = 1 + g.integers(0, ipar)
            elif code == WINDOWED:
                if g.random() * n < ipar:
                    draw = 1
                else:
                    draw = 1 + g.integers(0, n - ipar)
            else:  # CONTENT
                q = outrank_probability(shift, g.standard_normal())
                draw = 1 + censored_binomial(g, n - 1, q, cap - 1)
            tau[t] = min(draw, cap)
    return tau


# Keep the codes importable next to the kernels that interpret them.
__all__ = ["brute_tau_discrete", "brute_content", "exact_tau", "censored_binomial",
           "outrank_probability",
           "LEDGER", "BLIND", "CONTENT", "LIST", "WINDOWED"]
