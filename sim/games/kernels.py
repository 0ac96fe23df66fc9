"""Numba kernels of the eviction game (Theorem 1, THEORY.md §2-§3).

All kernels share one layout: ``trials`` trials split into ``len(seeds)`` chunks of
``chunk`` trials; chunk ``c`` draws only from its own PCG64 stream, seeded from row
``c`` of ``seeds`` (uint64 ``(n_chunks, 4)``, :func:`sim.rng.chunk_seeds`; the
generator runs in :mod:`sim.pcg64` and draws what ``numpy.random.Generator`` would
draw from the same child seed), so the output depends on the seed alone, never on
the number of threads. Outputs are per-trial arrays of shape ``(trials,)``.
:func:`exact_tau_points` runs many grid points in one call (one prange over every
point's chunks).

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

from sim import pcg64
from sim.games.channels import BLIND, CONTENT, LEDGER, LIST, WINDOWED

_SQRT2 = math.sqrt(2.0)
#: log of the smallest pmf term the binomial inversion starts from: e^-700 is about
#: 1e-304, a normal double (the smallest is 2.2e-308), so the recursion never runs
#: on a subnormal term that keeps only a few significant bits
_LOG_TINY = -700.0


@njit(cache=True)
def _tau_discrete_trial(s, n, code, ipar):
    """Brute-force position of J* in the Bayes order for one trial (no content).

    Draws, in this order, from the stream ``s`` (so a plain loop over
    ``numpy.random.Generator`` replays a trial exactly; the law alone does not fix
    the order): J* = ``integers(n)``; J*'s tie-break key ``random()``; then, for the
    windowed ledger, one ``random()`` that lists J* when ``random() * n < w``
    (returning 1); then the other blocks ``i != J*`` in index order. Per other block:
    ledger (J* observed at size ``ipar``, the others at 1, archived by decreasing
    size): a key ``random()`` only if its size ties J*'s, counted when above J*'s
    key; blind: a key, counted when above J*'s; list: a selection-sampling draw
    (listed when ``random() * remaining < need``), and for a listed block a key,
    counted when above J*'s; windowed: a selection-sampling draw, and for an unlisted
    block a key, counted when above J*'s (a listed block is archived last). Returns
    1 + the count."""
    j = pcg64.integers(s, n)
    higher = 0
    if code == LEDGER:
        # Observed sizes: kappa for J*, 1 for the others. Blocks are archived by
        # decreasing size, ties in random order.
        sj = float(ipar)
        uj = pcg64.random(s)
        for i in range(n):
            if i != j and (1.0 > sj or (1.0 == sj and pcg64.random(s) > uj)):
                higher += 1
        return higher + 1
    # Every other code breaks ties between equal scores by a uniform key, which makes
    # the order uniformly random among equally likely candidates.
    uj = pcg64.random(s)
    if code == BLIND:
        for i in range(n):
            if i != j and pcg64.random(s) > uj:
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
            if pcg64.random(s) * remaining < need:
                need -= 1
                if pcg64.random(s) > uj:
                    higher += 1
            remaining -= 1
        return higher + 1
    # WINDOWED: a uniform ipar-subset of rows is listed with exact sizes.
    w = ipar
    if pcg64.random(s) * n < w:
        return 1  # J* is listed and identified
    need = w
    remaining = n - 1
    for i in range(n):
        if i == j:
            continue
        listed = pcg64.random(s) * remaining < need
        remaining -= 1
        if listed:
            need -= 1  # known load-bearing: archived after every unlisted block
        elif pcg64.random(s) > uj:
            higher += 1
    return higher + 1


@njit(parallel=True, cache=True)
def brute_tau_discrete(n, code, ipar, seeds, chunk, trials):
    """Brute-force tau for the ledger, blind, list and windowed channels.

    Args:
        n: blocks; code: channel code (:mod:`sim.games.channels`); ipar: m for the
            list channel, w for the windowed ledger; seeds: uint64 (n_chunks, 4), one
            row per chunk (:func:`sim.rng.chunk_seeds`);
            chunk: trials per chunk; trials: total trials.

    Returns:
        int64 array (trials,): tau, the 1-based archive position of J*.
    """
    tau = np.empty(trials, dtype=np.int64)
    for c in prange(len(seeds)):
        s = pcg64.new_state(seeds, c)
        for t in range(c * chunk, min(trials, (c + 1) * chunk)):
            tau[t] = _tau_discrete_trial(s, n, code, ipar)
    return tau


@njit(parallel=True, cache=True)
def brute_content(n, shift, seeds, chunk, trials, want_rate):
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
    for c in prange(len(seeds)):
        s = pcg64.new_state(seeds, c)
        for t in range(c * chunk, min(trials, (c + 1) * chunk)):
            e = pcg64.standard_normal(s)
            zj = shift + e
            higher = 0
            if want_rate:
                # Online log-sum-exp of shift * z_i, anchored at J*'s term.
                top = shift * zj
                acc = 1.0
                for _ in range(n - 1):
                    z = pcg64.standard_normal(s)
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
                    if pcg64.standard_normal(s) > zj:
                        higher += 1
            tau[t] = higher + 1
            eps_j[t] = e
    return tau, rate, eps_j


@njit(cache=True)
def outrank_probability(shift, eps):
    """q(eps) = P(eps_i > c + eps) = 1 - Phi(c + eps) for one other block (THEORY.md §3)."""
    return 0.5 * math.erfc((shift + eps) / _SQRT2)


@njit(cache=True)
def censored_binomial(s, trials_n, q, cap):
    """Exact draw of min(C, cap) for C ~ Binomial(trials_n, q), by inversion over
    0..cap - 1 (O(cap) work, whatever trials_n: 2^40 costs the same as 2^4).

    Draws one uniform u from ``s`` where 0 < q < 1 and none at q <= 0 or q >= 1,
    where the draw is certain (as ``sim.games.reference.exact_content_tau_python``,
    which replays the exact sampler draw for draw). The pmf is walked up from k = 0
    by its ratio recursion.
    Where the first terms are below e^-700 (P(C = 0) = (1 - q)^N underflows to 0, or
    is subnormal with a few significant bits, once N q is in the hundreds) the walk
    first steps up in log space to the first k whose term is a normal double (or to
    the cap): the mass skipped is below k e^-700, under every uniform double but 0,
    so the draw is the inversion's except at u = 0 (probability 2^-53)."""
    if q <= 0.0:
        return 0
    if q >= 1.0:
        return min(trials_n, cap)
    u = pcg64.random(s)
    log_pmf = trials_n * math.log1p(-q)        # log P(C = 0)
    k = 0
    if log_pmf < _LOG_TINY:
        log_odds = math.log(q) - math.log1p(-q)
        while log_pmf < _LOG_TINY and k < cap and k < trials_n:
            log_pmf += math.log((trials_n - k) / (k + 1.0)) + log_odds
            k += 1
    pmf = math.exp(log_pmf)
    cdf = pmf
    odds = q / (1.0 - q)
    while u > cdf and k < cap:
        if k >= trials_n:
            return trials_n  # the whole law sits below the cap; round-off left u > cdf
        pmf *= (trials_n - k) / (k + 1.0) * odds
        cdf += pmf
        k += 1
    return k


