"""theory/bounds.py: what mutating it (issue 38) showed untested.

The checks and test_bounds.py see that bad arguments raise ValueError, not what the
message says: the module promises messages that start with the parameter's name,
say what was expected and print the first offending value (so in an array, not the
first element). The boundaries the checks never reach are pinned too: _uniform_burden
at m = 0 and at real m below 1, the piece used at m = kappa + 1, bound_sum with no
games at all and at the smallest game n = kappa + 1, windowed_rate_bits at n = 1, and
inputs outside float's native range (a Python int above 2**64). Expected values come
from plain Python floats and math, never from the helper under test."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from theory import bounds


def _raises(message: str):
    """pytest.raises for a ValueError whose whole message is ``message``."""
    return pytest.raises(ValueError, match="^" + re.escape(message) + "$")


# ----------------------------------------------------------------------------- messages

@pytest.mark.parametrize("call,message", [
    # _real, through _integer: a non-finite n or kappa is named
    (lambda: bounds.nu_bits(np.inf, 2), "n must be finite, got inf"),
    (lambda: bounds.nu_bits(8, np.nan), "kappa must be finite, got nan"),
    # the first bad value of an array, not its first element
    (lambda: bounds.nu_bits([8, np.inf, -np.inf], 2), "n must be finite, got inf"),
    # _integer: not integral (first bad one), below the minimum (what: "an integer >= k")
    (lambda: bounds.nu_bits([8, 8.5, 9.5], 2), "n must be an integer, got 8.5"),
    (lambda: bounds.nu_bits(8, 1), "kappa must be an integer >= 2, got 1.0"),
    # _game: the first n that does not exceed its kappa
    (lambda: bounds.nu_bits([5, 3, 2 ** 2], 3), "n must exceed kappa (n > kappa), got n=3.0"),
    # list_fano_bound: n >= 2, m in 1..n (first bad one, m broadcast against n), I_bits a rate
    (lambda: bounds.list_fano_bound(0, 1, 1), "n must be an integer >= 2, got 1.0"),
    (lambda: bounds.list_fano_bound(0, 10, 11), "m must be an integer in 1..n, got 11.0"),
    (lambda: bounds.list_fano_bound(0, [10, 10, 10], [3, 11, 12]),
     "m must be an integer in 1..n, got 11.0"),
    (lambda: bounds.list_fano_bound(0, [10, 4], 5), "m must be an integer in 1..n, got 5.0"),
    (lambda: bounds.list_fano_bound(-1, 10, 2), "I_bits must be in [0, log2 n] bits, got -1.0"),
    (lambda: bounds.list_fano_bound([1, 4], 10, 2),
     "I_bits must be in [0, log2 n] bits, got 4.0"),
    # list_achievability_EZ_m, list_size_for_rate: their own n / kappa checks
    (lambda: bounds.list_achievability_EZ_m(3, 1), "kappa must be an integer >= 2, got 1.0"),
    (lambda: bounds.list_size_for_rate(1, 0), "n must be an integer >= 2, got 1.0"),
    # windowed_rate_bits: n >= 1, w in 0..n
    (lambda: bounds.windowed_rate_bits(0, 0), "n must be an integer >= 1, got 0.0"),
    (lambda: bounds.windowed_rate_bits(3, 4), "w must be an integer in 0..n, got 4.0"),
    # windowed_EZ: w in 0..n
    (lambda: bounds.windowed_EZ(10, 3, 11), "w must be an integer in 0..n, got 11.0"),
    # threshold_rate_bits: delta finite, in [0, 1]
    (lambda: bounds.threshold_rate_bits(10, 3, np.nan), "delta must be finite, got nan"),
    (lambda: bounds.threshold_rate_bits(10, 3, 1.5), "delta must be in [0, 1], got 1.5"),
    # price_rate_bits: Delta finite, in [0, kappa]
    (lambda: bounds.price_rate_bits(10, 3, np.inf), "Delta must be finite, got inf"),
    (lambda: bounds.price_rate_bits(10, 3, -1), "Delta must be in [0, kappa], got -1.0"),
    (lambda: bounds.price_rate_bits(10, 3, 4), "Delta must be in [0, kappa], got 4.0"),
    # _sigma: finite, > 0 (the first bad one); prop2_paper_bound_bits: kappa >= 2
    (lambda: bounds.prop2_paper_bound_bits(3, np.nan), "sigma must be finite, got nan"),
    (lambda: bounds.prop2_paper_bound_bits(3, [1.0, 0.0, -1.0]), "sigma must be > 0, got 0.0"),
    (lambda: bounds.prop2_paper_bound_bits(1, 1.0), "kappa must be an integer >= 2, got 1.0"),
])
def test_a_bad_argument_is_named_with_what_was_expected_and_the_first_bad_value(call, message):
    """Each message: the parameter's name, what it must be, and the first offending
    value as a float repr (in an array: the first bad element, not element 0)."""
    with _raises(message):
        call()


def test_n_and_kappa_that_do_not_broadcast_raise_numpys_broadcast_error():
    """The game's n and kappa are broadcast together (numpy rules) before n > kappa is
    checked: shapes (2,) and (3,) raise the ValueError np.broadcast_shapes raises for
    them (taken from numpy here, so the text is whatever this numpy writes)."""
    with pytest.raises(ValueError) as want:
        np.broadcast_shapes((2,), (3,))
    with _raises(str(want.value)):
        bounds.nu_bits([5, 6], [2, 3, 4])


# ----------------------------------------------------------------------------- inputs

def test_a_python_int_beyond_int64_is_read_as_a_float():
    """Arguments are converted to float arrays: n = 2**70 (a Python int numpy would
    otherwise hold as an object array) is the float 2.0**70, so nu = log2(2**70 / 2)
    = 69 exactly, and the blind E[Z] is kappa - kappa(kappa+1)/(2n) in floats."""
    assert bounds.nu_bits(2 ** 70, 2) == 69.0
    assert bounds.nu_bits(2 ** 70, 2 ** 65) == 5.0
    assert bounds.blind_EZ(2 ** 70, 3) == 3.0 - 3.0 * 4.0 / (2 * 2.0 ** 70)


# ----------------------------------------------------------------------------- _uniform_burden

def test_uniform_burden_is_zero_at_m_0_and_the_line_below_m_1():
    """E[min(U - 1, kappa)]: m = 0 (nothing to draw) gives 0; real m in (0, 1] gives
    THEORY's (m - 1)/2 (negative below 1: a formula, not an expectation); m = 1 gives 0."""
    for kappa in (2.0, 3.0, 7.0):
        k = np.array(kappa)
        assert bounds._uniform_burden(np.array(0.0), k) == 0.0
        assert bounds._uniform_burden(np.array(0.5), k) == (0.5 - 1) / 2
        assert bounds._uniform_burden(np.array(0.25), k) == (0.25 - 1) / 2
        assert bounds._uniform_burden(np.array(1.0), k) == 0.0
    got = bounds._uniform_burden(np.array([0.0, 0.5, 1.0, 2.0, 5.0]), np.array(3.0))
    assert got.tolist() == [0.0, -0.25, 0.0, 0.5, 3 - 3 * 4 / (2 * 5)]


