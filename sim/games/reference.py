"""Plain NumPy/Python references for the eviction-game kernels.

Written the obvious way, independently of :mod:`sim.games.kernels`: the discrete
channels build the observation and sort the blocks explicitly; the content channel
uses vectorised NumPy over a (trials, n) array. They are the test oracles for the
numba kernels and the baselines of ``experiments/bench/bench_eviction.py``.
The samplers take a ``numpy.random.Generator``. :func:`content_moment_quad` is the
plain adaptive quadrature of the content channel's E[Z^p] that
:mod:`sim.games.content_burden` replaced (its test oracle and benchmark baseline).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special, stats

from sim.games.channels import (Blind, Channel, Content, Ledger, ListChannel,
                                WindowedLedger, validate_game)


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


#: Integration range of :func:`content_moment_quad` in units of eps; the normal mass
#: outside is < 2e-32.
_EPS_RANGE = 12.0


def content_moment_quad(n: int, kappa: int, sigma: float, power: int = 1, *,
                        epsabs: float = 1e-11, epsrel: float = 1e-10) -> float:
    """E[Z^power] of the content channel with the Bayes order by adaptive quadrature
    over eps = eps_{J*} of the binomial tail sums (THEORY.md §3):

        E[min(C, kappa)^p | eps] = sum_{t=1}^{kappa} w_t P(C >= t),
        C ~ Binomial(n - 1, 1 - Phi(ln(kappa)/sigma + eps)), w_t = 1 or 2t - 1,

    one ``scipy.stats.binom.sf`` call per evaluation (the path ``ctxsim run theorem1``
    used before the tabulated :func:`sim.games.content_burden.content_Z_moments`).

    Args:
        n: blocks (> kappa); kappa: integer >= 2; sigma: noise > 0; power: 1 or 2;
        epsabs, epsrel: ``scipy.integrate.quad`` tolerances (epsabs relative to
            kappa^(power - 1)).

    Raises:
        ValueError: naming n, kappa, sigma or power; RuntimeError if quad's own error
            estimate exceeds 1e-8 kappa^(power - 1).
    """
    n, kappa = validate_game(n, kappa)
    sigma = Content(sigma).sigma
    if power not in (1, 2):
        raise ValueError(f"power must be 1 or 2, got {power!r}")
    scale = float(kappa) ** (power - 1)
    shift = math.log(kappa) / sigma
    t = np.arange(1, kappa + 1)
    weights = 1.0 if power == 1 else 2.0 * t - 1.0
    # The integrand switches from kappa to 0 where (n - 1) q(eps) crosses 1..kappa;
    # telling quad where keeps it from stepping over that edge when n is huge.
    points = sorted({float(np.clip(stats.norm.isf(min(x / (n - 1), 1 - 1e-16)) - shift,
                                   -_EPS_RANGE, _EPS_RANGE))
                     for x in (0.5, 1.0, float(kappa), 2.0 * kappa)})

    def integrand(e):
        q = 0.5 * special.erfc((shift + e) / math.sqrt(2.0))
        return stats.norm.pdf(e) * float((weights * stats.binom.sf(t - 1, n - 1, q)).sum())

    value, err = integrate.quad(integrand, -_EPS_RANGE, _EPS_RANGE, points=points,
                                limit=400, epsabs=epsabs * scale, epsrel=epsrel)
    if err > 1e-8 * scale:
        raise RuntimeError(f"content_moment_quad error {err:.2g} too large for n={n}, "
                           f"kappa={kappa}, sigma={sigma}")
    return float(value)
