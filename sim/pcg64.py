"""NumPy's PCG64 streams inside numba kernels, seeded from plain arrays.

A kernel used to take a ``numba.typed.List`` of ``numpy.random.Generator`` objects,
one per chunk (:func:`sim.rng.chunk_generators`). Building that list costs ~0.4 s of
compilation in every process (numba does not cache typed-list methods) and ~0.1 ms
per call. Instead a kernel now takes ``seeds``, a uint64 array ``(n_chunks, 4)``
holding ``SeedSequence.generate_state(4, np.uint64)`` of each chunk's child
sequence (:func:`sim.rng.chunk_seeds`, which is exactly what ``PCG64(child)`` seeds
itself from), and runs the same generator here on a 6-word state array:

``[state_hi, state_lo, inc_hi, inc_lo, has_uint32, uinteger]``.

The bit generator is PCG64 (XSL-RR output on a 128-bit LCG, O'Neill 2014, as in
numpy/random/src/pcg64), and the draws follow NumPy's own algorithms
(numpy/random/src/distributions/distributions.c, which numba's Generator support
also translates): ``random`` = 53 high bits; ``standard_normal`` = the 256-level
ziggurat with NumPy's tables (numba ships them); ``integers(0, hi)`` = Lemire's
bounded rejection, on buffered 32-bit halves when ``hi - 1 < 2**32``. So a chunk
draws exactly the numbers ``numpy.random.Generator(PCG64(child))`` draws, value for
value (tested against NumPy in tests/games/test_pcg64.py), and results depend on
the seed alone, never on the thread count.

numba's on-disk cache checks only the file of the function it caches: a kernel in
:mod:`sim.games.kernels` compiled against an older copy of this module stays cached
after this module changes. After editing it, delete the kernels' cache files
(``sim/games/__pycache__/kernels.*.nb[ic]``) or run with a fresh
``NUMBA_CACHE_DIR`` (as the mutation runner does).
"""

from __future__ import annotations

import numpy as np
from numba import njit
# NumPy's ziggurat tables (ziggurat_constants.h), as numba's Generator support uses
# them; tests/games/test_pcg64.py checks every draw against NumPy, so a change shows.
from numba.np.random._constants import (fi_double, ki_double, wi_double,
                                        ziggurat_nor_inv_r, ziggurat_nor_r)

_U = np.uint64
_M32 = _U(0xFFFFFFFF)
_ONE = _U(1)
_ZERO = _U(0)
_S1, _S8, _S11, _S32, _S58, _S63, _S64 = _U(1), _U(8), _U(11), _U(32), _U(58), _U(63), _U(64)
_MUL_HI = _U(0x2360ED051FC65DA4)      # PCG_DEFAULT_MULTIPLIER_128, high and low words
_MUL_LO = _U(0x4385DF649FCCF645)
_MANT52 = _U(0x000FFFFFFFFFFFFF)
_IDX8 = _U(0xFF)
_TO_DOUBLE = 1.0 / 9007199254740992.0  # 2^-53

#: words of a state array
STATE_WORDS = 6


@njit(cache=True, inline="always")
def _mulhi(a, b):
    """High 64 bits of the 128-bit product of two uint64."""
    a0, a1 = a & _M32, a >> _S32
    b0, b1 = b & _M32, b >> _S32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> _S32) + (p01 & _M32) + (p10 & _M32)
    return p11 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)


@njit(cache=True, inline="always")
def _step(s):
    """state = state * multiplier + inc (mod 2^128)."""
    lo = s[1] * _MUL_LO
    hi = _mulhi(s[1], _MUL_LO) + s[0] * _MUL_LO + s[1] * _MUL_HI
    new_lo = lo + s[3]
    carry = _ONE if new_lo < lo else _ZERO
    s[0] = hi + s[2] + carry
    s[1] = new_lo


