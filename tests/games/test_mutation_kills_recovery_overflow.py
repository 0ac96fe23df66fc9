"""sim/games/recovery_kernels.py's per-chunk tally of overflows (issue 38: a cosmic-ray
kernel mutant, ``r < -1`` for ``r < 0``, that no test saw: it adds an overflowing
trial's -1 to the successes instead of counting an overflow).

``sim.games.recovery.simulate`` never passes parameters that overflow (it checks the
game first) and raises if the kernel reports one, so the count is checked on the
kernel itself: with a parameter whose encoding passes ``B`` every trial of every chunk
is an overflow and none a success; with one that fits none is an overflow."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.recovery_kernels import _kernel
from sim.rng import chunk_generators

N, K, TRIALS, CHUNK = 4, 8, 250, 100        # three chunks: 100, 100 and 50 trials
PER_CHUNK = [100, 100, 50]


@pytest.mark.parametrize("strategy, param, addr, need", [
    (0, 2, 0, 2 * K),           # keep_blocks: m = 2 whole blocks, m k bits
    (1, 3, 0, N * 3),           # keep_prefix: p = 3 bits of every block, N p bits
    (2, 2, 2, N * 2 + K)])      # recoverable: N handles of 2 bits, then one block
def test_every_trial_of_an_encoding_past_B_is_an_overflow_not_a_success(strategy, param,
                                                                        addr, need):
    succ, over = _kernel(strategy, N, K, need - 1, param, addr, TRIALS, CHUNK,
                         chunk_generators(3, 3))
    assert over.tolist() == PER_CHUNK
    assert succ.tolist() == [0, 0, 0]
    succ, over = _kernel(strategy, N, K, need, param, addr, TRIALS, CHUNK,
                         chunk_generators(3, 3))
    assert over.tolist() == [0, 0, 0]
    assert all(0 <= s <= n for s, n in zip(succ.tolist(), PER_CHUNK))
    if strategy == 2:           # recoverable: every target reloaded whole
        assert succ.tolist() == PER_CHUNK
    elif strategy == 0:         # keep_blocks: targets 0 and 1 of 4 kept whole
        assert 0 < succ.sum() < TRIALS
