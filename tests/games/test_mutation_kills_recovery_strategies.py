"""The recovery game's reference strategies and :func:`evaluate` at the edges the
first mutmut run over ``sim/games/recovery_strategies.py`` left open (issue 38): the
dtype and shape of what a compressor writes and reads, the linear hash's default
(a fresh matrix every trial), the seed reaching every draw, ``new_trial`` once per
trial, the trials check at 1, the budget and bit checks' messages, every field of
the :class:`Evaluation`, and the violation flag at its 3.2e-5 threshold.

The checks use small compressors written here (one that cheats by keeping the
blocks, one that records what it is given), so each expectation is plain counting."""

import math

import numpy as np
import pytest

from sim.games import recovery_strategies as rs
from sim.games.recovery import linear_hash_success
from sim.games.recovery_strategies import (BudgetExceeded, Game, KeepPrefixes,
                                           KeepWholeBlocks, LinearHash,
                                           linear_hash_success_given, evaluate)


class Recorder:
    """Duck-typed compressor that keeps every block array it is shown and counts
    ``new_trial`` calls; it writes nothing and guesses zeros (no name, no
    ``recovering``: evaluate's defaults apply)."""

    def __init__(self):
        self.blocks, self.trials = [], 0

    def new_trial(self, rng):
        self.trials += 1

    def encode(self, blocks):
        self.blocks.append(blocks.copy())
        return np.zeros(0, np.uint8)

    def decode(self, representation, target):
        return np.zeros(self.blocks[-1].shape[1], np.uint8)


class Alternating:
    """Keeps the blocks outside the prompt (a recovering cheat) and answers right on
    every other trial: exactly ceil(trials / 2) successes whatever the draws."""

    def __init__(self, name=None):
        if name is not None:
            self.name = name
        self.count, self.kept = 0, None

    def encode(self, blocks):
        self.kept = blocks.copy()
        return np.zeros(0, np.uint8)

    def decode(self, representation, target):
        self.count += 1
        right = self.kept[target]
        return right if self.count % 2 == 1 else 1 - right


# -- what the reference strategies write and read ---------------------------------------
@pytest.mark.parametrize("make,N,k,B", [(KeepWholeBlocks, 6, 3, 7), (KeepPrefixes, 4, 5, 9),
                                         (lambda: LinearHash(resample=False), 4, 3, 6)])
def test_reference_strategies_write_and_return_uint8_bit_arrays(make, N, k, B):
    rng = np.random.default_rng(0)
    comp = make()
    comp.prepare(Game(N, k, B), rng)
    blocks = rng.integers(0, 2, size=(N, k), dtype=np.uint8)
    rep = comp.encode(blocks)
    assert rep.dtype == np.uint8 and rep.ndim == 1 and rep.size <= B
    for t in range(N):
        guess = comp.decode(rep, t)
        assert guess.dtype == np.uint8 and guess.shape == (k,)
        assert set(np.unique(guess)) <= {0, 1}


def test_keep_whole_blocks_writes_the_first_blocks_row_major():
    comp = KeepWholeBlocks()
    comp.prepare(Game(4, 3, 7), None)          # m = floor(7 / 3) = 2 whole blocks
    blocks = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 1]], np.uint8)
    assert comp.encode(blocks).tolist() == [1, 0, 1, 0, 1, 1]
    assert comp.decode(comp.encode(blocks), 3).tolist() == [0, 0, 0]


def test_keep_prefixes_writes_each_blocks_prefix_in_order():
    comp = KeepPrefixes()
    comp.prepare(Game(3, 4, 7), None)          # p = floor(7 / 3) = 2 bits a block
    blocks = np.array([[1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 0, 0]], np.uint8)
    rep = comp.encode(blocks)
    assert rep.tolist() == [1, 0, 0, 1, 1, 1]
    assert comp.decode(rep, 1).tolist() == [0, 1, 0, 0]


def test_a_fixed_hash_matrix_given_as_lists_has_the_same_exact_success():
    A = np.random.default_rng(3).integers(0, 2, size=(5, 12), dtype=np.uint8)
    want = linear_hash_success_given(A, 4, 3)
    assert linear_hash_success_given(A.tolist(), 4, 3) == want
    assert linear_hash_success_given(A.astype(bool), 4, 3) == want


# -- the linear hash ----------------------------------------------------------------------
def test_linear_hash_resamples_by_default():
    comp = LinearHash()
    assert comp.resample is True
    game = Game(4, 3, 6)
    comp.prepare(game, np.random.default_rng(1))
    first = comp.A.copy()
    comp.new_trial(np.random.default_rng(2))
    assert not np.array_equal(first, comp.A)
    assert comp.exact_success() == linear_hash_success(4, 3, 6)


def test_linear_hash_with_a_fixed_matrix_keeps_it():
    comp = LinearHash(resample=False)
    comp.prepare(Game(4, 3, 6), np.random.default_rng(1))
    first = comp.A.copy()
    comp.new_trial(np.random.default_rng(2))
    assert np.array_equal(first, comp.A) and comp.resample is False


def test_linear_hash_refuses_a_representation_outside_the_column_space():
    comp = LinearHash(resample=False)
    comp.prepare(Game(4, 3, 6), np.random.default_rng(1))
    comp.A = np.zeros((6, 12), np.uint8)        # A x = 0 for every x: R = 1... is not
    with pytest.raises(ValueError) as info:
        comp.decode(np.ones(6, np.uint8), 0)
    assert str(info.value) == "representation is not in the column space of A"


