"""sim/games/kernels.py's brute-force discrete channels (``_tau_discrete_trial``) and
the content kernel's log-sum-exp at a large shift (issue 38: cosmic-ray kernel mutants
that the mapped tests let through).

The discrete channels' laws are checked elsewhere (tests/games/test_eviction.py), but a
law cannot see an edit that draws the same law: a uniform tie-break key compared with
``<`` instead of ``>``, or with ``not``. Each trial here is replayed from the kernel's
own stream with ``numpy.random.Generator(PCG64(child))`` (the stream sim.pcg64
reproduces, tests/games/test_pcg64.py) by a plain loop that follows the draw order
``_tau_discrete_trial``'s docstring states (the law alone does not fix it): the ledger
archives by decreasing observed size (J* observed at ``ipar``, every other
block at 1) with ties in random order; every other channel breaks ties by a uniform
key; a list is J* plus ``ipar - 1`` others by selection sampling, listed blocks first;
a windowed ledger lists a uniform ``ipar``-subset with exact sizes. The ledger is also
driven at observed sizes 0 and 1, which the game's validation (kappa >= 2) never
passes but the kernel's documented order covers: at 1 every block ties and the order
is random, at 0 J* is archived last."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from sim.games import kernels
from sim.games.channels import BLIND, LEDGER, LIST, WINDOWED
from sim.games.eviction import seed_chunks
from tests.games.streams import chunk_streams


def _ledger(g, n, j, size_j):
    key_j = g.random()
    higher = 0
    for i in range(n):
        if i == j:
            continue
        if size_j < 1.0:                       # a larger block is archived first
            higher += 1
        elif size_j == 1.0 and g.random() > key_j:   # a tie: the larger key first
            higher += 1
    return higher + 1


def _blind(g, n, j, key_j):
    return 1 + sum(1 for i in range(n) if i != j and g.random() > key_j)


def _listed(g, n, j, m, key_j):
    need, remaining, higher = m - 1, n - 1, 0
    for i in range(n):
        if i == j:
            continue
        if g.random() * remaining < need:      # selection sampling: listed
            need -= 1
            if g.random() > key_j:             # ties with J* (both listed)
                higher += 1
        remaining -= 1
    return higher + 1


def _windowed(g, n, j, w, key_j):
    if g.random() * n < w:
        return 1                               # J* listed: its size identifies it
    need, remaining, higher = w, n - 1, 0
    for i in range(n):
        if i == j:
            continue
        listed = g.random() * remaining < need
        remaining -= 1
        if listed:
            need -= 1                          # a listed small block: archived last
        elif g.random() > key_j:
            higher += 1
    return higher + 1


def _reference_tau(n, code, ipar, seed, trials):
    seeds, chunk, streams = chunk_streams(seed, trials, n)
    tau = []
    for g, trial_range in streams:
        for _ in trial_range:
            j = int(g.integers(0, n))
            if code == LEDGER:
                tau.append(_ledger(g, n, j, float(ipar)))
                continue
            key_j = g.random()
            if code == BLIND:
                tau.append(_blind(g, n, j, key_j))
            elif code == LIST:
                tau.append(_listed(g, n, j, ipar, key_j))
            else:
                tau.append(_windowed(g, n, j, ipar, key_j))
    return seeds, chunk, np.array(tau, dtype=np.int64)


@pytest.mark.parametrize("code, ipar", [
    (LEDGER, 0), (LEDGER, 1), (LEDGER, 2), (LEDGER, 7),
    (BLIND, 0),
    (LIST, 1), (LIST, 4), (LIST, 9),
    (WINDOWED, 0), (WINDOWED, 3), (WINDOWED, 8)])
def test_each_trial_equals_a_plain_replay_of_its_stream(code, ipar):
    n, trials = 9, 400
    seeds, chunk, want = _reference_tau(n, code, ipar, 23, trials)
    got = kernels.brute_tau_discrete(n, code, ipar, seeds, chunk, trials)
    assert got.dtype == np.int64 and got.shape == (trials,)
    np.testing.assert_array_equal(got, want)
    assert want.min() >= 1 and want.max() <= n


def test_several_chunks_each_replay_their_own_stream():
    n, trials = 40, 9000                       # chunks of 4,096 trials: 3 streams
    seeds, chunk, want = _reference_tau(n, BLIND, 0, 4, trials)
    assert len(seeds) == 3
    np.testing.assert_array_equal(
        kernels.brute_tau_discrete(n, BLIND, 0, seeds, chunk, trials), want)


def test_the_ledger_at_observed_size_one_is_a_random_order_and_at_zero_last():
    n = 9
    seeds, chunk, _ = seed_chunks(2, 20000, n)
    tau = kernels.brute_tau_discrete(n, LEDGER, 1, seeds, chunk, 20000)
    # every block ties: tau uniform on 1..n, mean (n + 1) / 2, variance (n^2 - 1) / 12
    assert abs(tau.mean() - (n + 1) / 2) < 5 * math.sqrt((n * n - 1) / 12 / tau.size)
    assert set(np.unique(tau)) == set(range(1, n + 1))
    assert (kernels.brute_tau_discrete(n, LEDGER, 0, seeds, chunk, 500) == n).all()
    assert (kernels.brute_tau_discrete(n, LEDGER, 2, seeds, chunk, 500) == 1).all()


def test_the_rate_stays_finite_and_exact_where_scores_span_thousands():
    # shift = 30: J*'s score shift * (shift + eps) leads the others' by about
    # shift^2 = 900 > 709, past exp's range, so a log-sum-exp that rescales to a
    # smaller anchor overflows; anchored at the running maximum it stays exact
    # (scipy's logsumexp of the same replayed draws)
    n, trials, shift = 6, 200, 30.0
    seeds, chunk, streams = chunk_streams(11, trials, n)
    want, gaps = [], []
    for g, trial_range in streams:
        for _ in trial_range:
            scores = shift * g.standard_normal(n)
            scores[0] += shift * shift       # J*'s z is shift + eps
            want.append(math.log2(n) + (scores[0] - logsumexp(scores)) / math.log(2))
            gaps.append(scores[0] - scores[1:].max())
    _, rate, _ = kernels.brute_content(n, shift, seeds, chunk, trials, True)
    assert np.isfinite(rate).all()
    np.testing.assert_allclose(rate, want, rtol=0, atol=1e-12)
    assert min(gaps) > 709.8                   # every trial is in the overflow regime
