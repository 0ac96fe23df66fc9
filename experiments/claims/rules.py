"""The verdict rules: pure functions of numbers, one per kind of claim.

The words (:class:`~experiments.claims.records.Verdict`) mean the same under every
rule:

* ``reproduced``: the interval lies on the claimed side (and, where the paper's
  size is comparable with ours, contains the paper's number);
* ``reproduced in direction only``: the point estimate is on the claimed side but
  the interval crosses zero, or the sign is significant but the paper's size is
  outside our interval;
* ``no interval``: the point estimate is on the claimed side and there is no
  interval to judge it by;
* ``not reproduced``: otherwise, including a tie (a tie is no ordering and no
  first place) and a curve that misses a number the paper gives.

Nothing here reads a file; :mod:`experiments.claims.checks` computes the numbers.
"""

from __future__ import annotations

import math
from typing import Sequence

from experiments.claims.records import Verdict

REPRODUCED = Verdict.REPRODUCED
DIRECTION = Verdict.DIRECTION
NO_INTERVAL = Verdict.NO_INTERVAL
NOT_REPRODUCED = Verdict.NOT_REPRODUCED
NOT_TESTABLE = Verdict.NOT_TESTABLE


def _sign(sign: int) -> int:
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, got {sign!r}")
    return sign


def _has_interval(lo, hi) -> bool:
    return lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi)


def order_verdict(sign: int, diff: float, lo: float | None = None,
                  hi: float | None = None) -> Verdict:
    """A claimed ordering: ``diff`` should have the sign ``sign`` (+1: above the
    reference, -1: below).

    Reproduced if the interval [lo, hi] lies strictly on the claimed side of zero;
    in direction only if the point estimate is on that side and the interval
    crosses zero; no interval if the point estimate is on that side and
    ``lo``/``hi`` are missing; otherwise (a tie, the wrong side, or an interval
    on the other side) not reproduced.
    """
    s = _sign(sign)
    if not s * diff > 0:
        return NOT_REPRODUCED
    if not _has_interval(lo, hi):
        return NO_INTERVAL
    near, far = (lo, hi) if s > 0 else (-hi, -lo)
    if near > 0:
        return REPRODUCED
    return DIRECTION if far > 0 else NOT_REPRODUCED


def gap_verdict(paper_diff: float, diff: float, lo: float | None, hi: float | None,
                comparable: bool = True) -> Verdict:
    """A claimed difference ``paper_diff`` (nonzero) against ours, ``diff`` with
    interval [lo, hi].

    The ordering is judged as :func:`order_verdict` with the paper's sign; a
    reproduced ordering stays reproduced only if the sizes are not comparable
    (``comparable=False``: synthetic tokens against a real model's) or our
    interval contains ``paper_diff``; otherwise it is in direction only.

    Raises:
        ValueError: for ``paper_diff == 0`` (use :func:`tie_verdict`).
    """
    if paper_diff == 0:
        raise ValueError("a gap claim needs a nonzero paper difference; use tie_verdict")
    v = order_verdict(1 if paper_diff > 0 else -1, diff, lo, hi)
    if v is REPRODUCED and comparable and not lo <= paper_diff <= hi:
        return DIRECTION
    return v


def tie_verdict(lo: float | None, hi: float | None, margin: float) -> Verdict:
    """A claimed tie: reproduced if the whole interval lies within +-``margin``;
    no interval if there is none; otherwise not reproduced."""
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    if not _has_interval(lo, hi):
        return NO_INTERVAL
    return REPRODUCED if -margin <= lo and hi <= margin else NOT_REPRODUCED


def bound_verdict(violations: int, rows: int) -> Verdict:
    """A bound claimed for every row: reproduced if rows were checked and none
    violates it beyond its Monte Carlo error (the check's tolerance)."""
    if violations < 0 or rows < 0:
        raise ValueError(f"counts must be >= 0, got {violations} of {rows}")
    return REPRODUCED if rows > 0 and violations == 0 else NOT_REPRODUCED


