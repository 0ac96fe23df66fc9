"""Experiment configurations: TOML files read with ``tomllib``.

Each experiment ships ``experiments/configs/NAME.toml`` with one table per grid
(``[default]``, ``[quick]``, ...). A user may pass their own TOML file with the same
keys; missing keys fall back to the shipped ``[default]`` table. Every value is then
checked against the experiment's schema (:data:`SCHEMAS`): a wrong type (a float
kappa), a negative or empty value, or a panel outside the grid is a
:class:`ConfigValueError` naming the key, the value and what was expected, before
anything is computed.
"""

from __future__ import annotations

import importlib.resources
import math
import pathlib
import tomllib
from typing import Any, Callable

from experiments.arguments import (MAX_TOKENS, UsageError, first_repeat, nonnegative_int,
                                   parse_tokens)


class ConfigValueError(UsageError):
    """A config value is malformed; the message names the key and the file."""


#: the largest integer a config may hold: counts and sizes reach numba kernels and
#: NumPy arrays as int64, and a product of two of them must not wrap
INT_MAX = 2**62 - 1


def _int(lo: int, hi: int | None = None) -> tuple[str, Callable[[Any], bool]]:
    span = f">= {lo:,} and below 2**62" if hi is None else f"in {lo:,}..{hi:,}"
    top = INT_MAX if hi is None else hi
    return (f"an integer {span}", lambda v: isinstance(v, int) and not isinstance(v, bool)
            and lo <= v <= top)


def _tokens(lo: int, hi: int) -> tuple[str, Callable[[Any], bool], Callable[[Any], int]]:
    """A token count in ``lo..hi``: a TOML integer or a string as on the command line
    (``"128k"``, ``"128,000"``, ``"1M"``: :func:`experiments.arguments.parse_tokens`),
    converted to an int by :func:`validate`."""
    def ok(v) -> bool:
        try:
            return lo <= parse_tokens(v) <= hi
        except ValueError:
            return False
    return (f"a token count in {lo:,}..{hi:,} (an integer, or a string such as "
            "\"128k\", \"128,000\" or \"1M\")", ok, parse_tokens)


def _positive_float() -> tuple[str, Callable[[Any], bool]]:
    return ("a finite number > 0", lambda v: isinstance(v, (int, float))
            and not isinstance(v, bool) and math.isfinite(v) and v > 0)


def _float_in(lo: float, hi: float, what: str) -> tuple[str, Callable[[Any], bool]]:
    return (what, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v) and lo <= v <= hi)


def _list(item: tuple[str, Callable[[Any], bool]], empty: bool = False
          ) -> tuple[str, Callable[[Any], bool], tuple]:
    return ("list", empty, item)


def _one_of(what: str, names: Callable[[], Any]) -> Callable[[], tuple]:
    """A lazy spec: ``names()`` (a registry that is slow to import) is read only when
    a config of this experiment is checked."""
    def spec():
        known = sorted(names())
        return (f"{what}, one of {', '.join(known)}", lambda v: isinstance(v, str)
                and v in known)
    return spec


def _programs():
    from sim.policies import PROGRAMS

    return PROGRAMS


def _profiles():
    from sim.agents.profiles import PROFILES

    return PROFILES


def _families() -> tuple[str, Callable[[Any], bool]]:
    from sim.tasks.loca import FAMILIES

    return _int(1, len(FAMILIES))


#: the largest kappa (= L / l) of the eviction game: the content channel's E[Z]
#: quadrature (:mod:`sim.games.content_burden`) holds a (grid points x kappa) table,
#: about 2.6 GB at kappa = 2^16 (measured), 40 KB more per unit of kappa beyond
KAPPA_MAX = 2**16
#: the largest c = ln(kappa) / sigma of a content channel: the exact rate quadrature
#: (:mod:`sim.games.content_rate`) costs about c^4: ~30 s per (kappa, sigma) at 64
#: (measured 35 s at c = 69, 9 min at c = 139, and 17 TiB asked at c = 5e5)
CONTENT_C_MAX = 64

def _program():
    """A program of a config: a built-in name or a plugin spec that loads
    (:func:`sim.plugins.resolve_program`; it is played through its protocol check
    when the sweep starts)."""
    from sim.plugins import PluginError, resolve_program

    def ok(v) -> bool:
        try:
            return isinstance(v, str) and bool(resolve_program(v))
        except PluginError:
            return False
    return (f"a context program, one of {', '.join(sorted(_programs()))}, or a plugin "
            "MODULE:CLASS that imports", ok)


