"""Tail-sum identity: E[Z] = sum_{t=1}^{kappa} P(tau > t) for Z = min(tau - 1, kappa).

Proof (THEORY.md §2 "Bound"): pointwise, min(s - 1, kappa) = sum_{t=1}^{kappa} [s > t]
for every positive integer s (two cases, by sympy summation); taking expectations
and exchanging the two finite sums (linearity) gives the identity for any law of tau
on the positive integers. The exchange is verified as an exact polynomial identity
in symbolic probabilities p_1..p_M for every support size M <= 9 and kappa <= 8.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from theory.proof import ProofRecord, prove_zero, spot_check
from theory.proof import prove_all_zero

#: Largest support size / kappa of the symbolic generic-pmf instances (kept small: the
#: check runs in well under a second).
_MAX_SUPPORT, _MAX_KAPPA = 9, 8


def _linearity_instances(tail_start: int):
    """E[min(tau-1, k)] - sum_{t=tail_start}^{k} P(tau > t), one per (M, k), with
    tau ~ (p_1..p_M) symbolic; each must be the zero polynomial."""
    for size in range(1, _MAX_SUPPORT + 1):
        p = sp.symbols(f"p1:{size + 1}")
        for k in range(1, _MAX_KAPPA + 1):
            direct = sum(p[s - 1] * min(s - 1, k) for s in range(1, size + 1))
            tails = sum(p[s - 1] for t in range(tail_start, k + 1)
                        for s in range(t + 1, size + 1))
            yield direct - tails


def _geometric_direct(q: float, k: float) -> float:
    """E[min(tau-1, k)] for tau ~ Geometric(q) on 1, 2, ... by direct summation over s.

    Truncated where (1-q)^s < 1e-18: the neglected mass contributes < k * 1e-18.
    """
    s_max = int(np.ceil(np.log(1e-18) / np.log1p(-q))) + 1
    s = np.arange(1, s_max + 1)
    pmf = q * (1 - q) ** (s - 1)
    return float(np.sum(pmf * np.minimum(s - 1, k)))


def check_recovery_burden(*, tail_start: int = 1) -> ProofRecord:
    """Prove E[Z] = sum_{t=tail_start}^{kappa} P(tau > t) (true for tail_start = 1 only).

    ``tail_start`` exists so tests can show a perturbed statement is rejected.
    """
    rec = ProofRecord("E[Z] = sum_t P(tau > t)", "THEORY.md §2 Bound; VISTA App. B, eq. (9)",
                      f"E[min(tau-1, kappa)] = sum_{{t={tail_start}}}^kappa P(tau > t)")
    t = sp.Symbol("t", integer=True)
    j, d = sp.symbols("j d", integer=True, nonnegative=True)
    # Case s = 1 + j <= kappa + 1 (kappa = j + d): indicators are 1 for t <= j, 0 after.
    kappa = j + d
    indicator_sum = (sp.summation(1, (t, tail_start, j)) + sp.summation(0, (t, j + 1, kappa)))
    prove_zero(rec, indicator_sum - sp.Min(j, kappa),
               "tau = 1 + j <= kappa + 1: sum_t [tau > t] = j = min(tau - 1, kappa)")
    # Case s = kappa + 1 + d: every t <= kappa < s, all indicators are 1.
    k = sp.Symbol("k", integer=True, nonnegative=True)
    prove_zero(rec, sp.summation(1, (t, tail_start, k)) - sp.Min(k + d, k),
               "tau = kappa + 1 + d: sum_t [tau > t] = kappa = min(tau - 1, kappa)")
    prove_all_zero(rec, _linearity_instances(tail_start),
                   f"linearity: exact in symbolic p_1..p_M, all M <= {_MAX_SUPPORT}, "
                   f"kappa <= {_MAX_KAPPA}")

    # Numeric (independent route, infinite support): tau ~ Geometric(q). The tail sum
    # is summed symbolically; the reference sums the pmf directly. Absolute tol 1e-12:
    # float summation of <= ~4000 terms each < kappa, plus < kappa * 1e-18 truncation.
    q = sp.Symbol("q", positive=True)
    kk = sp.Symbol("kappa", positive=True, integer=True)
    tail_sum = sp.summation((1 - q) ** t, (t, tail_start, kk))
    grid = {q: [0.01, 0.1, 0.3, 0.5, 0.9], kk: [1, 2, 3, 8, 50, 400]}
    spot_check(rec, "geometric tau: symbolic tail sum vs direct pmf sum", [q, kk],
               tail_sum, _geometric_direct, grid, tol=1e-12)
    return rec
