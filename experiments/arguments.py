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
import re
import urllib.parse
from typing import Callable


class UsageError(ValueError):
    """An input the command cannot run with (exit status 2, like a parser error)."""


def _parse_int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def int_at_least(minimum: int, what: str | None = None, maximum: int | None = None
                 ) -> Callable[[str], int]:
    """An argparse ``type``: an integer >= ``minimum`` (and <= ``maximum`` if given).

    Args:
        minimum: the smallest value accepted.
        what: how the message names the value (default ``an integer >= minimum``).
        maximum: the largest value accepted (default: none).

    Returns a converter raising :class:`argparse.ArgumentTypeError` that names the
    value as typed and what was expected: ``expected an integer >= 1, got '-5'``,
    ``expected an integer >= 1 and at most 10,000,000, got '20000000'``.
    """
    what = what or f"an integer >= {minimum:,}"

    def convert(text: str) -> int:
        value = _parse_int(text, what)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"expected {what} and at most {maximum:,}, "
                                             f"got {text!r}")
        return value
    convert.__name__ = f"int>={minimum}"
    return convert


def int_in_range(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``lo..hi`` (both included)."""
    what = f"an integer in {lo:,}..{hi:,}"

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


#: the multipliers a token count may end with (either case): k = 1,000 and
#: M = 1,000,000, decimal, because the papers' "128K" budget and growth level is the
#: code's 128_000 (sim.tasks.loca.GROWTH_LEVELS; VISTA §3.3), not 131,072
TOKEN_SUFFIXES = {"k": 1_000, "m": 1_000_000}
#: how a token count may be written, for messages
TOKEN_FORMS = "128000, 128,000, 128_000, 128k, 128K, 1.5k or 1M"
#: the same for --help: one wording for every token option
TOKENS_HELP = "written 128000, 128,000, 128k or 1M: k = 1,000, M = 1,000,000"
_TOKEN_TEXT = re.compile(
    r"\s*(?P<sign>[-+]?)(?:(?P<int>[0-9]+(?:_[0-9]+)*|[0-9]{1,3}(?:,[0-9]{3})+)"
    r"|(?P<num>[0-9]+(?:\.[0-9]+)?)(?P<suffix>[kKmM]))\s*", re.ASCII)


def parse_tokens(text: str | int) -> int:
    """A token count as a person writes it: ``128000``, ``128,000`` (groups of three),
    ``128_000``, ``128k``/``128K`` (x 1,000), ``1.5k``, ``1M``/``1m`` (x 1,000,000)
    (:data:`TOKEN_SUFFIXES`), with an optional sign and surrounding spaces; an
    ``int`` (a TOML value) is returned as it is. The one parser of every token
    option and token config key; bounds (``-5``, ``0``) are the caller's to refuse.

    Raises:
        ValueError: for anything else (``1.5.k``, ``12.5`` or ``1.0005k``: not a whole
            number of tokens, ``128 k``, ``1e3``, a bool), naming the text and the
            forms expected.
    """
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    m = _TOKEN_TEXT.fullmatch(text) if isinstance(text, str) else None
    sign = -1 if m and m["sign"] == "-" else 1
    if m and m["int"]:
        return sign * int(m["int"].replace(",", ""))
    if m:
        from fractions import Fraction

        value = Fraction(m["num"]) * TOKEN_SUFFIXES[m["suffix"].lower()]
        if value.denominator == 1:
            return sign * int(value)
    raise ValueError(f"{text!r} is not a token count (expected a whole number of "
                     f"tokens written as {TOKEN_FORMS})")


def token_count(minimum: int = 1, what: str | None = None,
                maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: a token count (:func:`parse_tokens`) >= ``minimum`` and
    <= ``maximum`` (None: no upper bound). The messages are those of
    :func:`int_at_least` (``expected a token count >= 1, got '-5'``), with the forms
    a token count may take when the text is not one (``got '1.5.k'``)."""
    what = what or f"a token count >= {minimum:,}"

    def convert(text: str) -> int:
        try:
            value = parse_tokens(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {what} (written {TOKEN_FORMS}), got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"expected {what} and at most {maximum:,}, "
                                             f"got {text!r}")
        return value
    convert.__name__ = "token count"
    return convert


#: the largest token count a sweep takes (a growth level, a window, a budget):
#: 39x the paper's largest level (256K). The LOCA-like tasks cost about quadratic
#: time in it (one episode: ~1 s at 1M tokens, ~10 s at 4M, ~30 s at 10M,
#: measured), so a full sweep at 10M takes hours and one at 100M would not end
MAX_TOKENS = 10_000_000
#: a context budget or window W in tokens (1..MAX_TOKENS) of a sweep: above the
#: largest growth level a budget evicts nothing, so a larger one changes no result
budget_tokens = token_count(1, maximum=MAX_TOKENS)
#: a token count >= 1 with no sweep bound (a replay's budget, a dashboard cap, a
#: model's context window)
positive_tokens = token_count(1, maximum=None)

#: a positive integer (counts, token budgets, worker processes, ports)
positive_int = int_at_least(1)
#: a non-negative integer (random seeds)
nonnegative_int = int_at_least(0)
#: a probability or fraction in [0, 1]
fraction = float_in(0.0, 1.0)
#: a number > 0 (a scale, a timeout in seconds)
positive_float = float_in(0.0, lo_open=True)


#: how a help text names the plugin form
PLUGIN_HELP = "or a plugin MODULE:CLASS on PYTHONPATH (docs: Plugins)"


def program_spec(text: str) -> str:
    """An argparse ``type``: a context program, a built-in name or a plugin
    (``MODULE:CLASS``, a registered name or an entry point; :mod:`sim.plugins`). A
    plugin is loaded and played through one small episode here, so one that does not
    import or breaks the protocol is a usage error (exit 2) before anything runs.

    Raises:
        argparse.ArgumentTypeError: the plugin's one-line :class:`sim.plugins.PluginError`.
    """
    from sim.plugins import PluginError, check_program

    try:  # resolves it (naming a spec of the other kind), then plays it
        check_program(text)
    except PluginError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def agent_spec(text: str) -> str:
    """An argparse ``type``: an agent, ``synthetic`` or a plugin (``MODULE:CLASS``, a
    registered name or an entry point; :mod:`sim.plugins`), loaded and checked like
    :func:`program_spec`."""
    from sim.plugins import PluginError, check_agent

    try:  # resolves it (naming a spec of the other kind), then plays it
        check_agent(text)
    except PluginError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


#: Dask distributed's address schemes that name a host and a port
#: (``distributed.comm.registry.backends``; a test checks they are all known there)
DASK_HOST_PORT_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
_INPROC = re.compile(r"[^/\s]+/\d+/\d+")
_SCHEDULER_FORM = ("a Dask scheduler address SCHEME://HOST:PORT (SCHEME one of "
                   f"{', '.join(DASK_HOST_PORT_SCHEMES)}; tcp when omitted) or "
                   "inproc://HOST/PID/N")


def _port_problem(port: str) -> str | None:
    if not port:
        return "no port"
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        return f"port {port!r} is not in 1..65535"
    return None


def scheduler_address(text: str) -> str:
    """An argparse ``type``: a Dask distributed scheduler address, checked for its
    form only (whether it answers is known when the run connects, exit 1).

    Accepts what ``distributed`` connects to: ``[SCHEME://]HOST:PORT`` with SCHEME
    in :data:`DASK_HOST_PORT_SCHEMES` (``tcp`` when omitted, as ``distributed``'s
    default scheme), IPv6 hosts in brackets, and ``inproc://HOST/PID/N`` (a
    ``LocalCluster(processes=False)`` in this process).

    Raises:
        argparse.ArgumentTypeError: naming the value, what was expected and what is
            wrong with it (an unknown scheme, no host, no or a bad port).
    """
    scheme, sep, loc = text.strip().rpartition("://")
    scheme = scheme if sep else "tcp"
    problem = None
    if scheme == "inproc":
        if not _INPROC.fullmatch(loc):
            problem = "an inproc address is HOST/PID/N"
    elif scheme not in DASK_HOST_PORT_SCHEMES:
        problem = f"unknown scheme {scheme!r}"
    else:
        if loc.startswith("["):
            host, bracket, tail = loc[1:].partition("]")
            port = tail[1:] if bracket and tail.startswith(":") else ""
            if not bracket or (tail and not tail.startswith(":")):
                host, port = "", ""
        else:
            host, colon, port = loc.rpartition(":")
            if not colon:
                host, port = loc, ""
        if not host or "/" in host or (":" in host and not loc.startswith("[")):
            problem = "no host" if not host else f"bad host {host!r}"
        else:
            problem = _port_problem(port)
    if problem:
        raise argparse.ArgumentTypeError(f"expected {_SCHEDULER_FORM}, got {text!r} "
                                         f"({problem})")
    return text.strip()


def base_url(text: str) -> str:
    """An argparse ``type``: the URL of an OpenAI-compatible endpoint, checked for its
    form only: an ``http`` or ``https`` scheme, a host and, if given, a port in
    1..65535 (whether it answers is known when the run connects, exit 1).

    Raises:
        argparse.ArgumentTypeError: naming the value and what was expected.
    """
    what = "an http:// or https:// URL with a host, e.g. http://127.0.0.1:8080/v1"
    try:
        url = urllib.parse.urlsplit(text.strip())
        port = url.port
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r} "
                                         "(bad port)") from None
    if url.scheme.lower() not in ("http", "https"):
        problem = f"scheme {url.scheme!r}" if url.scheme else "no scheme"
    elif not url.hostname:
        problem = "no host"
    elif port == 0:
        problem = "port 0"
    else:
        return text.strip()
    raise argparse.ArgumentTypeError(f"expected {what}, got {text!r} ({problem})")


