"""Typed knobs of a context program: one frozen dataclass per program, each field a
knob with its default, allowed range, meaning and source (DESIGN.md "Context
programs"; the sources are the programs' papers, named in each field's ``source``).

A program class names its knobs class in ``Knobs``; its constructor's keywords are
checked against it (:meth:`ProgramKnobs.make`) and the program reads ``self.knobs.<name>``.
A knob is declared with :func:`knob`::

    @dataclass(frozen=True)
    class KeepLastKnobs(ProgramKnobs):
        keep: int = knob(4, "tool results kept visible", low=0,
                         source="mine: a guess")

:func:`describe` lists a program's knobs (name, default, type, range, help, source),
for built-ins and plugins alike.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import MISSING, dataclass, fields
from typing import Any, Mapping


def knob(default: Any, help: str, *, source: str, low: float | None = None,
         high: float | None = None, unit: str = "", none_ok: bool = False):
    """A dataclass field declaring one knob.

    Args:
        default: its value when not given.
        help: what it does (one line).
        source: where the default comes from (a paper, a benchmark, or "guess: ...").
        low, high: the allowed closed range of a number (None: open).
        unit: ``"tokens"``, ``"fraction of B"``, ``"tokens or fraction of B"``, ...
        none_ok: whether None is allowed too (e.g. "clear all but keep").
    """
    return dataclasses.field(default=default, metadata={
        "help": help, "source": source, "low": low, "high": high, "unit": unit,
        "none_ok": none_ok})


@dataclass(frozen=True)
class ProgramKnobs:
    """Base of every program's knobs (no knobs of its own)."""

    @classmethod
    def _types(cls) -> dict[str, Any]:
        """knob -> its type (``float`` for ``float | None``), resolved once per class."""
        if "_types_of" not in cls.__dict__:
            hints = typing.get_type_hints(cls)
            cls._types_of = {f.name: _base_type(hints[f.name]) for f in fields(cls)}
        return cls._types_of

    @classmethod
    def make(cls, program: str, values: Mapping[str, Any]) -> "ProgramKnobs":
        """The knobs ``values`` (name -> value) ask for, the rest at their defaults.

        Raises:
            TypeError: naming the knob(s) ``program`` does not have and the ones it has.
            ValueError: naming a knob whose value has the wrong type or lies outside
                its range, and what was expected.
        """
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise TypeError(f"{program} has no knob(s) {unknown}; knobs: {sorted(names)}")
        types = cls._types()
        for f in fields(cls):
            if f.name in values:
                _check(program, f, types[f.name], values[f.name])
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """``{knob: value}`` in declaration order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _base_type(hint) -> type:
    """``int`` for ``int``, ``float`` for ``float | None`` and the like."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return args[0] if args else hint


def _check(program: str, f, typ: type, value: Any) -> None:
    meta = f.metadata
    if typ is Any or (value is None and meta.get("none_ok")):
        return
    ok = (isinstance(value, bool) if typ is bool
          else isinstance(value, (int, float)) and not isinstance(value, bool)
          if typ is float
          else isinstance(value, int) and not isinstance(value, bool) if typ is int
          else isinstance(value, typ))
    if ok and typ is float and not math.isfinite(value):
        ok = False
    if not ok:
        want = {float: "a finite number", int: "an int", bool: "a bool",
                str: "a str"}.get(typ, typ.__name__)
        raise ValueError(f"{program} knob {f.name}={value!r}: expected {want}"
                         + (" or None" if meta.get("none_ok") else ""))
    lo, hi = meta.get("low"), meta.get("high")
    if typ in (int, float) and ((lo is not None and value < lo)
                                or (hi is not None and value > hi)):
        raise ValueError(f"{program} knob {f.name}={value!r} is outside its range "
                         f"[{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]")


def knobs_from_defaults(name: str, defaults: Mapping[str, Any]) -> type[ProgramKnobs]:
    """A knobs class for a program that declares ``DEFAULTS = {knob: default}``
    (the older plugin form, still accepted): any value, as that form took, no range,
    source ``"DEFAULTS"``."""
    specs = [(k, Any, knob(v, "", source="DEFAULTS")) for k, v in defaults.items()]
    return dataclasses.make_dataclass(f"{name}Knobs", specs, bases=(ProgramKnobs,),
                                      frozen=True)


def describe(knobs_cls: type[ProgramKnobs]) -> list[dict]:
    """One dict per knob: ``name``, ``default``, ``type``, ``low``, ``high``, ``unit``,
    ``help``, ``source``."""
    types = knobs_cls._types()
    out = []
    for f in fields(knobs_cls):
        m = f.metadata
        out.append({"name": f.name, "default": None if f.default is MISSING else f.default,
                    "type": getattr(types[f.name], "__name__", str(types[f.name])),
                    "low": m.get("low"), "high": m.get("high"), "unit": m.get("unit", ""),
                    "help": m.get("help", ""), "source": m.get("source", "")})
    return out
