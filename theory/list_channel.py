"""Achievability (Appendix D): the list channel of rate r and its E[Z], both branches.

Y is a uniformly random m-subset containing J*, m = n 2^-r. The posterior is uniform
on Y, so I(J*; Y) = log2(n/m) = r. Archiving Y in random order puts J* at a uniform
position tau in 1..m, so E[Z] = E[min(tau - 1, kappa)]:

    kappa - kappa(kappa+1)/(2m)   if m >= kappa + 1   (in fact exact for m >= kappa),
    (m - 1)/2                     if m <= kappa + 1.

The two branches differ by -(m - kappa)(m - kappa - 1)/(2m): they agree exactly at
m = kappa and m = kappa + 1 (so the split point is immaterial for integer m).
"""

from __future__ import annotations

import math

import mpmath
import sympy as sp
from sympy.utilities.lambdify import implemented_function

from theory import bounds, brute
from theory import statements as st
from theory.blind import uniform_burden_branches
from theory.proof import ProofRecord, prove_nonnegative, prove_zero, spot_check


def _nearest_list_size_gap(size_for_rate, n: int, r: float) -> float:
    """How much farther ``size_for_rate(n, r)``'s m is from n 2^-r than the nearest
    integer in 1..n (0 if it is a nearest one; ties either way), in 50-digit
    arithmetic (the candidates: floor and ceiling of n 2^-r, and the ends 1 and n);
    also 0 only if the reported rate is log2(n/m) to 1e-12 relative."""
    m, r_eff = size_for_rate(int(n), float(r))
    with mpmath.workdps(50):
        target = mpmath.mpf(int(n)) * mpmath.power(2, -mpmath.mpf(float(r)))
        below = int(mpmath.floor(target))
        candidates = {min(max(k, 1), int(n)) for k in (below, below + 1)} | {1, int(n)}
        best = min(abs(mpmath.mpf(k) - target) for k in candidates)
        gap = float(abs(mpmath.mpf(int(m)) - target) - best)
        rate = mpmath.log(mpmath.mpf(int(n)) / int(m), 2)
        rate_err = float(abs(r_eff - rate) / max(rate, 1))
    if not 1 <= int(m) <= int(n) or int(m) != m:
        return math.inf
    return gap + (0.0 if rate_err <= 1e-12 else rate_err)


