"""Semi-analytic recovery burden of the content channel under the Bayes order
(Proposition 2; THEORY.md §3).

Condition on eps = eps_{J*}. Each of the n - 1 load-bearing blocks outranks J*
independently with probability ``q(eps) = 1 - Phi(ln(kappa)/sigma + eps)``, so the
number C of blocks archived before J* is Binomial(n - 1, q(eps)), tau = C + 1 and

    E[Z] = E_eps[ E[min(C, kappa) | eps] ] = E_eps[ sum_{t=1}^{kappa} P(C >= t | eps) ],

a one-dimensional integral against the standard normal density. This is the
reference the Monte Carlo kernels are tested against.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import integrate, special, stats

from sim.games.channels import Content, validate_game

#: Integration range in units of eps; the normal mass outside is < 2e-32.
_EPS_RANGE = 12.0


def _conditional_moment(eps: float, n: int, kappa: int, shift: float, power: int) -> float:
    """E[min(C, kappa)^power | eps] for C ~ Binomial(n - 1, q(eps)), power 1 or 2.

    Tail sums: E[min(C, k)] = sum_{t=1}^{k} P(C >= t) and
    E[min(C, k)^2] = sum_{t=1}^{k} (2t - 1) P(C >= t) (t^2 - (t-1)^2 = 2t - 1).
    """
    q = 0.5 * special.erfc((shift + eps) / math.sqrt(2.0))
    t = np.arange(1, kappa + 1)
    weights = 1.0 if power == 1 else 2.0 * t - 1.0
    return float((weights * stats.binom.sf(t - 1, n - 1, q)).sum())


@functools.lru_cache(maxsize=4096)
def content_EZ(n: int, kappa: int, sigma: float, *, epsabs: float = 1e-11,
               epsrel: float = 1e-10, power: int = 1) -> float:
    """E[Z^power] (blocks^power) of the content channel with the Bayes order, by
    quadrature; power 1 is the recovery burden E[Z], power 2 gives Var Z = E[Z^2] - E[Z]^2.

    Args:
        n: blocks (> kappa; any size, e.g. 2^40); kappa: integer >= 2; sigma: noise > 0.
        epsabs, epsrel: quadrature tolerances passed to ``scipy.integrate.quad``
            (relative to kappa^(power - 1) for power 2).
        power: 1 or 2.

    Returns:
        E[Z^power], in [0, kappa^power].

    Raises:
        ValueError: naming n, kappa or sigma if out of range; RuntimeError if the
            quadrature's own error estimate exceeds 1e-8.
    """
    n, kappa = validate_game(n, kappa)
    sigma = Content(sigma).sigma
    if power not in (1, 2):
        raise ValueError(f"power must be 1 or 2, got {power!r}")
    scale = float(kappa) ** (power - 1)
    shift = math.log(kappa) / sigma
    # The integrand switches from kappa to 0 where (n - 1) q(eps) crosses 1..kappa;
    # telling quad where keeps it from stepping over that edge when n is huge.
    points = sorted({float(np.clip(stats.norm.isf(min(x / (n - 1), 1 - 1e-16)) - shift,
                                   -_EPS_RANGE, _EPS_RANGE))
                     for x in (0.5, 1.0, float(kappa), 2.0 * kappa)})

    def integrand(e):
        return stats.norm.pdf(e) * _conditional_moment(e, n, kappa, shift, power)

    value, err = integrate.quad(integrand, -_EPS_RANGE, _EPS_RANGE, points=points,
                                limit=400, epsabs=epsabs * scale, epsrel=epsrel)
    if err > 1e-8 * scale:
        raise RuntimeError(f"content_EZ quadrature error {err:.2g} too large for "
                           f"n={n}, kappa={kappa}, sigma={sigma}")
    return float(value)
