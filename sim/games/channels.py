"""Observation channels of the eviction game E(n, kappa, channel).

A channel says what the agent observes about the block sizes before it chooses
which blocks to archive (VISTA §2.6, Theorem 1; THEORY.md §2-§3):

* :class:`Ledger`: the exact size of every block (the VISTA dashboard).
* :class:`Blind`: nothing.
* :class:`Content`: ``Y_i = ln s_i + sigma * eps_i``, eps iid N(0, 1): size perceived
  only through content (Proposition 2).
* :class:`ListChannel`: a uniformly random m-subset that contains J*, ``m = n 2^-r``
  (Appendix D's achievability channel, rate exactly ``log2(n/m)`` bits).
* :class:`WindowedLedger`: exact sizes of a uniformly random set of ``w`` blocks (a
  dashboard capped to w rows).

Channels are small immutable value objects; the numba kernels receive them as an
integer code plus two parameters (see :meth:`Channel.kernel_args`).
"""

from __future__ import annotations

import dataclasses
import math
import numbers

#: Largest supported number of blocks (positions are counted in int64).
MAX_BLOCKS = 2**62

# Integer codes understood by sim.games.kernels.
LEDGER, BLIND, CONTENT, LIST, WINDOWED = 0, 1, 2, 3, 4


def validate_kappa(kappa) -> int:
    """Check kappa = L / l is an integer >= 2 and return it as an int.

    Raises:
        ValueError: naming ``kappa``.
    """
    # finiteness before int(): int(nan) and int(inf) raise errors that name nothing
    if isinstance(kappa, bool) or not isinstance(kappa, numbers.Real) \
            or not math.isfinite(kappa) or kappa != int(kappa) or kappa < 2:
        raise ValueError(f"kappa must be an integer >= 2 (kappa = L / l), got {kappa!r}")
    return int(kappa)


def validate_game(n, kappa) -> tuple[int, int]:
    """Check the eviction game's size parameters and return them as ints.

    Args:
        n: number of blocks in the working set (>= 3, > kappa).
        kappa: size ratio L / l of the bulky block to a load-bearing one, an
            integer >= 2 (THEORY.md §2).

    Raises:
        ValueError: naming ``kappa`` if it is not an integer or is < 2, naming ``n``
            if it is not an integer or ``n <= kappa``.
    """
    kappa = validate_kappa(kappa)
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or not math.isfinite(n) \
            or n != int(n):
        raise ValueError(f"n must be an integer number of blocks, got {n!r}")
    if n <= kappa:
        raise ValueError(f"n must exceed kappa (n > kappa = {kappa}), got n = {n!r}")
    if n > MAX_BLOCKS:
        # the kernels count positions in int64
        raise ValueError(f"n must be at most 2^62 blocks, got n = {n!r}")
    return int(n), kappa


@dataclasses.dataclass(frozen=True)
class Channel:
    """Base class: what the agent observes about block sizes."""

    #: short name used in tables and figures
    name = "channel"
    code = -1

    def validate(self, n: int) -> None:
        """Raise ValueError if the channel's parameter does not fit n blocks."""

    def param(self, n: int) -> float:
        """The channel's parameter as reported in tables (sigma, r, w; NaN if none)."""
        return math.nan

    def kernel_args(self, n: int, kappa: int) -> tuple[int, float, int]:
        """``(code, real parameter, integer parameter)`` for the numba kernels."""
        return self.code, 0.0, 0

    def exact_rate_bits(self, n: int, kappa: int) -> float | None:
        """I(J*; Y) in bits where a closed form exists, else None."""
        return None


@dataclasses.dataclass(frozen=True)
class Ledger(Channel):
    """Exact sizes of all n blocks: identifies J*, I = log2 n bits (THEORY.md §2)."""

    name = "ledger"
    code = LEDGER

    def kernel_args(self, n, kappa):
        """Code, unused, kappa (the observed size of J* in units of l)."""
        return self.code, 0.0, int(kappa)

    def exact_rate_bits(self, n, kappa):
        """log2 n bits: Y determines J*."""
        return math.log2(n)


@dataclasses.dataclass(frozen=True)
class Blind(Channel):
    """No size information: I = 0 bits (THEORY.md §2, blind endpoint)."""

    name = "blind"
    code = BLIND

    def exact_rate_bits(self, n, kappa):
        """0 bits: Y is independent of J*."""
        return 0.0


