"""Numba kernels of the recovery game (Proposition 1; THEORY.md §1).

Blocks are packed ``uint64`` words (bit ``j`` of a block is bit ``j % 64`` of word
``j // 64``); the prompt is a bit stream of at most ``B`` bits that the encoder
writes and the decoder reads back. :func:`_play` runs one trial on given blocks
(shared by the kernel and by :func:`sim.games.recovery.play_packed`, so tests can
compare it bit for bit with the plain-Python references); :func:`_kernel` draws
the trials in fixed chunks, chunk ``c`` from its own ``numpy.random.Generator``
``gens[c]`` (:func:`sim.rng.chunk_generators`), so results depend on the seed alone,
never on the number of threads.

Per trial a chunk's Generator ``g`` is consumed exactly as this plain NumPy does
(:func:`_draw_blocks`; ``W = ceil(k/64)`` words per block)::

    words = g.integers(0, 2**64 - 1, size=(N, W), dtype=np.uint64, endpoint=True)
    words[:, -1] &= low k - 64 (W - 1) bits          # only when 64 does not divide k
    g.shuffle(perm)                                   # recoverable only: store slots
    target = g.integers(0, N)

so the kernel can be checked against plain NumPy draw for draw. Every bit of a
block is one bit of a full 64-bit PCG64 output (``endpoint=True`` on the full
``uint64`` range returns the raw word, no rejection), hence uniform and independent.
Use the Python API in :mod:`sim.games.recovery`, which validates parameters.
"""

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _mask(nbits):
    if nbits >= 64:
        return np.uint64(0xFFFFFFFFFFFFFFFF)
    return (np.uint64(1) << np.uint64(nbits)) - np.uint64(1)


@nb.njit(cache=True)
def _put_bits(stream, pos, value, nbits):
    # value holds only its low nbits (callers mask); write LSB-first at pos.
    w = pos >> 6
    off = pos & 63
    stream[w] |= value << np.uint64(off)
    if off + nbits > 64:
        stream[w + 1] |= value >> np.uint64(64 - off)


@nb.njit(cache=True)
def _get_bits(stream, pos, nbits):
    w = pos >> 6
    off = pos & 63
    v = stream[w] >> np.uint64(off)
    if off + nbits > 64:
        v |= stream[w + 1] << np.uint64(64 - off)
    return v & _mask(nbits)


@nb.njit(cache=True)
def _put_block(stream, pos, block, nbits):
    # write the first nbits of a packed block
    w = 0
    while nbits > 0:
        n = min(64, nbits)
        _put_bits(stream, pos, block[w] & _mask(n), n)
        pos += n
        nbits -= n
        w += 1


@nb.njit(cache=True)
def _get_block(stream, pos, out, nbits):
    w = 0
    while nbits > 0:
        n = min(64, nbits)
        out[w] = _get_bits(stream, pos, n)
        pos += n
        nbits -= n
        w += 1


@nb.njit(cache=True)
def _play(strategy, blocks, target, k, B, param, addr, perm, stream, store, guess):
    """One trial on given blocks: encode into ``stream`` (<= B bits), reveal
    ``target``, decode into ``guess``. Returns 1 (exact), 0 (wrong) or -1 (the
    encoder would exceed B bits)."""
    N = blocks.shape[0]
    stream[:] = 0
    guess[:] = 0
    if strategy == 0:          # keep floor(B/k) whole blocks
        m = param
        if m * k > B:
            return -1
        for i in range(m):
            _put_block(stream, i * k, blocks[i], k)
        if target < m:
            _get_block(stream, target * k, guess, k)
    elif strategy == 1:        # keep the first p bits of every block
        p = param
        if N * p > B:
            return -1
        for i in range(N):
            _put_block(stream, i * p, blocks[i], p)
        _get_block(stream, target * p, guess, p)
    else:                      # recoverable: handles in the prompt, blocks in the store
        hb = param
        table = N * hb
        if table + k > B:
            return -1
        for i in range(N):
            store[perm[i], :] = blocks[i, :]
            # address in the low addr bits; the rest of the handle is format overhead
            _put_bits(stream, i * hb, np.uint64(perm[i]), addr)
        slot = np.int64(_get_bits(stream, target * hb, addr))
        _put_block(stream, table, store[slot], k)     # reload after the reveal
        _get_block(stream, table, guess, k)
    for w in range(blocks.shape[1]):
        if guess[w] != blocks[target, w]:
            return 0
    return 1


#: ``2**64 - 1``: with ``endpoint=True`` the draw covers every ``uint64`` value.
_U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


@nb.njit(cache=True)
def _draw_blocks(g, N, k):
    """``N`` uniform ``k``-bit blocks from Generator ``g``.

    Returns:
        ``uint64`` array ``(N, ceil(k/64))``, packed as in :mod:`sim.games.recovery`
        (bit ``j`` of a block is bit ``j % 64`` of word ``j // 64``), bits ``>= k``
        zero. Draws ``N ceil(k/64)`` raw 64-bit words in row-major order, exactly
        ``g.integers(0, 2**64 - 1, size=(N, W), dtype=np.uint64, endpoint=True)``,
        and masks the last word of each block to its ``k - 64 (W - 1)`` bits.
    """
    W = (k + 63) // 64
    blocks = g.integers(0, _U64_MAX, size=N * W, dtype=np.uint64,
                        endpoint=True).reshape(N, W)
    tail = k - 64 * (W - 1)
    if tail < 64:
        m = _mask(tail)
        for i in range(N):
            blocks[i, W - 1] &= m
    return blocks


@nb.njit(parallel=True, cache=True)
def _kernel(strategy, N, k, B, param, addr, trials, chunk_trials, gens):
    """Play ``trials`` games of one strategy; chunk ``c`` holds trials
    ``c * chunk_trials .. min(trials, (c + 1) * chunk_trials) - 1`` and draws from
    ``gens[c]`` only (in place: the Generators advance).

    Args:
        strategy: 0 keep_blocks, 1 keep_prefix, 2 recoverable; N, k, B: game (bits);
            param: m, p or handle bits; addr: address bits (recoverable);
            gens: ``numba.typed.List`` of ``ceil(trials / chunk_trials)`` Generators.

    Returns:
        ``(successes, overflows)``: int64 arrays ``(len(gens),)`` per chunk; an
        overflow is a trial whose encoder would exceed ``B`` bits.
    """
    n_chunks = len(gens)
    W = (k + 63) // 64
    SW = max(1, (B + 63) // 64)
    successes = np.zeros(n_chunks, np.int64)
    overflows = np.zeros(n_chunks, np.int64)
    for c in nb.prange(n_chunks):
        g = gens[np.int64(c)]
        store = np.zeros((N, W), np.uint64)
        perm = np.arange(N)
        stream = np.zeros(SW, np.uint64)
        guess = np.zeros(W, np.uint64)
        stop = min(trials, (c + 1) * chunk_trials)
        for _ in range(c * chunk_trials, stop):
            blocks = _draw_blocks(g, N, k)
            if strategy == 2:
                # the store hands out a fresh random slot per block (Fisher-Yates
                # on the previous permutation: uniform whatever it was)
                g.shuffle(perm)
            target = g.integers(0, N)
            r = _play(strategy, blocks, target, k, B, param, addr, perm, stream, store, guess)
            if r < 0:
                overflows[c] += 1
            else:
                successes[c] += r
    return successes, overflows
