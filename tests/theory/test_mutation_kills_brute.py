"""theory/brute.py: what mutating it (issue 38) showed untested.

The checks hold a brute-force route to an inequality (P(J* in L_m) <= bound), so a
route that comes out too small passes them; and the callers hand every route square
float matrices. Pinned here against routes that share no code with brute.py: every
list of every column enumerated, exact Fractions built by hand."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from theory import brute


def _best_list_probability(channel, m):
    """max over lists L(y) of size m of P(J* in L(Y)), J* uniform: every m-subset of
    rows tried in every column."""
    n_rows, n_cols = channel.shape
    return sum(max(sum(channel[j, y] for j in rows) for rows in
                   itertools.combinations(range(n_rows), m))
               for y in range(n_cols)) / n_rows


def _mi_bits(joint):
    """I(X; Y) of a joint pmf given as nested lists, in plain Python floats."""
    px = [sum(row) for row in joint]
    py = [sum(col) for col in zip(*joint)]
    return sum(p * math.log2(p / (px[i] * py[j])) for i, row in enumerate(joint)
               for j, p in enumerate(row) if p > 0)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 6), (6, 6)])
def test_channel_stats_against_every_list(seed, shape):
    """(I, the best size-m list's P(J* in L)) of random channels, square or not
    (rows J*, columns y: normalised by the number of rows), every m: the MAP list
    equals the best of all lists, and I the plain-Python mutual information."""
    rng = np.random.default_rng(seed)
    channel = rng.dirichlet(np.full(shape[1], 0.4), size=shape[0])
    joint = (channel / shape[0]).tolist()
    for m in range(1, shape[0] + 1):
        info, best = brute.channel_stats(channel, m)
        assert best == pytest.approx(_best_list_probability(channel, m), rel=1e-12)
        assert info == pytest.approx(_mi_bits(joint), rel=1e-10, abs=1e-14)
    assert brute.channel_stats(channel, shape[0])[1] == pytest.approx(1.0, rel=1e-12)


def test_channel_stats_of_a_noiseless_and_a_useless_channel():
    """Identity channel: I = log2 n and the size-1 list is always right; a channel
    whose rows are all equal: I = 0 and a size-m list is right with probability m/n."""
    n = 5
    info, best = brute.channel_stats(np.eye(n), 1)
    assert info == pytest.approx(math.log2(n)) and best == pytest.approx(1.0)
    flat = np.full((n, 3), 1 / 3)
    for m in range(1, n + 1):
        info, best = brute.channel_stats(flat, m)
        assert info == pytest.approx(0.0, abs=1e-15) and best == pytest.approx(m / n)


def test_mutual_information_of_an_exact_pmf():
    """A joint pmf given as exact Fractions (as the Fraction routes here produce) is
    read as floats: the same I as the float matrix, and the closed form of a binary
    symmetric channel, 1 - h(1/4)."""
    q = Fraction(1, 4)
    exact = [[(1 - q) / 2, q / 2], [q / 2, (1 - q) / 2]]
    h = -(0.25 * math.log2(0.25) + 0.75 * math.log2(0.75))
    assert brute.mutual_information_bits(exact) == pytest.approx(1 - h, rel=1e-13)
    assert brute.mutual_information_bits(np.array(exact, dtype=object)) == pytest.approx(
        1 - h, rel=1e-13)


@pytest.mark.parametrize("n,w", [(3, 0), (3, 1), (4, 2), (5, 2), (5, 5)])
def test_windowed_joint_is_the_documented_pmf(n, w):
    """P(J* = j, Y = (W, b)) = 1/(n C(n, w)) for each window W and b = j if j in W,
    else None: built here as exact Fractions over the same outcomes; every entry
    0 or that mass (and no -0.0: a pmf, entries >= 0 in sign too)."""
    joint = brute.windowed_joint(n, w)
    mass = Fraction(1, n * math.comb(n, w))
    cells = {}
    for window in itertools.combinations(range(n), w):
        for j in range(n):
            cells[(j, (window, j if j in window else None))] = mass
    outcomes = sorted({y for _, y in cells}, key=repr)
    assert joint.shape == (n, len(outcomes))
    assert not np.signbit(joint).any()
    got = sorted((tuple(joint[:, c]) for c in range(joint.shape[1])))
    want = sorted(tuple(float(cells.get((j, y), 0)) for j in range(n)) for y in outcomes)
    assert got == want


def test_an_order_that_never_frees_L_is_an_error():
    """eviction_Z raises ValueError with its documented message when the order runs
    out before freeing L (the bulky block absent and fewer than kappa others)."""
    with pytest.raises(ValueError, match=r"^order exhausted before freeing L$"):
        brute.eviction_Z([0, 1], bulky=5, kappa=3)
    assert brute.eviction_Z([0, 1, 2], bulky=5, kappa=3) == 3
    assert brute.eviction_Z([1, 5], bulky=5, kappa=3) == 1


def test_channel_stats_computes_in_float64_whatever_the_array_dtype():
    """A float32 (or integer) channel matrix gives the stats of its exact float64
    copy: the division by n and the sums are in float64, not in the input's dtype."""
    rng = np.random.default_rng(7)
    single = rng.dirichlet(np.full(5, 0.4), size=5).astype(np.float32)
    double = single.astype(np.float64)
    for m in (1, 2, 3):
        assert brute.channel_stats(single, m) == pytest.approx(
            brute.channel_stats(double, m), rel=1e-14, abs=1e-15)
    assert brute.channel_stats(np.eye(3, dtype=np.int64), 1) == pytest.approx(
        (math.log2(3), 1.0), rel=1e-15)
