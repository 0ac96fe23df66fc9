"""theory/corollaries.py's helpers and numeric routes as its docstrings state them
(issue 38: the mutants of corollaries.py that the checks' pass/fail tests and the
record copy let through)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from theory import bounds
from theory import corollaries as co
from theory import statements as st
from theory.proof import ProofRecord


def test_an_unsolvable_target_is_refused_naming_target_and_parameter():
    # a target free of the parameter cannot be solved for it
    rec = ProofRecord("R", "S", "x")
    with pytest.raises(AssertionError) as info:
        co._prove_forced_rate(rec, st.delta, st.kappa / 2, st.THRESHOLD)
    assert str(info.value) == "target kappa/2 is not solvable for delta"


@pytest.mark.parametrize("n", [5, 64, 2 ** 40])
def test_interior_is_the_open_rate_range_less_1e6_bits_at_each_end(n):
    """_interior: the rate strictly inside (1e-6, log2 n - 1e-6), whatever kappa."""
    top = float(np.log2(n))
    for rate in (0.5, 1.0, top / 2, top - 0.5, 2e-6, top - 2e-6):
        assert co._interior(n, 2, rate), rate
    for rate in (0.0, 1e-6, 5e-7, top - 1e-6, top - 5e-7, top, top + 1e-7, top + 1, -1.0):
        assert not co._interior(n, 2, rate), rate


@pytest.mark.parametrize("n, kappa, target", [(64, 4, 1.0), (1000, 32, 0.5), (2 ** 20, 2, 0.5)])
def test_invert_floor_is_the_closed_form_root(n, kappa, target):
    # kappa (1 - (I + 1)/nu) = target at I = (1 - target/kappa) nu - 1
    want = (1 - target / kappa) * np.log2(n / kappa) - 1
    assert co._invert_floor(n, kappa, target) == pytest.approx(want, abs=1e-12, rel=0)


def test_the_forced_rate_argument_holds_for_a_target_that_depends_on_n():
    """_check_forced_rate for a third target, kappa (1 - (delta + 1)/nu): the floor
    meets it at I = delta, which the proof, the numeric claim and the root of the
    affine floor (brentq, at the target evaluated with each point's n) must agree on."""
    target = st.kappa * (1 - (st.delta + 1) / st.NU)
    rec = ProofRecord("rate delta", "test", sp.Ge(st.I, st.delta))

    def numeric(n, kappa, d):
        return d

    co._check_forced_rate(rec, st.delta, target, st.delta, numeric,
                          lambda k: (0.5, 1.0, 3.0), "rate delta")
    n_brentq, err, tol = rec.numeric["rate delta: root of the affine floor (brentq)"]
    # the points whose target is positive: nu > delta + 1 and delta interior
    inner = [(n, k, d) for n, k, d in co._rate_grid(lambda k: (0.5, 1.0, 3.0))
             if np.log2(n / k) > d + 1 and d < np.log2(n) - 1e-6]
    assert n_brentq == len(inner) > 10
    assert err <= 1e-9 == tol
    assert rec.numeric["bounds.numeric vs sympy"][0] == len(list(
        co._rate_grid(lambda k: (0.5, 1.0, 3.0))))


def test_the_blind_endpoint_compares_the_sum_form_at_rate_0_with_the_blind_closed_form(
        monkeypatch):
    """check_blind_endpoint's numeric check is of bound_sum at I = 0 (not at another
    rate) against blind_EZ, evaluated here with bounds.py's numerics."""
    calls = []
    real = co.check_inequality_on_grid

    def capture(rec, name, symbols, lhs, rhs, points, tol=0.0):
        points = list(points)
        calls.append((symbols, lhs, rhs, points))
        return real(rec, name, symbols, lhs, rhs, points, tol=tol)

    monkeypatch.setattr(co, "check_inequality_on_grid", capture)
    co.check_blind_endpoint()
    [(symbols, lhs, rhs, points)] = calls
    f = sp.lambdify(symbols, lhs)
    g = sp.lambdify(symbols, rhs)
    assert len(points) >= 10
    for n, kappa in points:
        assert f(n, kappa) == pytest.approx(float(bounds.bound_sum(0.0, n, kappa)),
                                            abs=1e-12, rel=0)
        assert g(n, kappa) == pytest.approx(float(bounds.blind_EZ(n, kappa)), abs=1e-12,
                                            rel=0)