_PROGRAM = _program
#: tool-result tokens per task: the LOCA-like generator needs at least 1,000; at most
#: MAX_TOKENS, as on the command line (an episode's time grows about quadratically)
_GROWTH = _tokens(1_000, MAX_TOKENS)
#: a context budget or window W in tokens, bounded as on the command line
_TOKENS = _tokens(1, MAX_TOKENS)
#: blocks of the sorted-window game: each trial sorts n sizes (a million blocks take
#: ~0.1 s per trial and point, measured; 10 million ~1 s and 1.6 GB)
MAX_BLOCKS = 1_000_000
#: keys every LOCA-like sweep (pressure, ablations, cost) shares
_LOCA = {"budget": _TOKENS, "families": _families, "seeds": _int(1),
         "programs": lambda: _list(_PROGRAM())}

#: experiment -> key -> (what is expected, check[, convert]), a list spec, or a
#: zero-argument callable returning either (read when checked). ``convert`` (token
#: counts) turns an accepted value into the one used. Keys not listed are passed
#: through unchecked.
SCHEMAS: dict[str, dict[str, Any]] = {
    "theorem1": {
        # the eviction game needs kappa >= 2 and n = 2^log2_n > kappa, at most 2^62
        "kappas": _list(_int(2, KAPPA_MAX)),
        "log2_n": _list(_int(2, 62)),
        "sigmas": _list(_positive_float()),
        "trials": _int(1),
        "prop2_extra_log2_n": _list(_int(2, 62), empty=True),
        "panels": _list(("a [log2_n, kappa] pair of integers",
                         lambda v: isinstance(v, list) and len(v) == 2 and all(
                             isinstance(x, int) and not isinstance(x, bool) for x in v))),
    },
    "pressure": {"levels": _list(_GROWTH), **_LOCA},
    "window": {"windows": _list(_TOKENS), "programs": _LOCA["programs"],
               "queries": _int(1), "seeds": _int(1)},
    "ablations": {"growth": _GROWTH, **_LOCA},
    "cost": {"growth": _GROWTH, **_LOCA},
    "contextevo": {"loca_growth": _GROWTH, "loca_budget": _TOKENS, "families": _families,
                   "seeds": _int(1), "browse_window": _TOKENS, "queries": _int(1),
                   "browse_seeds": _int(1)},
    "sorted_window": {"n": _int(1, MAX_BLOCKS),
                      "rhos": _list(("a number in (0, 1]", lambda v: (
                          isinstance(v, (int, float)) and not isinstance(v, bool)
                          and 0 < v <= 1))),
                      "sigma": _positive_float(), "trials": _int(1),
                      # panel (b)'s two-point game needs kappa >= 2 (and < n)
                      "windows": _list(_int(0, MAX_BLOCKS)), "kappa": _int(2)},
    "robustness": {"trajectories": _int(1), "samples": ("a power of two >= 2", lambda v: (
                       isinstance(v, int) and not isinstance(v, bool) and v >= 2
                       and not v & (v - 1))),
                   "screen": _int(1), "tasks": _int(1), "queries": _int(1),
                   "windows": _list(_TOKENS)},
    "proposition1": {
        **{k: _int(1) for k in ("budget_N", "budget_k", "budget_B_step", "budget_trials",
                                "linear_hash_trials", "sep_min", "sep_sim_max", "sep_max",
                                "sep_trials", "fixed_B", "fixed_k", "fixed_max",
                                "fixed_trials")},
        "c": _positive_float(),
        "c0": _float_in(1.0, math.inf, "a finite number >= 1 (a handle needs at least "
                                        "ceil(log2 N) bits)"),
        "fixed_sim_max": _positive_float(),
    },
    "calibrate": {
        **{k: _int(1) for k in ("index", "confabulate", "recovery", "snapshots", "pairs",
                                "trials", "context_cases")},
        "cap": _tokens(100, INT_MAX),
        "lengths": _list(_tokens(50, INT_MAX)),
        "depths": _list(_float_in(0.0, 1.0, "a number in [0, 1]")),
    },
    "evoharness": {"profiles": lambda: _list(_one_of("a synthetic solver profile",
                                                     _profiles)()),
                   "families": _families, "seeds": _int(1), "reps": _int(1),
                   "growth": _GROWTH, "budget": _TOKENS, "long_growth": _GROWTH,
                   "long_budget": _TOKENS, "long_families": _families,
                   "long_seeds": _int(1), "b": _int(0), "batch": _int(1),
                   "program": _PROGRAM},
}


