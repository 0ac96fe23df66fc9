"""sim/games/recovery_kernels.py's budget guard, compiled (issue 38: cosmic-ray's
kernel mutants that tests/games/test_recovery.py let through).

Through the Python API an encoder's parameter always fits (m = floor(B/k), p =
floor(B/N), and a recoverable game that does not fit is refused before the kernel),
so the kernel's own check that an encoding would pass ``B`` bits was never reached.
Here the jitted trial ``_play`` gets each strategy's parameter directly, with ``B``
one bit under, at and one bit over the bits the encoder writes (computed here by
hand: m k, N p, N hb + k)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.recovery_kernels import _play

N, K = 4, 8


def _trial(strategy: int, B: int, param: int, addr: int = 0) -> int:
    rng = np.random.default_rng(7)
    blocks = rng.integers(0, 2 ** K, size=(N, 1), dtype=np.uint64)
    perm = np.arange(N)
    stream = np.zeros(4, np.uint64)                  # room for any encoding below
    store = np.zeros_like(blocks)
    guess = np.zeros(1, np.uint64)
    return int(_play(strategy, blocks, 0, K, B, param, addr, perm, stream, store, guess))


@pytest.mark.parametrize("strategy, param, addr, need", [
    (0, 2, 0, 2 * K),           # keep_blocks: m = 2 whole blocks, m k bits
    (1, 3, 0, N * 3),           # keep_prefix: p = 3 bits of every block, N p bits
    (2, 2, 2, N * 2 + K)])      # recoverable: N handles of 2 bits, then one block
def test_an_encoding_past_B_is_refused_and_one_that_fits_is_played(strategy, param, addr,
                                                                   need):
    assert _trial(strategy, need - 1, param, addr) == -1
    for B in (need, need + 1):
        # target 0 is kept whole by keep_blocks (m >= 1) and reloaded by recoverable;
        # keep_prefix keeps 3 of its 8 bits, so it is wrong unless the rest are zero
        assert _trial(strategy, B, param, addr) in ((1,) if strategy != 1 else (0, 1))