def rank_verdict(margins: Sequence[tuple[float, float | None, float | None]]) -> Verdict:
    """A claimed first place. ``margins``: for every other entrant, how much
    better ours is (positive = better), with its interval (or ``None, None``).

    Reproduced if every interval lies above zero; in direction only if every
    point margin is above zero but some interval crosses it; no interval if every
    point margin is above zero and some interval is missing; not reproduced if
    any margin is zero or negative (a tie is not first place). Where several of
    these hold the weakest wins, in :data:`~experiments.claims.records.VERDICT_ORDER`
    (not reproduced, then no interval, then direction only): an entrant without an
    interval leaves the first place unjudged even where another's interval crosses
    zero, so "no interval" beats "direction only".
    """
    if not margins:
        raise ValueError("a rank claim needs at least one other entrant")
    verdicts = [order_verdict(1, d, lo, hi) for d, lo, hi in margins]
    for v in (NOT_REPRODUCED, NO_INTERVAL, DIRECTION):
        if v in verdicts:
            return v
    return REPRODUCED


def ratio_verdict(paper_ratio: float, ratio: float, lo: float | None = None,
                  hi: float | None = None, factor: float = 1.5) -> Verdict:
    """A claimed ratio of counts (e.g. archives without/with the dashboard):
    judged as :func:`order_verdict` on the paper's side of 1 (interval [lo, hi]);
    a reproduced ordering needs the point ratio within ``factor`` of the
    paper's (inclusive), else it is in direction only. A ratio of 0 or an infinite
    or NaN one (a sum of zero counts on one side) has no finite log-ratio and is
    not reproduced, whichever side the paper's is on.

    Raises:
        ValueError: for a paper ratio of 1 or <= 0, a negative ``ratio`` (a ratio of
            counts), or ``factor < 1``.
    """
    if not paper_ratio > 0 or paper_ratio == 1:
        raise ValueError(f"paper_ratio must be > 0 and != 1, got {paper_ratio}")
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")
    if ratio < 0:
        raise ValueError(f"ratio must be >= 0 (a ratio of counts), got {ratio}")
    if not (math.isfinite(ratio) and ratio > 0):
        return NOT_REPRODUCED
    # the side of 1 is the side of zero of (x - 1): the same ordering as on a log scale
    shift = lambda x: None if x is None else x - 1  # noqa: E731
    v = order_verdict(1 if paper_ratio > 1 else -1, ratio - 1, shift(lo), shift(hi))
    if v is REPRODUCED and not paper_ratio / factor <= ratio <= paper_ratio * factor:
        return DIRECTION
    return v


def range_verdict(value: float, lo: float, hi: float, ci_lo: float | None = None,
                  ci_hi: float | None = None, other: float | None = None,
                  higher: bool = True) -> Verdict:
    """A claimed range [lo, hi] for ``value`` (e.g. a median relative error).

    Reproduced if ``value`` is inside the range and has an interval; no interval
    if inside without one; in direction only if outside but its interval
    [ci_lo, ci_hi] reaches the range and ``value`` is on the claimed side of
    ``other`` (``higher``: above it) — a value far from the paper's range is not
    "direction only"; otherwise not reproduced.
    """
    if lo > hi:
        raise ValueError(f"empty range [{lo}, {hi}]")
    has = _has_interval(ci_lo, ci_hi)
    if lo <= value <= hi:
        return REPRODUCED if has else NO_INTERVAL
    near = has and ci_lo <= hi and ci_hi >= lo
    side = other is not None and (value > other if higher else value < other)
    return DIRECTION if near and side else NOT_REPRODUCED


def limit_verdict(lasts: Sequence[float], increasing: Sequence[bool],
                  threshold: float) -> Verdict:
    """A claimed limit of 1: reproduced if every series ends at >= ``threshold``;
    in direction only if every series increases towards it; else not reproduced.
    ``lasts[i]``: series i's last value; ``increasing[i]``: whether it rose.

    Raises:
        ValueError: for no series, or ``lasts`` and ``increasing`` of different
            lengths (every series needs both).
    """
    if not lasts or len(lasts) != len(increasing):
        raise ValueError(f"need one last value and one increasing flag per series, "
                         f"at least one series; got {len(lasts)} and {len(increasing)}")
    if all(v >= threshold for v in lasts):
        return REPRODUCED
    return DIRECTION if all(increasing) else NOT_REPRODUCED


def peak_verdict(gains: dict[int, tuple[float, float, float]]) -> Verdict:
    """A claimed interior peak of ``gains`` (x -> (gain, lo, hi)): reproduced if the
    maximum is interior and both end intervals lie below the peak's interval;
    in direction only if the maximum is interior; else not reproduced."""
    xs = sorted(gains)
    if len(xs) < 3:
        return NOT_REPRODUCED
    best = max(xs, key=lambda x: gains[x][0])
    if best in (xs[0], xs[-1]):
        return NOT_REPRODUCED
    peak_lo = gains[best][1]
    if gains[xs[0]][2] < peak_lo and gains[xs[-1]][2] < peak_lo:
        return REPRODUCED
    return DIRECTION


