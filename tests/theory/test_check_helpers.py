"""The private channels, grids and references the theory checks evaluate (issue 38:
a check passes for the true statement whatever channel it is handed, so its helpers
are pinned here, each against an independent construction)."""

from __future__ import annotations

import numpy as np
import pytest

from theory import list_fano


def test_the_list_fano_channels_are_the_documented_ones():
    """kind 0: the eps-channel (1 - eps) I + eps/n; kind 1: a seeded Dirichlet(0.3)
    channel, the same for the same seed and different for another."""
    eps, n = 0.2, 8
    want = np.full((n, n), eps / n) + (1 - eps) * np.eye(n)
    assert np.allclose(list_fano._channel(0, eps, n), want, rtol=0, atol=1e-15)
    ref = np.random.default_rng(3).dirichlet([0.3] * n, size=n)
    assert np.array_equal(list_fano._channel(1, 3, n), ref)
    assert np.array_equal(list_fano._channel(1, 3, n), list_fano._random_channel(3, n))
    assert not np.array_equal(list_fano._channel(1, 3, n), list_fano._channel(1, 2, n))
