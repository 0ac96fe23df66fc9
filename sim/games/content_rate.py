"""Exact rate I(J*; Y) in bits of the content channel for any n, by a 2-D quadrature
(Proposition 2; THEORY.md §3 "Exact reduction of the content rate").

In units of sigma the content channel reads ``z_i = eps_i + c [i = J*]`` with
``c = ln(kappa) / sigma`` and the posterior is ``p(J* | Y) = softmax(c z)``, so with
J* = 1 (exchangeability) and ``S = sum_{i >= 2} exp(c eps_i)``

    I = log2 n - E[ log2(1 + S exp(-c z_1)) ].

Frullani's integral ``ln(1 + x) = int_0^oo e^{-u} (1 - e^{-u x}) du / u``, Tonelli and
the substitution ``u = v exp(c z_1)`` turn the n-dimensional expectation into

    E[ln(1 + S e^{-c z_1})] = int_R (1 - psi(x)^{n-1}) psi(x + c^2) dx,
    psi(x) = E[exp(-exp(x + c eps))],  eps ~ N(0, 1),

because ``E[exp(-v S)] = psi(ln v)^{n-1}`` (independent blocks) and
``E[exp(-v e^{c z_1})] = psi(ln v + c^2)`` (z_1 = c + eps). Only psi, a 1-D integral,
depends on the noise, and n enters as an exponent: the cost is the same for
n = 2^4 and n = 2^62, and the value has no sampling error. At c -> 0,
psi(x) = exp(-e^x) and the integral is Frullani's ln n: zero bits, as it must.

Both integrals are trapezoid sums on uniform grids; the integrands are analytic in
a strip (half-width about pi / (4 max(c, 1)) in eps, pi / 2 in x), so the rule
converges geometrically and the steps used leave an error far below 1e-12 bits. The
reported error estimate is the difference to the same sum with twice the step in
both variables (a conservative bound for a geometrically converging rule).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from sim.games.channels import Content, validate_kappa

#: Step of the eps grid in units of 1 / max(c, 1) and of the x grid (nats). The
#: trapezoid error is about exp(-2 pi d / h) for a strip of half-width d: d = pi/(4c)
#: in eps gives exp(-pi^2 / 0.2) ~ 4e-22 relative (1e-11 at the coarse check's 2h);
#: d ~ pi/2 in x gives exp(-pi^2 / 0.1) ~ 1e-43.
_EPS_STEP = 0.1
_X_STEP = 0.1
#: Normal mass beyond this many SD is below 1e-20: ignored on both sides.
_EPS_TAIL = 9.5
#: ln of the largest supported n (2^62, the games' limit).
_LN_N_MAX = 62 * math.log(2.0)
#: Rows of the x grid evaluated at once (bounds memory to ~ rows x eps points).
_ROWS = 256


def _psi_on_grid(x: np.ndarray, c: float, step: float) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray, np.ndarray]:
    """psi(x) and 1 - psi(x) on ``x`` by the trapezoid rule in eps, with step ``step``
    and with step ``2 step`` (for the error estimate).

    1 - psi is summed from ``-expm1`` terms so it keeps its relative accuracy where
    it is tiny (x -> -oo), which ``(n - 1) ln(1 - (1 - psi))`` needs for huge n.
    The eps range [-9.5, c + 9.5] holds the Gaussian mass and, for x -> -oo, the
    tilted mass of 1 - psi ~ e^{x + c^2/2} centred at eps = c.

    Returns:
        ``(psi, one_minus_psi, psi_coarse, one_minus_psi_coarse)``, each shaped like x.
    """
    # An even number of intervals, so every other point is the coarse grid.
    k = 2 * int(math.ceil((c + 2 * _EPS_TAIL) / (2 * step)))
    eps = -_EPS_TAIL + step * np.arange(k + 1)
    w = np.full(k + 1, step)
    w[[0, -1]] *= 0.5
    w_coarse = np.zeros(k + 1)
    w_coarse[::2] = 2 * step
    w_coarse[[0, -1]] *= 0.5
    pdf = np.exp(-0.5 * eps**2) / math.sqrt(2 * math.pi)
    weights = np.stack([w * pdf, w_coarse * pdf], axis=1)          # (k + 1, 2)
    psi = np.empty((x.size, 2))
    omega = np.empty((x.size, 2))
    for start in range(0, x.size, _ROWS):
        with np.errstate(over="ignore"):     # e^t = inf: exp(-inf) = 0, -expm1(-inf) = 1
            t = np.exp(x[start:start + _ROWS, None] + c * eps[None, :])
        psi[start:start + _ROWS] = np.exp(-t) @ weights
        omega[start:start + _ROWS] = -np.expm1(-t) @ weights
    return psi[:, 0], omega[:, 0], psi[:, 1], omega[:, 1]


@functools.lru_cache(maxsize=64)
def _tables(kappa: int, sigma: float):
    """Grids of psi(x), 1 - psi(x) and psi(x + c^2) for one (kappa, sigma), covering
    every n up to 2^62 (the integrand's lower tail is (n-1) e^{x + c^2/2}: the grid
    starts 45 nats below where that reaches 1 for n = 2^62)."""
    c = math.log(kappa) / sigma
    x_lo = -_LN_N_MAX - 0.5 * c * c - 45.0
    # psi(x + c^2) < 1e-20 once x + c^2 - c eps > 4 for every eps > -9.5.
    x_hi = max(-c * c + _EPS_TAIL * c + 50.0, 50.0)
    k = 2 * int(math.ceil((x_hi - x_lo) / (2 * _X_STEP)))
    x = x_lo + _X_STEP * np.arange(k + 1)
    step = _EPS_STEP / max(c, 1.0)
    psi, omega, psi_c, omega_c = _psi_on_grid(x, c, step)
    shifted, _, shifted_c, _ = _psi_on_grid(x + c * c, c, step)
    tables = (x, psi, omega, shifted, psi_c, omega_c, shifted_c)
    for a in tables:
        a.setflags(write=False)
    return tables


def _loss_nats(n: int, x, omega, shifted) -> float:
    """Trapezoid sum of (1 - psi^{n-1}) psi(x + c^2) over x (the integrand vanishes at
    both ends of the grid, so the end weights do not matter)."""
    step = x[1] - x[0]
    with np.errstate(divide="ignore"):      # psi = 0 far right: ln 0 = -inf, psi^{n-1} = 0
        log_psi = np.log1p(-np.minimum(omega, 1.0))
    f = -np.expm1((n - 1) * log_psi) * shifted
    return float(f.sum() * step)


def content_rate_exact(n: int, kappa: int, sigma: float) -> tuple[float, float]:
    """I(J*; Y) in bits of the content channel, exact up to quadrature round-off.

    Args:
        n: blocks, an integer in 2..2^62; kappa: integer >= 2; sigma: noise > 0
            (nats of log-size).

    Returns:
        ``(bits, error_bits)``: the rate in [0, log2 n] and the quadrature error
        estimate (difference to the rule with twice the step; typically < 1e-12).

    Raises:
        ValueError: naming n, kappa or sigma.
    """
    kappa = validate_kappa(kappa)
    sigma = Content(sigma).sigma
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= 2**62:
        raise ValueError(f"n must be an integer number of blocks in 2..2^62, got {n!r}")
    n = int(n)
    x, psi, omega, shifted, psi_c, omega_c, shifted_c = _tables(kappa, float(sigma))
    fine = _loss_nats(n, x, omega, shifted)
    coarse = _loss_nats(n, x[::2], omega_c[::2], shifted_c[::2])
    log2n = math.log2(n)
    bits = log2n - fine / math.log(2.0)
    err = abs(fine - coarse) / math.log(2.0)
    return min(max(bits, 0.0), log2n), err