# -- evaluate: seeding, lifecycle, checks -----------------------------------------------
def test_evaluate_draws_uint8_blocks_from_its_seed_and_calls_new_trial_per_trial():
    a, b, c = Recorder(), Recorder(), Recorder()
    evaluate(a, 4, 3, 6, trials=5, seed=11)
    evaluate(b, 4, 3, 6, trials=5, seed=11)
    evaluate(c, 4, 3, 6, trials=5, seed=12)
    assert a.trials == 5 and len(a.blocks) == 5
    assert all(x.dtype == np.uint8 and x.shape == (4, 3) for x in a.blocks)
    assert all(np.array_equal(x, y) for x, y in zip(a.blocks, b.blocks))
    assert not all(np.array_equal(x, y) for x, y in zip(a.blocks, c.blocks))


@pytest.mark.parametrize("trials", [True, 0, -1, 2.0, "3"])
def test_evaluate_trials_must_be_a_positive_integer(trials):
    with pytest.raises(ValueError, match=r"trials must be a positive integer, got"):
        evaluate(KeepWholeBlocks(), 4, 3, 6, trials=trials)


def test_evaluate_accepts_one_trial_and_numpy_integers():
    assert evaluate(KeepWholeBlocks(), 4, 3, 6, trials=1, seed=0).trials == 1
    assert evaluate(KeepWholeBlocks(), 4, 3, 6, trials=np.int64(2), seed=0).trials == 2


def test_evaluate_reports_every_field():
    N, k, B, trials = 5, 4, 8, 9
    res = evaluate(Alternating(name="alt"), N, k, B, trials=trials, seed=0)
    successes = math.ceil(trials / 2)
    p = successes / trials
    assert (res.strategy, res.N, res.k, res.B, res.trials) == ("alt", N, k, B, trials)
    assert (res.successes, res.success) == (successes, p)
    assert res.se == pytest.approx(math.sqrt(p * (1 - p) / trials), rel=1e-15)
    assert res.bound == pytest.approx(B / (N * k) + 1 / k, rel=1e-15)
    assert res.exact is None and res.max_bits == 0
    # 5 of 9 against a bound of 0.65: plausible, no violation
    assert res.violation is False


def test_an_unnamed_compressor_is_reported_by_its_type():
    res = evaluate(Alternating(), 5, 4, 8, trials=3, seed=0)
    assert res.strategy == "Alternating"


def test_a_compressor_without_recovering_counts_as_lossy_and_is_flagged():
    class Cheat(Alternating):       # right every time, far above the bound 0.3
        def decode(self, representation, target):
            return self.kept[target]
    res = evaluate(Cheat(), 10, 4, 2, trials=40, seed=0)
    assert res.successes == 40 and res.bound == pytest.approx(0.3) and res.violation is True
    Cheat.recovering = True
    assert evaluate(Cheat(), 10, 4, 2, trials=40, seed=0).violation is False


@pytest.mark.parametrize("tail,flagged", [(3.2e-5, False), (3.19999e-5, True)])
def test_violation_threshold_is_strictly_below_3_2e_minus_5(monkeypatch, tail, flagged):
    class Tail:
        @staticmethod
        def sf(*args):
            return tail
    monkeypatch.setattr(rs.stats, "binom", Tail)
    res = evaluate(Alternating(), 10, 4, 2, trials=4, seed=0)
    assert res.violation is flagged


@pytest.mark.parametrize("name,label", [("wide", "wide"), (None, "compressor")])
def test_budget_exceeded_names_the_compressor_and_the_bits(name, label):
    class Wide:
        def encode(self, blocks):
            return np.zeros(7, np.uint8)

        def decode(self, representation, target):
            return np.zeros(3, np.uint8)
    comp = Wide()
    if name:
        comp.name = name
    with pytest.raises(BudgetExceeded) as info:
        evaluate(comp, 4, 3, 6, trials=1, seed=0)
    assert str(info.value) == f"{label} wrote 7 bits > B=6"


@pytest.mark.parametrize("rep,message", [
    (np.zeros((2, 2), np.uint8), "representation must be a 1-D bit array, got shape (2, 2)"),
    (np.array([0, 2, 1]), "representation must contain only 0 and 1"),
])
def test_malformed_representations_are_refused_naming_them(rep, message):
    class Bad:
        def encode(self, blocks):
            return rep

        def decode(self, representation, target):
            return np.zeros(3, np.uint8)
    with pytest.raises(ValueError) as info:
        evaluate(Bad(), 4, 3, 6, trials=1, seed=0)
    assert str(info.value) == message


def test_a_guess_of_the_wrong_length_is_refused_naming_it():
    class Short(Recorder):
        def decode(self, representation, target):
            return np.zeros(2, np.uint8)
    with pytest.raises(ValueError) as info:
        evaluate(Short(), 4, 3, 6, trials=1, seed=0)
    assert str(info.value) == "guess must have 3 bits, got 2"


def test_bits_read_as_other_dtypes_become_uint8():
    assert rs._as_bits([1, 0, 1], "x").dtype == np.uint8
    assert rs._as_bits(np.array([True, False]), "x").tolist() == [1, 0]


def test_max_bits_is_the_longest_representation_written():
    # keep_blocks writes floor(B / k) whole blocks: floor(7 / 3) * 3 = 6 bits a trial
    assert evaluate(KeepWholeBlocks(), 6, 3, 7, trials=3, seed=0).max_bits == 6
    assert evaluate(KeepPrefixes(), 4, 5, 9, trials=3, seed=0).max_bits == 8