def token_keys(name: str) -> set[str]:
    """The keys of experiment ``name``'s schema that hold token counts (or lists of
    them): the ones :func:`validate` reads with
    :func:`experiments.arguments.parse_tokens`."""
    out = set()
    for key, spec in SCHEMAS.get(name, {}).items():
        if not callable(spec):  # the lazy specs are registries' names, not tokens
            item = spec[2] if spec[0] == "list" else spec
            if item[2:] == (parse_tokens,):
                out.add(key)
    return out


def _where(key: str, source: str, given, section: str, also: str = "") -> str:
    """Where ``key``'s value in a cross-key error came from: ``source`` when it set
    the key, else the shipped ``[section]`` table (with a hint to set it in
    ``source`` too)."""
    if key in given or source == "the shipped config":
        return source
    return f"the shipped [{section}] table (set {key!r} in {source} too{also})"


def validate(name: str, config: dict, source: str = "the shipped config",
             given: frozenset[str] | set[str] = frozenset(), section: str = "default"
             ) -> dict:
    """Check ``config`` against :data:`SCHEMAS` [``name``]; return it, with the token
    counts written as strings (``"128k"``) converted to ints in place.

    ``given``: the keys ``source`` (a user's file) set; a cross-key error about a key
    it did not set says that the value came from the shipped ``[section]`` table.

    Raises:
        ConfigValueError: naming the key, the bad value, what was expected and
            ``source``; for theorem1 also a grid with no point (every kappa >= n)
            and a panel whose (log2_n, kappa) is not a point of the grid.
    """
    for key, spec in SCHEMAS.get(name, {}).items():
        if key not in config:
            continue
        value = config[key]
        if callable(spec):
            spec = spec()
        if spec[0] == "list":
            _, empty, (what, ok, *convert) = spec
            if not isinstance(value, list):
                raise ConfigValueError(f"config key {key!r} in {source}: expected a list "
                                       f"of {what}, got {value!r} "
                                       f"({type(value).__name__})")
            if not value and not empty:
                raise ConfigValueError(f"config key {key!r} in {source}: the list is "
                                       f"empty; expected at least one item, each {what}")
            for i, item in enumerate(value):
                if not ok(item):
                    raise ConfigValueError(
                        f"config key {key!r} in {source}: item {i} is {item!r} "
                        f"({type(item).__name__}); expected {what}")
            if convert:  # before the repeat check: "8k" repeats 8000
                value = config[key] = [convert[0](item) for item in value]
            repeat = first_repeat(value)  # a repeated point would be run twice
            if repeat is not None:
                i, j = repeat
                raise ConfigValueError(
                    f"config key {key!r} in {source}: item {i} ({value[i]!r}) repeats "
                    f"item {j}; expected each at most once")
        else:
            what, ok, *convert = spec
            if not ok(value):
                raise ConfigValueError(f"config key {key!r} in {source}: got {value!r} "
                                       f"({type(value).__name__}); expected {what}")
            if convert:
                config[key] = convert[0](value)
    if name == "theorem1":
        points = {(e, k) for e in config["log2_n"] for k in config["kappas"] if 2**e > k}
        if not points:
            raise ConfigValueError(f"config in {source}: no grid point has n = 2^log2_n "
                                   f"> kappa (log2_n {config['log2_n']}, kappas "
                                   f"{config['kappas']})")
        # Proposition 2's extra sizes are played at every kappa (no n <= kappa skipped)
        kmax = max(config["kappas"])
        for e in config["prop2_extra_log2_n"]:
            if 2**e <= kmax:
                raise ConfigValueError(
                    f"config key 'prop2_extra_log2_n' in "
                    f"{_where('prop2_extra_log2_n', source, given, section)}: "
                    f"{e} gives n = 2^{e} = {2**e}, not above kappa {kmax}; expected "
                    f"each with 2^log2_n > every kappa of {config['kappas']}")
        kmin_sigma = min(config["sigmas"])
        c = math.log(kmax) / kmin_sigma
        if c > CONTENT_C_MAX:
            raise ConfigValueError(
                f"config key 'sigmas' in {_where('sigmas', source, given, section)}: sigma "
                f"{kmin_sigma!r} with kappa {kmax} gives c = ln(kappa)/sigma = {c:.3g}, "
                f"above {CONTENT_C_MAX}; expected each sigma >= ln({kmax})/"
                f"{CONTENT_C_MAX} = {math.log(kmax) / CONTENT_C_MAX:.4g} (the exact "
                "content-rate quadrature costs about c^4: ~30 s per (kappa, sigma) at "
                f"c = {CONTENT_C_MAX}, hours or out of memory beyond)")
        for e, k in config["panels"]:
            if (e, k) not in points:
                where = _where("panels", source, given, section, ", to points of its grid")
                raise ConfigValueError(
                    f"config key 'panels' in {where}: [{e}, {k}] is not a point of the "
                    f"grid (needs log2_n {e} in {config['log2_n']}, kappa {k} in "
                    f"{config['kappas']}, and 2^{e} > {k})")
    return config


