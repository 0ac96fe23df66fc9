"""The recovery game's Python API (:mod:`sim.games.recovery`) at the edges the
mutmut runs over it left open (issue 38): each input check's message (the name
and what was expected), ``c0``'s defaults and its reaching every caller, the
handle table's binary search against a scan, the packing at a word boundary and
for a plain list, every field of a :class:`SimResult` on both of ``simulate``'s
paths, and ``play_packed``'s store slots.

Every expectation is counted by hand or by a plain scan written here."""

import math

import numpy as np
import pytest

from sim.games import recovery
from sim.games.recovery import (SimResult, address_bits, exact_success, fano_bound,
                                handle_bits, linear_hash_success, pack_blocks, play_packed,
                                recoverable_feasible, recoverable_max_N, recoverable_success,
                                simulate, unpack_blocks, validate_game, words_per_block)


@pytest.mark.parametrize("N,k,B,message", [
    (1, 8, 5, "N must be >= 2, got 1"),
    (2.0, 8, 5, "N must be an integer >= 2, got 2.0"),
    (4, 0, 5, "k must be >= 1, got 0"),
    (4, 1.0, 5, "k must be an integer >= 1, got 1.0"),
    (4, 8, -1, "B must be >= 0, got -1"),
    (4, 8, "5", "B must be an integer >= 0, got '5'"),
    (3, 4, 12, "B must be < N*k = 12 (the prompt cannot hold every block), got B=12"),
])
def test_validate_game_names_the_parameter_and_what_was_expected(N, k, B, message):
    with pytest.raises(ValueError) as info:
        validate_game(N, k, B)
    assert str(info.value) == message


def test_address_bits_names_N_and_its_range():
    for bad, message in [(1, "N must be >= 2, got 1"),
                         (2.5, "N must be an integer >= 2, got 2.5")]:
        with pytest.raises(ValueError) as info:
            address_bits(bad)
        assert str(info.value) == message


@pytest.mark.parametrize("c0", ["2", None, [2.0], True])
def test_a_c0_that_is_no_number_is_refused_naming_c0(c0):
    with pytest.raises(ValueError, match=r"^c0 must be a finite number >= 1"):
        handle_bits(8, c0)


# (N, k, B) = (8, 4, 28): 8 handles of 3 bits + 4 = 28 bits fit at c0 = 1; at
# c0 = 2 a handle has 6 bits and the table alone is 48 bits
FITS_AT_1_NOT_AT_2 = (8, 4, 28)


def test_c0_defaults_to_one_and_reaches_every_caller():
    N, k, B = FITS_AT_1_NOT_AT_2
    assert handle_bits(N) == 3 and handle_bits(N, 2.0) == 6
    assert recoverable_feasible(N, k, B) is True
    assert recoverable_feasible(N, k, B, 2.0) is False
    assert recoverable_success(N, k, B) == 1.0 and recoverable_success(N, k, B, 2.0) == 0.0
    assert exact_success("recoverable", N, k, B) == 1.0
    assert exact_success("recoverable", N, k, B, 2.0) == 0.0
    assert simulate("recoverable", N, k, B, 10, seed=1).exact == 1.0
    assert simulate("recoverable", N, k, B, 10, seed=1, c0=2.0).exact == 0.0
    # the largest N whose table fits: 3 bits a handle up to N = 8 (8*3 + 4 = 28)
    assert recoverable_max_N(k, B) == 8
    assert recoverable_max_N(k, B, 2.0) == 4          # 4 handles of 4 bits + 4 = 20


def test_play_packed_takes_c0_and_reports_an_encoder_over_budget():
    N, k, B = FITS_AT_1_NOT_AT_2
    words = pack_blocks(np.random.default_rng(5).integers(0, 2, (N, k), dtype=np.uint8))
    outcome, guess = play_packed("recoverable", words, 3, k, B)
    assert outcome == 1 and np.array_equal(guess, unpack_blocks(words, k)[3])
    # with 6-bit handles the table and one block need 52 > 28 bits: the trial
    # cannot be encoded (-1), whatever the default would have allowed
    assert play_packed("recoverable", words, 3, k, B, c0=2.0)[0] == -1


def test_play_packed_reads_the_target_from_the_slot_its_handle_names():
    # every block stored in slot 0: the last one written overwrites the others, so
    # the target's handle (slot 0) reloads block N - 1, not the target
    N, k, B = 4, 8, 30
    bits = np.zeros((N, k), np.uint8)
    bits[np.arange(N), np.arange(N)] = 1          # four distinct blocks
    words = pack_blocks(bits)
    outcome, guess = play_packed("recoverable", words, 0, k, B, perm=np.zeros(N, np.int64))
    assert outcome == 0 and np.array_equal(guess, bits[N - 1])
    reverse = np.arange(N)[::-1].copy()
    outcome, guess = play_packed("recoverable", words, 0, k, B, perm=reverse)
    assert outcome == 1 and np.array_equal(guess, bits[0])
    # slots are read as int64: a list, or floats with integral values, name the same ones
    for perm in (reverse.tolist(), reverse.astype(np.float64), [0.0] * N):
        expected = (1, bits[0]) if perm[0] != perm[1] else (0, bits[N - 1])
        outcome, guess = play_packed("recoverable", words, 0, k, B, perm=perm)
        assert outcome == expected[0] and np.array_equal(guess, expected[1])


