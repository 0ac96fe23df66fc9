"""theory/list_channel.py: what its mutation run (issue 38) found untested.

``_nearest_list_size_gap`` is the reference that numeric check 4 holds
``list_size_for_rate`` to; the check passes the library's (correct) sizes, so the
reference's answers for a wrong size, a wrong rate or an edge are pinned here against
an independent route: every integer 1..n tried in exact or plain float arithmetic.
The record copy pins the check's texts for the library's claims only; a claim written
in another (true) form shows more of them."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp

from theory import statements as st
from theory.list_channel import _nearest_list_size_gap, check_list_achievability


def _reporting(m, rate=None):
    """A size_for_rate that answers m (and log2(n/m), or ``rate``) whatever it is asked."""
    return lambda n, r: (m, math.log2(n / m) if rate is None else rate)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13])
@pytest.mark.parametrize("r", [0.0, 0.3, 0.75, 1.0, 1.5, 2.0, 2.6, 3.0])
def test_the_gap_is_how_much_farther_m_is_than_the_nearest_size(n, r):
    """For every m in 1..n reported with its exact rate: the gap is |m - t| minus the
    least |k - t| over k in 1..n (t = n 2^-r), so 0 exactly for the nearest sizes
    (both at a tie) and positive for the others. The reference route here: every k in
    1..n, exact Fractions where r is an integer (t is then a dyadic rational; ties
    such as t = 1.5 at n = 3, r = 1 occur), floats otherwise (no near-ties on this grid)."""
    t = Fraction(n, 2 ** int(r)) if r == int(r) else n * 2.0 ** -r
    dist = {k: abs(k - t) for k in range(1, n + 1)}
    best = min(dist.values())
    for m in range(1, n + 1):
        gap = _nearest_list_size_gap(_reporting(m), n, r)
        if dist[m] == best:
            assert gap == 0.0, (n, r, m)
        else:
            assert gap > 0 and gap == pytest.approx(float(dist[m] - best), abs=1e-12), \
                (n, r, m)


def test_a_tie_counts_either_way():
    """n = 3, r = 1: t = 1.5 exactly, sizes 1 and 2 are both nearest, 3 is not."""
    assert _nearest_list_size_gap(_reporting(1), 3, 1.0) == 0.0
    assert _nearest_list_size_gap(_reporting(2), 3, 1.0) == 0.0
    assert _nearest_list_size_gap(_reporting(3), 3, 1.0) == 1.0


def test_one_block_leaves_one_list_size_whatever_the_target():
    """n = 1: 1 is the only integer in 1..n, so it is the nearest, also for a target
    2^-r above n (r < 0): the candidates are clamped to 1..n, never 2."""
    for r in (0.0, 0.5, -0.5, -0.85, -1.0, -3.0):
        assert _nearest_list_size_gap(_reporting(1), 1, r) == 0.0, r


@pytest.mark.parametrize("n,m", [(3, 1), (3, 2), (8, 1), (10, 3), (1000, 1)])
def test_the_rate_must_be_log2_n_over_m_to_1e12_relative(n, m):
    """The reported rate is held to log2(n/m) within 1e-12 relative to max(rate, 1):
    0.8e-12 of it off still counts as exact (gap 0); 1.2e-12 off adds that relative
    error to the (zero) distance gap, a positive gap. Covers rates below 1 (n = 3,
    m = 2: absolute), between 1 and 2 (log2 3) and above (3, 1.74, 9.97)."""
    rate = math.log2(n / m)
    scale = max(rate, 1.0)
    r = math.log2(n / m)                       # asked for m's own rate: m is nearest
    ok = _nearest_list_size_gap(_reporting(m, rate + 0.8e-12 * scale), n, r)
    assert ok == 0.0, (n, m, rate)
    for sign in (1, -1):
        off = _nearest_list_size_gap(_reporting(m, rate + sign * 1.2e-12 * scale), n, r)
        assert off == pytest.approx(1.2e-12, rel=1e-3), (n, m, rate, sign)


@pytest.mark.parametrize("n,m", [(8, 9), (8, 2.5), (3, 1.5), (100, 10.000001), (5, 6.0)])
def test_a_size_outside_1_to_n_or_not_an_integer_is_infinitely_far(n, m):
    """m = n + 1 (an integer, out of range) and a non-integer m whose integer part is
    in range (even the nearest one, 2 for t = 2.5) both get an infinite gap."""
    r = math.log2(n / m) if m <= n else 0.0
    assert _nearest_list_size_gap(_reporting(m), n, r) == math.inf


def test_a_rate_off_by_exactly_the_tolerance_still_counts():
    """"To 1e-12": inclusive. n = m gives rate log2(1) = 0 exactly, so a reported
    rate of 1e-12 (the double) is off by exactly the tolerance: gap 0; the next
    double above is not."""
    for n in (1, 2, 7):
        assert _nearest_list_size_gap(_reporting(n, 1e-12), n, 0.0) == 0.0
        above = math.nextafter(1e-12, 1.0)
        assert _nearest_list_size_gap(_reporting(n, above), n, 0.0) == above


def test_the_delta_step_names_delta():
    """Step "m = 2 delta kappa + 1: E[Z] = delta kappa (low branch)" substitutes
    m = 2 delta kappa + 1 into the claimed low branch. For the library's (m - 1)/2
    sympy cancels it to 0 at once; for the same branch written (m^2 - 1)/(2(m + 1))
    (true: the check accepts it) the evidence shows the expression, in THEORY.md's
    delta, a positive symbol of that name."""
    m, kappa = st.m, st.kappa
    low = (m ** 2 - 1) / (2 * (m + 1))
    rec = check_list_achievability(low=low)
    delta = sp.Symbol("delta", positive=True)
    want = f"simplify({low.subs(m, 2 * delta * kappa + 1) - delta * kappa}) == 0"
    step = [s for s in rec.steps if s.description.startswith("m = 2 delta kappa + 1: E[Z]")]
    assert [s.evidence for s in step] == [want]
    assert "delta" in want