def first_repeat(items, key: Callable | None = None) -> tuple[int, int] | None:
    """``(i, j)``: item ``i`` is the first to repeat an earlier item ``j`` (compared by
    ``key(item)`` when given), or None when all differ. One rule for a repeated list
    item, on the command line (:class:`Distinct`) and in a config
    (:func:`experiments.config.validate`): a repeated level, window or program would
    run its points twice and double its sample."""
    seen: list = []   # compared with ==, not hashed: a config's items may be lists
    for i, item in enumerate(items):
        k = key(item) if key else item
        if k in seen:
            return i, seen.index(k)
        seen.append(k)
    return None


class Distinct(argparse.Action):
    """``action=Distinct`` for a list option (``nargs``): a value given twice is a
    usage error (exit 2) naming it, e.g. ``argument --programs: 'vista' is given
    twice; expected each at most once``. ``key=`` (a keyword of ``add_argument``)
    compares a part of each value: ``key=name_of`` refuses a NAME=VALUE option
    (values parsed to ``(name, value)`` pairs) naming a parameter twice, whatever
    the values."""

    def __init__(self, option_strings, dest, key: Callable | None = None, **kwargs):
        self.key = key
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        hit = first_repeat(values, self.key)
        if hit is not None:
            i, j = hit
            if self.key is None:
                raise argparse.ArgumentError(self, f"{values[i]!r} is given twice; "
                                                   "expected each at most once")
            raise argparse.ArgumentError(
                self, f"{self.key(values[i])!r} is given twice ({values[j][1]!r} and "
                      f"{values[i][1]!r}); expected each name at most once")
        setattr(namespace, self.dest, list(values))


