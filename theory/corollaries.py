"""Theorem 1 corollaries: threshold, price, and the two endpoints (ledger and size-blind).

Threshold and price are one argument with different targets: if E[Z] <= c then the
affine floor kappa (1 - (I+1)/nu) <= E[Z] <= c forces I >= (kappa - c) nu / kappa - 1.
With c = delta kappa that is (1 - delta) nu - 1; with c = kappa - Delta it is
Delta nu / kappa - 1. :func:`_prove_forced_rate` proves it for a given target.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.optimize import brentq

from theory import bounds
from theory import statements as st
from theory.proof import (ProofRecord, check_inequality_on_grid, prove_nonnegative,
                          prove_zero, spot_check)
from theory.proof import prove_positive


def _prove_forced_rate(rec: ProofRecord, param: sp.Symbol, target: sp.Expr,
                       claimed: sp.Expr) -> None:
    """Prove: E[Z] <= target(param) and E[Z] >= kappa(1 - (I+1)/nu) imply I >= claimed.

    Slack variables: E[Z] = kappa (1 - (I+1)/nu) + S1 and target = E[Z] + S2 with
    S1, S2 >= 0 (the positive part only makes the floor larger, so S1 >= 0 holds with
    or without it). Solving for ``param`` and substituting shows
    I - claimed = nu (S1 + S2) / kappa >= 0. Then: the floor meets the target at I = claimed.
    """
    I, kappa = st.I, st.kappa
    S1, S2 = sp.symbols("S1 S2", nonnegative=True)
    nu = sp.Symbol("nu", positive=True)             # nu > 0 because n > kappa (proved below)
    b = sp.Symbol("b", positive=True)
    prove_positive(rec, st.log2(1 + b), "nu = log2(n/kappa) = log2(1+b) > 0 for n = kappa(1+b)")
    as_nu = {sp.log(st.n / kappa): nu * sp.log(2)}   # nu = log2(n/kappa) as one symbol
    claimed, target = claimed.subs(as_nu), target.subs(as_nu)
    ez = kappa * (1 - (I + 1) / nu) + S1
    solved = sp.solve(sp.Eq(target, ez + S2), param)
    if len(solved) != 1:
        raise AssertionError(f"target {target} is not solvable for {param}")
    gap = I - claimed.subs(param, solved[0])
    prove_zero(rec, gap - nu * (S1 + S2) / kappa,
               f"I - claimed = nu (S1 + S2)/kappa after solving for {param}")
    prove_nonnegative(rec, nu * (S1 + S2) / kappa, "nu (S1 + S2)/kappa >= 0, so I >= claimed")
    prove_zero(rec, kappa * (1 - (claimed + 1) / nu) - target,
               "tight: the unclipped floor equals the target at I = claimed")


def _rate_grid(param_values):
    """(n, kappa, param) points on a grid of games."""
    for n in (5, 64, 1000, 2 ** 20, 2 ** 40):
        for kappa in (2, 4, 32):
            if kappa < n:
                for p in param_values(kappa):
                    yield (n, kappa, p)


def _invert_floor(n: float, kappa: float, target: float) -> float:
    """The rate I at which bounds.bound_affine(I, n, kappa) equals ``target`` (root finding).

    The floor is continuous and non-increasing in I; brentq on [0, log2 n] with
    xtol 1e-13. Only called where the root is interior (grid filtered by the caller).
    """
    return brentq(lambda x: bounds.bound_affine(x, n, kappa) - target, 0.0, np.log2(n),
                  xtol=1e-13)


def _interior(n, kappa, rate) -> bool:
    """The forced rate is strictly inside (0, log2 n), so root finding applies."""
    return 1e-6 < rate < np.log2(n) - 1e-6


def _check_forced_rate(rec, param, target, claimed, numeric, values, name):
    """Symbolic proof plus the two numeric spot checks shared by threshold and price."""
    _prove_forced_rate(rec, param, target, claimed)
    syms = [st.n, st.kappa, param]
    pts = list(_rate_grid(values))
    # bounds.py against the statement: same formula, float round-off only (1e-12 abs,
    # values are O(log2 n) <= 40 bits).
    spot_check(rec, f"bounds.{numeric.__name__} vs sympy", syms, claimed, numeric, pts,
               tol=1e-12)
    # Independent route: invert the numeric affine floor by root finding. Tol 1e-9
    # bits: brentq's xtol 1e-13 times the floor's slope ratio, with ample margin.
    target_f = sp.lambdify(syms, target)
    # A zero target is met by a whole interval of rates (the clipped floor is 0
    # there), so root finding needs a positive target.
    inner = [p for p in pts if _interior(p[0], p[1], numeric(*p)) and target_f(*p) > 0]
    spot_check(rec, f"{name}: root of the affine floor (brentq)", syms, claimed,
               lambda nn, k, p: _invert_floor(nn, k, float(target_f(nn, k, p))), inner,
               tol=1e-9)


def check_threshold(*, claimed: sp.Expr = st.THRESHOLD,
                    numeric=bounds.threshold_rate_bits) -> ProofRecord:
    """Prove E[Z] <= delta kappa forces I >= (1 - delta) nu - 1, and spot-check it."""
    rec = ProofRecord("Corollary: threshold I >= (1-delta) nu - 1",
                      "THEORY.md §2 Corollaries; VISTA App. C(ii)", sp.Ge(st.I, claimed))
    _check_forced_rate(rec, st.delta, st.delta * st.kappa, claimed, numeric,
                       lambda k: (0.0, 0.1, 0.5, 0.9), "threshold")
    return rec


def check_price(*, claimed: sp.Expr = st.PRICE, numeric=bounds.price_rate_bits) -> ProofRecord:
    """Prove the floor's slope is -kappa/nu per bit and E[Z] <= kappa - Delta forces
    I >= Delta nu / kappa - 1; the threshold is the case Delta = (1 - delta) kappa."""
    rec = ProofRecord("Corollary: price kappa/nu per bit, I >= Delta nu/kappa - 1",
                      "THEORY.md §2 Corollaries; VISTA App. C(iii)", sp.Ge(st.I, claimed))
    prove_zero(rec, sp.diff(st.kappa * st.AFFINE_INNER, st.I) + st.kappa / st.NU,
               "d/dI of the unclipped floor = -kappa/nu")
    prove_zero(rec, claimed.subs(st.Delta, (1 - st.delta) * st.kappa) - st.THRESHOLD,
               "Delta = (1 - delta) kappa recovers the threshold corollary")
    _check_forced_rate(rec, st.Delta, st.kappa - st.Delta, claimed, numeric,
                       lambda k: (0.0, 0.5, k / 2, k - 0.25, k), "price")
    return rec


def check_ledger_endpoint(*, numeric=bounds.bound_sum) -> ProofRecord:
    """Full ledger: I = log2 n makes every sum-form term 0 (bound 0 = achieved Z = 0)."""
    n, t, I = st.n, st.t, st.I
    rec = ProofRecord("Endpoint: ledger I = log2 n, bound 0 = Z",
                      "THEORY.md §2 Corollaries (Endpoints); VISTA App. C(i)",
                      sp.Eq(st.SUM_FORM.subs(I, st.log2(n)), 0))
    u = sp.Symbol("u", nonnegative=True)
    # The inner term at I = log2 n is -(1 + log2 t)/log2(n/t): negative for t >= 1.
    inner = st.SUM_INNER.subs(I, st.log2(n))
    prove_zero(rec, sp.expand_log((inner + (1 + st.log2(t)) / st.log2(n / t))
                                  * st.log2(n / t), force=True),
               "inner term at I = log2 n equals -(1 + log2 t)/log2(n/t)")
    prove_positive(rec, 1 + st.log2(1 + u), "1 + log2 t > 0 for t = 1 + u >= 1")
    prove_zero(rec, sp.Max(0, -sp.Symbol("x", positive=True)), "[negative]_+ = 0: every term is 0")
    prove_zero(rec, sp.Min(1 - 1, st.kappa), "tau = 1 (archive J* first): Z = min(0, kappa) = 0")
    # Numeric: bounds.bound_sum at I = log2 n is exactly 0 (tolerance 0: each term is
    # clipped to exactly 0).
    pts = [(nn, k) for nn in (3, 10, 1000, 2 ** 30) for k in (2, 5, 500) if k < nn]
    spot_check(rec, "bounds.bound_sum(log2 n) == 0", [n, st.kappa], sp.Integer(0),
               lambda nn, k: numeric(np.log2(nn), nn, k), pts, tol=0.0)
    return rec


def check_blind_endpoint(*, achieved: sp.Expr = st.BLIND) -> ProofRecord:
    """Size-blind: at I = 0 the sum form is <= the achieved blind E[Z] (consistency).

    Termwise, [1 - 1/log2(n/t)]_+ <= 1 - t/n = P(tau > t) because log2 x <= x for
    x = n/t > 1: ln x <= x/e (convexity of x/e - ln x, minimum 0 at x = e) and e ln 2 >= 1.
    """
    n, t, kappa = st.n, st.t, st.kappa
    rec = ProofRecord("Endpoint: size-blind I = 0, bound <= kappa - kappa(kappa+1)/(2n)",
                      "THEORY.md §2 Corollaries (Endpoints); VISTA App. C(i)",
                      sp.Le(st.SUM_FORM.subs(st.I, 0), achieved))
    x = sp.Symbol("x", positive=True)
    g = x / sp.E - sp.log(x)
    prove_positive(rec, sp.diff(g, x, 2), "g(x) = x/e - ln x is convex on x > 0")
    prove_zero(rec, sp.diff(g, x).subs(x, sp.E), "g'(e) = 0: e is the minimiser")
    prove_zero(rec, g.subs(x, sp.E), "g(e) = 0, so ln x <= x/e")
    prove_positive(rec, sp.E * sp.log(2) - 1, "e ln 2 > 1, so log2 x <= x/(e ln 2) < x")
    # For x > 1, log2 x <= x gives 1/log2 x >= 1/x: the unclipped term is <= 1 - 1/x,
    # and 1 - 1/x >= 0 so clipping keeps it below.
    y = sp.Symbol("y", positive=True)               # y = x - 1 > 0
    prove_nonnegative(rec, 1 - 1 / (1 + y), "1 - t/n = 1 - 1/x >= 0 for x = n/t > 1")
    prove_zero(rec, sp.summation(1 - t / n, (t, 1, kappa)) - achieved,
               "sum_{t=1}^{kappa} (1 - t/n) = the blind closed form")
    pts = [(nn, k) for nn in (3, 4, 10, 100, 10 ** 4) for k in (2, 3, 9, 99) if k < nn]
    # Independent numeric route: the lambdified sympy Sum (Python loop) vs the closed
    # form; tol 1e-12 absorbs round-off of <= 99 terms.
    check_inequality_on_grid(rec, "sum form at I=0 <= blind E[Z]", [n, kappa],
                             st.SUM_FORM.subs(st.I, 0), achieved, pts, tol=1e-12)
    return rec
