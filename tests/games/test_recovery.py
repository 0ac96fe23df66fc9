"""Recovery game T(N, k, B) (Proposition 1; VISTA §2.6, THEORY.md §1): numba kernels
against closed forms, against brute-force enumeration, bit for bit against the
plain-Python reference compressors, and draw for draw against plain NumPy consuming
the same per-chunk Generators; uniformity of every block bit; the Fano bound;
reproducibility; parameter errors.

Monte Carlo tolerances: a simulated rate must sit within 5 standard errors of its
exact value (SE from the exact p; two-sided false alarm ~6e-7 per comparison) and
at most 4 estimated SE above the bound B/(Nk) + 1/k.
"""

import itertools
import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.recovery import (KERNEL_STRATEGIES, _strategy_params, address_bits,
                                exact_success, fano_bound, handle_bits, keep_blocks_success,
                                keep_prefix_success, pack_blocks, play_packed,
                                recoverable_feasible, recoverable_max_N, simulate,
                                unpack_blocks, validate_game)
from sim.games.recovery_kernels import _draw_blocks, _kernel
from sim.games.recovery_strategies import (Game, KeepPrefixes, KeepWholeBlocks,
                                           RecoverableArchive)
from sim.rng import chunk_generators, chunk_layout
from tests.games.helpers import assert_binomial_at_most, assert_binomial_matches

Z_EXACT, Z_BOUND = 5.0, 4.0


def assert_matches_exact(p_hat, p, trials, what):
    # exact binomial test: the normal approximation fails for rare p (issue 10, 15)
    assert_binomial_matches(round(p_hat * trials), trials, p, what)


def assert_below_bound(p_hat, trials, bound, what):
    assert_binomial_at_most(round(p_hat * trials), trials, bound, what)


@st.composite
def games(draw, max_N=64, max_k=24):
    N = draw(st.integers(2, max_N))
    k = draw(st.integers(1, max_k))
    B = draw(st.integers(0, N * k - 1))
    return N, k, B


@settings(max_examples=20)
@given(games())
def test_kernels_match_closed_forms_and_respect_the_bound(game):
    N, k, B = game
    for strategy in ("keep_blocks", "keep_prefix"):
        r = simulate(strategy, N, k, B, trials=3000, seed=N * 1000 + k * 10 + B)
        assert r.exact == exact_success(strategy, N, k, B)
        assert_matches_exact(r.success, r.exact, r.trials, f"{strategy} {game}")
        assert_below_bound(r.success, r.trials, fano_bound(N, k, B), f"{strategy} {game}")
        # the closed form itself obeys the bound (no Monte Carlo slack)
        assert r.exact <= fano_bound(N, k, B) + 1e-15


@pytest.mark.parametrize("N,k,B", [(2, 1, 1), (7, 70, 300), (130, 3, 389), (16, 8, 127),
                                   (3, 129, 300), (1000, 5, 4999)])
@pytest.mark.parametrize("strategy", ["keep_blocks", "keep_prefix"])
def test_kernels_match_closed_forms_at_edges(strategy, N, k, B):
    # multi-word blocks (k > 64), k = 1, B = Nk - 1 and a 1000-block game
    r = simulate(strategy, N, k, B, trials=20000, seed=5)
    assert_matches_exact(r.success, exact_success(strategy, N, k, B), r.trials,
                         f"{strategy} {(N, k, B)}")


def _enumerated_success(compressor, N, k, B):
    """Exact success by enumerating every block string and target."""
    compressor.prepare(Game(N, k, B), np.random.default_rng(0))
    wins = 0
    for x in range(2 ** (N * k)):
        blocks = np.array([(x >> j) & 1 for j in range(N * k)], np.uint8).reshape(N, k)
        rep = compressor.encode(blocks)
        for t in range(N):
            wins += np.array_equal(compressor.decode(rep, t), blocks[t])
    return wins / (2 ** (N * k) * N)


@pytest.mark.parametrize("N,k", [(2, 1), (2, 3), (3, 2), (4, 2)])
def test_closed_forms_equal_brute_force_enumeration(N, k):
    for B in range(N * k):
        assert _enumerated_success(KeepWholeBlocks(), N, k, B) == keep_blocks_success(N, k, B)
        assert _enumerated_success(KeepPrefixes(), N, k, B) == keep_prefix_success(N, k, B)


@settings(max_examples=25)
@given(games(max_N=40, max_k=150), st.integers(0, 2**32 - 1))
def test_kernel_trial_equals_reference_bit_for_bit(game, seed):
    N, k, B = game
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 2, size=(N, k), dtype=np.uint8)
    words = pack_blocks(blocks)
    for strategy, ref in (("keep_blocks", KeepWholeBlocks()), ("keep_prefix", KeepPrefixes())):
        ref.prepare(Game(N, k, B), rng)
        rep = ref.encode(blocks)
        assert rep.size <= B
        for t in range(N):
            outcome, guess = play_packed(strategy, words, t, k, B)
            want = ref.decode(rep, t)
            assert np.array_equal(guess, want), (strategy, game, t)
            assert outcome == int(np.array_equal(want, blocks[t]))


