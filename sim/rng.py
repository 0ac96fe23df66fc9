"""Thread-count-independent randomness for numba ``prange`` kernels.

Every kernel splits its trials into chunks whose layout depends only on the number
of trials (never on the thread count, :func:`chunk_layout`), and gives each chunk
its own stream from ``numpy.random.SeedSequence(seed).spawn(n_chunks)``. Two ways to
hand the streams to a kernel:

* :func:`chunk_seeds`: a uint64 array ``(n_chunks, 4)`` of each child's PCG64 seed
  words; the kernel runs the generator itself (:mod:`sim.pcg64`) and draws exactly
  what NumPy's Generator would. The eviction game's kernels use this: a plain array
  costs nothing to pass, where a ``numba.typed.List`` costs ~0.4 s of uncached
  compilation per process.
* :func:`chunk_generators`: one ``numpy.random.Generator`` (PCG64) per chunk in a
  ``numba.typed.List``; inside the jitted loop a chunk takes
  ``g = gens[np.int64(c)]`` and calls ``g.random()``, ``g.standard_normal()``, ...
  (numba runs NumPy's own algorithms on the chunk's bit-generator state).

Either way a chunk's draws depend only on its own stream, never on which thread ran
it; there is no hidden global RNG state; and kernels can be tested against plain
NumPy draw for draw.
"""

from __future__ import annotations

import numpy as np

#: Trials per chunk. Fixed, so the chunk layout (and the results) do not depend on
#: the number of threads; small enough to balance load across 2-16 cores.
CHUNK_TRIALS = 4096

#: Target random draws per chunk for expensive trials (about 10 ms of work).
CHUNK_WORK = 1 << 19


def as_seed_sequence(seed: int | np.random.SeedSequence | np.random.Generator | None
                     ) -> np.random.SeedSequence:
    """Normalise a user seed to a :class:`numpy.random.SeedSequence`.

    Accepts an int (>= 0), a SeedSequence, or a Generator (a child sequence is
    spawned from its bit generator's seed sequence, so the Generator's stream is
    advanced deterministically). ``None`` draws fresh OS entropy (not reproducible).

    Raises:
        TypeError: for any other type.
        ValueError: for a negative integer seed.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        # Drawing the entropy from the generator advances it, so two calls with the
        # same Generator give different (but reproducible) child streams.
        return np.random.SeedSequence(int(seed.integers(0, 2**63)))
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        return np.random.SeedSequence(int(seed))
    raise TypeError(
        f"seed must be an int, numpy SeedSequence or Generator, got {type(seed).__name__}")


def chunk_layout(trials: int, work_per_trial: int = 1) -> tuple[int, int]:
    """Return ``(n_chunks, chunk_trials)`` covering ``trials`` trials.

    A chunk holds :data:`CHUNK_TRIALS` trials, fewer when each trial is expensive
    (``work_per_trial`` random draws, e.g. n for a brute-force trial) so that a
    chunk holds about ``CHUNK_WORK`` draws and even a few hundred costly trials
    spread over all threads. The layout depends only on ``trials`` and
    ``work_per_trial``, never on the thread count.

    Raises:
        ValueError: if ``trials`` < 1.
    """
    if not isinstance(trials, (int, np.integer)) or isinstance(trials, bool) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    chunk = int(min(CHUNK_TRIALS, max(1, CHUNK_WORK // max(1, int(work_per_trial)))))
    n_chunks = -(-int(trials) // chunk)
    return n_chunks, chunk


def entropy_words(values) -> np.ndarray:
    """The uint32 words ``numpy.random.SeedSequence`` makes of a list of
    non-negative ints (each int little-endian in 32-bit words, 0 as one word, the
    lists concatenated). ``SeedSequence(entropy_words(v))`` therefore has the same
    pool, children and states as ``SeedSequence(v)``; it is built about twice as
    fast, since NumPy copies a uint32 array instead of converting each int.

    Raises:
        ValueError: naming the value if one is negative or not an integer.
    """
    words = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"entropy values must be non-negative integers, got {v!r}")
        v = int(v)
        if v == 0:
            words.append(0)
        while v > 0:
            words.append(v & 0xFFFFFFFF)
            v >>= 32
    return np.array(words, dtype=np.uint32)


def chunk_seeds(seed, n_chunks: int) -> np.ndarray:
    """The seed words of one PCG64 stream per chunk, for kernels that run the
    generator themselves (:mod:`sim.pcg64`).

    Returns:
        uint64 array ``(n_chunks, 4)``: row ``c`` is
        ``SeedSequence(seed).spawn(n_chunks)[c].generate_state(4, np.uint64)``, the
        words ``numpy.random.PCG64`` seeds itself from, so a kernel seeded from row
        ``c`` draws exactly what the ``c``-th Generator of :func:`chunk_generators`
        draws.
    """
    children = as_seed_sequence(seed).spawn(int(n_chunks))
    out = np.empty((len(children), 4), dtype=np.uint64)
    for c, child in enumerate(children):
        out[c] = child.generate_state(4, np.uint64)
    return out


def chunk_generators(seed, n_chunks: int):
    """One PCG64 ``Generator`` per chunk, from ``SeedSequence(seed).spawn(n_chunks)``.

    Returns:
        ``numba.typed.List`` of ``n_chunks`` Generators, to index inside a jitted
        ``prange`` loop. Each is consumed in place: pass a fresh list per call.
    """
    from numba.typed import List

    return List([np.random.Generator(np.random.PCG64(child))
                 for child in as_seed_sequence(seed).spawn(n_chunks)])

