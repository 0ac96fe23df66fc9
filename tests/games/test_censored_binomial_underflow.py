"""sim/games/kernels.py's ``censored_binomial`` where P(C = 0) = (1 - q)^N is below the
smallest normal double (found in review, 2026-12-06).

The inversion walks the pmf up from k = 0 by its ratio recursion. It used to start
from ``exp(N log1p(-q))`` as it came: 0 once N log(1/(1 - q)) passes about 745, after
which every term stayed 0 and the walk ran to the cap (``censored_binomial(s, 10000,
0.1, 5000)`` returned 5000 every time; the law's mean is 1000); just above, the start
was a subnormal with fewer significant bits (about 15 at -734, a relative error near
1e-5 carried into every later term: too small for these tests to see, avoided now
too). Through the game:
the exact sampler censored 69.5% of trials at n = 2000, kappa = 1500, Content(100),
where brute force censors 21.5%. Any kappa above a few hundred could meet it; the
default grids (kappa <= 16) never did, since there the mass sits far above the cap.

Checked here against scipy's binomial law (bins pooled to at least 20 expected
draws), against the brute-force kernel through ``play``, and at q near 1 with a cap
above N, where C = N."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from scipy import stats

from sim import pcg64
from sim.games.channels import CONTENT, Content
from sim.games.eviction import play
from sim.games.kernels import censored_binomial, exact_tau
from sim.rng import chunk_seeds


@njit
def _draws(seeds, trials_n, q, cap, size):
    s = pcg64.new_state(seeds, 0)
    out = np.empty(size, dtype=np.int64)
    for i in range(size):
        out[i] = censored_binomial(s, trials_n, q, cap)
    return out


def _pooled(observed, expected, least=20.0):
    """Adjacent bins merged left to right until each expects at least ``least``."""
    obs, exp_, o, e = [], [], 0.0, 0.0
    for a, b in zip(observed, expected):
        o, e = o + a, e + b
        if e >= least:
            obs.append(o), exp_.append(e)
            o, e = 0.0, 0.0
    if e > 0:                                   # the remainder joins the last bin
        obs[-1] += o
        exp_[-1] += e
    return np.array(obs), np.array(exp_)


@pytest.mark.parametrize("trials_n, q, cap", [
    (10_000, 0.1, 5_000),    # log P(C = 0) = -1054: underflows; the mass is near 1000
    (10_000, 0.1, 1_000),    # the cap inside the mass: a censored tail of about 1/2
    (2_000, 0.5, 1_500),     # -1386
    (1_000, 0.52, 600),      # -734: subnormal before the fix
    (300, 0.9, 301)])        # -691: a normal start, the old path unchanged
def test_the_law_is_kept_where_the_first_term_underflows(trials_n, q, cap):
    x = _draws(chunk_seeds(5, 1), trials_n, q, cap, 40_000)
    assert x.min() >= 0 and x.max() <= min(trials_n, cap)
    law = stats.binom(trials_n, q)
    expected = np.append(law.pmf(np.arange(cap)), law.sf(cap - 1)) * x.size
    observed = np.bincount(x, minlength=cap + 1).astype(float)
    obs, exp_ = _pooled(observed, expected)
    assert len(obs) >= 5
    assert stats.chisquare(obs, exp_ * obs.sum() / exp_.sum()).pvalue > 1e-4
    # and the mean, censored at the cap, within 5 SE
    mean = (np.minimum(np.arange(trials_n + 1), cap) * law.pmf(np.arange(trials_n + 1))).sum()
    assert abs(x.mean() - mean) < 5 * x.std() / math.sqrt(x.size) + 1e-12


@pytest.mark.parametrize("trials_n", [33, 40, 200])
def test_near_q_one_the_draw_is_n_whatever_cap_above_it(trials_n):
    q = 1.0 - 1e-12                            # P(C = 0) = (1e-12)^N: 0.0 in doubles
    assert math.exp(trials_n * math.log1p(-q)) == 0.0
    s = pcg64.new_state(chunk_seeds(1, 1), 0)
    for cap in (trials_n - 1, trials_n, trials_n + 1, trials_n + 5):
        draws = {censored_binomial(s, trials_n, q, cap) for _ in range(20)}
        assert draws == {min(trials_n, cap)}, (cap, draws)


def test_a_target_that_scores_below_every_block_is_archived_last():
    # a negative shift (only the kernel takes one): q(eps) = 1 - Phi(eps - 8), within
    # 1e-8 of 1 unless eps > 2.3, so C = n - 1 and tau = n, the cap n + 1 above it
    n, trials = 40, 400
    tau = exact_tau(n, CONTENT, -8.0, 0, True, n + 1, chunk_seeds(4, 1), trials, trials)
    assert tau.dtype == np.int64 and tau.shape == (trials,)
    assert (tau == n).all(), np.unique(tau)


def test_the_exact_sampler_agrees_with_brute_force_at_a_large_kappa():
    n, kappa, trials = 2000, 1500, 1500
    exact = play(n, kappa, Content(100.0), trials=trials, seed=3, method="exact").tau
    brute = play(n, kappa, Content(100.0), trials=trials, seed=4, method="brute").tau
    cap = kappa + 1
    p_e, p_b = (exact == cap).mean(), (brute == cap).mean()
    se = math.sqrt((p_e * (1 - p_e) + p_b * (1 - p_b)) / trials)
    assert abs(p_e - p_b) < 5 * se, (p_e, p_b)
    assert stats.ks_2samp(exact, brute).pvalue > 1e-4


@pytest.mark.parametrize("q, want", [(0.0, 0), (-0.0, 0), (1.0, 7), (0.5, None)])
def test_a_certain_draw_takes_no_uniform_from_the_stream(q, want):
    """At q = 0 or 1 the draw is certain and the stream is left as it was (the
    docstring's contract, which the reference's draw-for-draw replay relies on); at
    0 < q < 1 exactly one uniform is taken."""
    seeds = chunk_seeds(6, 1)
    s, fresh = pcg64.new_state(seeds, 0), pcg64.new_state(seeds, 0)
    got = censored_binomial(s, 7, q, 9)
    if want is not None:
        assert got == want
        assert pcg64.random(s) == pcg64.random(fresh)      # nothing was taken
    else:
        pcg64.random(fresh)
        assert pcg64.random(s) == pcg64.random(fresh)      # exactly one was taken