@settings(max_examples=25)
@given(games(max_N=300, max_k=130), st.integers(0, 2**32 - 1), st.sampled_from([1.0, 1.5, 2.0]))
def test_recoverable_reloads_the_target_bit_for_bit(game, seed, c0):
    N, k, B = game
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 2, size=(N, k), dtype=np.uint8)
    perm = rng.permutation(N)
    feasible = recoverable_feasible(N, k, B, c0)
    assert feasible == (N * handle_bits(N, c0) + k <= B)
    for t in sorted({0, N - 1, int(rng.integers(N))}):
        outcome, guess = play_packed("recoverable", pack_blocks(blocks), t, k, B, c0, perm)
        if feasible:
            assert outcome == 1 and np.array_equal(guess, blocks[t])
        else:
            assert outcome == -1     # handles plus one block exceed B: cannot run


def _plain_blocks(g, N, k):
    """Plain NumPy twin of the kernel's block draw: raw 64-bit words, last word masked."""
    W = (k + 63) // 64
    words = g.integers(0, 2**64 - 1, size=(N, W), dtype=np.uint64, endpoint=True)
    if k % 64:
        words[:, -1] &= np.uint64((1 << (k % 64)) - 1)
    return words


def _plain_chunk(strategy, N, k, B, trials, g):
    """Plain NumPy/Python twin of one kernel chunk: the same draws from ``g`` in the
    same order, scored by the plain-Python reference compressor on unpacked bits."""
    ref = {"keep_blocks": KeepWholeBlocks(), "keep_prefix": KeepPrefixes(),
           "recoverable": RecoverableArchive()}[strategy]
    ref.prepare(Game(N, k, B), np.random.default_rng(0))   # its own slots, not g's
    perm = np.arange(N)
    wins = 0
    for _ in range(trials):
        blocks = unpack_blocks(_plain_blocks(g, N, k), k)
        if strategy == "recoverable":
            g.shuffle(perm)
        target = int(g.integers(0, N))
        rep = ref.encode(blocks)
        assert rep.size <= B
        wins += int(np.array_equal(ref.decode(rep, target), blocks[target]))
    return wins


@pytest.mark.parametrize("N,k,B", [(16, 8, 72), (3, 130, 300), (2, 128, 254), (4, 64, 250)])
@pytest.mark.parametrize("strategy", sorted(KERNEL_STRATEGIES))
def test_kernel_reproduces_plain_numpy_draw_for_draw(strategy, N, k, B):
    # Two chunks (the second short). Each kernel chunk must score exactly what the
    # plain twin scores on a copy of its Generator, and leave the Generator in the
    # same state (same number and kind of draws, the recoverable shuffle included).
    trials = 4096 + 300
    n_chunks, chunk = chunk_layout(trials)
    assert n_chunks == 2
    gens = chunk_generators(7, n_chunks)
    twins = [np.random.Generator(np.random.PCG64(s))
             for s in np.random.SeedSequence(7).spawn(n_chunks)]
    param, addr = _strategy_params(strategy, N, k, B, 1.0)
    succ, over = _kernel(KERNEL_STRATEGIES[strategy], N, k, B, param, addr, trials, chunk,
                         gens)
    want = [_plain_chunk(strategy, N, k, B, min(chunk, trials - c * chunk), twins[c])
            for c in range(n_chunks)]
    assert succ.tolist() == want and over.tolist() == [0, 0]
    for kernel_gen, twin in zip(gens, twins):
        assert kernel_gen.bit_generator.state == twin.bit_generator.state
    # simulate() hands the kernel exactly these Generators
    assert simulate(strategy, N, k, B, trials, seed=7).successes == sum(want)


