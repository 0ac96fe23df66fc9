"""Boundaries of the sorted-window game that its first mutation run (issue 38; 245
mutants, 43 survivors) showed no test pinned: each parameter's range on both sides,
a list seed, the reference's chunk loop over several chunks, its dtypes, the count
of archived blocks at equality, and the content endpoint against an independent
quadrature (Gauss-Hermite nodes and exact binomial tails, no scipy)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.games.sorted_window import (SortedWindowGame, _archived, reference_z, simulate,
                                     two_point_content_ez)
from sim.rng import chunk_layout


@pytest.mark.parametrize("kw", [
    {"n": 1, "w": 0},                                        # one block is a game
    {"n": 5, "w": 0, "rho": 1.0},                            # rho's closed upper end
    {"n": 5, "w": 0, "sd": 0.0}, {"n": 5, "w": 0, "sd": 0.5},   # sd >= 0, any size
    {"n": 5, "w": 0, "law": "two_point", "kappa": 2},        # kappa's lower end
    {"n": 5, "w": 0, "law": "two_point", "kappa": 4}])       # kappa = n - 1
def test_each_range_takes_its_ends(kw):
    # what the kernel gets: (n, w, law code, a, b, rho, sigma)
    n, w, _, a, b, rho, _ = SortedWindowGame(**kw).kernel_args()
    assert (n, w) == (kw["n"], kw["w"])
    if kw.get("law") == "two_point":
        assert (a, b, rho) == (kw["kappa"], 0.0, 1.0)
    else:
        assert (b, rho) == (kw.get("sd", SortedWindowGame.sd), kw.get("rho", 0.5))


@pytest.mark.parametrize("kw, message", [
    ({"n": 5, "w": 0, "rho": 0.0}, r"rho must be in \(0, 1\] and sd >= 0, got rho=0.0"),
    ({"n": 5, "w": 0, "sd": -1e-9}, r"got rho=0.5, sd=-1e-09"),
    ({"n": 5, "w": 0, "law": "two_point", "kappa": 5},
     r"kappa must be an integer in 2..n-1, got 5"),
    ({"n": 5, "w": 0, "law": "two_point", "kappa": 1}, r"got 1")])
def test_each_range_refuses_just_outside(kw, message):
    with pytest.raises(ValueError, match=message):
        SortedWindowGame(**kw)


def test_a_list_seed_reproduces_and_matches_the_reference():
    """A list of ints is a seed (``_seed``): the same list draws the same numbers on
    every call, in the kernel and the reference alike; another list, others."""
    game = SortedWindowGame(30, 2)
    a, b = simulate(game, 200, [3, 4]), simulate(game, 200, [3, 4])
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[0], reference_z(game, 200, [3, 4])[0])
    assert not np.array_equal(a[0], simulate(game, 200, [3, 5])[0])


def test_kernel_equals_reference_over_several_chunks():
    """At n = 1000 a chunk holds 131 trials (work 4n per trial), so 300 trials span
    three chunks: every chunk's generator must reach its own trials, in the kernel
    and in the reference, and both must use that layout."""
    game = SortedWindowGame(1000, 3)
    assert chunk_layout(300, work_per_trial=4 * game.n) == (3, 131)
    z, zs = simulate(game, 300, 7)
    rz, rzs = reference_z(game, 300, 7)
    assert rz.dtype == rzs.dtype == z.dtype == np.int64
    np.testing.assert_array_equal(z, rz)
    np.testing.assert_array_equal(zs, rzs)


@pytest.mark.parametrize("sizes, need, blocks", [
    ([0.5, 0.5], 0.5, 1),       # the first block alone reaches need exactly
    ([0.5, 0.5], 0.51, 2),
    ([1.0, 1.0, 1.0], 3.0, 3),  # every block is needed: the last one counts
    ([1.0, 1.0, 1.0], 2.0, 2),
    ([2.0], 0.1, 1)])
def test_archived_counts_blocks_until_the_freed_tokens_reach_need(sizes, need, blocks):
    assert _archived(np.array(sizes), need) == blocks


def _content_ez_hermite(n: int, kappa: int, sigma: float) -> float:
    """1 + E_eps sum_{t=1}^{kappa-1} P(Bin(n-1, q(eps)) >= t), q = Phi-bar(c + eps),
    by 160-node Gauss-Hermite quadrature and exact binomial tails (math.comb)."""
    x, w = np.polynomial.hermite_e.hermegauss(160)
    w = w / math.sqrt(2 * math.pi)
    c = math.log(kappa) / sigma
    total = 0.0
    for xi, wi in zip(x, w):
        q = 0.5 * math.erfc((c + xi) / math.sqrt(2))
        pmf = [math.comb(n - 1, j) * q ** j * (1 - q) ** (n - 1 - j) for j in range(n)]
        total += wi * sum(sum(pmf[t:]) for t in range(1, kappa))
    return 1.0 + total


@pytest.mark.parametrize("n, kappa, sigma", [(40, 5, 0.7), (40, 5, 1.5), (12, 3, 0.2)])
def test_content_endpoint_matches_an_independent_quadrature(n, kappa, sigma):
    assert two_point_content_ez(n, kappa, sigma) == pytest.approx(
        _content_ez_hermite(n, kappa, sigma), abs=1e-8)