@njit(cache=True, inline="always")
def _exact_draw(s, n, code, shift, ipar, bayes, cap):
    """One draw of min(tau, cap) from tau's exact law (see :func:`exact_tau`)."""
    if not bayes or code == BLIND:
        draw = 1 + pcg64.integers(s, n)
    elif code == LEDGER:
        draw = 1
    elif code == LIST:
        draw = 1 + pcg64.integers(s, ipar)
    elif code == WINDOWED:
        if pcg64.random(s) * n < ipar:
            draw = 1
        else:
            draw = 1 + pcg64.integers(s, n - ipar)
    else:  # CONTENT
        q = outrank_probability(shift, pcg64.standard_normal(s))
        draw = 1 + censored_binomial(s, n - 1, q, cap - 1)
    return min(draw, cap)


@njit(parallel=True, cache=True)
def exact_tau_points(n, code, shift, ipar, bayes, cap, chunk_point, chunk_start,
                     chunk_stop, seeds, out):
    """:func:`exact_tau` for many games in one call: one prange over every chunk of
    every point, so a grid's points spread over the threads.

    Args:
        n, code, ipar: int64 (points,); shift: float64 (points,); bayes: bool
            (points,); cap: int64 (points,) (see :func:`exact_tau`).
        chunk_point: int64 (chunks,) the point of each chunk; chunk_start,
            chunk_stop: int64 (chunks,) its slice of ``out``; seeds: uint64
            (chunks, 4), one stream per chunk (:func:`sim.rng.chunk_seeds`).
        out: int64 (total trials,), filled in place with min(tau, cap).

    Each chunk writes only its own slice from its own stream, so ``out`` does not
    depend on the number of threads or on the order the chunks run in.
    """
    for c in prange(len(chunk_point)):
        p = chunk_point[c]
        s = pcg64.new_state(seeds, c)
        for t in range(chunk_start[c], chunk_stop[c]):
            out[t] = _exact_draw(s, n[p], code[p], shift[p], ipar[p], bayes[p], cap[p])


def exact_tau(n, code, shift, ipar, bayes, cap, seeds, chunk, trials):
    """Exact O(1)-per-trial sampler of min(tau, cap) for every channel and order.

    The game stops after kappa archives, so positions beyond kappa + 1 are never
    played; callers pass ``cap = kappa + 1`` and get tau censored there.

    Random order (``bayes`` false) or blind: tau ~ Uniform{1..n}. Ledger: tau = 1.
    List: Uniform{1..m}. Windowed: 1 with probability w/n, else Uniform{1..n-w}.
    Content (Bayes): eps ~ N(0,1), C ~ Binomial(n - 1, q(eps)), tau = C + 1, drawn
    censored by :func:`censored_binomial` (O(kappa) per trial for any n).

    Args:
        seeds: uint64 (n_chunks, 4), chunk ``c`` covering trials
            ``[c chunk, min(trials, (c + 1) chunk))``.

    Returns:
        int64 array (trials,) of min(tau, cap).
    """
    n_chunks = len(seeds)
    starts = np.arange(n_chunks, dtype=np.int64) * chunk
    stops = np.minimum(starts + chunk, trials)
    tau = np.empty(trials, dtype=np.int64)
    exact_tau_points(_one(n, np.int64), _one(code, np.int64), _one(shift, np.float64),
                     _one(ipar, np.int64), _one(bayes, np.bool_), _one(cap, np.int64),
                     np.zeros(n_chunks, dtype=np.int64), starts, stops, seeds, tau)
    return tau


def _one(value, dtype) -> np.ndarray:
    """A one-point parameter array for :func:`exact_tau_points`."""
    return np.array([value], dtype=dtype)


# Keep the codes importable next to the kernels that interpret them.
__all__ = ["brute_tau_discrete", "brute_content", "exact_tau", "exact_tau_points",
           "censored_binomial",
           "outrank_probability",
           "LEDGER", "BLIND", "CONTENT", "LIST", "WINDOWED"]
