"""The verdict rules of the claims scorecard on hand-made numbers, each on both
sides of its thresholds (issue 18: rules that cannot flatter), and the intervals
they are fed against known values."""

import math

import numpy as np
import pytest

from experiments.claims.records import Verdict
from experiments.claims.rules import (at_setting, bound_verdict, footprint_verdict,
                                      gap_verdict, limit_verdict, order_verdict,
                                      peak_verdict, range_verdict, rank_verdict,
                                      ratio_verdict, slope_verdict, tie_verdict)
from experiments.intervals import cluster_median_ci, newcombe, ratio_of_sums_ci, wilson

R, D, NI, NR = (Verdict.REPRODUCED, Verdict.DIRECTION, Verdict.NO_INTERVAL,
                Verdict.NOT_REPRODUCED)


def test_order_needs_the_interval_on_the_claimed_side():
    assert order_verdict(1, 0.3, 0.1, 0.5) is R
    assert order_verdict(1, 0.3, 0.0, 0.5) is D            # touching zero: crosses it
    assert order_verdict(1, 0.3, -0.1, 0.5) is D
    assert order_verdict(1, 0.3) is NI                      # no interval: its own word
    assert order_verdict(1, 0.3, None, 0.5) is NI
    assert order_verdict(1, 0.0, -0.1, 0.1) is NR          # a tie is no ordering
    assert order_verdict(1, 0.0) is NR
    assert order_verdict(1, -0.3, -0.5, -0.1) is NR
    assert order_verdict(1, -0.3) is NR
    assert order_verdict(1, 0.3, -0.5, -0.1) is NR         # interval on the other side
    assert order_verdict(-1, -0.3, -0.5, -0.1) is R
    assert order_verdict(-1, -0.3, -0.5, 0.0) is D
    assert order_verdict(-1, 0.1, -0.5, 0.2) is NR
    with pytest.raises(ValueError, match="sign"):
        order_verdict(0, 1.0)


def test_gap_compares_the_size_only_where_comparable():
    assert gap_verdict(0.28, 0.28, 0.17, 0.39) is R
    assert gap_verdict(0.28, 0.28, 0.17, 0.27) is D        # paper just above the interval
    assert gap_verdict(0.06, 0.72, 0.60, 0.84) is D        # window at 12K: 74% vs 2%
    assert gap_verdict(0.06, 0.72, 0.60, 0.84, comparable=False) is R
    assert gap_verdict(0.28, 0.10, -0.02, 0.20) is D       # point right, interval crosses 0
    assert gap_verdict(0.28, -0.2, -0.3, -0.1) is NR
    assert gap_verdict(-0.36, 0.0, 0.0, 0.0) is NR         # no decline at all
    assert gap_verdict(-0.36, -0.36, -0.45, -0.27) is R
    assert gap_verdict(0.28, 0.28, None, None) is NI
    with pytest.raises(ValueError, match="tie_verdict"):
        gap_verdict(0.0, 0.1, 0.0, 0.2)


def test_tie_margin_both_sides():
    assert tie_verdict(-0.05, 0.10, 0.1) is R
    assert tie_verdict(-0.05, 0.1001, 0.1) is NR
    assert tie_verdict(-0.1001, 0.0, 0.1) is NR
    assert tie_verdict(None, None, 0.1) is NI
    with pytest.raises(ValueError, match="margin"):
        tie_verdict(0, 0, -1)


def test_bound_counts():
    assert bound_verdict(0, 5) is R
    assert bound_verdict(1, 5) is NR
    assert bound_verdict(0, 0) is NR                        # nothing checked
    with pytest.raises(ValueError):
        bound_verdict(-1, 5)


def test_a_tie_is_not_first_place():
    assert rank_verdict([(0.1, 0.05, 0.2), (0.3, 0.1, 0.4)]) is R
    assert rank_verdict([(0.0, -0.05, 0.05), (0.3, 0.1, 0.4)]) is NR   # tied first
    assert rank_verdict([(0.1, -0.05, 0.2), (0.3, 0.1, 0.4)]) is D
    assert rank_verdict([(0.1, None, None), (0.3, 0.1, 0.4)]) is NI
    assert rank_verdict([(0.1, None, None), (-0.3, -0.4, -0.1)]) is NR
    with pytest.raises(ValueError, match="entrant"):
        rank_verdict([])


def test_ratio_factor_and_side_of_one():
    paper = 255 / 69                                        # 3.70x, factor 1.5: 2.46-5.54
    assert ratio_verdict(paper, 4.0, 3.0, 5.0) is R
    assert ratio_verdict(paper, 5.5, 4.0, 7.0) is R
    assert ratio_verdict(paper, 5.6, 4.0, 7.0) is D         # significant, size off
    assert ratio_verdict(paper, 6.28, 5.0, 8.0) is D
    assert ratio_verdict(paper, 2.0, 0.8, 3.0) is D         # interval reaches below 1
    assert ratio_verdict(paper, 4.0) is NI
    assert ratio_verdict(57 / 105, 1.68, 1.2, 2.3) is NR    # the wrong side of 1
    assert ratio_verdict(57 / 105, 0.5, 0.4, 0.6) is R
    assert ratio_verdict(57 / 105, math.inf) is NR
    with pytest.raises(ValueError):
        ratio_verdict(1.0, 2.0)


