"""Lemma 1 (list-Fano): P(J* in L_m) <= (I + 1) / log2(n / m).

Derivation checked here (THEORY.md §2): Fano's inequality for a list of size m,
H(J*|Y) <= 1 + P_e log2(n - m) + (1 - P_e) log2 m, with H(J*|Y) = log2 n - I
(J* uniform), rearranges to p log2(n/m) <= I + 1 + (slack) after using
log2(n - m) <= log2 n, where p = 1 - P_e = P(J* in L_m).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from sympy.utilities.lambdify import implemented_function

from theory import bounds, brute
from theory import statements as st
from theory.proof import (ProofRecord, check_inequality_on_grid, prove_nonnegative,
                          prove_zero, spot_check)
from theory.proof import prove_positive


def _eps_channel(n: int, eps: float) -> np.ndarray:
    """Y = J* with probability 1 - eps, else uniform on all n blocks (a noisy pointer)."""
    return (1 - eps) * np.eye(n) + eps / n


def _random_channel(seed: int, n: int) -> np.ndarray:
    """A generic channel: rows Dirichlet(0.3) over n outputs (seeded, reproducible)."""
    return np.random.default_rng(int(seed)).dirichlet(np.full(n, 0.3), size=n)


def _channel_grid():
    """(channel kind, parameter, n, m) points; kind 0 = eps-channel, 1 = random channel."""
    for n in (8, 32, 128):
        for m in (1, 2, 4, 7):
            for eps in (0.02, 0.2, 0.5, 0.8, 1.0):
                yield (0, eps, n, m)
            for seed in range(4):
                yield (1, seed, n, m)


def _channel(kind, param, n):
    """The channel matrix of a grid point."""
    return _eps_channel(int(n), param) if kind == 0 else _random_channel(param, int(n))


def check_list_fano(*, bound: sp.Expr = st.LIST_FANO,
                    numeric=bounds.list_fano_bound) -> ProofRecord:
    """Prove Fano => list-Fano and spot-check it on brute-force channels.

    ``bound`` (sympy, in st.I, st.n, st.m) and ``numeric`` are the claims under test;
    the defaults are the library's. A wrong claim raises ProofError.
    """
    p = sp.Symbol("p", nonnegative=True)              # placeholder for the statement
    rec = ProofRecord("Lemma 1: Fano -> list-Fano",
                      "THEORY.md §2 List-Fano lemma; VISTA Lemma 1, App. A",
                      sp.Le(p, bound))
    # Real-valued domain: 1 <= m < n written n = m + d (d > 0); P_e in [0, 1];
    # F >= 0 is the slack in Fano's inequality (H(J*|Y) = rhs - F).
    mm, d = sp.symbols("m d", positive=True)
    pe, F = sp.symbols("P_e F", nonnegative=True)
    nn = mm + d
    log2 = st.log2
    fano_rhs = 1 + pe * log2(nn - mm) + (1 - pe) * log2(mm)
    I_of = log2(nn) - (fano_rhs - F)                  # I = log2 n - H(J*|Y)
    success = 1 - pe                                  # P(J* in L_m)
    slack = pe * log2(nn / (nn - mm)) + F
    prove_zero(rec, sp.expand_log(I_of + 1 - success * log2(nn / mm) - slack, force=True),
               "rearrange: I + 1 - p log2(n/m) = P_e log2(n/(n-m)) + F")
    # log2(n - m) <= log2 n is the only inequality used besides Fano's itself.
    A, B = sp.Symbol("A", nonnegative=True), sp.Symbol("B", positive=True)
    # n/(n-m) = 1 + m/d and n/m = 1 + d/m, written so the assumptions decide the sign.
    prove_nonnegative(rec, sp.log(1 + mm / d), "A := ln(n/(n-m)) >= 0 (log2(n-m) <= log2 n)")
    prove_positive(rec, sp.log(1 + d / mm), "B := ln(n/m) > 0 for m < n (division allowed)")
    claimed = bound.subs({st.I: I_of, st.n: nn, st.m: mm})
    prove_zero(rec, sp.expand_log((claimed - success) * log2(nn / mm) - slack, force=True),
               "claimed bound - p = slack / log2(n/m)")
    prove_nonnegative(rec, (pe * A / sp.log(2) + F) / (B / sp.log(2)),
                      "slack / log2(n/m) = (P_e A + F ln 2)/B >= 0, so p <= bound")

    # Numeric 1: the numpy implementation against the lambdified statement (clipped at
    # 1 as documented). Same formula, two float routes: relative 1e-12 covers round-off.
    points = [(I, n, m) for n in (2, 10, 1000, 2 ** 30) for m in (1, 2, 7)
              for I in np.linspace(0, np.log2(n), 5) if m < n]
    spot_check(rec, "bounds.list_fano_bound vs sympy", [st.I, st.n, st.m],
               sp.Min(1, bound), numeric, points, tol=1e-12, relative=True)
    # Numeric 2 (independent route): exact I and the best size-m list of explicit
    # channels from their joint pmf; the lemma must hold for every one. Tolerance 1e-12
    # absorbs float summation in the brute-force mutual information.
    info = implemented_function("I_brute", lambda k, q, n: brute.channel_stats(
        _channel(k, q, n), 1)[0])
    best = implemented_function("P_best", lambda k, q, n, m: brute.channel_stats(
        _channel(k, q, n), int(m))[1])
    kind, param = sp.symbols("kind param")
    check_inequality_on_grid(rec, "brute-force channels: P(J* in L_m) <= bound",
                             [kind, param, st.n, st.m], best(kind, param, st.n, st.m),
                             bound.subs(st.I, info(kind, param, st.n)),
                             list(_channel_grid()), tol=1e-12)
    return rec