@dataclasses.dataclass(frozen=True)
class Content(Channel):
    """Content-only size perception ``Y_i = ln s_i + sigma eps_i`` (Proposition 2).

    Args:
        sigma: perception noise in nats of log-size, > 0.

    Raises:
        ValueError: naming ``sigma`` if it is not a finite positive number.
    """

    sigma: float = 1.0
    name = "content"
    code = CONTENT

    def __post_init__(self):
        s = self.sigma
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not math.isfinite(s) or s <= 0:
            raise ValueError(f"sigma must be a finite number > 0, got {s!r}")

    def param(self, n):
        """The noise level sigma."""
        return float(self.sigma)

    def kernel_args(self, n, kappa):
        """Code, sigma, unused."""
        return self.code, float(self.sigma), 0


@dataclasses.dataclass(frozen=True)
class ListChannel(Channel):
    """A uniformly random m-subset of the blocks containing J* (Appendix D).

    Give either the rate ``r`` in bits (then ``m = round(n 2^-r)``) or ``m``
    directly. The reported rate is the exact ``log2(n / m)`` of the integer m used.

    Raises:
        ValueError: naming ``r`` if r < 0 or r > log2 n (checked in :meth:`validate`),
            naming ``m`` if m is not an integer in 1..n, or if both or neither is given.
    """

    r: float | None = None
    m: int | None = None
    name = "list"
    code = LIST

    def __post_init__(self):
        if (self.r is None) == (self.m is None):
            raise ValueError(f"give exactly one of r (bits) or m (list size), got r={self.r!r}, "
                             f"m={self.m!r}")
        if self.r is not None and (isinstance(self.r, bool) or not isinstance(self.r, numbers.Real)
                                   or not math.isfinite(self.r)):
            raise ValueError(f"r must be a finite rate in bits, got {self.r!r}")

    def list_size(self, n: int) -> int:
        """The integer list size m for n blocks: ``m`` if given, else
        ``max(1, round(n 2^-r))``.

        Python's ``round`` sends an exact tie (n 2^-r halfway between two integers) to
        the even one: 1.5 -> 2, 2.5 -> 2, 3.5 -> 4, 4.5 -> 4, 12.5 -> 12. So n = 10,
        r = 2 (n 2^-r = 2.5) gives m = 2 and the exact rate log2 5, about 2.32 bits,
        not 2. A tie is exact only when the float n 2^-r is (e.g. an integer r); an r
        computed to aim at a tie rounds whichever way its float lands. Below 1 the
        result is 1 (0.5 included, though no r <= log2 n gives it)."""
        if self.m is not None:
            return int(self.m)
        return max(1, int(round(n * 2.0 ** (-self.r))))

    def validate(self, n):
        """Check 0 <= r <= log2 n, or 1 <= m <= n."""
        if self.r is not None:
            if self.r < 0 or self.r > math.log2(n) + 1e-12:
                raise ValueError(f"r must be a rate in bits between 0 and log2 n = "
                                 f"{math.log2(n):.4g}, got r = {self.r!r}")
        elif isinstance(self.m, bool) or not isinstance(self.m, numbers.Integral) \
                or not 1 <= self.m <= n:
            raise ValueError(f"m must be an integer list size between 1 and n = {n}, "
                             f"got m = {self.m!r}")

    def param(self, n):
        """The exact rate log2(n/m) in bits of the list size used."""
        return math.log2(n / self.list_size(n))

    def kernel_args(self, n, kappa):
        """Code, unused, m."""
        return self.code, 0.0, self.list_size(n)

    def exact_rate_bits(self, n, kappa):
        """log2(n / m) bits: the posterior is uniform on the m listed blocks."""
        return math.log2(n / self.list_size(n))


@dataclasses.dataclass(frozen=True)
class WindowedLedger(Channel):
    """Exact sizes of a uniformly random set of ``w`` of the n blocks (THEORY.md §2).

    Raises:
        ValueError: naming ``w`` if it is not an integer in 0..n (checked in
            :meth:`validate`).
    """

    w: int = 0
    name = "windowed"
    code = WINDOWED

    def validate(self, n):
        """Check 0 <= w <= n."""
        if isinstance(self.w, bool) or not isinstance(self.w, numbers.Integral) \
                or not 0 <= self.w <= n:
            raise ValueError(f"w must be an integer number of listed rows between 0 and "
                             f"n = {n}, got w = {self.w!r}")

    def param(self, n):
        """The number of listed rows w."""
        return float(self.w)

    def kernel_args(self, n, kappa):
        """Code, unused, w."""
        return self.code, 0.0, int(self.w)

    def exact_rate_bits(self, n, kappa):
        """log2 n - (1 - w/n) log2(n - w) bits (0 log 0 = 0 at w = n)."""
        w = int(self.w)
        if w == n:
            return math.log2(n)
        return math.log2(n) - (1 - w / n) * math.log2(n - w)