def check_list_achievability(*, high: sp.Expr = st.UNIFORM_HIGH, low: sp.Expr = st.UNIFORM_LOW,
                             numeric=bounds.list_achievability_EZ_m,
                             curve=st.LIST_ACHIEVABILITY,
                             size_for_rate=bounds.list_size_for_rate) -> ProofRecord:
    """Prove the list-channel E[Z] (both branches) and its rate, and spot-check both.

    ``high``/``low`` (sympy in st.m, st.kappa), ``curve`` (sympy in st.n, st.kappa,
    st.r: the achievability curve at real m = n 2^-r), ``numeric`` and
    ``size_for_rate`` (the integer list size for a rate) are the claims under test.
    """
    n, m, kappa, r = st.n, st.m, st.kappa, st.r
    rec = ProofRecord("Achievability: list channel E[Z] and rate r",
                      "THEORY.md §2 Achievability; VISTA App. D",
                      sp.Eq(sp.Symbol("E[Z]"), sp.Piecewise((low, m <= kappa + 1), (high, True))))
    prove_zero(rec, sp.factorial(m - 1) / sp.factorial(m) - 1 / m,
               "random order of Y: P(tau = i) = (m-1)!/m! = 1/m for each position i")
    sum_high, sum_low = uniform_burden_branches(m, kappa)
    prove_zero(rec, sum_high - high, "branch m >= kappa + 1 by summation")
    prove_zero(rec, sum_low - low, "branch m <= kappa + 1 by summation (min never binds)")
    prove_zero(rec, sp.factor(2 * m * (high - low)) + (m - kappa) * (m - kappa - 1),
               "2m (high - low) = -(m - kappa)(m - kappa - 1): "
               "branches agree at m = kappa, kappa+1")
    # Rate: P(Y = S) = sum_{j in S} (1/n) / C(n-1, m-1) = 1/C(n, m); posterior 1/m on S.
    p_y = m / n / sp.binomial(n - 1, m - 1)
    prove_zero(rec, sp.combsimp(p_y * sp.binomial(n, m)) - 1, "P(Y = S) = 1/C(n, m)")
    prove_zero(rec, sp.combsimp((1 / n) / sp.binomial(n - 1, m - 1) / p_y) - 1 / m,
               "posterior uniform on Y: P(J* = j | Y = S) = 1/m, H(J*|Y) = log2 m")
    prove_zero(rec, sp.expand_log(st.log2(n) - st.log2(n * 2 ** (-r)) - r, force=True),
               "I = log2 n - log2 m = r at m = n 2^-r")
    # Order-wise match: m = 2 delta kappa + 1 (<= kappa + 1 for delta <= 1/2) gives
    # E[Z] = delta kappa at rate log2(n/m) <= nu + log2(1/(2 delta)): nu + O(1) bits.
    dl, x = sp.Symbol("delta", positive=True), sp.Symbol("x", positive=True)
    e = sp.Symbol("e", nonnegative=True)
    prove_nonnegative(rec, (kappa + 1 - (2 * dl * kappa + 1)).subs(dl, (1 - e) / 2),
                      "m = 2 delta kappa + 1 <= kappa + 1 for delta = (1 - e)/2 <= 1/2")
    prove_zero(rec, low.subs(m, 2 * dl * kappa + 1) - dl * kappa,
               "m = 2 delta kappa + 1: E[Z] = delta kappa (low branch)")
    prove_zero(rec, sp.expand_log(st.log2(n / (2 * dl * kappa + 1)) - st.NU
                                  - st.log2(1 / (2 * dl)) + st.log2(1 + x), force=True
                                  ).subs(x, 1 / (2 * dl * kappa)).simplify(),
               "its rate log2(n/m) = nu + log2(1/(2 delta)) - log2(1 + 1/(2 delta kappa))")
    prove_nonnegative(rec, sp.log(1 + x) / sp.log(2),
                      "log2(1 + x) >= 0 (x = 1/(2 delta kappa)), so "
                      "r <= nu + log2(1/(2 delta)): nu + O(1) bits "
                      "suffice, the order of the lower bound's (1 - delta) nu - 1")

    # Numeric 1 (independent route): the literal game, every J*, every list, every
    # order of the list, exact Fractions. Tol 1e-12: only the final float conversion.
    pts = [(nn, mm, k) for nn in (4, 5, 6) for mm in range(1, nn + 1) for k in (2, 3, 4)
           if k < nn]
    formula = sp.Piecewise((low, m <= kappa + 1), (high, True))
    spot_check(rec, "formula vs literal enumeration (Fractions)", [n, m, kappa], formula,
               lambda nn, mm, k: float(brute.list_channel_EZ(int(nn), int(mm), int(k))),
               pts, tol=1e-12)
    # Numeric 2: the rate from the joint pmf of (J*, Y), all m-subsets, n <= 8.
    # Tol 1e-12: float summation over <= 70 subsets x 8 rows.
    rate_pts = [(nn, mm) for nn in (2, 5, 8) for mm in range(1, nn + 1)]
    spot_check(rec, "rate log2(n/m) vs joint-pmf mutual information", [n, m],
               st.log2(n / m), lambda nn, mm: brute.mutual_information_bits(
                   brute.list_channel_joint(int(nn), int(mm))), rate_pts, tol=1e-12)
    # Numeric 3: bounds.py (integer-m and rate forms) against the lambdified formulas;
    # same formula in float, relative 1e-12.
    big = [(mm, k) for mm in (1, 2, 3, 5, 17, 1000, 2 ** 30) for k in (2, 3, 16, 999)]
    spot_check(rec, "bounds.list_achievability_EZ_m vs sympy", [m, kappa], formula,
               numeric, big, tol=1e-12, relative=True)
    r_pts = [(nn, k, rr) for nn in (10, 1024, 2 ** 30) for k in (2, 9)
             for rr in (0.0, 0.5, 1.0, 3.3, 9.9) if rr <= st.log2(nn)]
    # Real m on both sides of kappa and kappa + 1, where the branches differ: the
    # split at m = kappa + 1 (THEORY.md) is visible only at non-integer m.
    r_pts += [(nn, k, math.log2(nn / (k + f))) for nn in (10, 1024, 2 ** 30) for k in (2, 9)
              for f in (-0.5, 0.25, 0.5, 0.75, 1.5) if k + f <= nn]
    spot_check(rec, "bounds.list_achievability_EZ vs sympy (real m)", [n, kappa, r],
               curve, bounds.list_achievability_EZ, r_pts, tol=1e-12, relative=True)
    # Numeric 4: the integer list size for a rate is a nearest integer to n 2^-r
    # (every candidate 1..n in 50-digit arithmetic), both sides of every half.
    size_pts = [(nn, rr) for nn in (3, 10, 100, 1000)
                for rr in (0.0, 0.1, 0.3, 0.6, 0.75, 1.5, 2.2, 3.3, math.log2(nn))
                if rr <= math.log2(nn)]
    gap = implemented_function("list_size_gap",
                               lambda nn, rr: _nearest_list_size_gap(size_for_rate, nn, rr))
    spot_check(rec, "list_size_for_rate = nearest integer to n 2^-r", [n, r], gap(n, r),
               lambda nn, rr: 0.0, size_pts, tol=1e-12)
    return rec
