"""Experiment configurations: TOML files read with ``tomllib``.

Each experiment ships ``experiments/configs/NAME.toml`` with one table per grid
(``[default]``, ``[quick]``, ...). A user may pass their own TOML file with the same
keys; missing keys fall back to the shipped ``[default]`` table.
"""

from __future__ import annotations

import argparse
import importlib.resources
import pathlib
import tomllib


def load_config(name: str, section: str = "default", path: str | pathlib.Path | None = None
                ) -> dict:
    """The ``section`` table of experiment ``name``'s config.

    Args:
        name: experiment name (file ``configs/NAME.toml`` in this package).
        section: table to read, e.g. "default" or "quick".
        path: optional user TOML file; its ``section`` table (or, if it has no
            tables, its top level) overrides the shipped defaults key by key.

    Raises:
        KeyError: naming the section if neither file has it.
        ValueError: naming a key the shipped defaults do not know (a typo guard).
    """
    shipped = tomllib.loads(
        importlib.resources.files("experiments").joinpath("configs", f"{name}.toml")
        .read_text())
    config = dict(shipped.get("default", {}))
    if section != "default":
        if section not in shipped and path is None:
            raise KeyError(f"config {name!r} has no section {section!r}; "
                           f"known: {sorted(shipped)}")
        config.update(shipped.get(section, {}))
    if path is not None:
        user = tomllib.loads(pathlib.Path(path).read_text())
        table = user.get(section, user) if isinstance(user.get(section), dict) else user
        unknown = sorted(set(table) - set(config))
        if unknown:
            raise ValueError(f"unknown key(s) {unknown} in {path}; expected some of "
                             f"{sorted(config)}")
        config.update(table)
    return config


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0 (seeds), else a usage error naming the value."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value
