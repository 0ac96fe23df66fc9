"""Every threshold of the verdict rules pinned on both sides and at equality
(issue 38: exact edits of a comparison that passed every test before). Numbers
are chosen exactly representable in binary so that equality is equality."""

import math

import pytest

from experiments.claims.records import VERDICT_ORDER, Verdict
from experiments.claims.rules import (bound_verdict, gap_verdict, limit_verdict, order_verdict,
                                      peak_verdict, range_verdict, rank_verdict, ratio_verdict,
                                      slope_verdict, tie_verdict, within_factor)

R, D, NI, NR = (Verdict.REPRODUCED, Verdict.DIRECTION, Verdict.NO_INTERVAL,
                Verdict.NOT_REPRODUCED)


@pytest.mark.parametrize("paper,verdict", [
    (0.125, D),    # below the interval [0.25, 0.75]
    (0.25, R),     # at its lower end: contained
    (0.5, R),
    (0.75, R),     # at its upper end: contained
    (0.875, D),    # above it
])
def test_gap_contains_the_paper_at_both_ends(paper, verdict):
    assert gap_verdict(paper, 0.5, 0.25, 0.75) is verdict
    assert gap_verdict(-paper, -0.5, -0.75, -0.25) is verdict      # the other sign


def test_rank_takes_the_weakest_verdict_of_the_entrants():
    R_, D_, NI_, NR_ = (0.5, 0.25, 0.75), (0.5, -0.25, 0.75), (0.5, None, None), \
        (-0.5, -0.75, -0.25)
    # the decision written into rank_verdict's docstring: no interval beats direction
    assert rank_verdict([D_, NI_]) is NI and rank_verdict([NI_, D_]) is NI
    assert rank_verdict([NR_, NI_]) is NR and rank_verdict([NI_, NR_, D_]) is NR
    assert rank_verdict([R_, D_]) is D and rank_verdict([D_, R_]) is D
    assert rank_verdict([R_, NI_]) is NI
    assert rank_verdict([R_, R_]) is R
    # the weakest in VERDICT_ORDER, for every pair (an independent statement of it)
    cases = {R: R_, D: D_, NI: NI_, NR: NR_}
    for a in cases:
        for b in cases:
            weakest = max(a, b, key=VERDICT_ORDER.index)
            assert rank_verdict([cases[a], cases[b]]) is weakest, (a, b)


def test_rank_a_zero_margin_is_no_first_place():
    assert rank_verdict([(0.0, None, None)]) is NR
    assert rank_verdict([(0.0, 0.0, 0.0)]) is NR
    assert rank_verdict([(2.0 ** -20, None, None)]) is NI


@pytest.mark.parametrize("ratio", [0.0, math.inf, math.nan])
def test_ratio_without_a_finite_log_is_not_reproduced(ratio):
    for paper in (0.5, 2.0):
        assert ratio_verdict(paper, ratio) is NR
        assert ratio_verdict(paper, ratio, 0.0, 0.25) is NR


def test_ratio_just_above_zero_is_judged():
    assert ratio_verdict(0.5, 2.0 ** -20) is NI               # below 1, no interval
    assert ratio_verdict(0.5, 2.0 ** -20, 0.0, 0.5) is D      # far below 0.5 / 1.5


@pytest.mark.parametrize("ratio", [-0.5, -2.0, -math.inf])
def test_a_negative_ratio_of_counts_is_an_error(ratio):
    with pytest.raises(ValueError, match=r"ratio must be >= 0 .*got -"):
        ratio_verdict(0.5, ratio)


@pytest.mark.parametrize("ratio,verdict", [
    (1.25, D), (2.0 / 1.5, R), (2.0, R), (3.0, R), (3.125, D),   # paper 2, factor 1.5
])
def test_ratio_factor_edges_are_inclusive(ratio, verdict):
    assert ratio_verdict(2.0, ratio, 1.125, 4.0) is verdict
    assert ratio_verdict(0.5, 1 / ratio, 0.25, 1 / 1.125) is verdict   # below 1


def test_ratio_paper_bounds():
    for bad in (0.0, -1.0, 1.0):
        with pytest.raises(ValueError, match="paper_ratio"):
            ratio_verdict(bad, 0.5)
    assert ratio_verdict(2.0 ** -20, 2.0 ** -20) is NI          # any positive paper


@pytest.mark.parametrize("value,other,verdict", [
    (0.25, 0.5, D),    # outside [0.375, 0.875], its interval reaches it, below other
    (0.25, 0.25, NR),  # equal to other: not below it
    (0.25, 0.125, NR), # above other: the wrong side
    (0.25, None, NR),  # nothing to compare with
])
def test_range_lower_side(value, other, verdict):
    assert range_verdict(value, 0.375, 0.875, 0.125, 0.5, other=other, higher=False) \
        is verdict


@pytest.mark.parametrize("value,other,verdict", [
    (1.0, 0.5, D), (1.0, 1.0, NR), (1.0, 1.25, NR)])