def test_windowed_EZ_at_w_n_is_plus_zero_and_warns_nothing():
    """w = n lists every block: E[Z] = 0 (a +0.0, not -0.0 from (1 - 1) times a
    negative), computed without a division-by-zero warning (n - w = 0 is masked)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n, kappa in ((3, 2), (10, 3), (100, 7)):
            z = bounds.windowed_EZ(n, kappa, n)
            assert z == 0.0 and not math.copysign(1.0, z) < 0, (n, kappa, z)
        z = bounds.windowed_EZ(np.array([10, 10, 10]), 3, np.array([10, 9, 0]))
    want = [0.0, (1 - 9 / 10) * 0.0, 3 - 3 * 4 / (2 * 10)]
    assert z.tolist() == want and not np.signbit(z).any()


def test_at_m_kappa_plus_1_the_high_piece_is_the_one_evaluated():
    """The docstring: kappa - kappa(kappa+1)/(2m) if m >= kappa + 1, else (m - 1)/2.
    The pieces agree at m = kappa + 1 in exact arithmetic; in floats they differ in the
    last place once kappa(kappa+1) exceeds 2**53. kappa = 189954451 is such a value
    (the assertion below checks it): there list_achievability_EZ_m(kappa + 1), and
    blind_EZ at n = kappa + 1, give the first piece as plain Python evaluates it."""
    kappa = 189954451.0
    m = kappa + 1
    high = kappa - kappa * (kappa + 1) / (2 * m)
    assert high != (m - 1) / 2                        # the example tells the pieces apart
    assert bounds.list_achievability_EZ_m(m, kappa) == high
    assert bounds.blind_EZ(m, kappa) == high
    assert bounds.list_achievability_EZ(2 * m, kappa, 1.0) == high
    # one below, the second piece: (m - 1)/2 at m = kappa
    assert bounds.list_achievability_EZ_m(kappa, kappa) == (kappa - 1) / 2


# ----------------------------------------------------------------------------- bound_sum

def _bound_sum(I, n, kappa):
    """sum_{t=1}^{kappa} max(0, 1 - (I+1)/log2(n/t)), in plain Python."""
    return sum(max(0.0, 1 - (I + 1) / math.log2(n / t)) for t in range(1, kappa + 1))


def test_bound_sum_of_no_games_is_an_empty_array():
    """Broadcasting to size 0 (an empty I_bits) gives an empty float result of the
    broadcast shape, not an error: there is no kappa to take a maximum of."""
    got = bounds.bound_sum([], 10, 3)
    assert isinstance(got, np.ndarray) and got.shape == (0,) and got.dtype == float
    got = bounds.bound_sum(np.zeros((0, 2)), 10, [3, 4])
    assert got.shape == (0, 2)


def test_bound_sum_at_the_smallest_game_warns_nothing():
    """n = kappa + 1: the sum runs over t = 1..kappa only, so log2(n/t) > 0 for every
    term; no t = n is evaluated (it would divide by log2 1 = 0 and warn). Values as
    plain Python sums, kappa across a 4096-term block boundary too."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kappa in (2, 3, 9, 4096, 4097):
            for I in (0.0, 0.5):
                got = bounds.bound_sum(I, kappa + 1, kappa)
                assert got == pytest.approx(_bound_sum(I, kappa + 1, kappa),
                                            rel=1e-12, abs=1e-12), (kappa, I)


# ----------------------------------------------------------------------------- windowed rate

def test_windowed_rate_bits_takes_n_1():
    """n = 1 is allowed (n integer >= 1): one block, log2 1 = 0 bits whether it is
    shown (w = 1) or not (w = 0). With n = 2, log2 n - (1 - w/n) log2(n - w) is
    1 - log2 2 = 0 at w = 0, 1 - (1/2) log2 1 = 1 at w = 1 and log2 2 = 1 at w = 2."""
    assert bounds.windowed_rate_bits(1, 0) == 0.0
    assert bounds.windowed_rate_bits(1, 1) == 0.0
    assert bounds.windowed_rate_bits(2, 0) == pytest.approx(0.0, abs=1e-15)
    assert bounds.windowed_rate_bits(2, 1) == pytest.approx(1.0)
    assert bounds.windowed_rate_bits(2, 2) == pytest.approx(1.0)
