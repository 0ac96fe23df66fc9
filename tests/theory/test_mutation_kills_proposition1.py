"""theory/proposition1.py's numeric helper as its docstring states it (issue 38: the
mutants of proposition1.py that the checks' tests let through).

:func:`fixed_budget_threshold` is checked against its defining equation
c0 N log2 N + k = B solved by bisection here (no Lambert W), at c0 other than 1 and
with c0 left at its default, and its argument check on both sides of every bound.
The checks' own tolerances are pinned by the record copy (record_texts.py)."""

from __future__ import annotations

import math

import pytest

import theory.proposition1 as p1


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
