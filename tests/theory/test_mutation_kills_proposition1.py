"""theory/proposition1.py's numeric helper as its docstring states it (issue 38: the
mutants of proposition1.py that the checks' tests let through).

:func:`fixed_budget_threshold` is checked against its defining equation
c0 N log2 N + k = B solved by bisection here (no Lambert W), at c0 other than 1 and
with c0 left at its default, and its argument check on both sides of every bound.
The checks' own tolerances are pinned by the record copy (record_texts.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import theory.proposition1 as p1
from theory.proof import ProofError, ProofRecord


def _root(B: float, k: float, c0: float) -> float:
    """The N >= 1 with c0 N log2 N + k = B, by bisection (the left side increases)."""
    lo, hi = 1.0, 2.0
    while c0 * hi * math.log2(hi) + k < B:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if c0 * mid * math.log2(mid) + k < B else (lo, mid)
    return (lo + hi) / 2


@pytest.mark.parametrize("B,k,c0", [(1000.0, 8.0, 0.5), (2.0 ** 15, 32.0, 1.5),
                                    (1e6, 0.0, 3.0), (64.0, 63.5, 2.0)])
def test_threshold_solves_its_equation_for_any_c0(B, k, c0):
    n_star = p1.fixed_budget_threshold(B, k, c0)
    assert n_star == pytest.approx(_root(B, k, c0), rel=1e-10)
    assert c0 * n_star * math.log2(n_star) + k == pytest.approx(B, rel=1e-10)


def test_c0_defaults_to_one():
    assert p1.fixed_budget_threshold(4096.0, 8.0) == p1.fixed_budget_threshold(4096.0, 8.0, 1.0)
    assert p1.fixed_budget_threshold(4096.0, 8.0) == pytest.approx(_root(4096.0, 8.0, 1.0),
                                                                   rel=1e-10)


def test_k_from_zero_up_to_below_B():
    # the bounds 0 <= k < B, each side: k = 0 and a fractional k are accepted ...
    for k in (0.0, 0.5, 99.999):
        n = p1.fixed_budget_threshold(100.0, k)
        assert n * math.log2(n) + k == pytest.approx(100.0, rel=1e-10)
    # ... a negative k and k >= B are not, and the message names the values
    for k in (-1e-9, -1.0, 100.0, 150.0):
        with pytest.raises(ValueError, match=rf"need 0 <= k < B, got k={k}, B=100.0"):
            p1.fixed_budget_threshold(100.0, k)


def test_c0_must_be_positive():
    for c0 in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="c0 must be > 0"):
            p1.fixed_budget_threshold(100.0, 8.0, c0)
    assert p1.fixed_budget_threshold(100.0, 8.0, 1e-3) > p1.fixed_budget_threshold(100.0, 8.0)


# -- the enumeration's encoders, against plain loops ----------------------------------

def _loop_encoders(N: int, k: int, B: int, seed: int) -> dict[str, list[int]]:
    """_encoders' four label arrays by plain integer loops, drawing the same numbers
    from the same Generator (a random function's labels, then the random linear map's
    B x Nk matrix): a label is an int of at most B bits."""
    rng = np.random.default_rng(seed)
    size = 2 ** (N * k)
    rand = [int(v) for v in rng.integers(0, 2 ** B, size=size)]
    A = rng.integers(0, 2, size=(B, N * k)).tolist()
    m, p = B // k, B // N
    out = {"random function": rand, "random linear": [], "keep blocks": [],
           "keep prefix": []}
    for x in range(size):
        bits = [(x >> j) & 1 for j in range(N * k)]
        out["random linear"].append(sum((sum(a * b for a, b in zip(row, bits)) % 2) << r
                                        for r, row in enumerate(A)))
        out["keep blocks"].append(x % 2 ** (m * k))          # the first m whole blocks
        out["keep prefix"].append(sum(((x >> (i * k)) % 2 ** p) << (i * p)
                                      for i in range(N)))     # p low bits of each block
    return out


@pytest.mark.parametrize("N,k,B", [(2, 1, 1), (2, 3, 4), (3, 2, 5), (3, 3, 0), (2, 2, 3)])
def test_encoders_are_the_four_documented_maps(N, k, B):
    got = {name: [int(v) for v in labels]
           for name, labels in p1._encoders(N, k, B, np.random.default_rng(11))}
    want = _loop_encoders(N, k, B, 11)
    assert list(got) == list(want)           # names and order, as the checks use them
    assert got == want
    for labels in got.values():              # at most B bits: all zero when B = 0
        assert len(labels) == 2 ** (N * k)
        assert 0 <= min(labels) and max(labels) < max(2 ** B, 1)


# -- the numeric route's bookkeeping ---------------------------------------------------

def test_record_pairs_stores_count_worst_clamped_at_zero_and_tolerance():
    rec = ProofRecord("R", "S", "x")
    p1._record_pairs(rec, "below", [-3.0, -0.5], 1e-9)
    p1._record_pairs(rec, "inside", [-1.0, 4e-10], 1e-9)
    p1._record_pairs(rec, "at", [1e-9], 1e-9)        # a gap equal to the tolerance passes
    assert rec.numeric == {"below": (2, 0.0, 1e-9), "inside": (2, 4e-10, 1e-9),
                           "at": (1, 1e-9, 1e-9)}
    with pytest.raises(ProofError, match=r"^R: 'over' violated: lhs - rhs = 2e-09$"):
        p1._record_pairs(rec, "over", [-1.0, 2e-9], 1e-9)
    with pytest.raises(ProofError, match=r"^R: 'none' has no points$"):
        p1._record_pairs(rec, "none", [], 1e-9)
    assert set(rec.numeric) == {"below", "inside", "at"}


@pytest.mark.parametrize("which", ["keep", "prefix"])
def test_a_wrong_closed_form_passed_to_the_combined_bound_is_refused(which):
    # a closed form that sits under the bound but is not the strategy's success
    Nn, kn, Bn = p1.GAME_SYMBOLS
    wrong = (p1.KEEP_BLOCKS if which == "keep" else p1.KEEP_PREFIX) / 2
    name = "keep_blocks" if which == "keep" else "keep_prefix"
    with pytest.raises(ProofError, match=f"spot check '{name} closed form = enumeration'"):
        p1.check_combined_bound(**{which: wrong})


# -- what a check says when sympy does not deliver -------------------------------------

def test_an_unevaluated_limit_fails_the_separation_check(monkeypatch):
    N = sp.Symbol("N")
    monkeypatch.setattr(p1.sp, "limit", lambda expr, *a: sp.Limit(expr, N, sp.oo))
    with pytest.raises(ProofError, match=r"^Proposition 1 \(asymptotic separation\): limit "
                                         r"for 'lossy bound -> 0' unevaluated: Limit\("):
        p1.check_separation()


def test_an_accumulation_bound_fails_the_separation_check(monkeypatch):
    monkeypatch.setattr(p1.sp, "limit", lambda *a: sp.AccumBounds(-1, 1))
    with pytest.raises(ProofError, match=r"limit for 'lossy bound -> 0' unevaluated: "
                                         r"AccumBounds\(-1, 1\)"):
        p1.check_separation()


def test_a_wrong_solve_or_limit_fails_the_fixed_budget_check(monkeypatch):
    real_solve = p1.sp.solve
    monkeypatch.setattr(p1.sp, "solve", lambda *a: [sp.Integer(7)])
    with pytest.raises(ProofError, match=r"^Proposition 1 \(fixed budget threshold\): "
                                         r"sympy.solve gave \[7\], expected exp\(LambertW"):
        p1.check_fixed_budget()
    monkeypatch.setattr(p1.sp, "solve", real_solve)
    monkeypatch.setattr(p1.sp, "limit", lambda *a: sp.Integer(3))
    with pytest.raises(ProofError, match=r"^Proposition 1 \(fixed budget threshold\): "
                                         r"cost/B -> 3, expected oo$"):
        p1.check_fixed_budget()
