"""sim/games/kernels.py's brute-force content kernel with the rate (issue 38: cosmic-ray
kernel mutants that the mapped tests let through: the count of blocks above J* and
the online log-sum-exp of the ``want_rate`` branch).

Each chunk's draws are replayed with ``numpy.random.Generator(PCG64(child))`` (the
stream the kernel's own PCG64 reproduces, tests/games/test_pcg64.py): per trial the
noise of J*, then the n - 1 others; the position and the exact-posterior rate
log2(n p(J*|Y)) are computed here with scipy's logsumexp."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from sim.games import kernels
from tests.games.streams import chunk_streams


def _reference(n, shift, seed, trials, work):
    seeds, chunk, streams = chunk_streams(seed, trials, work)
    tau, rate, eps = [], [], []
    for g, trial_range in streams:
        for _ in trial_range:
            e = g.standard_normal()
            zj = shift + e
            others = np.array([g.standard_normal() for _ in range(n - 1)])
            tau.append(1 + int(np.sum(others > zj)))
            scores = shift * np.concatenate(([zj], others))
            rate.append(math.log2(n) + (scores[0] - logsumexp(scores)) / math.log(2))
            eps.append(e)
    return seeds, chunk, np.array(tau), np.array(rate), np.array(eps)


@pytest.mark.parametrize("n, kappa, sigma", [(8, 4, 1.0), (33, 2, 0.5), (5, 16, 2.0)])
def test_positions_and_rates_equal_a_plain_replay(n, kappa, sigma):
    shift, trials = math.log(kappa) / sigma, 300
    seeds, chunk, tau, rate, eps = _reference(n, shift, 17, trials, 2 ** 17)
    assert len(seeds) >= 1 and chunk >= 1
    got_tau, got_rate, got_eps = kernels.brute_content(n, shift, seeds, chunk, trials, True)
    assert np.array_equal(got_tau, tau)
    assert np.array_equal(got_eps, eps)
    np.testing.assert_allclose(got_rate, rate, rtol=0, atol=1e-12)
    # without the rate the same draws give the same positions, and the rates stay zero
    tau2, rate2, eps2 = kernels.brute_content(n, shift, seeds, chunk, trials, False)
    assert np.array_equal(tau2, tau) and np.array_equal(eps2, eps)
    assert not rate2.any()


def test_several_chunks_replay_their_own_streams():
    # 2^17 / n = 4096 trials a chunk at n = 32: 9,000 trials take three streams
    n, shift, trials = 32, math.log(4.0), 9000
    seeds, chunk, tau, rate, _ = _reference(n, shift, 3, trials, n)
    assert len(seeds) == 3
    got_tau, got_rate, _ = kernels.brute_content(n, shift, seeds, chunk, trials, True)
    assert np.array_equal(got_tau, tau)
    np.testing.assert_allclose(got_rate, rate, rtol=0, atol=1e-12)