@pytest.mark.parametrize("k", [1, 63, 64, 150])
def test_block_bits_are_uniform_and_equal_plain_numpy(k):
    # Every bit position of a block, including all 64 bits of a full word and the
    # partial last word, is a fair coin; bits >= k are zero; the words are the
    # plain-NumPy draw.
    n = 20000
    words = _draw_blocks(np.random.default_rng(11), n, k)
    assert words.shape == (n, (k + 63) // 64) and words.dtype == np.uint64
    assert np.array_equal(words, _plain_blocks(np.random.default_rng(11), n, k))
    bits = unpack_blocks(words, k)
    freq = bits.mean(axis=0)
    se = 0.5 / math.sqrt(n)
    assert np.all(np.abs(freq - 0.5) <= Z_EXACT * se), (k, freq.min(), freq.max())
    full = ((words[:, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1))
    assert not full.reshape(n, -1)[:, k:].any()


@pytest.mark.parametrize("N,k,B,c0", [(2, 3, 5, 1.0), (16, 8, 72, 1.0), (100, 64, 6399, 1.0),
                                      (300, 130, 6000, 1.5), (4096, 64, 49216, 1.0)])
def test_recoverable_kernel_succeeds_on_every_trial_when_feasible(N, k, B, c0):
    assert recoverable_feasible(N, k, B, c0)
    r = simulate("recoverable", N, k, B, trials=5000, seed=B, c0=c0)
    assert r.successes == r.trials == 5000 and r.exact == 1.0


def test_recoverable_scores_zero_just_past_feasibility():
    # (16, 8): 16 handles of 4 bits + 8 = 72 bits; one bit less and it cannot run
    assert simulate("recoverable", 16, 8, 72, trials=100, seed=1).success == 1.0
    r = simulate("recoverable", 16, 8, 71, trials=100, seed=1)
    assert r.success == 0.0 and r.exact == 0.0


def test_same_results_for_one_and_two_numba_threads():
    before = numba.get_num_threads()
    trials = 3 * 4096 + 17          # four chunks, the last one short
    try:
        results = {}
        for threads in (1, 2):
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            results[threads] = [simulate(s, 33, 70, 1500, trials, seed=99).successes
                                for s in KERNEL_STRATEGIES]
    finally:
        numba.set_num_threads(before)
    assert results[1] == results[2]


def test_seed_forms_are_reproducible():
    a = simulate("keep_blocks", 10, 20, 100, 3000, seed=np.random.SeedSequence(4))
    b = simulate("keep_blocks", 10, 20, 100, 3000, seed=np.random.SeedSequence(4))
    assert a == b
    g1, g2 = np.random.default_rng(8), np.random.default_rng(8)
    assert simulate("keep_prefix", 10, 3, 25, 3000, g1) == simulate("keep_prefix", 10, 3, 25,
                                                                     3000, g2)


@settings(max_examples=25)
@given(st.integers(1, 200), st.integers(1, 20), st.integers(0, 2**32 - 1))
def test_pack_unpack_roundtrip(k, N, seed):
    bits = np.random.default_rng(seed).integers(0, 2, size=(N, k), dtype=np.uint8)
    words = pack_blocks(bits)
    assert words.shape == (N, (k + 63) // 64)
    assert np.array_equal(unpack_blocks(words, k), bits)
    # bit j of block i is bit j % 64 of word j // 64
    i, j = N - 1, k - 1
    assert int(words[i, j // 64] >> np.uint64(j % 64)) & 1 == bits[i, j]


def test_handle_bits_and_max_N_by_scan():
    assert [address_bits(n) for n in (2, 3, 4, 5, 8, 9, 1024, 1025)] == [1, 2, 2, 3, 3, 4, 10, 11]
    assert handle_bits(1024, 1.5) == 15 and handle_bits(9, 1.0) == 4
    for k, B, c0 in [(8, 100, 1.0), (32, 32768, 1.0), (5, 2000, 1.7), (3, 4, 1.0), (1, 3, 1.0)]:
        fits = [n for n in range(2, 5000) if n * handle_bits(n, c0) + k <= B]
        assert recoverable_max_N(k, B, c0) == (max(fits) if fits else 1)


@pytest.mark.parametrize("N,k,B,name", [
    (16, 8, 128, "B"), (16, 8, 500, "B"), (16, 8, -1, "B"), (16, 0, 5, "k"), (16, -3, 5, "k"),
    (1, 8, 5, "N"), (0, 8, 5, "N"), (-4, 8, 5, "N"), (2.5, 8, 5, "N"), (16, 8, 5.0, "B"),
    (True, 8, 5, "N")])
def test_bad_parameters_raise_value_error_naming_them(N, k, B, name):
    for call in (lambda: validate_game(N, k, B), lambda: fano_bound(N, k, B),
                 lambda: simulate("keep_blocks", N, k, B, 10, seed=1),
                 lambda: keep_prefix_success(N, k, B), lambda: Game(N, k, B)):
        with pytest.raises(ValueError, match=rf"^{name} must"):
            call()


def test_other_bad_arguments():
    with pytest.raises(ValueError, match="strategy must be one of"):
        simulate("linear_hash", 4, 4, 4, 10)
    with pytest.raises(ValueError, match="trials must be"):
        simulate("keep_blocks", 4, 4, 4, 0)
    with pytest.raises(ValueError, match="c0 must be"):
        simulate("recoverable", 4, 4, 4, 10, c0=0.5)
    with pytest.raises(ValueError, match="c0 must be"):
        handle_bits(4, float("nan"))
    with pytest.raises(ValueError, match="seed must be"):
        simulate("keep_blocks", 4, 4, 4, 10, seed=-1)


def test_every_kernel_strategy_has_a_closed_form_under_the_bound():
    for (N, k), strategy in itertools.product([(2, 1), (5, 7), (64, 8)], ["keep_blocks",
                                                                          "keep_prefix"]):
        for B in range(N * k):
            assert exact_success(strategy, N, k, B) <= fano_bound(N, k, B) + 1e-15