def test_range_far_from_the_paper_is_not_direction():
    # Tab5-ledger: 0.776 against the paper's 0 is far: not reproduced
    assert range_verdict(0.776, 0.0, 0.0, 0.60, 0.90, other=0.856, higher=False) is NR
    # Tab5-blind: 0.856 just above 0.43-0.84, its interval reaches the range
    assert range_verdict(0.856, 0.43, 0.84, 0.80, 0.90, other=0.776) is D
    assert range_verdict(0.856, 0.43, 0.84, 0.845, 0.90, other=0.776) is NR  # not reached
    assert range_verdict(0.856, 0.43, 0.84, 0.80, 0.90, other=0.900) is NR   # wrong side
    assert range_verdict(0.60, 0.43, 0.84, 0.50, 0.70) is R
    assert range_verdict(0.84, 0.43, 0.84, 0.50, 0.90) is R                  # edge inside
    assert range_verdict(0.60, 0.43, 0.84) is NI
    with pytest.raises(ValueError, match="empty range"):
        range_verdict(0.5, 1.0, 0.0)


def test_footprint_checks_the_peak_the_paper_gives():
    assert footprint_verdict(3181, 340, declines=True) is NR   # 9x the paper's peak
    assert footprint_verdict(600, 340, declines=True) is R     # within 2x (<= 680)
    assert footprint_verdict(690, 340, declines=True) is NR
    assert footprint_verdict(169, 340, declines=True) is NR    # below 340 / 2
    assert footprint_verdict(300, 340, declines=False) is D


def test_slopes_check_every_slope_the_paper_gives():
    paper = (0.72, 0.33)
    assert slope_verdict((0.85, 0.25), paper) is R
    assert slope_verdict((0.93, 0.25), paper) is D          # 0.21 off, still bends
    assert slope_verdict((0.50, 0.70), paper) is NR         # does not bend
    assert slope_verdict((1.10, 0.30), paper) is NR         # superlinear early
    assert slope_verdict((-0.17,), (0.33,)) is D            # sublinear, far from 0.33
    assert slope_verdict((0.30,), (0.33,)) is R
    with pytest.raises(ValueError):
        slope_verdict((0.3,), paper)


def test_limit_peak_and_setting():
    assert limit_verdict([0.95, 1.0], [True, True], 0.9) is R
    assert limit_verdict([0.5, 1.0], [True, True], 0.9) is D
    assert limit_verdict([0.5, 1.0], [False, True], 0.9) is NR
    g = {4: (0.0, -0.05, 0.05), 12: (0.6, 0.45, 0.72), 64: (-0.02, -0.1, 0.06)}
    assert peak_verdict(g) is R
    assert peak_verdict({**g, 12: (0.1, 0.0, 0.2)}) is D
    assert peak_verdict({**g, 64: (0.7, 0.6, 0.8)}) is NR
    assert at_setting(R, False) is D and at_setting(R, True) is R
    assert at_setting(NR, False) is NR


def test_intervals_against_known_values():
    # Wilson's interval for 0/10 and Newcombe's for 56/70 - 48/80 (Newcombe 1998,
    # Table II: 0.2 [0.0524, 0.3339])
    _, lo, hi = wilson(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.2775, abs=1e-4)
    d, lo, hi = newcombe(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.0524, abs=1e-4) and hi == pytest.approx(0.3339, abs=1e-4)
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_bootstrap_intervals_against_exact_cases():
    # a ratio the same on every task has a degenerate interval at that ratio
    r, lo, hi = ratio_of_sums_ci([2, 4, 6], [1, 2, 3])
    assert (r, lo, hi) == (2.0, 2.0, 2.0)
    # one cluster: every resample is that cluster, so the interval is its median
    m, lo, hi = cluster_median_ci([[1.0, 5.0, 3.0]])
    assert m == lo == hi == 3.0
    # many clusters: the interval brackets the pooled median and lies in the data range
    rng = np.random.default_rng(1)
    cl = [list(rng.normal(0.5, 0.1, 4)) for _ in range(20)]
    m, lo, hi = cluster_median_ci(cl)
    assert lo <= m <= hi and lo > 0.2 and hi < 0.8
    with pytest.raises(ValueError):
        ratio_of_sums_ci([], [])


def test_ratio_interval_with_zero_denominator_resamples_is_silent_and_matches_numpy():
    """Resamples whose ``b`` sums to zero give ``inf``; the interval is numpy's linear
    quantile with ``inf`` standing for a huge number, and no RuntimeWarning."""
    import warnings

    from experiments.intervals import LEVEL, RESAMPLES

    a, b = [1, 0, 0, 3], [2, 0, 0, 0]  # b sums to zero in many resamples
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r, lo, hi = ratio_of_sums_ci(a, b)
    assert r == 2.0 and hi == math.inf
    # independent route: the same bootstrap with a huge finite stand-in for inf
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 4, size=(RESAMPLES, 4))
    sa, sb = np.asarray(a, float)[idx].sum(1), np.asarray(b, float)[idx].sum(1)
    stats = np.where(sb > 0, sa / np.where(sb > 0, sb, 1), 1e300)
    ref_lo, ref_hi = np.quantile(stats, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    assert lo == (math.inf if ref_lo > 1e299 else pytest.approx(ref_lo))
    assert ref_hi > 1e299
    with warnings.catch_warnings():  # every resample zero: a point at inf
        warnings.simplefilter("error")
        assert ratio_of_sums_ci([1, 2], [0, 0]) == (math.inf, math.inf, math.inf)