def test_play_packed_accepts_a_list_of_words():
    N, k, B = 3, 70, 200                                   # two words a block
    bits = np.random.default_rng(2).integers(0, 2, (N, k), dtype=np.uint8)
    words = pack_blocks(bits).tolist()
    outcome, guess = play_packed("keep_blocks", words, 1, k, B)
    assert outcome == 1 and guess.dtype == np.uint8 and np.array_equal(guess, bits[1])


def test_recoverable_max_N_equals_a_scan_on_a_grid():
    # the binary search must stop only when lo and hi are adjacent; the scan uses
    # the table cost[n] = n h(n), computed once per c0 with exact integers
    for c0 in (1.0, 1.3, 2.0):
        cost = {n: n * math.ceil(c0 * (n - 1).bit_length() - 1e-12) for n in range(2, 700)}
        for k in (1, 3, 8):
            for B in range(0, 3000, 7):
                fits = [n for n, c in cost.items() if c + k <= B]
                assert recoverable_max_N(k, B, c0) == (max(fits) if fits else 1), (k, B, c0)


def test_recoverable_max_N_at_the_bottom_of_its_ranges():
    assert recoverable_max_N(1, 0) == 1          # B = 0 is allowed: nothing fits
    assert recoverable_max_N(1, 3) == 2          # 2 one-bit handles + 1 = 3
    assert recoverable_max_N(1, 2) == 1
    for args, message in [((0, 5), "k must be >= 1, got 0"),
                          ((1.5, 5), "k must be an integer >= 1, got 1.5"),
                          ((1, -1), "B must be >= 0, got -1"),
                          ((1, 2.0), "B must be an integer >= 0, got 2.0")]:
        with pytest.raises(ValueError) as info:
            recoverable_max_N(*args)
        assert str(info.value) == message


def test_words_per_block_at_the_word_boundary():
    assert [words_per_block(k) for k in (1, 63, 64, 65, 128, 129)] == [1, 1, 1, 2, 2, 3]
    assert pack_blocks(np.ones((2, 64), np.uint8)).shape == (2, 1)


def test_pack_blocks_refuses_what_is_not_a_2d_0_1_array():
    for bad in (np.ones(5, np.uint8), np.ones((2, 2, 2), np.uint8), np.full((2, 3), 2)):
        with pytest.raises(ValueError) as info:
            pack_blocks(bad)
        assert str(info.value) == f"bits must be a 2-D 0/1 array, got shape {bad.shape}"


def test_unpack_blocks_takes_a_list_and_returns_uint8_bits():
    bits = unpack_blocks([[5, 1]], 66)          # a plain list of Python ints
    assert bits.dtype == np.uint8 and bits.shape == (1, 66)
    expected = np.zeros(66, np.uint8)
    expected[[0, 2, 64]] = 1
    assert np.array_equal(bits[0], expected)


def test_exact_success_dispatches_every_name_and_lists_them_when_unknown():
    N, k, B = 3, 4, 5
    assert exact_success("linear_hash", N, k, B) == linear_hash_success(N, k, B)
    assert exact_success("keep_blocks", N, k, B) == pytest.approx(1 / 3 + 2 / 3 / 16)
    for bad in ("LINEAR_HASH", "nope"):
        with pytest.raises(ValueError) as info:
            exact_success(bad, N, k, B)
        assert str(info.value) == ("strategy must be one of ['keep_blocks', 'keep_prefix', "
                                   f"'linear_hash', 'recoverable'], got {bad!r}")


def test_simulate_fills_every_field_when_it_plays():
    N, k, B, trials = 6, 2, 5, 2000            # keep_blocks keeps 2 of 6 blocks
    r = simulate("keep_blocks", N, k, B, trials, seed=11)
    assert 0 < r.successes < trials
    p = r.successes / trials
    assert r == SimResult("keep_blocks", N, k, B, trials, r.successes, p,
                          math.sqrt(p * (1 - p) / trials), fano_bound(N, k, B),
                          exact_success("keep_blocks", N, k, B))
    assert type(r.trials) is int and type(r.successes) is int


def test_simulate_fills_every_field_when_recoverable_cannot_run():
    N, k, B = FITS_AT_1_NOT_AT_2
    r = simulate("recoverable", N, k, B - 1, trials=np.int64(10), seed=1)
    assert r == SimResult("recoverable", N, k, B - 1, 10, 0, 0.0, 0.0,
                          fano_bound(N, k, B - 1), 0.0)
    assert type(r.trials) is int


def test_simulate_refuses_an_encoder_that_exceeded_the_budget(monkeypatch):
    # no shipped strategy overruns B (the kernel returns -1 before writing); a
    # kernel that reports overruns must not be scored
    def overrunning(strategy, N, k, B, param, addr, trials, chunk_trials, gens):
        return np.zeros(len(gens), np.int64), np.full(len(gens), 3, np.int64)

    monkeypatch.setattr(recovery, "_kernel", overrunning)
    with pytest.raises(ValueError) as info:
        simulate("keep_prefix", 4, 4, 8, trials=10, seed=1)
    assert str(info.value) == "keep_prefix: encoder exceeded B=8 bits in 3 trials"
