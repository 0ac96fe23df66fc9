"""Theorem 1: the sum-form bound is at least the affine floor, for 1 <= t <= kappa < n.

sum_{t=1}^{kappa} [1 - (I+1)/log2(n/t)]_+ >= kappa [1 - (I+1)/nu]_+,  nu = log2(n/kappa).

Proof: for t <= kappa < n, log2(n/t) >= nu > 0, so each inner term is at least the
floor's inner term (I + 1 > 0); the positive part is monotone (three cases); summing
kappa terms that each dominate the same constant gives kappa times it.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from theory import bounds
from theory import statements as st
from theory.proof import (ProofRecord, check_inequality_on_grid, prove_nonnegative,
                          prove_zero, spot_check)
from theory.proof import prove_positive


def prove_positive_part_monotone(rec: ProofRecord) -> None:
    """Record x <= y  =>  max(0, x) <= max(0, y), case by case (y = x + d, d >= 0)."""
    u, e = sp.symbols("u e", nonnegative=True)
    v = sp.Symbol("v", positive=True)
    d = sp.Symbol("d", nonnegative=True)
    prove_nonnegative(rec, sp.Max(0, u + d) - sp.Max(0, u), "[.]_+ monotone, case 0 <= x")
    prove_nonnegative(rec, sp.Max(0, e) - sp.Max(0, -v), "[.]_+ monotone, case x < 0 <= y")
    prove_nonnegative(rec, sp.Max(0, -v) - sp.Max(0, -v - d), "[.]_+ monotone, case y < 0")


def _grid():
    """(I, n, kappa) points with integer n > kappa >= 2 and 0 <= I <= log2 n."""
    for n in (3, 5, 16, 100, 1000, 2 ** 20):
        for kappa in (2, 3, 4, 15, 99, 500):
            if kappa < n:
                for I in np.linspace(0.0, np.log2(n), 7):
                    yield (float(I), n, kappa)


def check_sum_ge_affine(*, floor_inner: sp.Expr = st.AFFINE_INNER,
                        sum_numeric=bounds.bound_sum,
                        affine_numeric=bounds.bound_affine) -> ProofRecord:
    """Prove sum form >= kappa [floor_inner]_+ and spot-check both bounds numerically.

    ``floor_inner`` (sympy in st.I, st.n, st.kappa) and the two numeric functions are
    the claims under test.
    """
    I, n, kappa, t = st.I, st.n, st.kappa, st.t
    floor = kappa * sp.Max(0, floor_inner)
    rec = ProofRecord("Theorem 1: sum form >= affine floor",
                      "THEORY.md §2 Bound; VISTA Theorem 1, eq. (12)",
                      sp.Ge(st.SUM_FORM, floor))
    # Domain 1 <= t <= kappa < n as reals: kappa = t(1 + a), n = kappa(1 + b), a >= 0, b > 0.
    tt = sp.Symbol("t", positive=True)
    a, A = sp.Symbol("a", nonnegative=True), sp.Symbol("A", nonnegative=True)
    b, B = sp.Symbol("b", positive=True), sp.Symbol("B", positive=True)
    dom = {t: tt, kappa: tt * (1 + a), n: tt * (1 + a) * (1 + b)}
    prove_nonnegative(rec, sp.log(1 + a), "A := ln(kappa/t) = ln(1+a) >= 0")
    prove_positive(rec, sp.log(1 + b), "B := ln(n/kappa) = ln(1+b) > 0")
    gap = sp.expand_log(st.SUM_INNER.subs(dom) - floor_inner.subs(dom), force=True)
    gap = gap.subs({sp.log(1 + a): A, sp.log(1 + b): B})
    prove_nonnegative(rec, gap, "inner(t) - floor inner >= 0 (log2(n/t) >= nu > 0, I+1 > 0)")
    prove_positive_part_monotone(rec)
    c = sp.Symbol("c")
    prove_zero(rec, sp.summation(c, (t, 1, kappa)) - kappa * c,
               "sum_{t=1}^{kappa} of the floor term = kappa x floor term")

    # Numeric: the inequality on a grid via the lambdified sympy Sum (a plain Python
    # loop, independent of bounds.py); then bounds.py against the same statements.
    # Absolute tol 1e-9: terms are <= 1 and the sum has <= 500 of them; the only
    # round-off is the cancellation in 1 - (I+1)/log2(n/t), ~1e-13 at worst here.
    pts = list(_grid())
    check_inequality_on_grid(rec, "affine floor <= sum form", [I, n, kappa], floor,
                             st.SUM_FORM, pts, tol=1e-9)
    spot_check(rec, "bounds.bound_sum vs sympy Sum", [I, n, kappa], st.SUM_FORM,
               sum_numeric, pts, tol=1e-9)
    spot_check(rec, "bounds.bound_affine vs sympy", [I, n, kappa], floor,
               affine_numeric, pts, tol=1e-9)
    return rec
