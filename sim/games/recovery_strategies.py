"""Plain-Python strategies for the recovery game and the plug-in ``Compressor`` interface.

A :class:`Compressor` is a real encoder/decoder over bit strings: ``encode`` turns
the blocks, a ``uint8`` array of shape ``(N, k)``, into at most ``B`` bits;
``decode`` sees only that representation and the revealed target index and returns
a ``(k,)`` guess. :func:`evaluate` plays the game ``trials`` times, enforces the
budget, and checks the success rate against the lossy bound ``B/(Nk) + 1/k``
(THEORY.md §1): a lossy compressor whose success count the bound makes implausible
(exact binomial upper tail below 3.2e-5, the one-sided 4-sigma level) is flagged as a
violation (a bug in the compressor or in the harness, since the bound
is a theorem). A recovering compressor (``recovering = True``, it may read an
external store after the reveal) is expected to beat the bound and is not flagged.

These are the references for the numba kernels in :mod:`sim.games.recovery`
(same encodings, independent code, unpacked bits) plus the random linear hash,
which has no kernel: its decoder is GF(2) elimination (:mod:`sim.games.recovery_gf2`).
"""

from __future__ import annotations

import abc
import dataclasses
import math

import numpy as np
from scipy import stats

from sim.games.recovery import (SimResult, address_bits, fano_bound, handle_bits,
                                keep_blocks_success, keep_prefix_success, linear_hash_success,
                                validate_game)
from sim.games.recovery_gf2 import gf2_rank, gf2_solve
from sim.rng import as_seed_sequence


class BudgetExceeded(ValueError):
    """A compressor wrote more than ``B`` bits, or a recovering one cannot fit its
    handles plus one block in ``B`` bits."""


@dataclasses.dataclass(frozen=True)
class Game:
    """Parameters of T(N, k, B): ``N`` blocks of ``k`` bits, a ``B``-bit prompt."""

    N: int
    k: int
    B: int

    def __post_init__(self):
        validate_game(self.N, self.k, self.B)

    @property
    def bound(self) -> float:
        """The lossy bound ``B/(Nk) + 1/k``."""
        return fano_bound(self.N, self.k, self.B)


class Compressor(abc.ABC):
    """A strategy for T(N, k, B): subclass it and implement ``encode``/``decode``.

    Lifecycle under :func:`evaluate`: ``prepare(game, rng)`` once, then per trial
    ``new_trial(rng)`` (draw shared public randomness, e.g. a hash matrix, which
    both encoder and decoder may use; it must not depend on the blocks),
    ``encode(blocks)``, the target is revealed, ``decode(representation, target)``.

    Attributes:
        name: label used in results.
        recovering: True if ``decode`` reads an external store (not bound by Fano).
    """

    name = "custom"
    recovering = False

    def prepare(self, game: Game, rng: np.random.Generator) -> None:
        """Called once before the trials; the default stores ``game`` as ``self.game``."""
        self.game = game

    def new_trial(self, rng: np.random.Generator) -> None:
        """Called before each trial to draw public randomness; default: none."""

    @abc.abstractmethod
    def encode(self, blocks: np.ndarray) -> np.ndarray:
        """Blocks ``(N, k)`` uint8 -> representation, a 0/1 array of at most ``B`` bits."""

    @abc.abstractmethod
    def decode(self, representation: np.ndarray, target_index: int) -> np.ndarray:
        """Representation and revealed index -> guess of block ``target_index``, ``(k,)`` bits."""

    def exact_success(self) -> float | None:
        """Closed-form P(success) for the prepared game, or None if unknown."""
        return None


class KeepWholeBlocks(Compressor):
    """Keep ``m = floor(B/k)`` whole blocks (the first ``m``), guess zeros for the rest.

    Exact success ``m/N + (1 - m/N) 2^-k`` (THEORY.md §1)."""

    name = "keep_blocks"

    def encode(self, blocks):
        m = self.game.B // self.game.k
        return blocks[:m].reshape(-1).copy()

    def decode(self, representation, target_index):
        k = self.game.k
        if target_index < self.game.B // k:
            return representation[target_index * k:(target_index + 1) * k].copy()
        return np.zeros(k, np.uint8)

    def exact_success(self):
        return keep_blocks_success(self.game.N, self.game.k, self.game.B)


