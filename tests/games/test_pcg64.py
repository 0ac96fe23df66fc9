"""sim.pcg64 and the batched exact sampler: the kernels' own PCG64 draws exactly what
``numpy.random.Generator(PCG64(child))`` draws from the same seed words, and a batch
of games in one kernel call equals each game played alone, for any thread count."""

import numba
import numpy as np
import pytest
from numba import njit

from sim import pcg64
from sim.games.channels import Blind, Content, Ledger, ListChannel, WindowedLedger
from sim.games.eviction import play, play_exact_many
from sim.rng import chunk_generators, chunk_seeds, entropy_words

RANDOM, NORMAL, INTEGER = 0, 1, 2


@njit
def _draws(seeds, row, kinds, highs):
    """The kernel-side draws: kinds[i] picks random/standard_normal/integers(0, highs[i])."""
    s = pcg64.new_state(seeds, row)
    floats = np.zeros(len(kinds))
    ints = np.zeros(len(kinds), dtype=np.int64)
    for i in range(len(kinds)):
        if kinds[i] == RANDOM:
            floats[i] = pcg64.random(s)
        elif kinds[i] == NORMAL:
            floats[i] = pcg64.standard_normal(s)
        else:
            ints[i] = pcg64.integers(s, highs[i])
    return floats, ints, s


def _numpy_draws(gen, kinds, highs):
    floats = np.zeros(len(kinds))
    ints = np.zeros(len(kinds), dtype=np.int64)
    for i, (k, h) in enumerate(zip(kinds, highs)):
        if k == RANDOM:
            floats[i] = gen.random()
        elif k == NORMAL:
            floats[i] = gen.standard_normal()
        else:
            ints[i] = gen.integers(0, int(h))
    return floats, ints


def test_chunk_seeds_are_the_words_pcg64_seeds_itself_from():
    seeds = chunk_seeds(np.random.SeedSequence([3, 1, 4]), 5)
    children = np.random.SeedSequence([3, 1, 4]).spawn(5)
    assert seeds.shape == (5, 4) and seeds.dtype == np.uint64
    for row, child in zip(seeds, children):
        assert np.array_equal(row, child.generate_state(4, np.uint64))
    # the seeded state is numpy's, word for word (128-bit state and increment)
    for c, child in enumerate(children):
        _, _, s = _draws(seeds, c, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        want = np.random.PCG64(child).state["state"]
        assert (int(s[0]) << 64 | int(s[1])) == want["state"]
        assert (int(s[2]) << 64 | int(s[3])) == want["inc"]


@pytest.mark.parametrize("seed", [0, 12345, 2**40 + 7])
def test_mixed_draws_equal_numpy_generator_draw_for_draw(seed):
    rng = np.random.default_rng(seed)
    size = 200_000
    kinds = rng.integers(0, 3, size)
    # bounds around every branch of the bounded sampler: no draw (1), small, the
    # 32-bit buffered path, its edge 2^32 - 1 and 2^32, and the 64-bit path
    highs = rng.choice(np.array([1, 2, 3, 7, 1000, 2**20 + 3, 2**31 + 5, 2**32 - 1,
                                 2**32, 2**32 + 1, 2**40 + 7, 2**62], dtype=np.int64), size)
    seeds = chunk_seeds(seed, 3)
    for c, gen in enumerate(chunk_generators(seed, 3)):
        got_f, got_i, _ = _draws(seeds, c, kinds, highs)
        want_f, want_i = _numpy_draws(gen, kinds, highs)
        assert np.array_equal(got_f, want_f) and np.array_equal(got_i, want_i)


def test_normal_tail_and_wedges_follow_numpy():
    # 10^6 normals pass the ziggurat's base strip (|x| > 3.654, ~270 draws) and its
    # wedge rejections many times; every one must still equal numpy's.
    seeds = chunk_seeds(99, 1)
    size = 1_000_000
    got, _, _ = _draws(seeds, 0, np.full(size, NORMAL), np.zeros(size, dtype=np.int64))
    want = np.random.Generator(np.random.PCG64(np.random.SeedSequence(99).spawn(1)[0])
                               ).standard_normal(size)
    assert np.array_equal(got, want)
    assert np.sum(np.abs(got) > 3.6541528853610088) > 100


GAMES = [(64, 4, Content(1.0)), (2**40, 16, Content(0.25)), (100, 2, Blind()),
         (64, 4, Ledger()), (256, 8, ListChannel(m=32)), (256, 8, WindowedLedger(w=200)),
         (2**20, 16, WindowedLedger(w=2**20 - 2**10)), (2**36, 4, Blind())]


@pytest.mark.parametrize("order", ["bayes", "random"])
def test_a_batch_equals_each_game_alone_for_any_thread_count(order):
    before = numba.get_num_threads()
    trials = 9000      # three chunks, the last one short
    try:
        runs = []
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            runs.append(play_exact_many(GAMES, [np.random.SeedSequence([5, i])
                                                for i in range(len(GAMES))],
                                        trials=trials, order=order))
            alone = [play(n, k, ch, trials=trials, order=order,
                          seed=np.random.SeedSequence([5, i]))
                     for i, (n, k, ch) in enumerate(GAMES)]
            for a, b in zip(runs[-1], alone):
                assert np.array_equal(a.tau, b.tau) and a.seed == b.seed
    finally:
        numba.set_num_threads(before)
    for a, b in zip(runs[0], runs[-1]):
        assert np.array_equal(a.tau, b.tau)


def test_a_batch_into_a_reused_buffer_and_its_errors():
    buffer = np.full(3 * 5000, -1, dtype=np.int64)
    seeds = [1, 2, 3]
    into = play_exact_many(GAMES[:3], seeds, trials=5000, out=buffer)
    fresh = play_exact_many(GAMES[:3], seeds, trials=5000)
    for a, b in zip(into, fresh):
        assert np.array_equal(a.tau, b.tau) and np.shares_memory(a.tau, buffer)
    with pytest.raises(ValueError, match="one seed per game"):
        play_exact_many(GAMES[:3], [1, 2], trials=10)
    with pytest.raises(ValueError, match="out must be"):
        play_exact_many(GAMES[:3], seeds, trials=5000, out=buffer[:100])
    with pytest.raises(ValueError, match="out must be"):
        play_exact_many(GAMES[:3], seeds, trials=10, out=np.zeros(30))
    with pytest.raises(ValueError, match="order"):
        play_exact_many(GAMES[:3], seeds, trials=10, order="sorted")
    with pytest.raises(ValueError, match="trials"):
        play_exact_many(GAMES[:3], seeds, trials=0)


@pytest.mark.parametrize("values", [[0], [1, 2, 3], [7, 0, 2**40, 16, 3], [2**64 + 5, 0, 1],
                                    [2**32 - 1, 2**32, 2**96]])
def test_entropy_words_give_the_same_seed_sequence(values):
    fast = np.random.SeedSequence(entropy_words(values))
    plain = np.random.SeedSequence(values)
    assert np.array_equal(fast.pool, plain.pool)
    assert np.array_equal(chunk_seeds(fast.spawn(2)[0], 3), chunk_seeds(plain.spawn(2)[0], 3))


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_entropy_words_refuse_what_is_not_a_non_negative_int(bad):
    with pytest.raises(ValueError, match="non-negative integers"):
        entropy_words([1, bad])
