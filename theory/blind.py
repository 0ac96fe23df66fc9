"""Size-blind closed form: for tau ~ Uniform{1..n},
E[min(tau - 1, kappa)] = kappa - kappa(kappa+1)/(2n).

Also home of :func:`uniform_burden_branches`, the sympy summation of
E[min(U - 1, kappa)] for U ~ Uniform{1..m} that the list-channel and windowed-ledger
checks reuse (one derivation, three results).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from theory import bounds
from theory import statements as st
from theory.proof import ProofRecord, prove_zero, spot_check


def uniform_burden_branches(m: sp.Expr, kappa: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(high, low): E[min(U - 1, kappa)] for U ~ Uniform{1..m} by direct summation.

    high: m >= kappa + 1, split at s = kappa + 1 where min(s - 1, kappa) switches from
    s - 1 to kappa; low: m <= kappa + 1, where the min never binds (s - 1 <= m - 1 <= kappa).
    """
    s = sp.Symbol("s", integer=True, positive=True)
    high = (sp.summation(s - 1, (s, 1, kappa + 1)) + sp.summation(kappa, (s, kappa + 2, m))) / m
    low = sp.summation(s - 1, (s, 1, m)) / m
    return sp.simplify(high), sp.simplify(low)


def _direct_blind(n: float, kappa: float) -> float:
    """E[min(tau-1, kappa)] for tau ~ Uniform{1..n}: the average over all n positions."""
    return float(np.mean(np.minimum(np.arange(int(n)), kappa)))


def check_blind_closed_form(*, closed_form: sp.Expr = st.BLIND,
                            numeric=bounds.blind_EZ) -> ProofRecord:
    """Prove the size-blind closed form two ways and spot-check it.

    ``closed_form`` (sympy in st.n, st.kappa) and ``numeric`` are the claims under test.
    """
    n, kappa = st.n, st.kappa
    rec = ProofRecord("Size-blind E[Z] = kappa - kappa(kappa+1)/(2n)",
                      "THEORY.md §2 Corollaries (Endpoints); VISTA App. C(i)",
                      sp.Eq(sp.Symbol("E[Z]"), closed_form))
    high, _ = uniform_burden_branches(n, kappa)
    prove_zero(rec, high - closed_form,
               "direct sum (1/n)[sum_{s<=kappa+1}(s-1) + sum_{s>kappa+1} kappa] (n >= kappa+1)")
    t = sp.Symbol("t", integer=True, positive=True)
    tail = sp.summation((n - t) / n, (t, 1, kappa))
    prove_zero(rec, tail - closed_form,
               "tail-sum route: sum_{t=1}^{kappa} P(tau > t) = sum (n - t)/n")

    # Numeric: against a direct average over the n positions (independent route), and
    # bounds.blind_EZ against the lambdified statement. Both are O(1)-sized values
    # computed in float64; relative 1e-12 is far above their round-off (~n * 1e-16).
    grid = [(nn, k) for nn in (3, 4, 10, 101, 5000) for k in (2, 3, 9, 100, 4999) if k < nn]
    spot_check(rec, "closed form vs direct average over tau", [n, kappa], closed_form,
               _direct_blind, grid, tol=1e-12, relative=True)
    big = grid + [(2.0 ** 40, 2), (2.0 ** 40, 2 ** 20)]
    spot_check(rec, "bounds.blind_EZ vs sympy", [n, kappa], closed_form, numeric, big,
               tol=1e-12, relative=True)
    return rec
