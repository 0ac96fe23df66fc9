"""Command-line values: the one set of argparse ``type`` converters every ``ctxsim``
command uses, and the error a command raises for an impossible input.

A bad value is an argparse usage error (exit 2) worded the same by every command:
``argument --budget: expected an integer >= 1, got '-5'``. An input that parses
but cannot be run (a budget below a program's fixed overhead, an unknown program)
raises :class:`UsageError`, which ``ctxsim`` also reports in one line with exit 2;
any other failure exits 1.
"""

from __future__ import annotations

import argparse
import math
from typing import Callable


class UsageError(ValueError):
    """An input the command cannot run with (exit status 2, like a parser error)."""


def _parse_int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def int_at_least(minimum: int, what: str | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer >= ``minimum``.

    Args:
        minimum: the smallest value accepted.
        what: how the message names the value (default ``an integer >= minimum``).

    Returns a converter raising :class:`argparse.ArgumentTypeError` that names the
    value as typed and what was expected.
    """
    what = what or f"an integer >= {minimum:,}"

    def convert(text: str) -> int:
        value = _parse_int(text, what)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    convert.__name__ = f"int>={minimum}"
    return convert


def int_in_range(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``lo..hi`` (both included)."""
    what = f"an integer in {lo}..{hi}"

    def convert(text: str) -> int:
        value = _parse_int(text, what)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    convert.__name__ = f"int in {lo}..{hi}"
    return convert


def float_in(lo: float = -math.inf, hi: float = math.inf, *, lo_open: bool = False,
             hi_open: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a finite number between ``lo`` and ``hi`` (closed
    ends unless ``lo_open`` / ``hi_open``)."""
    if lo > -math.inf and hi < math.inf:
        what = (f"a finite number in {'(' if lo_open else '['}{lo:g}, {hi:g}"
                f"{')' if hi_open else ']'}")
    elif lo > -math.inf:
        what = f"a finite number {'>' if lo_open else '>='} {lo:g}"
    elif hi < math.inf:
        what = f"a finite number {'<' if hi_open else '<='} {hi:g}"
    else:
        what = "a finite number"

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        bad_lo = value <= lo if lo_open else value < lo
        bad_hi = value >= hi if hi_open else value > hi
        if not math.isfinite(value) or bad_lo or bad_hi:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    convert.__name__ = "float"
    return convert


#: a positive integer (counts, token budgets, worker processes, ports)
positive_int = int_at_least(1)
#: a non-negative integer (random seeds)
nonnegative_int = int_at_least(0)
#: a probability or fraction in [0, 1]
fraction = float_in(0.0, 1.0)
#: a number > 0 (a scale, a timeout in seconds)
positive_float = float_in(0.0, lo_open=True)


def add_no_progress(parser: argparse.ArgumentParser) -> None:
    """The ``--no-progress`` flag every experiment takes (tqdm bars off)."""
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress output, for logs and CI (default: off)")
