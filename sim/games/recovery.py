"""Proposition 1: the recovery game T(N, k, B), its closed forms and numba kernels.

The game (THEORY.md §1; VISTA paper §2.6 and Appendix A): ``N`` independent blocks
``X_1..X_N``, each uniform on ``{0,1}^k``; a method sees them all and keeps an
in-prompt representation of at most ``B < N k`` bits; then a target index
``I* ~ Uniform{0..N-1}`` is revealed and the method must output ``X_{I*}`` exactly.
A lossy method's decoder sees only the representation and ``I*``, so

    P(success) <= B / (N k) + 1 / k                    (Fano bound, :func:`fano_bound`)

A recovering method stores every block externally and keeps only ``N`` handles in
the prompt; after the reveal it reloads the target block (it needs the handles plus
one block, ``N h + k <= B`` bits) and succeeds with probability 1.

Strategies simulated here by numba kernels over real bit strings (blocks packed
into ``uint64`` words, bit ``j`` of a block is bit ``j % 64`` of word ``j // 64``;
the prompt is a bit stream of at most ``B`` bits that the encoder writes and the
decoder reads back):

* ``keep_blocks``: keep ``m = floor(B/k)`` whole blocks, guess the rest.
* ``keep_prefix``: keep the first ``p = floor(B/N)`` bits of every block.
* ``recoverable``: every block goes to an external store at a random slot; the
  prompt holds the ``N`` slot handles; after the reveal the target's handle is read
  from the prompt and the block reloaded into it.

Decoders fill unknown bits with zeros. The unknown bits are uniform and
independent of what the decoder sees, so every fill is a MAP guess and success has
the same probability as a random guess; a deterministic fill makes each trial a
function of (blocks, target), so the kernel and the plain-Python reference in
:mod:`sim.games.recovery_strategies` can be compared bit for bit.

The jitted trial and kernel live in :mod:`sim.games.recovery_kernels`; the linear
hash and the plug-in interface in :mod:`sim.games.recovery_strategies`; GF(2)
algebra in :mod:`sim.games.recovery_gf2`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from sim.games.recovery_gf2 import gf2_rank_distribution
from sim.games.recovery_kernels import _kernel, _play
from sim.rng import chunk_generators, chunk_layout

#: Strategy name -> kernel code.
KERNEL_STRATEGIES: dict[str, int] = {"keep_blocks": 0, "keep_prefix": 1, "recoverable": 2}


def _check_int(value, name: str, minimum: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer {what}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {what}, got {value}")
    return int(value)


def validate_game(N, k, B) -> tuple[int, int, int]:
    """Check the parameters of T(N, k, B) and return them as ints.

    Args:
        N: number of blocks, an integer >= 2.
        k: bits per block, an integer >= 1.
        B: prompt budget in bits, an integer with 0 <= B < N k (with B >= N k
           every block fits and there is nothing to prove).

    Raises:
        ValueError: naming the first bad parameter and what was expected.
    """
    N = _check_int(N, "N", 2, ">= 2")
    k = _check_int(k, "k", 1, ">= 1")
    B = _check_int(B, "B", 0, ">= 0")
    if B >= N * k:
        raise ValueError(f"B must be < N*k = {N * k} (the prompt cannot hold every block), "
                         f"got B={B}")
    return N, k, B


def _check_c0(c0) -> float:
    if isinstance(c0, bool) or not isinstance(c0, (int, float, np.integer, np.floating)) \
            or not math.isfinite(c0) or c0 < 1:
        raise ValueError(f"c0 must be a finite number >= 1 (a handle needs at least "
                         f"ceil(log2 N) bits to address N slots), got {c0!r}")
    return float(c0)


def fano_bound(N, k, B) -> float:
    """The lossy bound ``B/(N k) + 1/k`` on P(success) (THEORY.md §1, step 3).

    May exceed 1 (then it is vacuous). Raises ValueError on bad parameters.
    """
    N, k, B = validate_game(N, k, B)
    return B / (N * k) + 1.0 / k


def address_bits(N: int) -> int:
    """``ceil(log2 N)``: bits of a slot address that distinguishes ``N`` slots."""
    N = _check_int(N, "N", 2, ">= 2")
    return (N - 1).bit_length()


def handle_bits(N, c0: float = 1.0) -> int:
    """Bits of one handle: ``ceil(c0 * ceil(log2 N))``.

    ``ceil(log2 N)`` bits address the slot; ``c0 >= 1`` scales in the handle's
    format overhead (a path or id string is longer than its address), so the
    handle table costs about ``c0 N log2 N`` bits as in THEORY.md §1.

    Raises:
        ValueError: for N < 2 or c0 < 1.
    """
    c0 = _check_c0(c0)
    a = address_bits(N)
    # Guard against c0 * a landing a hair above an integer in floating point.
    return int(math.ceil(c0 * a - 1e-12))


def recoverable_feasible(N, k, B, c0: float = 1.0) -> bool:
    """Whether the handle table plus one reloaded block fits: ``N h(N) + k <= B``."""
    N, k, B = validate_game(N, k, B)
    return N * handle_bits(N, c0) + k <= B


# --------------------------------------------------------------------------- closed forms

def keep_blocks_success(N, k, B) -> float:
    """Exact P(success) of ``keep_blocks``: ``m/N + (1 - m/N) 2^-k``, ``m = floor(B/k)``."""
    N, k, B = validate_game(N, k, B)
    m = B // k
    return m / N + (1.0 - m / N) * math.ldexp(1.0, -k)


def keep_prefix_success(N, k, B) -> float:
    """Exact P(success) of ``keep_prefix``: ``2^-(k - p)``, ``p = floor(B/N)``."""
    N, k, B = validate_game(N, k, B)
    return math.ldexp(1.0, -(k - B // N))


def recoverable_success(N, k, B, c0: float = 1.0) -> float:
    """Exact P(success) of ``recoverable``: 1 if ``N h(N) + k <= B``, else 0."""
    return 1.0 if recoverable_feasible(N, k, B, c0) else 0.0


def linear_hash_success(N, k, B) -> float:
    """Exact P(success) of the random linear hash, averaged over a uniform ``A``.

    ``R = A x`` with ``A`` uniform in GF(2)^(B x Nk). Given ``A``, the target block
    is uniform on an affine space of dimension ``k - d``, ``d = rank(A) -
    rank(A_O)`` (``A_O``: the columns of the other blocks), so the MAP decoder wins
    with probability ``2^-(k - d)``. With ``r = rank(A_O)``, ``d`` is the rank of
    the target's ``k`` columns in GF(2)^B / col(A_O), i.e. of a uniform
    ``(B - r) x k`` matrix; both ranks follow :func:`gf2_rank_distribution`.

    Cost ``O(min(B, (N-1)k) * (min(B, (N-1)k) + k^2))``; meant for small games.
    """
    N, k, B = validate_game(N, k, B)
    p_other = gf2_rank_distribution(B, (N - 1) * k)
    total = 0.0
    for r, pr in enumerate(p_other):
        if pr == 0.0:
            continue
        pd = gf2_rank_distribution(B - r, k)
        d = np.arange(pd.size)
        total += pr * float(np.sum(pd * np.exp2(d - k)))
    return total


# --------------------------------------------------------------------------- packing

def words_per_block(k: int) -> int:
    """``ceil(k / 64)``: ``uint64`` words per packed block."""
    return (int(k) + 63) // 64


def pack_blocks(bits) -> np.ndarray:
    """Pack a 0/1 array of shape ``(N, k)`` into ``uint64`` words of shape ``(N, ceil(k/64))``.

    Bit ``j`` of a block goes to bit ``j % 64`` of word ``j // 64``.

    Raises:
        ValueError: if ``bits`` is not 2-D or not 0/1.
    """
    bits = np.asarray(bits)
    if bits.ndim != 2 or (bits.size and not np.isin(bits, (0, 1)).all()):
        raise ValueError(f"bits must be a 2-D 0/1 array, got shape {bits.shape}")
    N, k = bits.shape
    W = words_per_block(k)
    padded = np.zeros((N, W * 64), np.uint64)
    padded[:, :k] = bits
    weights = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
    return (padded.reshape(N, W, 64) * weights).sum(axis=2, dtype=np.uint64)


def unpack_blocks(words, k: int) -> np.ndarray:
    """Inverse of :func:`pack_blocks`: ``(N, W)`` uint64 -> ``(N, k)`` uint8 bits."""
    words = np.asarray(words, dtype=np.uint64)
    shifts = np.arange(64, dtype=np.uint64)
    bits = (words[:, :, None] >> shifts) & np.uint64(1)
    return bits.reshape(words.shape[0], -1)[:, :k].astype(np.uint8)


# --------------------------------------------------------------------------- Python API

@dataclasses.dataclass(frozen=True)
class SimResult:
    """A simulated success rate.

    Attributes:
        strategy: strategy name.
        N, k, B: game parameters (B in bits).
        trials: number of trials; successes: exact reproductions.
        success: ``successes / trials``; se: its binomial standard error.
        bound: the lossy bound ``B/(Nk) + 1/k``; exact: the strategy's closed form
            (None where there is none, e.g. a user's compressor).
    """

    strategy: str
    N: int
    k: int
    B: int
    trials: int
    successes: int
    success: float
    se: float
    bound: float
    exact: float | None


def _strategy_params(strategy: str, N: int, k: int, B: int, c0: float) -> tuple[int, int]:
    if strategy == "keep_blocks":
        return B // k, 0
    if strategy == "keep_prefix":
        return B // N, 0
    return handle_bits(N, c0), address_bits(N)


def exact_success(strategy: str, N, k, B, c0: float = 1.0) -> float:
    """Closed-form P(success) of a named strategy (kernel strategies and ``linear_hash``).

    Raises:
        ValueError: for an unknown strategy or bad parameters.
    """
    forms = {"keep_blocks": keep_blocks_success, "keep_prefix": keep_prefix_success,
             "linear_hash": linear_hash_success}
    if strategy == "recoverable":
        return recoverable_success(N, k, B, c0)
    if strategy not in forms:
        raise ValueError(f"strategy must be one of {sorted([*forms, 'recoverable'])}, "
                         f"got {strategy!r}")
    return forms[strategy](N, k, B)


def simulate(strategy: str, N, k, B, trials: int, seed=None, c0: float = 1.0) -> SimResult:
    """Simulate a kernel strategy on ``trials`` independent games (numba, parallel).

    Every trial draws ``N`` fresh uniform ``k``-bit blocks and a uniform target,
    encodes into at most ``B`` bits, decodes and compares bit for bit. Trials are
    split into fixed chunks of :data:`sim.rng.CHUNK_TRIALS`, chunk ``c`` drawing
    from the ``c``-th Generator of :func:`sim.rng.chunk_generators` in the order
    given in :mod:`sim.games.recovery_kernels` (so plain NumPy on the same
    Generators reproduces every trial), and results are identical for any numba
    thread count. ``recoverable`` when infeasible (``N h(N) + k > B``) cannot run
    and scores 0 without simulating.

    Args:
        strategy: ``"keep_blocks"``, ``"keep_prefix"`` or ``"recoverable"``.
        N, k, B: game parameters (:func:`validate_game`); B in bits.
        trials: positive number of games.
        seed: int, SeedSequence or Generator (:func:`sim.rng.as_seed_sequence`).
        c0: handle cost factor for ``recoverable`` (:func:`handle_bits`).

    Raises:
        ValueError: bad parameters, unknown strategy, or an encoder exceeding B bits.
    """
    if strategy not in KERNEL_STRATEGIES:
        raise ValueError(f"strategy must be one of {sorted(KERNEL_STRATEGIES)}, "
                         f"got {strategy!r}")
    N, k, B = validate_game(N, k, B)
    c0 = _check_c0(c0)
    n_chunks, chunk_trials = chunk_layout(trials)
    gens = chunk_generators(seed, n_chunks)
    exact = exact_success(strategy, N, k, B, c0)
    bound = fano_bound(N, k, B)
    if strategy == "recoverable" and exact == 0.0:
        return SimResult(strategy, N, k, B, int(trials), 0, 0.0, 0.0, bound, exact)
    param, addr = _strategy_params(strategy, N, k, B, c0)
    succ, over = _kernel(KERNEL_STRATEGIES[strategy], N, k, B, param, addr, int(trials),
                         chunk_trials, gens)
    if over.sum():
        raise ValueError(f"{strategy}: encoder exceeded B={B} bits in {int(over.sum())} trials")
    s = int(succ.sum())
    p = s / trials
    return SimResult(strategy, N, k, B, int(trials), s, p, math.sqrt(p * (1 - p) / trials),
                     bound, exact)


def play_packed(strategy: str, words, target: int, k: int, B: int, c0: float = 1.0,
                perm=None) -> tuple[int, np.ndarray]:
    """Run the kernel's jitted trial on given packed blocks (for tests and debugging).

    Args:
        words: ``uint64`` array ``(N, ceil(k/64))`` from :func:`pack_blocks`.
        target: revealed index in ``0..N-1``.
        perm: store slots for ``recoverable`` (a permutation of ``0..N-1``).

    Returns:
        ``(outcome, guess_bits)``: outcome 1/0/-1 as in the kernel, guess as ``(k,)`` bits.
    """
    words = np.ascontiguousarray(words, dtype=np.uint64)
    N = words.shape[0]
    N, k, B = validate_game(N, k, B)
    param, addr = _strategy_params(strategy, N, k, B, _check_c0(c0))
    perm = np.arange(N) if perm is None else np.ascontiguousarray(perm, dtype=np.int64)
    stream = np.zeros(max(1, words_per_block(B)), np.uint64)   # B bits, packed as a block is
    store = np.zeros_like(words)
    guess = np.zeros(words.shape[1], np.uint64)
    r = _play(KERNEL_STRATEGIES[strategy], words, int(target), k, B, param, addr, perm,
              stream, store, guess)
    return int(r), unpack_blocks(guess[None, :], k)[0]


def recoverable_max_N(k, B, c0: float = 1.0) -> int:
    """Largest ``N >= 2`` whose handle table plus one block fits: ``N h(N) + k <= B``.

    ``N h(N)`` increases with ``N``, so the feasible ``N`` form an interval from 2;
    returns 1 if even ``N = 2`` does not fit. (No ``B < N k`` check: this is about
    the handles only.) Raises ValueError for k < 1, B < 0 or c0 < 1.
    """
    k = _check_int(k, "k", 1, ">= 1")
    B = _check_int(B, "B", 0, ">= 0")
    c0 = _check_c0(c0)

    def fits(n):
        return n * handle_bits(n, c0) + k <= B

    if not fits(2):
        return 1
    lo, hi = 2, 4
    while fits(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:      # invariant: fits(lo), not fits(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo
