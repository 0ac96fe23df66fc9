"""Exact recovery burden of the content channel under the Bayes order: E[Z] and
E[Z^2] (Proposition 2; THEORY.md §3).

Condition on eps = eps_{J*}. Each of the N = n - 1 load-bearing blocks outranks J*
independently with probability ``q(u) = 1 - Phi(u)`` at ``u = c + eps``,
``c = ln(kappa) / sigma``, so the number C of blocks archived before J* is
Binomial(N, q), tau = C + 1, Z = min(C, kappa) and

    E[Z^p] = sum_{t=1}^{kappa} w_t P(C >= t),   w_t = 1 (p = 1), 2t - 1 (p = 2).

``P(C >= t)`` is the probability that the t-th largest noise among the others, V_t,
exceeds J*'s score u: with the order statistic's density
``f_t(v) = N phi(v) b(t - 1; N - 1, q(v))`` (b the binomial pmf),

    P(C >= t) = P(V_t > c + eps) = int_R Phi(v - c) f_t(v) dv.

(The same identity is integration by parts of ``E_eps[P(C >= t | eps)]``, using
``d/dq P(Bin(N, q) >= t) = N b(t - 1; N - 1, q)``.) The densities f_t depend on
(n, kappa) only, so one table of ``sum_t w_t f_t`` on a v grid serves every sigma:
each E[Z^p] is then one dot product with ``Phi(v - c)``. Every term is positive (no
cancellation), the integrand is analytic and decays like a Gaussian at both ends,
so the trapezoid rule on a uniform grid converges geometrically; the error estimate
is the difference to the same sum with twice the step.

:func:`sim.games.reference.content_moment_quad` is the plain reference (adaptive
quadrature over eps of the binomial tail sums, one ``scipy.stats.binom.sf`` call per
evaluation), kept for tests.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from sim.games.channels import Content, validate_game

#: Trapezoid step in v (noise SD units). The integrand is analytic in a strip of
#: half-width about pi / (2 v*), v* <= 9.3 the largest order statistic's location at
#: n = 2^62, so the error is about exp(-2 pi 0.17 / h): ~1e-46 at h = 0.01 and ~1e-23
#: at the coarse check's 2h.
_STEP = 0.01
#: Lower end of the v grid: below it every f_t is < 1e-30 (the Gaussian tail for
#: t = N, far smaller otherwise).
_V_LO = -12.0
#: Quadrature error (relative to kappa^p) above which a value is refused.
_MAX_ERROR = 1e-10


def _v_hi(N: int) -> float:
    """Upper end of the v grid: there N phi(v) < e^-60, which bounds every f_t."""
    return math.sqrt(2.0 * (math.log(N) + 60.0))


@functools.lru_cache(maxsize=256)
def _table(n: int, kappa: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(v, a1, a2)``: the grid and ``sum_t w_t f_t(v)`` for p = 1 and p = 2, shape
    (points,), read-only; the grid has an even number of intervals so every other
    point is the coarse rule's."""
    N = n - 1
    k = 2 * int(math.ceil((_v_hi(N) - _V_LO) / (2 * _STEP)))
    v = _V_LO + _STEP * np.arange(k + 1)
    t = np.arange(1, kappa + 1)
    j = np.arange(kappa - 1)
    # ln C(N - 1, t - 1) as a running sum of ln((N - 1 - j) / (j + 1)): exact to
    # rounding for N up to 2^62, where gammaln differences would lose ~1e-3.
    log_binom = np.concatenate([[0.0], np.cumsum(np.log(float(N - 1) - j) - np.log(j + 1.0))])
    log_q = special.log_ndtr(-v)[:, None]          # ln q(v) = ln(1 - Phi(v))
    log_p = special.log_ndtr(v)[:, None]           # ln (1 - q(v))
    log_f = (math.log(N) - 0.5 * v[:, None] ** 2 - 0.5 * math.log(2 * math.pi)
             + log_binom[None, :] + (t - 1)[None, :] * log_q + (N - t)[None, :] * log_p)
    f = np.exp(log_f)                              # (points, kappa)
    a1 = f.sum(axis=1)
    a2 = f @ (2.0 * t - 1.0)
    for a in (v, a1, a2):
        a.setflags(write=False)
    return v, a1, a2


def content_Z_moments_with_error(n: int, kappa: int, sigma: float
                                 ) -> tuple[float, float, float]:
    """``(E[Z], E[Z^2], error)`` of the content channel with the Bayes order; error is
    the larger quadrature error estimate, relative to kappa^p (see the module).

    Raises:
        ValueError: naming n, kappa or sigma; RuntimeError if the error estimate
            exceeds 1e-10.
    """
    n, kappa = validate_game(n, kappa)
    sigma = Content(sigma).sigma
    v, a1, a2 = _table(n, kappa)
    weight = special.ndtr(v - math.log(kappa) / sigma)
    fine = _STEP * np.array([weight @ a1, weight @ a2])
    coarse = 2 * _STEP * np.array([weight[::2] @ a1[::2], weight[::2] @ a2[::2]])
    error = float(np.max(np.abs(fine - coarse) / np.array([kappa, kappa * kappa])))
    if error > _MAX_ERROR:
        raise RuntimeError(f"content-channel E[Z] quadrature error {error:.2g} too large "
                           f"for n={n}, kappa={kappa}, sigma={sigma}")
    # Round-off can leave the sums a few ulps outside [0, kappa^p].
    m1 = min(max(float(fine[0]), 0.0), float(kappa))
    m2 = min(max(float(fine[1]), 0.0), float(kappa * kappa))
    return m1, m2, error


def content_Z_moments(n: int, kappa: int, sigma: float) -> tuple[float, float]:
    """``(E[Z], E[Z^2])`` in blocks and blocks^2 of the content channel with the Bayes
    order, exact up to quadrature round-off (< 1e-10 relative to kappa^p; typically
    ~1e-15). One table per (n, kappa), shared by every sigma.

    Args:
        n: blocks, an integer > kappa (any size up to 2^62, e.g. 2^40); kappa: integer
            >= 2; sigma: noise > 0 (nats of log-size).

    Raises:
        ValueError: naming n, kappa or sigma; RuntimeError as
            :func:`content_Z_moments_with_error`.
    """
    m1, m2, _ = content_Z_moments_with_error(n, kappa, sigma)
    return m1, m2


def content_EZ(n: int, kappa: int, sigma: float, *, power: int = 1) -> float:
    """E[Z^power] (blocks^power) of the content channel with the Bayes order; power 1
    is the recovery burden E[Z], power 2 gives Var Z = E[Z^2] - E[Z]^2.

    Args:
        n: blocks (> kappa; any size, e.g. 2^40); kappa: integer >= 2; sigma: noise > 0.
        power: 1 or 2.

    Returns:
        E[Z^power], in [0, kappa^power].

    Raises:
        ValueError: naming n, kappa, sigma or power.
    """
    if power not in (1, 2):
        raise ValueError(f"power must be 1 or 2, got {power!r}")
    return content_Z_moments(n, kappa, sigma)[power - 1]
