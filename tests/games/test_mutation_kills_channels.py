"""The observation channels' input checks at each boundary, on both sides (issue 38:
the first mutmut run over ``sim/games/channels.py`` left these edits alive: a check
that lets a bool, a non-number or an infinite rate through, ``>`` read as ``>=`` at
the largest n and at the rate's ends, and the messages that name the bad value).

Every case states what the documentation promises (``ValueError`` naming the
parameter, the range it must lie in and the value given) and is checked against
plain arithmetic, not against the module's own helpers."""

import math

import pytest

from sim.games.channels import (MAX_BLOCKS, Content, ListChannel, WindowedLedger,
                                validate_game, validate_kappa)


# -- kappa and n ---------------------------------------------------------------------
@pytest.mark.parametrize("kappa", [None, "3", 3.5, True, False, 1, 0, -2, math.nan, math.inf])
def test_kappa_that_is_not_an_integer_at_least_two_is_refused_by_name(kappa):
    # None and "3" are not numbers: the check must refuse them itself (int(None)
    # would raise a TypeError that names nothing)
    with pytest.raises(ValueError, match=r"kappa must be an integer >= 2.*got"):
        validate_kappa(kappa)


@pytest.mark.parametrize("kappa,want", [(2, 2), (2.0, 2), (7, 7)])
def test_kappa_at_and_above_two_is_accepted_as_an_int(kappa, want):
    got = validate_kappa(kappa)
    assert got == want and type(got) is int


@pytest.mark.parametrize("n", [None, "9", 9.5, True, math.inf, math.nan])
def test_n_that_is_not_an_integer_is_refused_as_not_an_integer(n):
    # True == 1 would otherwise reach the n > kappa check and be refused for the
    # wrong reason; inf and nan would reach int() (OverflowError, or a ValueError
    # that names nothing): the message must say what n has to be
    with pytest.raises(ValueError, match="n must be an integer number of blocks, got"):
        validate_game(n, 2)


def test_the_largest_n_is_accepted_and_one_more_refused_with_its_bound():
    assert validate_game(MAX_BLOCKS, 2) == (2**62, 2)
    assert MAX_BLOCKS == 2**62  # int64 positions: 2^62 < 2^63 - 1
    with pytest.raises(ValueError, match=r"n must be at most 2\^62 blocks, got n = "
                                         + str(2**62 + 1)):
        validate_game(MAX_BLOCKS + 1, 2)


def test_n_must_exceed_kappa_on_both_sides():
    assert validate_game(4, 3) == (4, 3)
    with pytest.raises(ValueError, match=r"n must exceed kappa \(n > kappa = 3\), got n = 3"):
        validate_game(3, 3)


# -- the list channel ----------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"r": 1.0, "m": 2}])
def test_list_channel_needs_exactly_one_of_r_and_m(kwargs):
    with pytest.raises(ValueError, match=r"give exactly one of r \(bits\) or m"):
        ListChannel(**kwargs)


@pytest.mark.parametrize("r", [True, False, "1", math.inf, -math.inf, math.nan])
def test_list_channel_rate_must_be_a_finite_number(r):
    with pytest.raises(ValueError, match=r"r must be a finite rate in bits, got"):
        ListChannel(r=r)


@pytest.mark.parametrize("n", [8, 1000, 2**20])
def test_list_rate_is_accepted_on_its_whole_closed_range(n):
    top = math.log2(n)
    for r in (0.0, 0.5, 1.0, top, top + 1e-12, top + 5e-13):
        channel = ListChannel(r=r)
        assert channel.validate(n) is None  # no error: 0 <= r <= log2 n (+ 1e-12 rounding)
        # the list it plays: all n blocks at r = 0, one at the top of the range
        m = channel.list_size(n)
        assert 1 <= m <= n
        if r == 0.0:
            assert m == n
        if r >= top:
            assert m == 1


@pytest.mark.parametrize("n", [8, 1000])
def test_list_rate_outside_its_range_is_refused_naming_the_range(n):
    for r in (-1e-9, -1.0, math.log2(n) + 1e-9, math.log2(n) + 1.0):
        with pytest.raises(ValueError, match=r"r must be a rate in bits between 0 and "
                                             r"log2 n = .*got r = "):
            ListChannel(r=r).validate(n)


# -- list size and window: integers in their range, both ends accepted ----------------
_SIZED = {"m": (ListChannel, r"m must be an integer list size between 1 and n = 8, "
                             r"got m = ", (True, 2.0, "2", 0, 9), (1, 8)),
          "w": (WindowedLedger, r"w must be an integer number of listed rows between 0 "
                                r"and n = 8, got w = ", (True, 2.0, "2", -1, 9), (0, 8))}


@pytest.mark.parametrize("field,value", [(f, v) for f, spec in _SIZED.items()
                                         for v in spec[2]])
def test_a_size_must_be_an_integer_in_its_range(field, value):
    make, message = _SIZED[field][:2]
    with pytest.raises(ValueError, match=message):
        make(**{field: value}).validate(8)


@pytest.mark.parametrize("field,value", [(f, v) for f, spec in _SIZED.items()
                                         for v in spec[3]])
def test_a_size_at_either_end_of_its_range_is_accepted(field, value):
    channel = _SIZED[field][0](**{field: value})
    channel.validate(8)
    # what the kernels get: the list size m or the window w as the integer parameter
    assert channel.kernel_args(8, 2)[2] == value


@pytest.mark.parametrize("sigma", [True, 0.0, -1.0, math.inf, math.nan, "1"])
def test_content_noise_must_be_finite_and_positive(sigma):
    with pytest.raises(ValueError, match=r"sigma must be a finite number > 0, got"):
        Content(sigma)