class KeepPrefixes(Compressor):
    """Keep the first ``p = floor(B/N)`` bits of every block, guess zeros for the rest.

    Exact success ``2^-(k - p)`` (THEORY.md §1)."""

    name = "keep_prefix"

    def encode(self, blocks):
        p = self.game.B // self.game.N
        return blocks[:, :p].reshape(-1).copy()

    def decode(self, representation, target_index):
        p = self.game.B // self.game.N
        guess = np.zeros(self.game.k, np.uint8)
        guess[:p] = representation[target_index * p:(target_index + 1) * p]
        return guess

    def exact_success(self):
        return keep_prefix_success(self.game.N, self.game.k, self.game.B)


def linear_hash_success_given(A, N: int, k: int) -> float:
    """Exact P(success) of the MAP decoder for a fixed hash matrix ``A`` (B x Nk).

    For target ``t`` the consistent values of ``X_t`` form a coset of dimension
    ``k - d_t``, ``d_t = rank(A) - rank(A without block t's columns)``, and ``X_t``
    is uniform on it, so ``P = mean_t 2^-(k - d_t)``.
    """
    A = np.asarray(A, dtype=np.uint8)
    full = gf2_rank(A)
    total = 0.0
    for t in range(N):
        others = np.delete(A, np.s_[t * k:(t + 1) * k], axis=1)
        total += math.ldexp(1.0, -(k - (full - gf2_rank(others))))
    return total / N


class LinearHash(Compressor):
    """Random linear hash: ``R = A x (mod 2)``, ``A`` a uniform ``B x (N k)`` matrix.

    ``x`` is the row-major concatenation of the blocks. Decoding solves ``A x = R``
    by GF(2) elimination and returns the target's part of a particular solution;
    every consistent value is equally likely, so this is a MAP guess.

    Args:
        resample: draw a fresh ``A`` every trial (public randomness; the exact
            success is then :func:`sim.games.recovery.linear_hash_success`), or one
            ``A`` at ``prepare`` (exact success :func:`linear_hash_success_given`).
    """

    name = "linear_hash"

    def __init__(self, resample: bool = True):
        self.resample = bool(resample)
        self.A: np.ndarray | None = None

    def _draw(self, rng):
        g = self.game
        self.A = rng.integers(0, 2, size=(g.B, g.N * g.k), dtype=np.uint8)

    def prepare(self, game, rng):
        super().prepare(game, rng)
        self._draw(rng)

    def new_trial(self, rng):
        if self.resample:
            self._draw(rng)

    def encode(self, blocks):
        x = blocks.reshape(-1).astype(np.int64)
        return ((self.A.astype(np.int64) @ x) & 1).astype(np.uint8)

    def decode(self, representation, target_index):
        k = self.game.k
        x = gf2_solve(self.A, representation)
        if x is None:   # cannot happen for R = A x; kept so a bad R fails loudly
            raise ValueError("representation is not in the column space of A")
        return x[target_index * k:(target_index + 1) * k].copy()

    def exact_success(self):
        g = self.game
        if self.resample:
            return linear_hash_success(g.N, g.k, g.B)
        return linear_hash_success_given(self.A, g.N, g.k)


class RecoverableArchive(Compressor):
    """VISTA's strategy: archive every block, keep ``N`` handles in the prompt.

    ``encode`` writes each block to :attr:`store` at a random slot (the store, not
    the method, chooses addresses, so the prompt must carry them) and returns the
    handle table: per block, its slot in ``ceil(log2 N)`` address bits followed by
    zero padding up to ``handle_bits(N, c0)`` bits. ``decode`` reads the target's
    handle from the prompt and reloads the block into the prompt after the table
    (:attr:`last_prompt`), which needs ``N h + k <= B`` bits.

    Raises:
        BudgetExceeded: at ``prepare`` if ``N h + k > B`` (the strategy cannot run).
    """

    name = "recoverable"
    recovering = True

    def __init__(self, c0: float = 1.0):
        self.c0 = c0
        self.store: dict[int, np.ndarray] = {}
        self.last_prompt: np.ndarray | None = None

    def prepare(self, game, rng):
        super().prepare(game, rng)
        self.hb = handle_bits(game.N, self.c0)
        self.addr = address_bits(game.N)
        if game.N * self.hb + game.k > game.B:
            raise BudgetExceeded(
                f"B={game.B} bits cannot hold {game.N} handles of {self.hb} bits plus one "
                f"{game.k}-bit block ({game.N * self.hb + game.k} bits)")
        self._rng = rng

    def encode(self, blocks):
        N = blocks.shape[0]
        slots = self._rng.permutation(N)
        self.store = {int(s): blocks[i].copy() for i, s in enumerate(slots)}
        table = np.zeros((N, self.hb), np.uint8)
        for i, s in enumerate(slots):
            table[i, :self.addr] = [(int(s) >> j) & 1 for j in range(self.addr)]
        return table.reshape(-1)

    def decode(self, representation, target_index):
        hb, addr, k = self.hb, self.addr, self.game.k
        handle = representation[target_index * hb:target_index * hb + addr]
        slot = int(sum(int(b) << j for j, b in enumerate(handle)))
        prompt = np.concatenate([representation, self.store[slot]])
        if prompt.size > self.game.B:
            raise BudgetExceeded(f"prompt after reload is {prompt.size} > B={self.game.B} bits")
        self.last_prompt = prompt
        return prompt[-k:].copy()

    def exact_success(self):
        return 1.0


