"""Plain NumPy/Python references for the eviction-game kernels.

Written the obvious way, independently of :mod:`sim.games.kernels`: the discrete
channels build the observation and sort the blocks explicitly; the content channel
uses vectorised NumPy over a (trials, n) array. They are the test oracles for the
numba kernels and the baselines of ``experiments/bench/bench_eviction.py``.
All take a ``numpy.random.Generator``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from sim.games.channels import Blind, Channel, Ledger, ListChannel, WindowedLedger


def bayes_order_tau(n: int, kappa: int, channel: Channel, rng: np.random.Generator) -> int:
    """One trial by explicit construction: draw J* and Y, sort the blocks by their
    posterior score (ties broken by a uniform key), return J*'s 1-based position.

    Supports the ledger, blind, list and windowed channels (content: see
    :func:`numpy_brute_content`).
    """
    j = int(rng.integers(n))
    score = np.zeros(n)
    if isinstance(channel, Ledger):
        score[:] = 1.0
        score[j] = kappa  # the observed sizes themselves
    elif isinstance(channel, ListChannel):
        m = channel.list_size(n)
        others = np.delete(np.arange(n), j)
        listed = rng.choice(others, size=m - 1, replace=False)
        score[listed] = 1.0
        score[j] = 1.0
    elif isinstance(channel, WindowedLedger):
        listed = rng.choice(n, size=channel.w, replace=False)
        score[:] = 1.0  # unlisted: could be J*
        score[listed] = 0.0  # listed with size l: certainly load-bearing
        if j in set(listed.tolist()):
            score[j] = 2.0  # listed with size L: identified
    elif not isinstance(channel, Blind):
        raise ValueError(f"unsupported channel {channel!r}")
    key = rng.random(n)
    order = np.lexsort((-key, -score))  # decreasing score, then decreasing key
    return int(np.nonzero(order == j)[0][0]) + 1


def exact_content_tau_python(n: int, kappa: int, sigma: float, g: np.random.Generator
                             ) -> int:
    """One trial of the exact content sampler in plain Python, drawing from ``g`` in
    the kernel's order (eps, then one uniform for the inversion): min(tau, kappa + 1).

    The censored count min(C, kappa) of C ~ Binomial(n - 1, q) is found by walking the
    binomial CDF with exact integer binomial coefficients (``math.comb``) in floats.
    """
    shift = math.log(kappa) / sigma
    q = 0.5 * math.erfc((shift + g.standard_normal()) / math.sqrt(2.0))
    if q <= 0.0:
        return 1
    if q >= 1.0:
        return min(n, kappa + 1)
    u = g.random()
    cdf = 0.0
    for k in range(kappa):
        # log pmf via lgamma-free exact comb would overflow for n ~ 2^40: use logs
        log_pmf = (math.lgamma(n) - math.lgamma(k + 1) - math.lgamma(n - k)
                   + k * math.log(q) + (n - 1 - k) * math.log1p(-q))
        cdf += math.exp(log_pmf)
        if u <= cdf:
            return k + 1
    return kappa + 1


def numpy_exact_content_tau(n: int, kappa: int, sigma: float, trials: int,
                            rng: np.random.Generator) -> np.ndarray:
    """Vectorised exact sampler: eps ~ N(0,1), tau = 1 + Binomial(n - 1, q(eps)).

    Returns int64 (trials,).
    """
    shift = math.log(kappa) / sigma
    q = 0.5 * special.erfc((shift + rng.standard_normal(trials)) / math.sqrt(2.0))
    return 1 + rng.binomial(n - 1, q).astype(np.int64)


def numpy_brute_content(n: int, kappa: int, sigma: float, trials: int,
                        rng: np.random.Generator, batch: int = 64, want_rate: bool = True):
    """Vectorised brute force: draw all n observations per trial.

    Args:
        want_rate: also evaluate ``log2(n p(J* | Y))`` (a log-sum-exp over the n
            scores); without it only tau is computed (the same work as the numba
            brute-force kernel with ``want_rate=False``).

    Returns ``(tau, rate_bits)``: int64 (trials,) and float64 (trials,) of
    ``log2(n p(J* | Y))`` (NaN without ``want_rate``), J* being column 0 (the
    labels are exchangeable).
    """
    shift = math.log(kappa) / sigma
    taus, rates = [], []
    for start in range(0, trials, batch):
        b = min(batch, trials - start)
        z = rng.standard_normal((b, n))
        z[:, 0] += shift
        taus.append(1 + np.sum(z[:, 1:] > z[:, :1], axis=1))
        if want_rate:
            lse = special.logsumexp(shift * z, axis=1)
            rates.append(math.log2(n) + (shift * z[:, 0] - lse) / math.log(2.0))
        else:
            rates.append(np.full(b, np.nan))
    return np.concatenate(taus).astype(np.int64), np.concatenate(rates)
