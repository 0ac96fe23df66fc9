"""Windowed ledger (a dashboard capped to w of n rows): its rate and E[Z].

Y gives the exact sizes of a uniformly random set W of w blocks. With probability
w/n, J* is in W and identified (H = 0, archived first, Z = 0); otherwise the posterior
is uniform on the n - w unlisted blocks, archived in random order. So

    I    = log2 n - (1 - w/n) log2(n - w)          (w = n: the limit log2 n),
    E[Z] = (1 - w/n) E[min(U - 1, kappa)],  U ~ Uniform{1..n-w}.

THEORY's closed form (1 - w/n)[kappa - kappa(kappa+1)/(2(n - w))] is exact iff
n - w >= kappa (checked here): below that it under-states E[Z].
"""

from __future__ import annotations

import sympy as sp

from theory import bounds, brute
from theory import statements as st
from theory.blind import uniform_burden_branches
from theory.proof import ProofRecord, prove_zero, spot_check
from theory.proof import prove_positive


#: THEORY.md's closed form for the windowed E[Z] (the high branch at m = n - w).
WINDOWED_CLOSED_FORM = (1 - st.w / st.n) * st.UNIFORM_HIGH.subs(st.m, st.n - st.w)


def check_windowed_ledger(*, rate: sp.Expr = st.WINDOWED_RATE,
                          closed_form: sp.Expr = WINDOWED_CLOSED_FORM,
                          rate_numeric=bounds.windowed_rate_bits,
                          burden_numeric=bounds.windowed_EZ) -> ProofRecord:
    """Prove the windowed rate and E[Z] (with its exact validity range) and spot-check them.

    ``rate``, ``closed_form`` (THEORY's high-branch E[Z], sympy in st.n, st.kappa, st.w)
    and the numeric functions are the claims under test.
    """
    n, w, kappa, m = st.n, st.w, st.kappa, st.m
    rec = ProofRecord("Windowed ledger: rate and E[Z]", "THEORY.md §2 Windowed ledger",
                      sp.Eq(sp.Symbol("I"), rate))
    entropy = (w / n) * 0 + ((n - w) / n) * st.log2(n - w)
    prove_zero(rec, st.log2(n) - entropy - rate,
               "I = log2 n - [(w/n) 0 + (1 - w/n) log2(n - w)]")
    frac = w / n
    prove_zero(rec, sp.expand_log(rate - (frac * st.log2(n) - (1 - frac) * st.log2(1 - frac)),
                                  force=True),
               "cancellation-free form (w/n) log2 n - (1 - w/n) log2(1 - w/n) (used by bounds.py)")
    prove_zero(rec, rate.subs(w, 0), "w = 0: I = 0 (size-blind)")
    prove_zero(rec, rate.subs(w, n - 1) - st.log2(n), "w = n - 1: I = log2 n already")
    wr = sp.Symbol("w", positive=True)              # real w for the one-sided limit
    prove_zero(rec, sp.limit(rate.subs(w, wr), wr, n, "-") - st.log2(n),
               "w -> n: I -> log2 n (defines the rate at w = n)")
    high, low = uniform_burden_branches(m, kappa)
    prove_zero(rec, closed_form - (1 - w / n) * high.subs(m, n - w),
               "closed form = (1 - w/n) E[min(U-1, kappa)], U ~ Uniform{1..n-w}, n-w >= kappa+1")
    prove_zero(rec, (high - low).subs(m, kappa),
               "the high branch is also exact at n - w = kappa (so validity is n - w >= kappa)")
    u = sp.Symbol("u", nonnegative=True)
    prove_positive(rec, (-2 * m * (high - low)).subs(m, kappa - 1 - u).factor(),
                   "n - w = kappa - 1 - u < kappa: closed form < true E[Z] (invalid there)")

    # Numeric 1 (independent): the literal game for every J*, window and order of the
    # unlisted blocks, with exact Fractions. Tol 1e-12: only the float conversion.
    # w = n is checked separately: lambdify evaluates every Piecewise branch, and the
    # high branch divides by n - w.
    def literal(nn, k, ww):
        return float(brute.windowed_EZ(int(nn), int(ww), int(k)))
    lit = [(nn, k, ww) for nn in (4, 5, 6) for k in (2, 3, 4) for ww in range(nn) if k < nn]
    spot_check(rec, "piecewise E[Z] vs literal enumeration", [n, kappa, w], st.WINDOWED_EZ,
               literal, lit, tol=1e-12)
    valid = [p for p in lit if p[0] - p[2] >= p[1]]
    spot_check(rec, "closed form vs literal enumeration where n - w >= kappa",
               [n, kappa, w], closed_form, literal, valid, tol=1e-12)
    full = [(nn, k, nn) for nn in (4, 5, 6) for k in (2, 3) if k < nn]
    spot_check(rec, "w = n: E[Z] = 0, literal and bounds.windowed_EZ", [n, kappa, w],
               sp.Integer(0), lambda nn, k, ww: literal(nn, k, ww) + abs(burden_numeric(nn, k, ww)),
               full, tol=0.0)
    # Numeric 2 (independent): the rate from the joint pmf of (J*, Y), n <= 7, all w
    # (w = n against bounds, whose w = n value is the limit). Tol 1e-12: float
    # summation over <= 35 windows x 7 rows.
    rpts = [(nn, ww) for nn in (2, 3, 5, 7) for ww in range(nn + 1)]
    spot_check(rec, "bounds.windowed_rate_bits vs joint-pmf mutual information", [n, w],
               sp.Integer(0), lambda nn, ww: rate_numeric(nn, ww) - brute.mutual_information_bits(
                   brute.windowed_joint(int(nn), int(ww))), rpts, tol=1e-12)
    # Numeric 3: bounds.py against the statements for w < n, up to n = 2^30. The
    # lambdified textbook rate cancels two ~log2 n terms, so it is only good to
    # ~log2(n) * 1e-16 absolute: tolerance 1e-12 bits absolute. E[Z]: relative 1e-12.
    big = [(nn, ww) for nn in (2, 10, 1000, 2 ** 30) for ww in (0, 1, 7, nn - 1) if ww < nn]
    spot_check(rec, "bounds.windowed_rate_bits vs sympy", [n, w], rate, rate_numeric, big,
               tol=1e-12)
    ez_pts = [(nn, k, ww) for nn, ww in big for k in (2, 5, 999) if k < nn]
    spot_check(rec, "bounds.windowed_EZ vs sympy", [n, kappa, w], st.WINDOWED_EZ,
               burden_numeric, ez_pts, tol=1e-12, relative=True)
    return rec
