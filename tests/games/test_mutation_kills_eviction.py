"""The eviction game's plumbing at the edges the first mutmut run over
``sim/games/eviction.py`` left open (issue 38): the batch draws each game exactly as
:func:`play` does (several games at once, not only one), results are views of a given
buffer, the buffer check on each side, the streams' layout by the work of one trial,
the recorded entropy and method, the defaults, and the random order ignoring the
channel in the brute-force kernel too."""

import math

import numpy as np
import pytest

from sim.games import kernels
from sim.games.burden_law import mc_halfwidth
from sim.games.channels import Blind, Channel, Content, Ledger, ListChannel, WindowedLedger
from sim.games.eviction import ExactBatch, play, play_exact_many, seed_chunks
from theory.bounds import blind_EZ

GAMES = [(16, 2, Ledger()), (32, 4, Blind()), (64, 3, ListChannel(m=8)),
         (40, 4, Content(0.5))]


def test_a_batch_draws_every_game_as_play_does():
    seeds = [11, 12, 13, 14]
    batch = play_exact_many(GAMES, seeds, trials=700)
    for (n, kappa, ch), seed, got in zip(GAMES, seeds, batch):
        alone = play(n, kappa, ch, seed=seed, trials=700)
        assert np.array_equal(got.tau, alone.tau)
        assert (got.seed, got.method, got.order) == (alone.seed, "exact", "bayes")


def test_a_batch_of_games_with_several_chunks_each_draws_as_play_does():
    # 5,000 trials: two chunks of 4,096 and 904 per game, laid out game after game
    batch = play_exact_many(GAMES[:2], [5, 6], trials=5000)
    for (n, kappa, ch), seed, got in zip(GAMES[:2], [5, 6], batch):
        assert np.array_equal(got.tau, play(n, kappa, ch, seed=seed, trials=5000).tau)


def test_results_are_views_of_the_given_buffer():
    out = np.zeros(4 * 300 + 5, dtype=np.int64)
    res = play_exact_many(GAMES, [1, 2, 3, 4], trials=300, out=out)
    for i, r in enumerate(res):
        assert np.shares_memory(r.tau, out)
        assert np.array_equal(r.tau, out[i * 300:(i + 1) * 300])


@pytest.mark.parametrize("out,shown", [
    ([0] * 10, "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"),     # not an array: shown as given
    (np.zeros(10, dtype=np.float64), "(10,)"),         # wrong dtype
    (np.zeros((2, 5), dtype=np.int64), "(2, 5)"),      # not 1-D
    (np.zeros(9, dtype=np.int64), "(9,)"),             # one entry short
])
def test_a_bad_buffer_is_refused_naming_what_it_got(out, shown):
    batch = ExactBatch([(16, 2, Ledger())], [0], trials=10)
    with pytest.raises(ValueError) as info:
        batch.buffer(out)
    assert str(info.value) == ("out must be a 1-D int64 array of at least 10 entries, "
                               f"got {shown}")


def test_a_buffer_of_exactly_the_size_needed_is_used():
    batch = ExactBatch([(16, 2, Ledger())], [0], trials=10)
    out = np.zeros(10, dtype=np.int64)
    assert batch.buffer(out) is out
    assert batch.buffer().shape == (10,) and batch.buffer().dtype == np.int64


def test_batch_order_defaults_to_bayes_and_bad_arguments_are_named():
    assert ExactBatch([(16, 2, Ledger())], [0], trials=5).order == "bayes"
    with pytest.raises(ValueError) as info:
        ExactBatch([(16, 2, Ledger())], [0], trials=5, order="greedy")
    assert str(info.value) == "order must be one of ('bayes', 'random'), got 'greedy'"
    with pytest.raises(ValueError) as info:
        ExactBatch([(16, 2, Ledger())], [0, 1], trials=5)
    assert str(info.value) == "need one seed per game: 1 games, 2 seeds"


