"""Experiment configurations: the tables of an experiment's settings class and a
user's TOML file over them, read with ``tomllib``.

Each experiment's grids (``[default]``, ``[quick]``, ...) are declared by its
settings class (:mod:`experiments.settings`), which also generates the shipped
``experiments/configs/NAME.toml`` (the file a user copies; the class, not the file,
is read). A user may pass their own TOML file with the same keys; missing keys fall
back to the shipped ``[default]`` table. Every value is then checked against the
experiment's schema (:data:`SCHEMAS`, generated from the class's fields): a wrong
type (a float kappa), a negative or empty value, or a panel outside the grid is a
:class:`ConfigValueError` naming the key, the value and what was expected, before
anything is computed.
"""

from __future__ import annotations

import importlib.resources
import pathlib
import tomllib
from collections.abc import Mapping
from typing import Any, Callable

from experiments.arguments import UsageError, parse_tokens


class ConfigValueError(UsageError):
    """A config value is malformed; the message names the key and the file."""


# the bounds and kinds of values are declared in experiments.settings (one wording
# for a TOML key and its option)
from experiments.settings.checks import ListOf  # noqa: E402


def _profiles():
    from sim.agents.profiles import PROFILES

    return PROFILES


class _Schemas(Mapping):
    """experiment -> TOML key -> its check: generated from the settings classes
    (:meth:`experiments.settings.Settings.schema`).
    Keys not listed are passed through unchecked."""

    def _names(self) -> list[str]:
        from experiments.settings import REGISTRY

        return sorted(REGISTRY)

    def __getitem__(self, name: str) -> dict[str, Any]:
        from experiments.settings import REGISTRY, settings_for

        if name not in REGISTRY:
            raise KeyError(name)
        return settings_for(name).schema()

    def __iter__(self):
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


SCHEMAS: Mapping[str, dict[str, Any]] = _Schemas()


def _settings(name: str):
    """The settings class of ``name``, or None (an experiment without one)."""
    from experiments.settings import REGISTRY, settings_for

    return settings_for(name) if name in REGISTRY else None


def token_keys(name: str) -> set[str]:
    """The keys of experiment ``name``'s schema that hold token counts (or lists of
    them): the ones :func:`validate` reads with
    :func:`experiments.arguments.parse_tokens`."""
    from experiments.settings.checks import Check

    out = set()
    for key, spec in SCHEMAS.get(name, {}).items():
        item = spec.item if isinstance(spec, ListOf) else spec
        # a lazy check is a registry's names (families, programs), never tokens
        if isinstance(item, Check) and item.convert is parse_tokens:
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
    """Check ``config`` against experiment ``name``'s schema (its settings class,
    :meth:`experiments.settings.Settings.validate`);
    return it, with the token counts written as strings (``"128k"``) converted to
    ints in place.

    ``given``: the keys ``source`` (a user's file) set; a cross-key error about a key
    it did not set says that the value came from the shipped ``[section]`` table.

    Raises:
        ConfigValueError: naming the key, the bad value, what was expected and
            ``source``; for theorem1 also a grid with no point (every kappa >= n)
            and a panel whose (log2_n, kappa) is not a point of the grid.
    """
    cls = _settings(name)
    if cls is not None:
        return cls.validate(config, source, given, section)
    return config


def _shipped(name: str) -> dict:
    """The tables of the shipped ``configs/NAME.toml`` (package data)."""
    return tomllib.loads(importlib.resources.files("experiments")
                         .joinpath("configs", f"{name}.toml").read_text())


def load_config(name: str, section: str = "default", path: str | pathlib.Path | None = None
                ) -> dict:
    """The ``section`` table of experiment ``name``'s config: its settings class's
    (:meth:`experiments.settings.Settings.table`), else the shipped
    ``configs/NAME.toml`` (an experiment without a settings class).

    Args:
        name: experiment name.
        section: table to read, e.g. "default" or "quick".
        path: optional user TOML file, read in layers over the shipped table: its
            top-level keys (they apply to every grid), then its ``section`` table
            (it applies to that grid only). Every table in it is checked, also those
            this run does not read.

    Raises:
        KeyError: naming the section if neither has it.
        ConfigValueError: naming a key the shipped defaults do not know or a table
            the shipped file does not have (a typo guard), or a file that cannot be
            read or is not TOML (``ctxsim`` exits 2 for it).
        ConfigValueError: a malformed value (see :func:`validate`).
    """
    cls = _settings(name)
    if cls is not None:
        return cls.load(section, path)
    shipped = _shipped(name)
    if path is None:
        config = dict(shipped.get("default", {}))
        if section != "default":
            if section not in shipped:
                raise KeyError(f"config {name!r} has no section {section!r}; "
                               f"known: {sorted(shipped)}")
            config.update(shipped[section])
        return validate(name, config)
    return layer_user_file(name, shipped, section, path,
                           lambda *a: validate(name, *a))


def layer_user_file(name: str, shipped: dict[str, dict], section: str, path,
                    check: Callable[..., dict]) -> dict:
    """Table ``section`` of ``shipped`` (table -> its keys over ``[default]``) with
    the user's TOML file ``path`` layered over it, every table of the file checked
    by ``check(config, source, given, section)``; see :func:`load_config`."""
    config = dict(shipped.get("default", {}))
    config.update(shipped.get(section, {}) if section != "default" else {})
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
        check(layered, f"[{t}] of {source}", set(top) | set(tables[t]), t)
    mine = {**top, **tables.get(section, {})}
    config.update(mine)
    return check(config, source, set(mine), section)


def add_config_argument(parser, name: str) -> None:
    """``--config FILE``: a user TOML overriding keys of ``configs/NAME.toml``."""
    cls = _settings(name)
    tables = ", ".join(f"[{t}]" for t in (cls.sections() if cls else _shipped(name)))
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