@dataclasses.dataclass(frozen=True)
class Evaluation(SimResult):
    """Outcome of :func:`evaluate`: a :class:`sim.games.recovery.SimResult` (its
    ``strategy`` is the compressor's name) plus what the budget check saw.

    Attributes:
        max_bits: longest representation written (bits).
        violation: True if a lossy compressor's success count is implausible under the
            bound (exact binomial upper tail at p = bound below 3.2e-5).
    """

    max_bits: int = 0
    violation: bool = False


def _as_bits(a, what: str, length: int | None = None) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{what} must be a 1-D bit array, got shape {a.shape}")
    if a.size and not np.isin(a, (0, 1)).all():
        raise ValueError(f"{what} must contain only 0 and 1")
    if length is not None and a.size != length:
        raise ValueError(f"{what} must have {length} bits, got {a.size}")
    return a.astype(np.uint8, copy=False)


def evaluate(compressor, N, k, B, trials: int, seed=None) -> Evaluation:
    """Play T(N, k, B) ``trials`` times with ``compressor`` and compare to the bound.

    Each trial draws fresh uniform blocks ``(N, k)`` and a uniform target from a
    Generator seeded by ``seed``; the target is drawn after ``encode`` returns.

    Args:
        compressor: a :class:`Compressor` (or any object with ``encode``/``decode``
            and optionally ``prepare``, ``new_trial``, ``recovering``, ``name``).
        N, k, B: game parameters; B in bits.
        trials: positive number of games.
        seed: int, SeedSequence or Generator.

    Raises:
        ValueError: bad parameters (naming them), or a malformed representation/guess.
        BudgetExceeded: if ``encode`` returns more than ``B`` bits.
    """
    game = Game(*validate_game(N, k, B))
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    rng = np.random.default_rng(as_seed_sequence(seed))
    if hasattr(compressor, "prepare"):
        compressor.prepare(game, rng)
    new_trial = getattr(compressor, "new_trial", None)
    successes, max_bits = 0, 0
    for _ in range(int(trials)):
        blocks = rng.integers(0, 2, size=(game.N, game.k), dtype=np.uint8)
        if new_trial is not None:
            new_trial(rng)
        rep = _as_bits(compressor.encode(blocks.copy()), "representation")
        if rep.size > game.B:
            raise BudgetExceeded(f"{getattr(compressor, 'name', 'compressor')} wrote "
                                 f"{rep.size} bits > B={game.B}")
        max_bits = max(max_bits, rep.size)
        target = int(rng.integers(game.N))
        guess = _as_bits(compressor.decode(rep, target), "guess", game.k)
        successes += int(np.array_equal(guess, blocks[target]))
    p = successes / trials
    se = math.sqrt(p * (1 - p) / trials)
    bound = game.bound
    recovering = bool(getattr(compressor, "recovering", False))
    exact = compressor.exact_success() if hasattr(compressor, "exact_success") else None
    # A violation is a success count the bound makes implausible: the exact binomial
    # upper tail at p = bound below 3.2e-5 (the one-sided 4-sigma level). A plug-in
    # normal rule (p > bound + 4 se) misfires for rare events, where se is tiny or 0.
    violation = (not recovering) and bound < 1.0 and \
        float(stats.binom.sf(successes - 1, int(trials), max(bound, 0.0))) < 3.2e-5
    return Evaluation(getattr(compressor, "name", type(compressor).__name__), game.N, game.k,
                      game.B, int(trials), successes, p, se, bound, exact, max_bits,
                      violation=violation)
