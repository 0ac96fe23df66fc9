"""Rates I(J*; Y) in bits of the eviction game's channels (THEORY.md §2-§4).

Exact values where a closed form exists (ledger log2 n, blind 0, list log2(n/m),
windowed ledger), the content channel's exact 2-D quadrature
(:mod:`sim.games.content_rate`), and its independent brute-force check, the
exact-posterior Monte Carlo estimator

    I(J*; Y) = H(J*) - H(J* | Y) = E[ log2( n p(J* | Y) ) ],
    p(J* = i | Y) = softmax_i(a Y_i),  a = ln(kappa) / sigma^2        (Proposition 2),

and, for n = 2, the same expectation as a one-dimensional quadrature (a deterministic
anchor for the Monte Carlo estimator).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import integrate, stats

from sim.games.channels import Channel, Content, validate_kappa
from sim.games import kernels
from sim.games.content_rate import content_rate_exact
from sim.games.eviction import seed_chunks


@dataclasses.dataclass(frozen=True)
class RateEstimate:
    """A rate in bits with its standard error.

    Attributes:
        bits: the estimate of I(J*; Y) in bits.
        se_bits: its standard error in bits (0 for exact values).
        trials: Monte Carlo trials used (0 for exact values).
        method: "exact", "quadrature" or "monte-carlo".
    """

    bits: float
    se_bits: float
    trials: int
    method: str


def control_variate_mean(samples: np.ndarray, control: np.ndarray) -> tuple[float, float]:
    """Mean of ``samples`` with a zero-mean control variate, and its standard error.

    Uses the regression estimator ``mean(x) - b mean(c)`` with ``b = cov(x, c) /
    var(c)`` estimated from the same sample (bias O(1/trials), far below the
    standard error for the trial counts used here). The standard error is that of
    the residuals ``x - b c``.

    Args:
        samples, control: arrays of the same shape (trials,), trials >= 3, of real
            numbers (array-likes of ints or Fractions are read as float64).

    Returns:
        ``(mean, standard error)``, floats. A constant control carries no
        information: then ``b = 0`` and the result is the plain mean, its standard
        error still with ``trials - 2`` degrees of freedom.

    Raises:
        ValueError: if the shapes differ or fewer than 3 samples are given.
    """
    x = np.asarray(samples, dtype=float)
    c = np.asarray(control, dtype=float)
    if x.shape != c.shape or x.ndim != 1 or x.size < 3:
        raise ValueError(f"samples and control must be 1-D of equal length >= 3, got "
                         f"{x.shape} and {c.shape}")
    cc = c - c.mean()
    var_c = float(cc @ cc)
    b = float((x - x.mean()) @ cc) / var_c if var_c > 0 else 0.0
    resid = x - b * c
    # One degree of freedom is spent on b.
    se = float(np.sqrt(np.sum((resid - resid.mean()) ** 2) / (x.size - 2) / x.size))
    return float(resid.mean()), se


def validate_rate_args(n, kappa) -> tuple[int, int]:
    """Check a channel's size parameters: n >= 2 blocks, kappa an integer >= 2.

    Unlike the game (which needs n > kappa), a rate is defined for any n >= 2.

    Raises:
        ValueError: naming ``n`` or ``kappa``.
    """
    kappa = validate_kappa(kappa)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer number of blocks >= 2, got {n!r}")
    return int(n), kappa


def content_rate_mc(n: int, kappa: int, sigma: float, *, trials: int = 2000, seed=0,
                    control_variate: bool = True) -> RateEstimate:
    """Monte Carlo I(J*; Y) in bits for the content channel (Proposition 2).

    Each trial draws the n observations (numba kernel, O(n)) and evaluates
    ``log2(n p(J* | Y))`` with a log-sum-exp. With ``control_variate`` the noise
    eps_{J*} (known mean 0) absorbs most of the per-trial variance.

    Args:
        n: blocks (>= 2); kappa: integer >= 2; sigma: noise > 0; trials >= 3;
            seed: int, SeedSequence or Generator.

    Returns:
        :class:`RateEstimate` in bits.

    Raises:
        ValueError: naming n, kappa, sigma or trials.
    """
    n, kappa = validate_rate_args(n, kappa)
    shift = math.log(kappa) / Content(sigma).sigma
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 3:
        raise ValueError(f"trials must be an integer >= 3, got {trials!r}")
    seeds, chunk, _ = seed_chunks(seed, trials, n)
    _, rate, eps_j = kernels.brute_content(n, shift, seeds, chunk, trials, True)
    if control_variate:
        bits, se = control_variate_mean(rate, eps_j)
    else:
        bits, se = float(rate.mean()), float(rate.std(ddof=1) / math.sqrt(trials))
    return RateEstimate(bits, se, trials, "monte-carlo")


def content_rate_n2(kappa: int, sigma: float) -> float:
    """I(J*; Y) in bits for the content channel with n = 2 blocks, by quadrature.

    With D = Y_{J*} - Y_other ~ N(ln kappa, 2 sigma^2), p(J* | Y) = 1 / (1 + e^{-aD}),
    so I = 1 - E[log2(1 + e^{-aD})], a = ln(kappa) / sigma^2.

    Raises:
        ValueError: naming kappa (integer >= 2) or sigma (> 0).
    """
    validate_rate_args(2, kappa)
    sigma = Content(sigma).sigma
    a = math.log(kappa) / sigma**2
    mean, sd = math.log(kappa), math.sqrt(2.0) * sigma

    def integrand(x):
        d = mean + sd * x
        return stats.norm.pdf(x) * np.logaddexp(0.0, -a * d) / math.log(2.0)

    loss, err = integrate.quad(integrand, -40.0, 40.0, limit=400, epsabs=1e-13,
                               epsrel=1e-12)
    if err > 1e-9:
        raise RuntimeError(f"n = 2 rate quadrature error {err:.2g} for kappa={kappa}, "
                           f"sigma={sigma}")
    return 1.0 - loss


def rate_bits(n: int, kappa: int, channel: Channel, *, trials: int = 2000, seed=0
              ) -> RateEstimate:
    """I(J*; Y) in bits for any channel: closed forms, and for the content channel
    the exact 2-D quadrature :func:`sim.games.content_rate.content_rate_exact`
    (``se_bits`` is then its quadrature error estimate, ``trials`` 0). ``trials`` and
    ``seed`` are kept for callers that pass them; no channel draws samples now (the
    Monte Carlo estimator :func:`content_rate_mc` is the independent check).

    Raises:
        ValueError: naming the bad parameter.
    """
    n, kappa = validate_rate_args(n, kappa)
    channel.validate(n)
    exact = channel.exact_rate_bits(n, kappa)
    if exact is not None:
        return RateEstimate(float(exact), 0.0, 0, "exact")
    if isinstance(channel, Content):
        bits, err = content_rate_exact(n, kappa, channel.sigma)
        return RateEstimate(bits, err, 0, "quadrature")
    raise ValueError(f"no rate available for channel {channel!r}")