def _shipped(name: str) -> dict:
    """The tables of the shipped ``configs/NAME.toml`` (package data)."""
    return tomllib.loads(importlib.resources.files("experiments")
                         .joinpath("configs", f"{name}.toml").read_text())


def load_config(name: str, section: str = "default", path: str | pathlib.Path | None = None
                ) -> dict:
    """The ``section`` table of experiment ``name``'s config.

    Args:
        name: experiment name (file ``configs/NAME.toml`` in this package).
        section: table to read, e.g. "default" or "quick".
        path: optional user TOML file, read in layers over the shipped table: its
            top-level keys (they apply to every grid), then its ``section`` table
            (it applies to that grid only). Every table in it is checked, also those
            this run does not read.

    Raises:
        KeyError: naming the section if neither file has it.
        ConfigValueError: naming a key the shipped defaults do not know or a table
            the shipped file does not have (a typo guard), or a file that cannot be
            read or is not TOML (``ctxsim`` exits 2 for it).
        ConfigValueError: a malformed value (see :func:`validate`).
    """
    shipped = _shipped(name)
    config = dict(shipped.get("default", {}))
    if section != "default":
        if section not in shipped and path is None:
            raise KeyError(f"config {name!r} has no section {section!r}; "
                           f"known: {sorted(shipped)}")
        config.update(shipped.get(section, {}))
    if path is None:
        return validate(name, config)
    try:
        user = tomllib.loads(pathlib.Path(path).read_text())
    except OSError as exc:
        raise ConfigValueError(f"cannot read --config {str(path)!r}: "
                         f"{exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigValueError(f"--config {str(path)!r} is not valid TOML: {exc}") from None
    source = repr(str(path))
    top = {k: v for k, v in user.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in user.items() if isinstance(v, dict)}
    unknown_tables = sorted(set(tables) - set(shipped))
    if unknown_tables:
        raise ConfigValueError(f"unknown table(s) {unknown_tables} in {source}; expected "
                               f"some of {sorted(shipped)} (or keys at the top level)")
    for where, keys in (("", top),
                        *((f", table [{t}]", table) for t, table in tables.items())):
        unknown = sorted(set(keys) - set(config))
        if unknown:
            raise ConfigValueError(f"unknown key(s) {unknown} in {source}{where}; "
                                   f"expected some of {sorted(config)}")
    # every table of the file is checked, not only the one this run reads (that one
    # is checked below)
    for t in set(tables) - {section}:
        layered = {**dict(shipped.get("default", {})), **shipped.get(t, {}), **top,
                   **tables[t]}
        validate(name, layered, f"[{t}] of {source}", set(top) | set(tables[t]), t)
    mine = {**top, **tables.get(section, {})}
    config.update(mine)
    return validate(name, config, source, set(mine), section)


#: argparse type for seeds (kept under its old name; see :mod:`experiments.arguments`)
non_negative_int = nonnegative_int


def add_config_argument(parser, name: str) -> None:
    """``--config FILE``: a user TOML overriding keys of ``configs/NAME.toml``."""
    tables = ", ".join(f"[{t}]" for t in _shipped(name))
    parser.add_argument("--config", default=None, metavar="FILE",
                        help=f"TOML file overriding keys of experiments/configs/{name}.toml: "
                             f"at its top level for every grid, in a table named like a "
                             f"grid ({tables}) for that grid; an unknown key or a bad "
                             "value in any table is refused before any work (default: "
                             "none)")


def grid(name: str, args, section: str | None = None) -> dict:
    """The grid of experiment ``name`` that ``args`` ask for: the ``[quick]`` table
    under ``--quick`` (else ``[default]``, or ``section`` when given), with
    ``--config FILE``'s keys over it. Options given on the command line are applied
    by the caller, over this.

    Raises:
        ConfigValueError: see :func:`load_config`.
    """
    if section is None:
        section = "quick" if getattr(args, "quick", False) else "default"
    return load_config(name, section, getattr(args, "config", None))
