"""theory/proof.py's helpers as their docstrings state them (issue 38: the mutants
of proof.py that the checks' pass/fail tests let through). Each helper is driven
directly, at a true and a false instance, and its record (steps, numeric entries)
and error messages are compared exactly, against values computed here by hand
(closed forms, a hand-built Cartesian product)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from theory.proof import (ProofError, ProofRecord, Step, check_inequality_on_grid,
                          prove_all_zero, prove_nonnegative, prove_positive, prove_zero,
                          spot_check)

x = sp.Symbol("x", positive=True)
y = sp.Symbol("y")


def _rec() -> ProofRecord:
    return ProofRecord("R", "S", "x >= 0")


def _raises(call, *args, **kwargs) -> str:
    with pytest.raises(ProofError) as info:
        call(*args, **kwargs)
    return str(info.value)


# -- ProofRecord ---------------------------------------------------------------------

def test_a_record_starts_empty_and_steps_are_stored_as_text():
    rec = _rec()
    assert (rec.result, rec.source, rec.statement) == ("R", "S", "x >= 0")
    assert rec.steps == [] and rec.numeric == {}
    rec.step("d", x + 1)
    assert rec.steps == [Step("d", "x + 1")]
    assert isinstance(rec.steps[0].evidence, str)


def test_summary_counts_steps_points_and_the_worst_error():
    rec = _rec()
    assert rec.summary() == "R: 0 symbolic steps, 0 numeric points (max err 0.0e+00) [S]"
    rec.step("a", 1)
    rec.step("b", 2)
    rec.numeric["p"] = (3, 2.5e-13, 1e-12)
    rec.numeric["q"] = (4, 1e-15, 1e-12)
    assert rec.summary() == "R: 2 symbolic steps, 7 numeric points (max err 2.5e-13) [S]"


# -- prove_zero ----------------------------------------------------------------------

def test_prove_zero_records_the_simplified_identity():
    rec = _rec()
    prove_zero(rec, sp.sin(y) ** 2 + sp.cos(y) ** 2 - 1, "pythagoras")
    assert rec.steps == [Step("pythagoras", "simplify(sin(y)**2 + cos(y)**2 - 1) == 0")]


def test_prove_zero_rejects_a_nonzero_expression_naming_result_and_step():
    rec = _rec()
    msg = _raises(prove_zero, rec, (y + 1) ** 2 - y ** 2 - 1 - y, "square")
    assert msg == "R: step 'square' failed: expression simplifies to y, not 0"
    assert rec.steps == []


# -- prove_nonnegative / prove_positive ----------------------------------------------

def test_nonnegative_admits_zero_and_positive_does_not():
    rec = _rec()
    prove_nonnegative(rec, x - x, "zero")
    assert rec.steps == [Step("zero", "0 >= 0")]
    msg = _raises(prove_positive, rec, x - x, "zero")
    assert msg == "R: step 'zero' failed: cannot show 0 > 0 from the symbol assumptions"
    prove_positive(rec, x + 1, "shifted")
    assert rec.steps[1] == Step("shifted", "x + 1 > 0")


def test_nonnegative_rejects_an_undecidable_sign():
    rec = _rec()
    msg = _raises(prove_nonnegative, rec, y, "free")
    assert msg == "R: step 'free' failed: cannot show y >= 0 from the symbol assumptions"
    assert rec.steps == []


def test_the_form_as_written_is_tried_first():
    # x (x + 1) is decided as written; the evidence is that form, not its expansion
    rec = _rec()
    prove_positive(rec, x * (x + 1), "product")
    assert rec.steps == [Step("product", "x*(x + 1) > 0")]


def test_later_forms_are_tried_when_the_written_one_is_undecided():
    # (x - 1)**2 + 2x - 1 is not signed as written; expanded it is x**2, simplified
    # x**2 too (simplify comes before factor and expand)
    rec = _rec()
    raw = (x - 1) ** 2 + 2 * x - 1
    assert raw.is_positive is None
    prove_positive(rec, raw, "square")
    assert rec.steps == [Step("square", "x**2 > 0")]


def test_substitutions_reparametrise_the_domain():
    # t - 1 has no sign for a free t; with t = 1 + u, u >= 0, it is u >= 0
    t = sp.Symbol("t")
    u = sp.Symbol("u", nonnegative=True)
    rec = _rec()
    assert _raises(prove_nonnegative, rec, t - 1, "t >= 1") == (
        "R: step 't >= 1' failed: cannot show t - 1 >= 0 from the symbol assumptions")
    prove_nonnegative(rec, t - 1, "t >= 1", {t: 1 + u})
    prove_positive(rec, t, "t > 0", substitutions={t: 2 + u})
    assert rec.steps == [Step("t >= 1", "u >= 0"), Step("t > 0", "u + 2 > 0")]
    msg = _raises(prove_positive, rec, t - 1, "t > 1", {t: 1 + u})
    assert msg == "R: step 't > 1' failed: cannot show u > 0 from the symbol assumptions"


# -- prove_all_zero ------------------------------------------------------------------

def test_prove_all_zero_counts_its_instances():
    rec = _rec()
    prove_all_zero(rec, [(y + k) ** 2 - y ** 2 - 2 * k * y - k ** 2 for k in range(3)], "sq")
    assert rec.steps == [Step("sq", "3 instances reduce to 0")]


def test_prove_all_zero_simplifies_what_expand_leaves():
    # expand leaves sin**2 + cos**2 - 1 as it is; simplify reduces it to 0
    rec = _rec()
    e = sp.sin(y) ** 2 + sp.cos(y) ** 2 - 1
    assert sp.expand(e) != 0
    prove_all_zero(rec, [sp.Integer(0), e], "trig")
    assert rec.steps == [Step("trig", "2 instances reduce to 0")]


def test_prove_all_zero_names_the_failing_instance():
    rec = _rec()
    msg = _raises(prove_all_zero, rec, [y - y, 2 * y - y - y, y + 1 - y, y], "fam")
    assert msg == "R: step 'fam' failed at instance 2: 1 reduces to 1, not 0"
    msg = _raises(prove_all_zero, rec, [y * (y + 1) - y ** 2], "fam")
    assert msg == "R: step 'fam' failed at instance 0: -y**2 + y*(y + 1) reduces to y, not 0"
    assert rec.steps == []


def test_prove_all_zero_needs_an_instance():
    rec = _rec()
    assert _raises(prove_all_zero, rec, iter(()), "none") == (
        "R: step 'none' has no instances")
    assert rec.steps == []


# -- spot_check ----------------------------------------------------------------------

def test_spot_check_of_points_records_count_worst_error_and_tolerance():
    rec = _rec()
    # x**2 against a reference off by 0, 1e-3 and 2e-3 at the three points
    ref = {1.0: 1.0, 2.0: 4.0 + 1e-3, 3.0: 9.0 - 2e-3}
    spot_check(rec, "sq", [x], x ** 2, lambda v: ref[v], [(1.0,), (2.0,), [3.0]], tol=0.01)
    assert rec.numeric["sq"] == (3, pytest.approx(2e-3, rel=1e-9, abs=0), 0.01)
    assert rec.steps == []


def test_spot_check_of_a_mapping_uses_the_cartesian_product_in_symbol_order():
    rec, seen = _rec(), []
    a, b = sp.symbols("a b")

    def ref(p, q):
        seen.append((p, q))
        return p - 10 * q

    # the mapping's key order is not the symbols' order
    spot_check(rec, "prod", [a, b], a - 10 * b, ref, {b: [5.0, 6.0], a: [1.0, 2.0, 3.0]},
               tol=0.0)
    assert seen == [(p, q) for p in (1.0, 2.0, 3.0) for q in (5.0, 6.0)]
    assert rec.numeric["prod"] == (6, 0.0, 0.0)


def test_spot_check_lambdifies_with_scipy():
    # zeta has no numpy function: lambdify needs scipy (zeta(2) = pi^2/6, zeta(4) = pi^4/90)
    rec = _rec()
    closed = {2.0: math.pi ** 2 / 6, 4.0: math.pi ** 4 / 90}
    spot_check(rec, "zeta", [x], sp.zeta(x), lambda v: closed[v], [(2.0,), (4.0,)], tol=1e-12)
    assert rec.numeric["zeta"][0] == 2


def test_spot_check_names_the_worst_point_and_keeps_the_first_of_equal_errors():
    rec = _rec()
    # error 1 at every point: the first one is the worst point named
    msg = _raises(spot_check, rec, "off", [x], x, lambda v: v + 1.0, [(1.0,), (2.0,)],
                  tol=0.5)
    assert msg == "R: spot check 'off' error 1 > tol 0.5 at {'x': 1.0}"
    msg = _raises(spot_check, rec, "off", [x], x, lambda v: v + (v == 2.0) * 3.0,
                  [(1.0,), (2.0,), (3.0,)], tol=0.5)
    assert msg == "R: spot check 'off' error 3 > tol 0.5 at {'x': 2.0}"
    assert rec.numeric == {}


def test_spot_check_passes_at_its_tolerance_exactly():
    rec = _rec()
    spot_check(rec, "edge", [x], x, lambda v: v + 0.5, [(1.0,)], tol=0.5)
    assert rec.numeric["edge"] == (1, 0.5, 0.5)


def test_spot_check_is_absolute_unless_told_relative():
    rec = _rec()
    # error 1 on a value of 1000: 1 absolute, 1e-3 relative
    with pytest.raises(ProofError):
        spot_check(rec, "abs", [x], x + 1, lambda v: v, [(1000.0,)], tol=0.01)
    spot_check(rec, "rel", [x], x + 1, lambda v: v, [(1000.0,)], tol=0.01, relative=True)
    assert rec.numeric["rel"] == (1, pytest.approx(1e-3, rel=1e-12, abs=0), 0.01)
    # relative to a zero reference: the error over 1e-300
    spot_check(rec, "zero", [x], x * 1e-300, lambda v: 0.0, [(1.0,)], tol=2.0, relative=True)
    assert rec.numeric["zero"] == (1, pytest.approx(1.0, rel=1e-12), 2.0)
    spot_check(rec, "both zero", [x], x * 0, lambda v: 0.0, [(1.0,)], tol=0.0, relative=True)
    assert rec.numeric["both zero"] == (1, 0.0, 0.0)


@pytest.mark.parametrize("got, want", [(math.inf, 1.0), (1.0, math.nan), (math.nan, math.inf)])
def test_spot_check_refuses_a_non_finite_value(got, want):
    rec = _rec()
    msg = _raises(spot_check, rec, "nf", [x], x * got, lambda v: want, [(1.0,)], tol=1e300)
    assert msg == f"R: spot check 'nf' not finite at {{'x': 1.0}}: {got} vs {want}"
    assert rec.numeric == {}


@pytest.mark.parametrize("grid", [[], {x: []}])
def test_spot_check_refuses_an_empty_grid(grid):
    rec = _rec()
    assert _raises(spot_check, rec, "none", [x], x, lambda v: v, grid, tol=1.0) == (
        "R: spot check 'none' has an empty grid")


# -- check_inequality_on_grid --------------------------------------------------------

def test_inequality_records_count_and_the_largest_gap_clipped_at_zero():
    rec = _rec()
    # lhs - rhs = x - 2 at x = 0, 1: gaps -2, -1 (all below 0: worst recorded as 0)
    check_inequality_on_grid(rec, "below", [x], x, sp.Integer(2), iter([(0.0,), (1.0,)]))
    assert rec.numeric["below"] == (2, 0.0, 0.0)
    # gaps -0.5, 0.25, 0.0 with tol 0.3: the largest, 0.25
    check_inequality_on_grid(rec, "near", [x], x, sp.Integer(2), [(1.5,), (2.25,), (2.0,)],
                             tol=0.3)
    assert rec.numeric["near"] == (3, 0.25, 0.3)
    # equality holds at tol 0 (the default)
    check_inequality_on_grid(rec, "equal", [x], x, x, [(3.0,)])
    assert rec.numeric["equal"] == (1, 0.0, 0.0)
    assert rec.steps == []


def test_inequality_violation_names_the_first_violating_point():
    rec = _rec()
    msg = _raises(check_inequality_on_grid, rec, "le", [x], x, sp.Integer(1),
                  [(0.5,), (1.5,), (3.0,)])
    assert msg == "R: 'le' violated at {'x': 1.5}: lhs - rhs = 0.5"
    msg = _raises(check_inequality_on_grid, rec, "le", [x], x, sp.Integer(1), [(1.5,)],
                  tol=0.4)
    assert msg == "R: 'le' violated at {'x': 1.5}: lhs - rhs = 0.5"
    assert rec.numeric == {}


def test_inequality_refuses_non_finite_and_empty_grids():
    rec = _rec()
    with np.errstate(divide="ignore"):
        assert _raises(check_inequality_on_grid, rec, "nf", [y], sp.log(y), sp.Integer(0),
                       [(0.0,)]) == "R: 'nf' not finite at (0.0,)"
    assert _raises(check_inequality_on_grid, rec, "e", [y], y, y, []) == (
        "R: 'e' has an empty grid")
    assert rec.numeric == {}


def test_proof_error_is_an_assertion_error():
    assert issubclass(ProofError, AssertionError)
    assert np.isfinite(0.0)