def within_factor(value: float, paper: float, factor: float) -> bool:
    """``value`` within a factor ``factor`` of ``paper`` (both > 0)."""
    if factor < 1 or paper <= 0:
        raise ValueError(f"need factor >= 1 and paper > 0, got {factor}, {paper}")
    return value > 0 and paper / factor <= value <= paper * factor


def footprint_verdict(peak: float, paper_peak: float, declines: bool,
                      factor: float = 2.0) -> Verdict:
    """A footprint claimed to peak near ``paper_peak`` tokens and then decline
    (VISTA Fig. 10a): every number the paper gives must hold. Reproduced if the
    peak is within ``factor`` of the paper's and the footprint declines after
    it; in direction only if the peak matches but it does not decline; not
    reproduced if the peak misses (whatever the shape)."""
    if not within_factor(peak, paper_peak, factor):
        return NOT_REPRODUCED
    return REPRODUCED if declines else DIRECTION


def slope_verdict(slopes: Sequence[float], paper_slopes: Sequence[float],
                  tol: float = 0.2) -> Verdict:
    """Fitted log-log slopes of a growth curve against the paper's (e.g. the
    visible set's 0.72 early and 0.33 late, VISTA Fig. 10b): every slope must be
    within ``tol`` of the paper's (``|slope - paper| <= tol``: the edge counts) for
    reproduced; in direction only if every slope is sublinear (< 1: a slope of
    exactly 1 is linear, not sublinear) and, for several, they bend the way the
    paper's do: each at most the previous one where the paper's does not rise
    (equal slopes follow a fall) and above it where the paper's rises; else not
    reproduced."""
    if len(slopes) != len(paper_slopes) or not slopes:
        raise ValueError(f"need as many slopes as the paper's, got {len(slopes)} "
                         f"and {len(paper_slopes)}")
    if tol < 0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    if all(abs(s - p) <= tol for s, p in zip(slopes, paper_slopes)):
        return REPRODUCED
    sub = all(s < 1 for s in slopes)
    bends = all((b <= a) == (pb <= pa) for a, b, pa, pb in
                zip(slopes, slopes[1:], paper_slopes, paper_slopes[1:]))
    return DIRECTION if sub and bends else NOT_REPRODUCED


def near_zero_verdict(value: float, lo: float | None, hi: float | None,
                      margin: float) -> Verdict:
    """A quantity claimed to be essentially zero (e.g. a correlation, VISTA Table 5:
    "estimates essentially uncorrelated with truth"): reproduced if the whole
    interval [lo, hi] lies within +-``margin``; in direction only if the point
    ``value`` does (``|value| < margin``: the edge is outside) but the interval
    reaches past it; no interval if the point does and there is no interval;
    otherwise (a NaN value included) not reproduced.

    Raises:
        ValueError: for ``margin <= 0``.
    """
    if not margin > 0:
        raise ValueError(f"margin must be > 0, got {margin}")
    if not abs(value) < margin:
        return NOT_REPRODUCED
    if not _has_interval(lo, hi):
        return NO_INTERVAL
    return REPRODUCED if -margin <= lo and hi <= margin else DIRECTION


def constant_verdict(spread: float, value: float, paper: float,
                     factor: float) -> Verdict:
    """A cost claimed constant at ``paper`` (e.g. VISTA Fig. 10's fixed overhead of
    492 tokens on every query): not reproduced if it varies (``spread`` = max - min
    over the requests > 0); reproduced if constant and within ``factor`` of the
    paper's (:func:`within_factor`); in direction only if constant at another size.

    Raises:
        ValueError: for a negative or NaN ``spread``, or as :func:`within_factor`.
    """
    if not spread >= 0:
        raise ValueError(f"spread must be >= 0 (max - min), got {spread}")
    if spread > 0:
        return NOT_REPRODUCED
    return REPRODUCED if within_factor(value, paper, factor) else DIRECTION


def at_setting(verdict: Verdict, at_paper_setting: bool) -> Verdict:
    """Reproduced needs the paper's setting: a claim checked elsewhere is at best
    in direction only."""
    if verdict is REPRODUCED and not at_paper_setting:
        return DIRECTION
    return verdict
