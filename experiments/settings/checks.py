"""What a setting's value may be: one :class:`Check` per value (what is expected,
its test, the TOML converter and the argparse converter) and :class:`ListOf` for a
list of them, with the one check of a TOML value (:func:`check_value`) whose
messages :mod:`experiments.config` has always used (``config key 'budget' in
'c.toml': got 0 (int); expected a token count in 1..10,000,000 ...``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Check", "ListOf", "as_check", "check_value", "toml_line", "toml_value"]


@dataclass(frozen=True)
class Check:
    """One value of a setting.

    Attributes:
        what: what is expected, for messages (``"an integer >= 1 and below 2**62"``).
        ok: the test of a TOML value.
        convert: turns an accepted TOML value into the one used (token counts
            written ``"128k"``), or None.
        parse: the argparse ``type`` of the option (its own messages), or None.
    """

    what: str
    ok: Callable[[Any], bool]
    convert: Callable[[Any], Any] | None = None
    parse: Callable[[str], Any] | None = None


@dataclass(frozen=True)
class ListOf:
    """A list of :class:`Check` values (an option with ``nargs="+"``), each at most
    once; ``empty``: whether ``[]`` is allowed."""

    item: Check | Callable[[], Check]
    empty: bool = False

    def item_check(self) -> Check:
        return self.item if isinstance(self.item, Check) else self.item()


def as_check(spec) -> Check | ListOf:
    """``spec`` itself, or what a lazy spec (a zero-argument callable) returns."""
    return spec if isinstance(spec, (Check, ListOf)) else spec()


def check_value(key: str, value, spec: Check | ListOf, source: str):
    """``value`` of TOML key ``key`` checked against ``spec``; returns the value used
    (converted, e.g. ``"8k"`` -> 8000).

    Raises:
        experiments.config.ConfigValueError: naming the key, the value (or the bad
            item and its index), what was expected and ``source``.
    """
    from experiments.arguments import first_repeat
    from experiments.config import ConfigValueError

    if isinstance(spec, ListOf):
        item = spec.item_check()
        what = item.what
        if not isinstance(value, list):
            raise ConfigValueError(f"config key {key!r} in {source}: expected a list "
                                   f"of {what}, got {value!r} "
                                   f"({type(value).__name__})")
        if not value and not spec.empty:
            raise ConfigValueError(f"config key {key!r} in {source}: the list is "
                                   f"empty; expected at least one item, each {what}")
        for i, x in enumerate(value):
            if not item.ok(x):
                raise ConfigValueError(
                    f"config key {key!r} in {source}: item {i} is {x!r} "
                    f"({type(x).__name__}); expected {what}")
        if item.convert:  # before the repeat check: "8k" repeats 8000
            value = [item.convert(x) for x in value]
        repeat = first_repeat(value)  # a repeated point would be run twice
        if repeat is not None:
            i, j = repeat
            raise ConfigValueError(
                f"config key {key!r} in {source}: item {i} ({value[i]!r}) repeats "
                f"item {j}; expected each at most once")
        return value
    if not spec.ok(value):
        raise ConfigValueError(f"config key {key!r} in {source}: got {value!r} "
                               f"({type(value).__name__}); expected {spec.what}")
    return spec.convert(value) if spec.convert else value


def toml_value(value, grouped: bool | None = None) -> str:
    """``value`` written as TOML: integers from 10,000 up with ``_`` groups
    (``128_000``; every integer of a list that holds one), floats as Python writes
    them, strings quoted, lists inline."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        group = abs(value) >= 10_000 if grouped is None else grouped
        return f"{value:_}" if group else str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        ints = [v for v in value if isinstance(v, int) and not isinstance(v, bool)]
        group = bool(ints) and max(abs(v) for v in ints) >= 10_000
        return "[" + ", ".join(toml_value(v, group if isinstance(v, int) else None)
                               for v in value) + "]"
    raise TypeError(f"cannot write {value!r} ({type(value).__name__}) as TOML")


def toml_line(key: str, value, note: str | None, width: int = 88) -> str:
    """``key = value  # note``, the list wrapped after a comma where the line would
    pass ``width`` characters (the note then on the line above)."""
    text = f"{key} = {toml_value(value)}"
    if len(text) > width and isinstance(value, (list, tuple)):
        indent = " " * (len(key) + 4)
        lines, line = [], f"{key} = ["
        for i, v in enumerate(value):
            item = toml_value(v) + ("," if i < len(value) - 1 else "]")
            if len(line) + len(item) + 1 > width:
                lines.append(line.rstrip())
                line = indent
            line += item + " "
        lines.append(line.rstrip())
        text = "\n".join(lines)
    if not note:
        return text
    if "\n" in text or len(f"{text:<25} # {note}") > width:
        return f"# {note}\n{text}"
    return f"{text:<25} # {note}"
