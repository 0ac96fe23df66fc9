"""The Theorem 1 / Proposition 2 formulas as sympy expressions: one definition each.

The check modules prove things about these expressions and compare their
lambdified forms with :mod:`theory.bounds` (the numpy implementation) and with
independent brute-force routes (:mod:`theory.brute`). Units follow THEORY.md: rates
in bits, KL divergences in nats unless the name says bits.
"""

from __future__ import annotations

import sympy as sp

# Symbols of the eviction game E(n, kappa) (THEORY.md §2). Integer symbols carry the
# assumptions the proofs need (positivity); domain restrictions beyond that (n > kappa,
# t <= kappa) are imposed in each proof by reparametrisation.
n = sp.Symbol("n", positive=True, integer=True)
kappa = sp.Symbol("kappa", positive=True, integer=True)
m = sp.Symbol("m", positive=True, integer=True)
t = sp.Symbol("t", positive=True, integer=True)
w = sp.Symbol("w", nonnegative=True, integer=True)
I = sp.Symbol("I", nonnegative=True)            # I(J*; Y) in bits
r = sp.Symbol("r", nonnegative=True)            # list-channel rate, bits
delta = sp.Symbol("delta", nonnegative=True)    # threshold fraction
Delta = sp.Symbol("Delta", nonnegative=True)    # price: required reduction of E[Z]
sigma = sp.Symbol("sigma", positive=True)       # content-channel noise scale


def log2(x: sp.Expr) -> sp.Expr:
    """Base-2 logarithm as ``ln(x)/ln 2`` (the form sympy simplifies best)."""
    return sp.log(x) / sp.log(2)


#: nu = log2(n/kappa), bits (Theorem 1, eq. 12).
NU = log2(n / kappa)
#: List-Fano right-hand side (I + 1)/log2(n/m) (Lemma 1).
LIST_FANO = (I + 1) / log2(n / m)
#: Inner term of the sum form before the positive part, at list size t.
SUM_INNER = 1 - (I + 1) / log2(n / t)
#: Inner term of the affine floor before the positive part.
AFFINE_INNER = 1 - (I + 1) / NU
#: Sum-form lower bound on E[Z].
SUM_FORM = sp.Sum(sp.Max(0, SUM_INNER), (t, 1, kappa))
#: Affine floor kappa [1 - (I+1)/nu]_+ (eq. 12).
AFFINE = kappa * sp.Max(0, AFFINE_INNER)

#: E[min(U - 1, kappa)], U ~ Uniform{1..m}: branch valid for m >= kappa (THEORY: m >= kappa+1).
UNIFORM_HIGH = kappa - kappa * (kappa + 1) / (2 * m)
#: Same expectation, branch valid for m <= kappa + 1.
UNIFORM_LOW = (m - 1) / 2
#: The piecewise form, split at m = kappa + 1 as in THEORY.md §2 (Achievability).
UNIFORM_BURDEN = sp.Piecewise((UNIFORM_LOW, m <= kappa + 1), (UNIFORM_HIGH, True))

#: Size-blind endpoint: tau ~ Uniform{1..n}.
BLIND = UNIFORM_HIGH.subs(m, n)
#: List-channel achievability at rate r (real list size m = n 2^-r).
LIST_ACHIEVABILITY = UNIFORM_BURDEN.subs(m, n * 2 ** (-r))
#: Windowed ledger rate (bits), valid for w < n (w = n is its limit log2 n).
WINDOWED_RATE = log2(n) - (1 - w / n) * log2(n - w)
#: Windowed ledger E[Z] (general piecewise form; THEORY's closed form is the high branch).
WINDOWED_EZ = (1 - w / n) * UNIFORM_BURDEN.subs(m, n - w)

#: Rate forced by E[Z] <= delta kappa (bits).
THRESHOLD = (1 - delta) * NU - 1
#: Rate forced by E[Z] <= kappa - Delta (bits).
PRICE = Delta * NU / kappa - 1

#: Paper's Proposition 2 bound, bits.
PROP2_PAPER = sp.log(2) * log2(kappa) ** 2 / sigma ** 2
#: Centroid bound, bits.
PROP2_CENTROID = (1 - 1 / n) * sp.log(kappa) ** 2 / (2 * sigma ** 2 * sp.log(2))
