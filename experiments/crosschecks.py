"""Equality checks between theory/ and the simulators (run by ``ctxsim theory``).

theory/ imports nothing of ours (DESIGN.md), so the checks that compare its
reference values with the simulators' own live here, one layer up. Each returns a
:class:`theory.proof.ProofRecord` or raises :class:`theory.proof.ProofError`; the
keyword arguments let tests inject a deliberately wrong value to see the check fail.

* :func:`check_prop2_rates_equal_simulator`: the n = 2 anchor of Proposition 2
  (theory's quadrature) equals ``sim.games.information.content_rate_n2`` and the
  exact any-n rate of ``sim.games.content_rate``; theory's Monte Carlo rate equals
  the exact rate within 5 standard errors at n = 4, 16, 64 (where it enters the
  one-sided bound checks); the Frullani identity behind the exact rate holds.
* :func:`check_prop1_closed_forms_equal_simulator`: the keep-blocks and keep-prefix
  closed forms of the Proposition 1 check equal ``sim.games.recovery``'s.
"""

from __future__ import annotations

import itertools

import sympy as sp
from sympy.utilities.lambdify import implemented_function

from sim.games import recovery
from sim.games.content_rate import content_rate_exact
from sim.games.information import content_rate_n2
from theory import proposition1, proposition2
from theory import statements as st
from theory.proof import ProofRecord, prove_zero, spot_check

_Z_MC = 5.0


def check_prop2_rates_equal_simulator(*, theory_rate_n2=None, sim_rate_n2=content_rate_n2,
                                      sim_rate=content_rate_exact, mc_rate=None
                                      ) -> ProofRecord:
    """Theory's Proposition 2 rate values equal the simulator's (bits).

    Tolerances: 1e-9 bits between quadratures (each accurate to ~1e-12); 5 standard
    errors between a Monte Carlo rate and the exact one.
    """
    theory_rate_n2 = theory_rate_n2 or proposition2._exact_rate_n2
    mc_rate = mc_rate or proposition2._mc_rate
    rec = ProofRecord("Proposition 2: theory's rate anchors = the simulator's",
                      "THEORY.md §3; sim.games.information, sim.games.content_rate",
                      sp.Eq(sp.Symbol("I_theory"), sp.Symbol("I_sim")))
    u, x = sp.symbols("u x", positive=True)
    # Frullani, by differentiating under the integral: both sides vanish at x = 0 and
    # have the same x-derivative 1/(1 + x).
    frullani_dx = sp.integrate(sp.diff(sp.exp(-u) * (1 - sp.exp(-u * x)) / u, x),
                               (u, 0, sp.oo))
    prove_zero(rec, frullani_dx - sp.diff(sp.log(1 + x), x),
               "Frullani: d/dx int_0^oo e^-u (1 - e^-ux) du/u = 1/(1+x) = d/dx ln(1 + x), "
               "both 0 at x = 0 (the exact rate's reduction; at c -> 0 it gives ln n, "
               "x = n - 1: 0 bits)")
    kappa, sigma = st.kappa, st.sigma
    grid = list(itertools.product((2, 3, 8, 100), (0.25, 0.5, 1.0, 2.0, 4.0)))
    anchor = implemented_function("I_theory_n2", lambda k, s: theory_rate_n2(k, s))
    spot_check(rec, "theory n=2 quadrature = sim content_rate_n2", [kappa, sigma],
               anchor(kappa, sigma), sim_rate_n2, grid, tol=1e-9)
    spot_check(rec, "theory n=2 quadrature = sim content_rate_exact(2)", [kappa, sigma],
               anchor(kappa, sigma), lambda k, s: sim_rate(2, int(k), s)[0],
               [(k, s) for k, s in grid if k <= 8 and s in (0.25, 1.0, 4.0)], tol=1e-9)
    syms = [st.n, kappa, sigma]
    z = implemented_function("I_mc_z", lambda nn, k, s: (
        lambda m: (m[0] - sim_rate(int(nn), int(k), s)[0]) / m[1])(mc_rate(nn, k, s)))
    spot_check(rec, "theory Monte Carlo rate = sim exact rate (in SE)", syms, z(*syms),
               lambda *a: 0.0, [(nn, k, s) for nn in (4, 16, 64) for k in (2, 3)
                                for s in (0.25, 1.0)], tol=_Z_MC)
    return rec


def check_prop1_closed_forms_equal_simulator(*, keep: sp.Expr | None = None,
                                             prefix: sp.Expr | None = None,
                                             sim_keep=recovery.keep_blocks_success,
                                             sim_prefix=recovery.keep_prefix_success
                                             ) -> ProofRecord:
    """The closed forms the Proposition 1 check bounds equal sim.games.recovery's
    (relative 1e-12: the same formula in floating point)."""
    keep = proposition1.KEEP_BLOCKS if keep is None else keep
    prefix = proposition1.KEEP_PREFIX if prefix is None else prefix
    rec = ProofRecord("Proposition 1: keep-blocks/keep-prefix closed forms = the simulator's",
                      "THEORY.md §1; sim.games.recovery",
                      sp.Eq(sp.Symbol("P_theory"), sp.Symbol("P_sim")))
    N, k, B = proposition1.GAME_SYMBOLS
    prove_zero(rec, keep.subs({B: 0}) - 2 ** (-k),
               "keep-blocks with B = 0 guesses: success 2^-k")
    prove_zero(rec, prefix.subs({B: 0}) - 2 ** (-k),
               "keep-prefix with B = 0 guesses: success 2^-k")
    pts = [(Nv, kv, Bv) for Nv in (2, 3, 5, 16, 64, 1000) for kv in (1, 2, 3, 8, 33)
           for Bv in sorted({0, 1, Nv * kv // 3, Nv * kv // 2, Nv * kv - 1})]
    spot_check(rec, "keep_blocks: theory = sim.games.recovery", [N, k, B], keep,
               lambda *g: sim_keep(*map(int, g)), pts, tol=1e-12, relative=True)
    spot_check(rec, "keep_prefix: theory = sim.games.recovery", [N, k, B], prefix,
               lambda *g: sim_prefix(*map(int, g)), pts, tol=1e-12, relative=True)
    return rec