def test_range_higher_side(value, other, verdict):
    assert range_verdict(value, 0.375, 0.875, 0.75, 1.25, other=other) is verdict


@pytest.mark.parametrize("ci,verdict", [
    ((0.125, 0.375), D),    # the interval's top touches the range's bottom
    ((0.125, 0.25), NR),    # falls short
])
def test_range_interval_reaching_the_range(ci, verdict):
    assert range_verdict(0.125, 0.375, 0.875, *ci, other=0.5, higher=False) is verdict
    lo, hi = ci
    # mirrored about the range's middle: 1.125 above it, interval reaching down
    assert range_verdict(1.125, 0.375, 0.875, 1.25 - hi, 1.25 - lo, other=0.5) is verdict


@pytest.mark.parametrize("value,verdict", [(0.375, R), (0.875, R), (0.25, NR), (1.0, NR)])
def test_range_ends_are_inside(value, verdict):
    assert range_verdict(value, 0.375, 0.875, value - 2.0, value - 1.0) is verdict


@pytest.mark.parametrize("lasts,verdict", [
    ([0.75, 1.0], R),       # every series at the threshold or above
    ([0.5, 1.0], D),        # one below, every series rising
    ([0.75], R), ([0.5], D)])
def test_limit_threshold_is_inclusive(lasts, verdict):
    assert limit_verdict(lasts, [True] * len(lasts), 0.75) is verdict
    assert limit_verdict(lasts, [False] * len(lasts), 0.75) is (R if verdict is R else NR)


@pytest.mark.parametrize("lasts,increasing", [([], []), ([0.5], []), ([], [True]),
                                              ([0.5, 0.9], [True])])
def test_limit_needs_one_flag_per_series(lasts, increasing):
    with pytest.raises(ValueError, match="per series"):
        limit_verdict(lasts, increasing, 0.75)


@pytest.mark.parametrize("slopes,verdict", [
    ((0.75, 0.25), R),      # exactly 0.25 off the paper's 0.5 early, tol 0.25
    ((0.8125, 0.25), D),    # 0.3125 off: outside, still sublinear and bending
    ((0.25, 0.25), R),      # exactly 0.25 below
    ((0.1875, 0.125), D),
])
def test_slope_tolerance_edge_is_inclusive(slopes, verdict):
    assert slope_verdict(slopes, (0.5, 0.25), tol=0.25) is verdict


@pytest.mark.parametrize("slopes,paper,verdict", [
    ((0.5, 0.5), (0.875, 0.125), D),    # equal slopes follow a falling paper
    ((0.5, 0.5), (0.125, 0.875), NR),   # ... but not a rising one
    ((0.5, 0.5), (0.125, 0.125), R),    # (within tol 0.5 of a flat paper)
    ((0.75, 0.5), (0.0, 0.0), D),       # a flat paper: ours may fall
    ((0.5, 0.75), (0.0, 0.0), NR),      # ... not rise
    ((0.25, 0.5), (0.0, 0.0), NR),
])
def test_slope_bend_with_equal_slopes(slopes, paper, verdict):
    tol = 0.5 if verdict is R else 0.125
    assert slope_verdict(slopes, paper, tol=tol) is verdict


@pytest.mark.parametrize("slopes,verdict", [
    ((1.0,), NR),                        # exactly linear: not sublinear
    ((1.0 - 2.0 ** -20,), D),            # just below
    ((1.0, 0.25), NR), ((0.875, 1.0), NR),
])
def test_slope_of_exactly_one_is_not_sublinear(slopes, verdict):
    paper = (0.25,) * len(slopes) if len(slopes) == 1 else (0.5, 0.25)
    if len(slopes) == 2:
        paper = (1.5, 0.25) if slopes[1] == 0.25 else (1.5, 1.25)
    assert slope_verdict(slopes, paper, tol=0.125) is verdict


def test_ratio_factor_below_one_is_an_error():
    for bad in (0.5, 1 - 2.0 ** -20, 0.0, -2.0):
        with pytest.raises(ValueError, match="factor must be >= 1"):
            ratio_verdict(2.0, 2.0, 1.5, 2.5, factor=bad)
    assert ratio_verdict(2.0, 2.0, 1.5, 2.5, factor=1.0) is R         # exactly 1: allowed
    assert ratio_verdict(2.0, 2.5, 1.5, 3.0, factor=1.0) is D         # ... and strict


PEAK = {4: (0.0, -0.25, 0.25), 12: (0.75, 0.5, 1.0), 64: (0.0, -0.25, 0.25)}


@pytest.mark.parametrize("left_hi,right_hi,verdict", [
    (0.25, 0.25, R),
    (0.5, 0.25, D),      # the left end's interval reaches the peak's lower end
    (0.25, 0.5, D),      # the right one's
    (0.5, 0.5, D),
    (0.625, 0.25, D), (0.25, 0.625, D),
])
def test_peak_needs_both_end_intervals_strictly_below_the_peaks(left_hi, right_hi, verdict):
    g = {4: (0.0, -0.25, left_hi), 12: PEAK[12], 64: (0.0, -0.25, right_hi)}
    assert peak_verdict(g) is verdict


