"""GF(2) linear algebra for the linear-hash strategy of the recovery game.

The linear hash keeps ``R = A x (mod 2)`` for a ``B x (N k)`` binary matrix ``A``
and the concatenated blocks ``x``; decoding needs ranks and a particular solution
of ``A x = R``. Rows are packed into ``uint64`` words (bit ``j`` of a row is bit
``j % 64`` of word ``j // 64``) and reduced by Gauss-Jordan elimination in numba.

A plain-Python reference (:func:`gf2_rank_reference`, rows as Python ints in an
XOR basis) shares no code with the packed routine, so tests can compare the two.

Source: THEORY.md §1 ("a random linear hash of B bits (success computable
exactly)").
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _pack(A, rhs, with_rhs):
    m, n = A.shape
    ncols = n + 1 if with_rhs else n
    words = max(1, (ncols + 63) // 64)
    M = np.zeros((m, words), np.uint64)
    for i in range(m):
        for j in range(n):
            if A[i, j]:
                M[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
        if with_rhs and rhs[i]:
            M[i, n >> 6] |= np.uint64(1) << np.uint64(n & 63)
    return M


@nb.njit(cache=True)
def _gauss_jordan(M, n):
    """Reduce packed rows ``M`` in place to reduced row echelon form on columns
    ``0..n-1`` (an augmented column ``n``, if present, is carried along).

    Returns ``(rank, pivots)``; ``pivots[:rank]`` are the pivot columns.
    """
    m, words = M.shape
    pivots = np.empty(max(1, min(m, n)), np.int64)
    rank = 0
    for col in range(n):
        if rank == m:
            break
        w = col >> 6
        bit = np.uint64(1) << np.uint64(col & 63)
        piv = -1
        for i in range(rank, m):
            if M[i, w] & bit:
                piv = i
                break
        if piv < 0:
            continue
        if piv != rank:
            for q in range(words):
                tmp = M[piv, q]
                M[piv, q] = M[rank, q]
                M[rank, q] = tmp
        # The pivot row is zero on every column < col (those columns are either
        # earlier pivots, cleared, or had no pivot among rows >= rank), so the XOR
        # can start at the pivot's word.
        for i in range(m):
            if i != rank and (M[i, w] & bit):
                for q in range(w, words):
                    M[i, q] ^= M[rank, q]
        pivots[rank] = col
        rank += 1
    return rank, pivots


@nb.njit(cache=True)
def _rank(A):
    M = _pack(A, np.zeros(1, np.uint8), False)
    rank, _ = _gauss_jordan(M, A.shape[1])
    return rank


@nb.njit(cache=True)
def _solve(A, r):
    m, n = A.shape
    M = _pack(A, r, True)
    rank, pivots = _gauss_jordan(M, n)
    wn = n >> 6
    bn = np.uint64(1) << np.uint64(n & 63)
    # Rows past the rank are zero on the first n columns; a 1 in the augmented
    # column there means 0 = 1, i.e. no solution.
    for i in range(rank, m):
        if M[i, wn] & bn:
            return np.zeros(n, np.uint8), False
    x = np.zeros(n, np.uint8)
    for i in range(rank):
        if M[i, wn] & bn:
            x[pivots[i]] = 1
    return x, True


def _as_bits(A, name: str, ndim: int) -> np.ndarray:
    """``A`` as a contiguous uint8 array of ``ndim`` dimensions holding only 0 and 1.

    Raises:
        ValueError: naming ``name``, for another number of dimensions or another value.
    """
    A = np.asarray(A)
    if A.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D 0/1 array, got shape {A.shape}")
    if A.size and not np.isin(A, (0, 1)).all():
        raise ValueError(f"{name} must contain only 0 and 1")
    return np.ascontiguousarray(A, dtype=np.uint8)


def gf2_rank(A) -> int:
    """Rank over GF(2) of a 0/1 matrix ``A`` of shape ``(m, n)`` (numba, packed rows).

    Raises:
        ValueError: if ``A`` is not 2-D or holds values other than 0 and 1.
    """
    A = _as_bits(A, "A", 2)
    if A.shape[0] == 0 or A.shape[1] == 0:
        return 0
    return int(_rank(A))


def gf2_solve(A, r) -> np.ndarray | None:
    """A particular solution ``x`` of ``A x = r`` over GF(2), free variables set to 0.

    Args:
        A: 0/1 array of shape ``(m, n)``.
        r: 0/1 array of shape ``(m,)``.

    Returns:
        ``uint8`` array of shape ``(n,)``, or ``None`` if the system is inconsistent.

    Raises:
        ValueError: naming ``A`` or ``r``, for a wrong shape (``A`` not 2-D, ``r`` not
            1-D of length ``m``) or an entry other than 0 and 1.
    """
    A = _as_bits(A, "A", 2)
    r = _as_bits(r, "r", 1)  # a right-hand side of 2 would otherwise read as "no solution"
    if r.shape[0] != A.shape[0]:
        raise ValueError(f"r must have length {A.shape[0]} (rows of A), got {r.shape[0]}")
    if A.shape[1] == 0:
        return np.zeros(0, np.uint8) if not r.any() else None
    if A.shape[0] == 0:
        return np.zeros(A.shape[1], np.uint8)
    x, ok = _solve(A, r)
    return x if ok else None


def gf2_rank_reference(A) -> int:
    """Plain-Python GF(2) rank: rows as Python ints inserted into an XOR basis.

    Independent of :func:`gf2_rank` (no packing, no numba); used as a test oracle.
    """
    A = _as_bits(A, "A", 2)
    basis: dict[int, int] = {}  # leading bit -> basis row
    for row in A:
        v = int("".join("1" if b else "0" for b in row) or "0", 2)
        while v:
            lead = v.bit_length() - 1
            if lead not in basis:
                basis[lead] = v
                break
            v ^= basis[lead]
    return len(basis)


def gf2_rank_distribution(m: int, n: int) -> np.ndarray:
    """Distribution of the GF(2) rank of a uniformly random ``m x n`` binary matrix.

    Adds columns one at a time: a uniform column in GF(2)^m raises the rank from
    ``r`` with probability ``1 - 2^(r - m)``. Rank is transpose-invariant, so the
    chain runs over ``min(m, n)`` columns in a space of dimension ``max(m, n)``.

    Returns:
        float array of shape ``(min(m, n) + 1,)``; entry ``r`` is P(rank = r).

    Raises:
        ValueError: if ``m`` or ``n`` is negative.
    """
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    small, big = min(m, n), max(m, n)
    p = np.zeros(small + 1)
    p[0] = 1.0
    r = np.arange(small + 1)
    up = -np.expm1((r - big) * np.log(2.0))  # 1 - 2^(r - big), accurate near r = big
    for _ in range(small):
        new = p * (1.0 - up)
        new[1:] += p[:-1] * up[:-1]
        p = new
    return p