def test_the_kernel_receives_int64_game_arrays():
    # exact_tau_points documents n, code, ipar and cap as int64 (points,)
    args = ExactBatch(GAMES, [1, 2, 3, 4], trials=50).args
    n, code, shift, ipar, bayes, cap = args[:6]
    assert [a.dtype for a in (n, code, ipar, cap)] == [np.int64] * 4
    assert shift.dtype == np.float64 and bayes.dtype == np.bool_


def test_a_channel_that_is_not_a_channel_is_refused_naming_it():
    with pytest.raises(ValueError) as info:
        play(16, 2, "ledger")
    assert str(info.value) == ("channel must be a sim.games.channels.Channel, "
                               "got 'ledger'")


@pytest.mark.parametrize("method", ["exact", "brute"])
def test_a_channel_without_a_kernel_code_is_refused_before_any_kernel_runs(method):
    """The base class (code -1) ran before: the brute kernel read it as a windowed
    ledger and the exact one as the content channel (found in review)."""
    with pytest.raises(ValueError) as info:
        play(16, 2, Channel(), method=method)
    assert str(info.value) == ("channel must be one the kernels play (Ledger, Blind, "
                               "Content, ListChannel or WindowedLedger: codes (0, 1, 2, "
                               "3, 4)), got Channel() with code -1")
    for ok in (Ledger(), Blind(), Content(1.0), ListChannel(m=4), WindowedLedger(w=3)):
        assert play(16, 2, ok, trials=20, method=method).tau.shape == (20,)
    with pytest.raises(ValueError, match="with code 5"):
        play(16, 2, type("Five", (Ledger,), {"code": 5})(), method=method)


# -- streams ---------------------------------------------------------------------------
def test_streams_follow_the_work_of_one_trial():
    # 2^19 draws a chunk: 1,024 draws a trial -> 512 trials a chunk, 1,000 -> 2 chunks
    seeds, chunk, _ = seed_chunks(0, 1000, 1024)
    assert (seeds.shape, chunk) == ((2, 4), 512)
    seeds, chunk, _ = seed_chunks(0, 1000)
    assert (seeds.shape, chunk) == ((1, 4), 4096)


def test_the_recorded_entropy_is_the_seeds_own_or_the_first_state_word():
    assert seed_chunks(5, 10)[2] == 5
    ss = np.random.SeedSequence([1, 2])          # entropy a list: not an int
    assert seed_chunks(ss, 10)[2] == int(np.random.SeedSequence([1, 2]).generate_state(1)[0])


def test_brute_force_draws_from_streams_laid_out_by_n():
    n, kappa, trials = 1024, 2, 600
    got = play(n, kappa, Blind(), method="brute", trials=trials, seed=3)
    seeds, chunk, entropy = seed_chunks(3, trials, n)
    tau = kernels.brute_tau_discrete(n, kernels.BLIND, 0, seeds, chunk, trials)
    assert np.array_equal(got.tau, np.minimum(tau, kappa + 1))
    assert (got.method, got.seed) == ("brute", entropy)


def test_a_random_order_ignores_even_a_ledger_in_the_brute_kernel():
    # the ledger's Bayes order finds J* first (Z = 0); a random order is blind's
    r = play(32, 4, Ledger(), order="random", method="brute", trials=20_000, seed=4)
    assert abs(r.EZ - float(blind_EZ(32, 4))) < 6 * r.EZ_se


# -- defaults and derived numbers ---------------------------------------------------------
def test_play_and_batch_defaults_are_10000_trials_from_seed_0():
    a = play(16, 2, Blind())
    assert a.trials == 10_000 and a.seed == 0
    assert np.array_equal(a.tau, play(16, 2, Blind(), seed=0, trials=10_000).tau)
    assert play_exact_many([(16, 2, Blind())], [0])[0].trials == 10_000


@pytest.mark.parametrize("alpha", [6.3e-5, 0.01])
def test_halfwidth_is_bernstein_with_the_exact_variance(alpha):
    r = play(64, 4, Blind(), trials=2000, seed=1)
    want = mc_halfwidth(r.Z_variance, 2000, 4, alpha)
    assert r.EZ_halfwidth(alpha) == want
    if alpha == 6.3e-5:
        assert r.EZ_halfwidth() == want
    assert math.isfinite(want) and want > 0
