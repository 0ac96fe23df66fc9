"""The shared kinds of setting values: each a :class:`~experiments.settings.checks.Check`
pairing the TOML test (and its wording in :mod:`experiments.config`'s messages) with
the argparse converter of :mod:`experiments.arguments` (and its wording), so a value
is described once for both routes.

The bounds and why (measured costs) are those :mod:`experiments.config` and
:mod:`experiments.arguments` documented: :data:`INT_MAX` (int64 products),
:data:`experiments.arguments.MAX_TOKENS` (an episode's quadratic time),
:data:`MAX_BLOCKS`, :data:`KAPPA_MAX`, :data:`CONTENT_C_MAX`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from experiments.arguments import (MAX_TOKENS, float_in, int_at_least, int_in_range,
                                   parse_tokens, program_spec, token_count)
from experiments.settings.checks import Check, ListOf

#: the largest integer a config may hold: counts and sizes reach numba kernels and
#: NumPy arrays as int64, and a product of two of them must not wrap
INT_MAX = 2**62 - 1
#: the largest kappa (= L / l) of the eviction game: the content channel's E[Z]
#: quadrature (:mod:`sim.games.content_burden`) holds a (grid points x kappa) table,
#: about 2.6 GB at kappa = 2^16 (measured), 40 KB more per unit of kappa beyond
KAPPA_MAX = 2**16
#: the largest c = ln(kappa) / sigma of a content channel: the exact rate quadrature
#: (:mod:`sim.games.content_rate`) costs about c^4: ~30 s per (kappa, sigma) at 64
#: (measured 35 s at c = 69, 9 min at c = 139, and 17 TiB asked at c = 5e5)
CONTENT_C_MAX = 64
#: blocks of the sorted-window game: each trial sorts n sizes (a million blocks take
#: ~0.1 s per trial and point, measured; 10 million ~1 s and 1.6 GB)
MAX_BLOCKS = 1_000_000


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def integer(lo: int, hi: int | None = None, parse: Callable | None = None) -> Check:
    """An integer ``>= lo`` (and ``<= hi``; without ``hi``, below 2**62). The option's
    converter is :func:`~experiments.arguments.int_at_least` (or ``int_in_range``)
    unless ``parse`` is given."""
    span = f">= {lo:,} and below 2**62" if hi is None else f"in {lo:,}..{hi:,}"
    top = INT_MAX if hi is None else hi
    if parse is None:
        parse = int_at_least(lo) if hi is None else int_in_range(lo, hi)
    return Check(f"an integer {span}", lambda v: _is_int(v) and lo <= v <= top,
                 parse=parse)


def tokens(lo: int, hi: int, parse: Callable | None = None) -> Check:
    """A token count in ``lo..hi``: a TOML integer or a string as on the command line
    (``"128k"``, ``"128,000"``, ``"1M"``: :func:`experiments.arguments.parse_tokens`),
    converted to an int."""
    def ok(v) -> bool:
        try:
            return lo <= parse_tokens(v) <= hi
        except ValueError:
            return False
    return Check(f"a token count in {lo:,}..{hi:,} (an integer, or a string such as "
                 "\"128k\", \"128,000\" or \"1M\")", ok, parse_tokens,
                 parse or token_count(lo, maximum=hi if hi < INT_MAX else None))


def positive_number(parse: Callable | None = None) -> Check:
    """A finite number > 0."""
    return Check("a finite number > 0", lambda v: _is_number(v) and math.isfinite(v)
                 and v > 0, parse=parse or float_in(0.0, lo_open=True))


def number_in(lo: float, hi: float, what: str, parse: Callable | None = None,
              lo_open: bool = False) -> Check:
    """A finite number in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``), worded ``what``."""
    return Check(what, lambda v: _is_number(v) and math.isfinite(v)
                 and (lo < v if lo_open else lo <= v) and v <= hi,
                 parse=parse or float_in(lo, hi, lo_open=lo_open))


#: tool-result tokens per task: the LOCA-like generator needs at least 1,000; at most
#: MAX_TOKENS, as on the command line (an episode's time grows about quadratically)
GROWTH = tokens(1_000, MAX_TOKENS, token_count(1000, "a growth level in tokens >= 1,000",
                                                MAX_TOKENS))
#: a context budget or window W in tokens, bounded as on the command line
TOKENS = tokens(1, MAX_TOKENS)
#: a count >= 1 (seeds per family, queries, trials)
COUNT = integer(1)
#: a random seed (>= 0)
SEED = integer(0)


def families() -> Check:
    """1..the number of LOCA-like families (read when first checked)."""
    from sim.tasks.loca import FAMILIES

    return integer(1, len(FAMILIES))


def program() -> Check:
    """A context program: a built-in name or a plugin spec that loads
    (:func:`sim.plugins.resolve_program`; played through its protocol check when the
    sweep starts, and on the command line by :func:`~experiments.arguments.program_spec`)."""
    from sim.plugins import PluginError, resolve_program
    from sim.policies import PROGRAMS

    def ok(v) -> bool:
        try:
            return isinstance(v, str) and bool(resolve_program(v))
        except PluginError:
            return False
    return Check(f"a context program, one of {', '.join(sorted(PROGRAMS))}, or a plugin "
                 "MODULE:CLASS that imports", ok, parse=program_spec)


def one_of(what: str, names: Callable[[], Any]) -> Callable[[], Check]:
    """A lazy check: ``names()`` (a registry that is slow to import) is read only
    when a value is checked."""
    def spec() -> Check:
        known = sorted(names())
        return Check(f"{what}, one of {', '.join(known)}",
                     lambda v: isinstance(v, str) and v in known)
    return spec


PROGRAMS = ListOf(program)
