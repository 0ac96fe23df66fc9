"""The sorted-window eviction game (THEORY.md §5): the numba kernel equals the plain
NumPy reference draw for draw and is thread-count independent; exact anchors (full
ledger, blind and content endpoints of Theorem 1's two-point game) within SE-derived
tolerances; the recorded size fit is what scipy's MLE gives on the trajectories."""

import numba
import numpy as np
import pytest
import sympy as sp

from experiments.vista.size_law import fit_tool_result_sizes, tool_result_sizes
from sim.games.sorted_window import (FIT_MU, FIT_SD, SortedWindowGame, reference_z,
                                     simulate, two_point_blind_ez, two_point_content_ez)

GAMES = [SortedWindowGame(40, 0), SortedWindowGame(40, 3), SortedWindowGame(40, 3, sigma=0.0),
         SortedWindowGame(40, 40, rho=0.8), SortedWindowGame(12, 0, law="two_point", kappa=5),
         SortedWindowGame(12, 2, law="two_point", kappa=5, sigma=0.0)]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.law}-w{g.w}-s{g.sigma}")
def test_kernel_equals_numpy_reference_draw_for_draw(game):
    z, zs = simulate(game, 600, 11)
    rz, rzs = reference_z(game, 600, 11)
    np.testing.assert_array_equal(z, rz)
    np.testing.assert_array_equal(zs, rzs)


def test_results_do_not_depend_on_thread_count():
    game = SortedWindowGame(64, 2)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulate(game, 5000, 3)
        numba.set_num_threads(max(2, before))
        many = simulate(game, 5000, 3)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one[0], many[0])
    np.testing.assert_array_equal(one[1], many[1])


@pytest.mark.parametrize("w", [0, 1, 4, 16])
def test_window_is_exact_when_the_optimum_fits_in_it(w):
    z, zs = simulate(SortedWindowGame(80, w, rho=0.6), 4000, 5)
    assert (z >= zs).all()  # the full ledger archives the fewest blocks
    fits = zs <= w
    np.testing.assert_array_equal(z[fits], zs[fits])
    full, _ = simulate(SortedWindowGame(80, 80, rho=0.6), 4000, 5)
    np.testing.assert_array_equal(full, zs)  # w >= n is the full ledger
    if w == 0:
        assert (z > zs).mean() > 0.5  # content-only: usually worse


def test_two_point_game_one_row_identifies_the_bulky_block():
    for sigma in (0.0, 1.0):
        z, zs = simulate(SortedWindowGame(30, 1, law="two_point", kappa=6, sigma=sigma),
                         3000, 2)
        assert (z == 1).all() and (zs == 1).all()


@pytest.mark.parametrize("n,kappa", [(20, 4), (50, 7)])
def test_two_point_blind_matches_sympy(n, kappa):
    z, _ = simulate(SortedWindowGame(n, 0, law="two_point", kappa=kappa, sigma=0.0),
                    100_000, 8)
    exact = two_point_blind_ez(n, kappa)
    assert exact == kappa - sp.Rational(kappa * (kappa - 1), 2 * n)
    se = z.std(ddof=1) / np.sqrt(z.size)
    assert abs(z.mean() - float(exact)) < 5 * se


@pytest.mark.parametrize("sigma", [0.7, 1.5])
def test_two_point_content_matches_quadrature(sigma):
    n, kappa = 40, 5
    z, _ = simulate(SortedWindowGame(n, 0, law="two_point", kappa=kappa, sigma=sigma),
                    100_000, 9)
    se = z.std(ddof=1) / np.sqrt(z.size)
    assert abs(z.mean() - two_point_content_ez(n, kappa, sigma)) < 5 * se


def test_recorded_fit_is_the_mle_of_the_trajectories():
    fit = fit_tool_result_sizes()
    assert fit["n"] > 400
    assert fit["lognormal"]["mu"] == pytest.approx(FIT_MU, abs=1e-3)
    assert fit["lognormal"]["sd"] == pytest.approx(FIT_SD, abs=1e-3)
    # independent route: the lognormal MLE is the mean and (population) sd of ln s
    logs = np.log(tool_result_sizes())
    assert logs.mean() == pytest.approx(FIT_MU, abs=1e-3)
    assert logs.std() == pytest.approx(FIT_SD, abs=1e-3)
    assert fit["lognormal"]["loglik_nats"] > fit["pareto"]["loglik_nats"]


@pytest.mark.parametrize("kw,word", [({"n": 0, "w": 1}, "n must"), ({"n": 5, "w": -1}, "w must"),
                                     ({"n": 5, "w": 1, "law": "zipf"}, "law must"),
                                     ({"n": 5, "w": 1, "rho": 1.5}, "rho must"),
                                     ({"n": 5, "w": 1, "law": "two_point", "kappa": 9},
                                      "kappa must"),
                                     ({"n": 5, "w": 1, "sigma": -1.0}, "sigma must")])
def test_bad_parameters_are_named(kw, word):
    with pytest.raises(ValueError, match=word):
        SortedWindowGame(**kw)