@njit(cache=True)
def seed_state(words, s):
    """Seed the state array ``s`` (6 uint64) from the 4 words of a chunk's seed, as
    ``pcg64_set_seed`` does: initstate = words[0:2], initseq = words[2:4] (high word
    first), inc = 2 initseq + 1, state = 0; step; state += initstate; step."""
    s[2] = (words[2] << _S1) | (words[3] >> _S63)
    s[3] = (words[3] << _S1) | _ONE
    s[0] = _ZERO
    s[1] = _ZERO
    _step(s)
    lo = s[1] + words[1]
    carry = _ONE if lo < s[1] else _ZERO
    s[0] = s[0] + words[0] + carry
    s[1] = lo
    _step(s)
    s[4] = _ZERO
    s[5] = _ZERO


@njit(cache=True)
def new_state(seeds, c):
    """A fresh state array seeded from row ``c`` of ``seeds`` (n_chunks, 4)."""
    s = np.empty(STATE_WORDS, dtype=np.uint64)
    seed_state(seeds[c], s)
    return s


@njit(cache=True)
def next_uint64(s):
    """The next 64-bit output (step, then XSL-RR of the new state)."""
    _step(s)
    hi, lo = s[0], s[1]
    rot = hi >> _S58
    v = hi ^ lo
    return (v >> rot) | (v << ((_S64 - rot) & _S63))


@njit(cache=True)
def next_uint32(s):
    """The next 32-bit output: the low half of a 64-bit draw, its high half kept for
    the following call (NumPy's ``pcg64_next32`` buffer)."""
    if s[4] != _ZERO:
        s[4] = _ZERO
        return s[5]
    v = next_uint64(s)
    s[4] = _ONE
    s[5] = v >> _S32
    return v & _M32


@njit(cache=True)
def random(s):
    """Uniform double in [0, 1): ``Generator.random()``."""
    return float(next_uint64(s) >> _S11) * _TO_DOUBLE


@njit(cache=True)
def standard_normal(s):
    """Standard normal double: ``Generator.standard_normal()`` (NumPy's ziggurat)."""
    while True:
        r = next_uint64(s)
        idx = np.intp(r & _IDX8)
        r >>= _S8
        rabs = (r >> _S1) & _MANT52
        x = float(rabs) * wi_double[idx]
        if r & _ONE:
            x = -x
        if rabs < ki_double[idx]:
            return x
        if idx == 0:
            while True:
                xx = -ziggurat_nor_inv_r * np.log1p(-random(s))
                yy = -np.log1p(-random(s))
                if yy + yy > xx * xx:
                    if (rabs >> _S8) & _ONE:
                        return -(ziggurat_nor_r + xx)
                    return ziggurat_nor_r + xx
        elif ((fi_double[idx - 1] - fi_double[idx]) * random(s) + fi_double[idx]
              < np.exp(-0.5 * x * x)):
            return x


@njit(cache=True)
def integers(s, high):
    """Uniform int64 in [0, high): ``Generator.integers(0, high)`` for int64 ``high``
    >= 1 (Lemire's rejection on 32-bit draws when high - 1 < 2^32 - 1, as NumPy)."""
    rng = _U(high - 1)
    if rng == _ZERO:
        return np.int64(0)
    if rng < _M32:
        excl = rng + _ONE
        m = next_uint32(s) * excl
        leftover = m & _M32
        if leftover < excl:
            threshold = (_M32 - rng) % excl
            while leftover < threshold:
                m = next_uint32(s) * excl
                leftover = m & _M32
        return np.int64(m >> _S32)
    if rng == _M32:
        return np.int64(next_uint32(s))
    excl = rng + _ONE
    x = next_uint64(s)
    leftover = x * excl
    if leftover < excl:
        threshold = (_U(0xFFFFFFFFFFFFFFFF) - rng) % excl
        while leftover < threshold:
            x = next_uint64(s)
            leftover = x * excl
    return np.int64(_mulhi(x, excl))