def name_of(item: tuple) -> str:
    """The name of a parsed ``NAME=VALUE`` pair (``Distinct``'s ``key``)."""
    return item[0]


def given_flags(args, flags: dict[str, str], defaults: dict[str, object] | None = None
                ) -> list[str]:
    """The flags of ``flags`` (argparse dest -> flag) that ``args`` sets: a value other
    than ``defaults[dest]`` (None and False, an unset option or flag, when not listed)."""
    defaults = defaults or {}
    return [flag for dest, flag in flags.items()
            if getattr(args, dest, None) not in (None, False, defaults.get(dest))]


def only_with(needed: str, given: list[str]) -> None:
    """Refuse options that mean something only with ``needed`` (an option, e.g.
    ``--robustness`` or ``--agent llm``) when it is not given: silently ignored,
    they would make a run that is not the one asked for.

    Raises:
        UsageError: ``--samples only applies with --robustness`` (exit 2).
    """
    if given:
        verb = "applies" if len(given) == 1 else "apply"
        raise UsageError(f"{', '.join(given)} only {verb} with {needed}")


#: the help of ``--no-progress``, one wording for every command that takes it
NO_PROGRESS_HELP = ("no progress bars or progress lines on stderr, for logs and CI "
                    "(every experiment takes it, also one that prints none; default: "
                    "shown)")


def add_no_progress(parser) -> None:
    """The ``--no-progress`` flag every experiment takes (tqdm bars and progress lines
    off), on a parser or an argument group."""
    parser.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