def test_peak_counts_points_not_a_fixed_three():
    assert peak_verdict({**PEAK, 32: (0.25, 0.0, 0.375)}) is R          # four points
    assert peak_verdict({**PEAK, 32: (0.875, 0.75, 1.0)}) is R          # peak at 32
    assert peak_verdict({4: PEAK[4], 12: PEAK[12]}) is NR                # two: no interior
    assert peak_verdict({12: PEAK[12]}) is NR
    assert peak_verdict({}) is NR
    # a tie for the maximum is decided by the first x (max keeps the first)
    assert peak_verdict({4: (0.75, 0.5, 1.0), 12: (0.75, 0.5, 1.0),
                         64: (0.0, -0.25, 0.25)}) is NR


def test_order_an_interval_ending_at_zero_on_the_other_side_is_not_reproduced():
    assert order_verdict(1, 0.25, -0.5, 0.0) is NR       # hi == 0: does not cross
    assert order_verdict(1, 0.25, -0.5, 2.0 ** -20) is D
    assert order_verdict(-1, -0.25, 0.0, 0.5) is NR
    assert order_verdict(-1, -0.25, -(2.0 ** -20), 0.5) is D


def test_tie_margin_edges():
    assert tie_verdict(-0.25, 0.25, 0.25) is R            # both ends on the margin
    assert tie_verdict(-0.25 - 2.0 ** -20, 0.0, 0.25) is NR
    assert tie_verdict(0.0, 0.0, 0.0) is R                # margin 0 is allowed
    assert tie_verdict(0.0, 2.0 ** -20, 0.0) is NR


def test_bound_one_row_suffices():
    assert bound_verdict(0, 1) is R
    assert bound_verdict(1, 1) is NR


def test_within_factor_edges():
    assert within_factor(1.0, 2.0, 2.0) and within_factor(4.0, 2.0, 2.0)   # both ends in
    assert not within_factor(1.0 - 2.0 ** -20, 2.0, 2.0)
    assert not within_factor(4.0 + 2.0 ** -20, 2.0, 2.0)
    assert within_factor(0.5, 0.5, 1.0) and not within_factor(0.5 + 2.0 ** -20, 0.5, 1.0)
    assert within_factor(0.25, 0.5, 2.0)                  # below 1 is fine
    # paper / factor underflows to 0.0: a value of 0 is still not within any factor
    assert not within_factor(0.0, 5e-324, 2.0)
    assert not within_factor(-1.0, 1.0, 4.0)


@pytest.mark.parametrize("factor,paper", [(0.5, 1.0), (1.0, 0.0), (1.0, -1.0), (0.5, 0.0)])
def test_within_factor_bad_arguments(factor, paper):
    with pytest.raises(ValueError, match=r"^need factor >= 1 and paper > 0, got "):
        within_factor(1.0, paper, factor)


def test_peak_is_the_largest_gain_not_the_largest_lower_end():
    g = {4: (0.5, 0.45, 0.55), 12: (0.75, 0.0, 1.5), 64: (0.0, -0.25, 0.25)}
    assert peak_verdict(g) is D             # the interior gain is the largest


def test_slope_tolerance_zero_is_allowed():
    assert slope_verdict((0.5,), (0.5,), tol=0.0) is R
    assert slope_verdict((0.5,), (0.5 + 2.0 ** -20,), tol=0.0) is D


@pytest.mark.parametrize("call,message", [
    (lambda: gap_verdict(0.0, 0.1, 0.0, 0.2),
     "a gap claim needs a nonzero paper difference; use tie_verdict"),
    (lambda: rank_verdict([]), "a rank claim needs at least one other entrant"),
    (lambda: bound_verdict(-1, 5), "counts must be >= 0, got -1 of 5"),
    (lambda: bound_verdict(1, -5), "counts must be >= 0, got 1 of -5"),
    (lambda: ratio_verdict(2.0, 2.0, factor=0.5), "factor must be >= 1, got 0.5"),
    (lambda: slope_verdict((0.3,), (0.3, 0.2)),
     "need as many slopes as the paper's, got 1 and 2"),
    (lambda: slope_verdict((), ()), "need as many slopes as the paper's, got 0 and 0"),
    (lambda: slope_verdict((0.3,), (0.3,), tol=-0.5), "tol must be >= 0, got -0.5"),
    (lambda: tie_verdict(0, 0, -0.5), "margin must be >= 0, got -0.5"),
    (lambda: range_verdict(0.5, 1.0, 0.0), "empty range [1.0, 0.0]"),
    (lambda: order_verdict(0, 1.0), "sign must be +1 or -1, got 0"),
])
def test_every_error_message_as_written(call, message):
    import re

    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()
