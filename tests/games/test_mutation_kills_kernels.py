"""``sim.games.kernels.exact_tau``, the one-point sampler (``sim/games/kernels.py``'s
Python half), where its mutation run (issue 38) found no test calling it: its chunk
layout (chunk c fills trials [c chunk, min(trials, (c + 1) chunk)) from stream c, so
the whole call is the chunk-by-chunk calls concatenated, a short last chunk included),
its output's dtype and shape, and the laws it samples against their exact values
(ledger: tau = 1; random order: uniform on 1..n censored at cap; list: uniform on
1..m), with tolerances from the sample's SE."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.channels import BLIND, CONTENT, LEDGER, LIST, WINDOWED
from sim.games.kernels import exact_tau
from sim.rng import chunk_seeds

N, CHUNK = 12, 700


def _tau(code, *, n=N, shift=0.0, ipar=0, bayes=True, cap=N + 1, trials=2500, seed=5):
    n_chunks = -(-trials // CHUNK)
    return exact_tau(n, code, shift, ipar, bayes, cap, chunk_seeds(seed, n_chunks), CHUNK,
                     trials)


@pytest.mark.parametrize("code, ipar, shift", [(BLIND, 0, 0.0), (CONTENT, 0, 1.2),
                                               (LIST, 4, 0.0), (WINDOWED, 3, 0.0)])
def test_the_call_is_its_chunks_concatenated(code, ipar, shift):
    trials = 2500                      # 3 full chunks of 700 and a last one of 400
    seeds = chunk_seeds(9, 4)
    whole = exact_tau(N, code, shift, ipar, True, 6, seeds, CHUNK, trials)
    assert whole.dtype == np.int64 and whole.shape == (trials,)
    parts = [exact_tau(N, code, shift, ipar, True, 6, seeds[c:c + 1], CHUNK,
                       min(CHUNK, trials - c * CHUNK)) for c in range(4)]
    np.testing.assert_array_equal(whole, np.concatenate(parts))
    assert whole.min() >= 1 and whole.max() <= 6


def test_the_ledger_puts_the_target_first_and_a_random_order_anywhere():
    assert (_tau(LEDGER) == 1).all()
    for code, bayes in ((LEDGER, False), (BLIND, True)):   # not Bayes: a random order
        tau = _tau(code, bayes=bayes, trials=20000)
        # uniform on 1..N: mean (N + 1) / 2, variance (N^2 - 1) / 12
        se = np.sqrt((N * N - 1) / 12 / tau.size)
        assert abs(tau.mean() - (N + 1) / 2) < 5 * se
        assert set(np.unique(tau)) == set(range(1, N + 1))


def test_a_cap_censors_and_a_list_is_uniform_on_its_rows():
    tau = _tau(BLIND, cap=4, trials=20000)
    assert tau.max() == 4
    p4 = (N - 3) / N                    # P(tau >= 4) for tau uniform on 1..N
    assert abs((tau == 4).mean() - p4) < 5 * np.sqrt(p4 * (1 - p4) / tau.size)
    tau = _tau(LIST, ipar=5, trials=20000)
    assert set(np.unique(tau)) == set(range(1, 6))
    assert abs(tau.mean() - 3.0) < 5 * np.sqrt((25 - 1) / 12 / tau.size)


def test_the_content_channel_reads_its_shift():
    """A content shift far above the noise puts the target first in every trial; no
    shift makes it one more block among n (tau uniform on 1..n by symmetry)."""
    assert (_tau(CONTENT, shift=40.0) == 1).all()
    tau = _tau(CONTENT, shift=0.0, trials=20000)
    se = np.sqrt((N * N - 1) / 12 / tau.size)
    assert abs(tau.mean() - (N + 1) / 2) < 5 * se
