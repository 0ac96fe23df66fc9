"""The chunked PCG64 streams a brute-force eviction kernel draws from, replayed with
NumPy's own Generator, for tests that compare a kernel trial by trial with a plain
replay (``sim.games.eviction.seed_chunks``: chunk ``c`` of the trials draws from the
``c``-th child of the seed's SeedSequence, through ``sim.pcg64`` in the kernel)."""

from __future__ import annotations

import numpy as np

from sim.games.eviction import seed_chunks
from sim.rng import as_seed_sequence


def chunk_streams(seed, trials: int, work: int):
    """``(seeds, chunk, streams)`` for a kernel call of ``trials`` trials at
    ``work`` draws a trial: ``seeds`` (uint64, (n_chunks, 4)) and ``chunk`` as
    :func:`sim.games.eviction.seed_chunks` passes them to the kernel, and ``streams``,
    one ``(numpy.random.Generator, range of trial indices)`` per chunk, in order."""
    seeds, chunk, _ = seed_chunks(seed, trials, work)
    children = as_seed_sequence(seed).spawn(len(seeds))
    streams = [(np.random.Generator(np.random.PCG64(child)),
                range(c * chunk, min(trials, (c + 1) * chunk)))
               for c, child in enumerate(children)]
    return seeds, chunk, streams
