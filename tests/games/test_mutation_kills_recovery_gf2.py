"""GF(2) rank and solve (``sim/games/recovery_gf2.py``) where its mutation run (issue
38) found edits no test saw: every input check names the argument it refuses, with
its exact message, for the numba routes and the plain reference alike; a right-hand
side given as a list, as booleans or as floats 0.0/1.0 solves as its 0/1 bytes; a
non-binary or 2-D right-hand side is refused (it used to read 2 as "no solution")."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.recovery_gf2 import (gf2_rank, gf2_rank_distribution, gf2_rank_reference,
                                    gf2_solve)

A = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]], np.uint8)      # row 3 = row 1 + row 2


def _refused(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("route", [gf2_rank, gf2_rank_reference,
                                   lambda M: gf2_solve(M, np.zeros(len(M), np.uint8))])
def test_each_route_names_the_matrix_it_refuses(route):
    _refused(lambda: route(np.zeros(3, np.uint8)),
             "A must be a 2-D 0/1 array, got shape (3,)")
    _refused(lambda: route(np.array([[0, 2]])), "A must contain only 0 and 1")


def test_a_right_hand_side_is_checked_like_the_matrix():
    _refused(lambda: gf2_solve(A, [1, 0, 2]), "r must contain only 0 and 1")
    _refused(lambda: gf2_solve(A, np.ones((3, 1), np.uint8)),
             "r must be a 1-D 0/1 array, got shape (3, 1)")
    _refused(lambda: gf2_solve(A, [1, 0]), "r must have length 3 (rows of A), got 2")
    wide = np.zeros((2, 5), np.uint8)
    _refused(lambda: gf2_solve(wide, [1, 0, 1]), "r must have length 2 (rows of A), got 3")


def test_a_system_with_no_unknowns_or_no_equations():
    """n = 0: solvable (by the empty x) exactly when r is all zero; m = 0: every x
    solves it, and the one with free variables 0 is returned; n = 1 is an ordinary
    system."""
    assert gf2_solve(np.zeros((3, 0), np.uint8), [0, 0, 0]).shape == (0,)
    assert gf2_solve(np.zeros((3, 0), np.uint8), [0, 1, 0]) is None
    np.testing.assert_array_equal(gf2_solve(np.zeros((0, 4), np.uint8), []),
                                  np.zeros(4, np.uint8))
    np.testing.assert_array_equal(gf2_solve(np.array([[1], [1]]), [1, 1]), [1])
    np.testing.assert_array_equal(gf2_solve(np.array([[0, 1, 1]]), [1]), [0, 1, 0])
    assert gf2_solve(np.array([[1], [1]]), [1, 0]) is None


@pytest.mark.parametrize("r", [[1, 0, 1], [True, False, True], [1.0, 0.0, 1.0],
                               np.array([1, 0, 1], np.int64)])
def test_a_right_hand_side_in_any_0_1_form_solves_as_its_bytes(r):
    x = gf2_solve(A, r)
    assert x.dtype == np.uint8 and x.shape == (3,)
    np.testing.assert_array_equal((A.astype(np.int64) @ x) & 1, [1, 0, 1])
    np.testing.assert_array_equal(x, gf2_solve(A, np.array([1, 0, 1], np.uint8)))


@pytest.mark.parametrize("shape", [(0, 4), (4, 0), (0, 0)])
def test_an_empty_matrix_has_rank_zero_on_every_route(shape):
    assert gf2_rank(np.zeros(shape, np.uint8)) == 0
    assert gf2_rank_reference(np.zeros(shape, np.uint8)) == 0


def test_the_rank_distribution_names_a_negative_size():
    _refused(lambda: gf2_rank_distribution(-1, 3), "m must be >= 0, got -1")
    _refused(lambda: gf2_rank_distribution(3, -2), "n must be >= 0, got -2")


@pytest.mark.parametrize("n", [1, 3, 5, 31, 32, 33, 62, 63, 64, 65, 100, 127, 130])
def test_an_inconsistent_system_is_found_wherever_the_right_hand_side_bit_sits(n):
    """The right-hand side is packed as column n: bit n % 64 of word n // 64. An
    inconsistent system (the last row the sum of the first two, its right-hand side
    not) is None at every n, the bit low or high in its word, and a consistent one
    solves; the plain reference decides which is which (rank of [A | r] vs rank of A)."""
    rng = np.random.default_rng(n)
    m = 6
    A = rng.integers(0, 2, (m, n)).astype(np.uint8)
    A[-1] = A[0] ^ A[1]
    x = rng.integers(0, 2, n).astype(np.uint8)
    good = (A.astype(np.int64) @ x) & 1
    bad = good.copy()
    bad[-1] ^= 1
    for r, consistent in ((good, True), (bad, False)):
        aug = np.concatenate([A, r[:, None].astype(np.uint8)], axis=1)
        assert (gf2_rank_reference(aug) == gf2_rank_reference(A)) is consistent
        got = gf2_solve(A, r)
        if consistent:
            np.testing.assert_array_equal((A.astype(np.int64) @ got) & 1, r)
        else:
            assert got is None
