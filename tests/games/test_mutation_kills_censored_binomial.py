"""sim/games/kernels.py's ``censored_binomial`` where (1 - q)^N underflows (issue 38: a
cosmic-ray kernel mutant, ``k > trials_n`` for ``k >= trials_n`` in its guard, that no
test saw).

With P(C = 0) = (1 - q)^N below the smallest double, every pmf term is 0 and the
inversion walks to the cap; when the cap is above N the guard must stop it at N
(C <= N always). Reached through ``exact_tau`` with a cap above n (the game itself
passes cap = kappa + 1 <= n) and a negative shift, where J* scores below every other
block and is archived last."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim import pcg64
from sim.games.channels import CONTENT
from sim.games.kernels import censored_binomial, exact_tau
from sim.rng import chunk_seeds


@pytest.mark.parametrize("trials_n", [33, 40, 200])
def test_an_underflowing_law_never_draws_more_than_n(trials_n):
    q = 1.0 - 1e-12                            # (1 - q)^N = 1e-12N: 0.0 in doubles
    assert math.exp(trials_n * math.log1p(-q)) == 0.0
    s = pcg64.new_state(chunk_seeds(1, 1), 0)
    for cap in (trials_n - 1, trials_n, trials_n + 1, trials_n + 5):
        draws = {censored_binomial(s, trials_n, q, cap) for _ in range(20)}
        assert draws == {min(trials_n, cap)}, (cap, draws)


def test_a_target_that_scores_below_every_block_is_archived_last():
    n, trials = 40, 400
    # shift -8: q(eps) = 1 - Phi(eps - 8) is 1.0 or within 1e-8 of it for eps < 2.3
    tau = exact_tau(n, CONTENT, -8.0, 0, True, n + 1, chunk_seeds(4, 1), trials, trials)
    assert tau.dtype == np.int64 and tau.shape == (trials,)
    assert (tau == n).all(), np.unique(tau)
