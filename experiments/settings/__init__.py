"""Typed experiment settings: one frozen dataclass per experiment, whose fields are
declared once with their unit, allowed values, help text, paper source and
``--quick`` value, and from which the TOML schema check, the command-line options
and the sidecar record are generated (issue 36).

Over 500 lines: a sixth of it is this guide to the API, and the rest is the one
``Settings`` class, whose class methods are the views of a field (TOML table, schema
check, options, parsed instance, sidecar record, generated file) and must read the
same field metadata; the value kinds (:mod:`~experiments.settings.checks`,
:mod:`~experiments.settings.kinds`) and every experiment's class already live apart.

The API (for a subclass's author)::

    from experiments.settings import Settings, setting, ListOf, register
    from experiments.settings import kinds as k

    @register
    @dataclass(frozen=True)
    class PressureSettings(Settings):
        NAME: ClassVar[str] = "pressure"          # configs/NAME.toml, ``ctxsim run NAME``
        HEADER: ClassVar[str] = "Grids of ..."   # comment atop the generated TOML
        PAPER_SOURCE: ClassVar[str] = "VISTA §3.3, Fig. 4"   # for paper=True fields
        levels: tuple[int, ...] = setting(
            (8_000, ...), ListOf(k.GROWTH), "context-growth levels ({default})",
            unit="tokens", quick=(8_000, 256_000), source="VISTA §3.3, Fig. 4",
            paper=True)

``setting(default, check, help, *, unit, quick, source, option, toml, metavar,
parse, tables, note, choices, action, argparse, paper)`` declares one field
(:func:`setting`); a dataclass field without it (``field(default=None)``) is derived
state, neither option nor key nor record. ``check`` is a
:class:`Check` (one value: what is expected, a test, a TOML converter and the
argparse converter) or a :class:`ListOf` one; :mod:`experiments.settings.kinds`
holds the shared ones (token counts, counts, families, programs). A field is a TOML
key unless ``toml=False`` (a command-line-only setting such as ``--seed``) and an
option ``--name-with-dashes`` unless ``option=None`` (a TOML-only key such as
theorem1's ``panels``) or ``option="--flag"``.

Class methods generated from the fields (introspection: :meth:`Settings.specs`,
:meth:`Settings.toml_keys`, :meth:`Settings.options` flag -> field,
:meth:`Settings.option_of`, :meth:`Settings.default_of`):

* :meth:`Settings.table` ``(section)``: the values of a shipped table (``"default"``,
  ``"quick"``, or one of ``tables=``), as a dict of TOML keys;
  :meth:`Settings.sections`: the table names.
* :meth:`Settings.validate` ``(config, source, given, section)``: the TOML schema check
  (:class:`experiments.config.ConfigValueError` naming key, value and expectation);
  a subclass adds cross-key checks in :meth:`Settings.check_config`.
* :meth:`Settings.load` ``(section, path)``: a table with a user's ``--config FILE``
  layered over it (:func:`experiments.config.load_config` is this).
* :meth:`Settings.add_arguments` ``(parser)``: one option per field with an option
  (default None for TOML keys, so a ``--config`` file may set them; help from the
  field's help with ``{default}`` = "default: X; --quick: Y").
* :meth:`Settings.add_run_arguments` ``(parser)``: the run options every experiment
  takes and no field holds (:data:`RUN_OPTIONS`: ``--out``, ``--quick``,
  ``--no-progress``, and ``--config`` for a class with TOML keys).
* :meth:`Settings.from_args` ``(args, section=None)``: the instance an argparse
  Namespace asks for: options given win over ``--config FILE``, which wins over the
  ``[quick]`` (``--quick``) or ``[default]`` table; a subclass adjusts or refuses
  combinations in :meth:`Settings.finish` (a dict of field values, before the
  instance is built).
* :meth:`Settings.from_record` ``(record)``: the instance a sidecar's record describes.
* :meth:`Settings.record` ``()``: the sidecar record (every field; tuples as lists),
  plus :meth:`Settings.extra_record`; :meth:`Settings.paper` ``()``: the paper's setting
  (the defaults of the fields declared ``paper=True``: a paper value is the default,
  written once); :meth:`Settings.paper_setting` ``()``: its record and how this run
  departs from it.
* :meth:`Settings.toml_text` ``()``: the text of the shipped ``configs/NAME.toml``.

What the shipped TOML files are: **generated from the classes** (``python -m
experiments.settings write`` rewrites them; ``python -m experiments.settings check``
exits 1 naming a file that differs, and a test runs the same comparison). The class
is the one source of every default: :func:`experiments.config.load_config` reads the
class, not the file, so no value is read from two places; the file stays what a
user copies and edits (same keys, same tables, comments from the help), and a
user's own TOML with those keys is read as before. The alternative, reading the
file and checking it equal to the class, would keep each value written twice (once
in the class, once in the file) and make the test the only thing keeping them
equal, which is what issue 36 asks to end.

:data:`REGISTRY` maps an experiment name to the module that declares its class
(imported only when that experiment's settings are asked for, so ``ctxsim --help``
imports none); :func:`settings_for` returns the class.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import MISSING, dataclass, field
from typing import Any, Callable, ClassVar

from experiments.settings.checks import Check, ListOf, as_check, toml_line

__all__ = ["Check", "ListOf", "REGISTRY", "Settings", "register", "setting",
           "settings_for", "fmt_default", "RUN_OPTIONS"]

#: experiment name -> module declaring its :class:`Settings` subclass (with
#: :func:`register`); imported on first use
REGISTRY: dict[str, str] = {
    "theorem1": "experiments.settings.theory",
    "proposition1": "experiments.settings.theory",
    "sorted_window": "experiments.settings.theory",
    "pressure": "experiments.settings.vista",
    "window": "experiments.settings.vista",
    "ablations": "experiments.settings.vista",
    "cost": "experiments.settings.vista",
    "overhead": "experiments.settings.vista",
    "perception": "experiments.settings.vista",
    "presentation": "experiments.settings.vista",
    "calibrate": "experiments.settings.calibrate",
    "robustness": "experiments.settings.robustness",
    "posterior": "experiments.settings.posterior",
    "contextevo": "experiments.settings.contextevo",
    "evoharness": "experiments.settings.evoharness",
}
_CLASSES: dict[str, type] = {}

#: the options every experiment takes that steer a run but are not settings of its
#: computation (where its files go, which table, a config file, progress display):
#: they are not recorded as settings and have no field
RUN_OPTIONS = ("--out", "--quick", "--config", "--no-progress")

_NO_QUICK = object()


def register(cls):
    """Class decorator: record ``cls`` as the settings of experiment ``cls.NAME``."""
    _CLASSES[cls.NAME] = cls
    return cls


def settings_for(name: str) -> type[Settings]:
    """The settings class of experiment ``name``.

    Raises:
        KeyError: naming ``name`` when no class is registered for it.
    """
    if name not in _CLASSES and name in REGISTRY:
        importlib.import_module(REGISTRY[name])
    if name not in _CLASSES:
        raise KeyError(f"no settings class for experiment {name!r}")
    return _CLASSES[name]


def setting(default, check: Check | ListOf | Callable[[], Check | ListOf] | None,
            help: str, *, unit: str = "", quick=_NO_QUICK, source: str = "",
            option: str | None | bool = True, toml: bool = True,
            metavar: str | None = None, parse: Callable | None = None,
            tables: dict[str, Any] | None = None, note: str | None = None,
            choices=None, action: str | None = None, argparse: dict | None = None,
            paper: bool = False):
    """One settings field (a :func:`dataclasses.field` with its metadata).

    Args:
        default: the value (a tuple for a list; the one source of this default).
        check: what a TOML value must be (:class:`Check`, :class:`ListOf`, or a
            zero-argument callable returning one, read when first checked: a
            registry that is slow to import). None: not checked (a TOML-less option).
        help: ``--help`` text (or a zero-argument callable returning it, read when
            the parser is built); ``{default}`` is replaced by :func:`fmt_default` of the
            default and quick value (else that is appended in parentheses).
        unit: the value's unit (``"tokens"``, ``"bits"``), for the record and docs.
        quick: the ``[quick]`` table's value (absent: the default's).
        source: where the value comes from (paper, section), for the docs.
        option: ``True``: ``--NAME`` with dashes; a string: that flag; None/False:
            no option (a TOML-only key).
        toml: whether the field is a key of the shipped TOML tables.
        metavar, choices, action: passed to ``add_argument``.
        parse: the argparse ``type`` (default: the check's ``parse``).
        tables: values in further shipped tables (``{"llm_quick": 8_000}``).
        note: the comment beside the key in the generated TOML (default: none).
        paper: the default is the paper's setting (:meth:`Settings.paper_setting`
            records a run that departs from it; the class's ``PAPER_SOURCE`` says where
            the paper reports it).
        argparse: further ``add_argument`` keywords, applied last (``nargs="*"``,
            ``key=``, a ``default`` other than the generated one).
    """
    meta = dict(check=check, help=help, unit=unit, quick=quick, source=source,
                option=option, toml=toml, metavar=metavar, parse=parse,
                tables=tables or {}, note=note, choices=choices, action=action,
                argparse=argparse or {}, paper=paper)
    return field(default=default, metadata={"setting": meta})


def fmt_default(full, quick=None, unit: str = "") -> str:
    """``"default: 15; --quick: 8"`` for help strings (unit appended to each)."""
    def one(v):
        if isinstance(v, (list, tuple)):
            return " ".join(f"{x:,}" if isinstance(x, int) else str(x) for x in v) + unit
        return (f"{v:,}" if isinstance(v, int) and not isinstance(v, bool)
                else str(v)) + unit
    text = f"default: {one(full)}"
    if quick is not None and quick != full:
        text += f"; --quick: {one(quick)}"
    return text


def _plain(value):
    """``value`` with tuples as lists (JSON, TOML and the old config dicts)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _frozen(value):
    """``value`` with lists as tuples (a frozen instance holds no mutable list)."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


@dataclass(frozen=True)
class Settings:
    """Base of every experiment's settings (see the module docstring for the API)."""

    #: experiment name: ``ctxsim run NAME``, ``configs/NAME.toml``
    NAME: ClassVar[str] = ""
    #: comment atop the generated ``configs/NAME.toml`` (lines, no ``#``)
    HEADER: ClassVar[str] = ""
    #: where the paper reports the setting of the fields declared ``paper=True``
    #: (:meth:`paper_setting`); empty when it reports none
    PAPER_SOURCE: ClassVar[str] = ""

    # -- the fields --------------------------------------------------------------
    @classmethod
    def specs(cls) -> list[tuple[dataclasses.Field, dict]]:
        """``(field, metadata)`` of every declared setting, in declaration order."""
        return [(f, f.metadata["setting"]) for f in dataclasses.fields(cls)
                if "setting" in f.metadata]

    @classmethod
    def toml_keys(cls) -> list[str]:
        """The keys of the shipped TOML tables."""
        return [f.name for f, m in cls.specs() if m["toml"]]

    @classmethod
    def option_of(cls, name: str) -> str | None:
        """The command-line flag of field ``name`` (None: no option)."""
        m = {f.name: m for f, m in cls.specs()}[name]
        if m["option"] is True:
            return "--" + name.replace("_", "-")
        return m["option"] or None

    @classmethod
    def options(cls) -> dict[str, str]:
        """flag -> field name, for every field with an option."""
        return {cls.option_of(f.name): f.name for f, _ in cls.specs()
                if cls.option_of(f.name)}

    @classmethod
    def default_of(cls, name: str):
        """The declared default of field ``name`` (as a TOML value: lists)."""
        (f,) = [f for f, _ in cls.specs() if f.name == name]
        return _plain(f.default if f.default is not MISSING else f.default_factory())

    # -- TOML --------------------------------------------------------------------
    #: table -> when ``--quick`` reads it instead of ``[quick]`` (words for the help;
    #: a subclass with further tables names them, e.g. ``{"llm_quick": "with
    #: --backend llm"}``)
    TABLE_WHEN: ClassVar[dict[str, str]] = {}

    @classmethod
    def quick_help(cls) -> str:
        """The ``--quick`` help, generated from the class's ``--quick`` values (and
        those of the tables :data:`TABLE_WHEN` names), so it cannot go stale:
        ``"small, fast version: seeds=2, queries=15; with --backend llm:
        loca_growth=8,000 ... (options given explicitly win; default: off)"``."""
        def values(section: str) -> str:
            out = []
            for f, m in cls.specs():
                v = (m["quick"] if section == "quick" else
                     m["tables"].get(section, _NO_QUICK))
                if v is not _NO_QUICK:
                    out.append(f"{f.name}={fmt_default(_plain(v))[len('default: '):]}")
            return ", ".join(out)

        parts = [values("quick")] + [f"{when}: {values(t)}"
                                     for t, when in cls.TABLE_WHEN.items()]
        return (f"small, fast version: {'; '.join(parts)} (options given explicitly "
                "win; default: off)")

    @classmethod
    def add_run_arguments(cls, parser, out_help: str = "output directory (default: "
                          "%(default)s)", quick_help: str | None = None) -> None:
        """The run options (:data:`RUN_OPTIONS`): ``--out``, ``--quick``,
        ``--no-progress`` and, for a class with TOML keys, ``--config FILE``."""
        from experiments.arguments import add_no_progress

        parser.add_argument("--out", default="figures", help=out_help)
        parser.add_argument("--quick", action="store_true", help=quick_help or (
            "small, fast version: changes the defaults of options not given "
            "explicitly (explicit options always win)"))
        add_no_progress(parser)
        if cls.toml_keys():
            from experiments.config import add_config_argument

            add_config_argument(parser, cls.NAME)

    @classmethod
    def sections(cls) -> list[str]:
        """The shipped tables: ``default``, ``quick`` (when a field has a quick
        value) and every table a field's ``tables=`` names, in that order."""
        out = ["default"]
        if any(m["quick"] is not _NO_QUICK for _, m in cls.specs()):
            out.append("quick")
        for _, m in cls.specs():
            out += [t for t in m["tables"] if t not in out]
        return out

    @classmethod
    def overrides(cls, section: str) -> dict:
        """The keys table ``section`` sets over ``[default]`` (as TOML values)."""
        out = {}
        for f, m in cls.specs():
            if not m["toml"]:
                continue
            if section == "default":
                out[f.name] = cls.default_of(f.name)
            elif section == "quick" and m["quick"] is not _NO_QUICK:
                out[f.name] = _plain(m["quick"])
            elif section in m["tables"]:
                out[f.name] = _plain(m["tables"][section])
        return out

    @classmethod
    def table(cls, section: str = "default") -> dict:
        """The values of shipped table ``section`` (``[default]`` under it), as a
        dict of TOML keys (lists, not tuples).

        Raises:
            KeyError: naming the section and the known ones.
        """
        if section not in cls.sections():
            raise KeyError(f"config {cls.NAME!r} has no section {section!r}; "
                           f"known: {sorted(cls.sections())}")
        return {**cls.overrides("default"), **cls.overrides(section)}

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """TOML key -> its check (:class:`Check`, :class:`ListOf` or a lazy one)."""
        return {f.name: m["check"] for f, m in cls.specs()
                if m["toml"] and m["check"] is not None}

    @classmethod
    def validate(cls, config: dict, source: str = "the shipped config",
                 given=frozenset(), section: str = "default") -> dict:
        """Check ``config`` (TOML keys) field by field, then :meth:`check_config`;
        return it with token counts written as strings converted in place.

        Raises:
            ConfigValueError: naming the key, the bad value, what was expected and
                ``source``.
        """
        from experiments.settings.checks import check_value

        for key, check in cls.schema().items():
            if key in config:
                config[key] = check_value(key, config[key], as_check(check), source)
        cls.check_config(config, source, given, section)
        return config

    @classmethod
    def check_config(cls, config: dict, source: str, given, section: str) -> None:
        """Cross-key checks of a whole table (a subclass's; the base has none).
        ``given``: the keys ``source`` set (see :func:`experiments.config._where`)."""

    @classmethod
    def load(cls, section: str = "default", path=None) -> dict:
        """Table ``section`` with a user's TOML file ``path`` layered over it
        (:func:`experiments.config.load_config`)."""
        from experiments.config import layer_user_file

        if path is None:
            return cls.validate(cls.table(section))
        shipped = {s: cls.overrides(s) for s in cls.sections()}
        return layer_user_file(cls.NAME, shipped, section, path, cls.validate)

    @classmethod
    def toml_text(cls) -> str:
        """The text of the shipped ``configs/NAME.toml`` (generated; see the module
        docstring)."""
        lines = [f"# {line}".rstrip() for line in cls.HEADER.strip().splitlines()]
        lines += ["#", "# Generated from the settings class (experiments/settings) by "
                  "`python -m experiments.settings", "# write`: edit the class, not this "
                  "file. Copy it to pass your own values with --config."]
        notes = {f.name: m["note"] for f, m in cls.specs()}
        for section in cls.sections():
            lines += ["", f"[{section}]"]
            # the notes once, in [default]; the other tables only name values
            lines += [toml_line(key, value, notes[key] if section == "default" else None)
                      for key, value in cls.overrides(section).items()]
        return "\n".join(lines) + "\n"

    # -- command line ------------------------------------------------------------
    @classmethod
    def add_arguments(cls, parser, only=None) -> None:
        """Add one option per field with an option (``only``: these field names, in
        this order). TOML keys default to None (so ``--config`` and ``--quick`` may
        set them; :meth:`from_args` resolves); a command-line-only field defaults to
        its declared value."""
        from experiments.arguments import Distinct

        specs = {f.name: (f, m) for f, m in cls.specs()}
        for name in (only or list(specs)):
            f, m = specs[name]
            flag = cls.option_of(name)
            if not flag:
                continue
            full = cls.default_of(name)
            quick = None if m["quick"] is _NO_QUICK else _plain(m["quick"])
            text = fmt_default(full, quick)
            # a help that words its default itself ("default: medium; ...") keeps it;
            # a callable help is read now (it names a registry's members)
            raw = m["help"]() if callable(m["help"]) else m["help"]
            help_ = (raw.replace("{default}", text) if "{default}" in raw
                     else raw if "default" in raw else f"{raw} ({text})")
            kwargs: dict[str, Any] = dict(help=help_, dest=name)
            if m["action"]:
                kwargs.update(action=m["action"])
                if m["action"] == "store_true":
                    kwargs["default"] = False
                kwargs.update(m["argparse"])
                parser.add_argument(flag, **kwargs)
                continue
            check = None if m["check"] is None else as_check(m["check"])
            item = check.item_check() if isinstance(check, ListOf) else check
            # the option's converter: the field's own, else its value check's
            parse = m["parse"] or (item.parse if item is not None else None)
            is_list = isinstance(check, ListOf) or isinstance(full, list)
            if parse is not None:
                kwargs["type"] = parse
            if m["choices"] is not None:
                kwargs["choices"] = m["choices"]
            if is_list:
                kwargs.update(nargs="+", action=Distinct)
            # None: "not given", resolved by from_args (a TOML key, a --quick value)
            kwargs["default"] = None if m["toml"] or quick is not None else full
            if m["metavar"]:
                kwargs["metavar"] = m["metavar"]
            kwargs.update(m["argparse"])
            parser.add_argument(flag, **kwargs)

    @classmethod
    def parser_defaults(cls) -> dict[str, tuple[str, Any]]:
        """argparse dest -> ``(flag, value when not given)`` of every option
        :meth:`add_arguments` adds (run options included where the class adds them),
        in its ``--help`` order: read from a parser built here, so a flag map that
        refuses options given in the wrong mode cannot drift from the declarations
        (:func:`experiments.arguments.given_flags` takes the two halves)."""
        import argparse

        parser = argparse.ArgumentParser(add_help=False)
        cls.add_arguments(parser)
        return {a.dest: (a.option_strings[-1], a.default) for a in parser._actions
                if a.option_strings}

    @classmethod
    def from_args(cls, args, section: str | None = None):
        """The settings ``args`` (an argparse Namespace) ask for: an option given
        (not None) wins; else the ``section`` table (default ``[quick]`` under
        ``--quick``, else ``[default]``) with ``--config FILE``'s keys over it.

        Raises:
            ConfigValueError: a bad ``--config`` file (:meth:`load`).
            UsageError: a combination :meth:`finish` refuses.
        """
        if section is None:
            section = "quick" if getattr(args, "quick", False) else "default"
        values = cls.load(section, getattr(args, "config", None)) if cls.toml_keys() else {}
        for f, m in cls.specs():
            given = getattr(args, f.name, None) if cls.option_of(f.name) else None
            if given is not None:
                values[f.name] = given
            elif f.name in values:   # the table's (TOML keys)
                continue
            elif section == "quick" and m["quick"] is not _NO_QUICK:
                values[f.name] = _plain(m["quick"])
            else:
                values[f.name] = cls.default_of(f.name)
        values = cls.finish(values, args)
        return cls.build(values)

    @classmethod
    def finish(cls, values: dict, args) -> dict:
        """A subclass's last word on the resolved values (derived fields, refused
        combinations); the base returns them unchanged."""
        return values

    @classmethod
    def build(cls, values: dict):
        """An instance from field values (lists frozen to tuples; unknown keys are a
        ``TypeError``)."""
        return cls(**{k: _frozen(v) for k, v in values.items()})

    @classmethod
    def from_record(cls, record: dict):
        """The settings a sidecar's ``config`` record describes (:meth:`record`): its
        keys that are fields (a dict, such as ``world``, as sorted pairs); other keys
        (derived values, an older sidecar's extras) are ignored, a missing field
        takes its default."""
        names = {f.name for f, _ in cls.specs()}
        return cls.build({k: tuple(sorted(v.items())) if isinstance(v, dict) else v
                          for k, v in record.items() if k in names})

    # -- the record ----------------------------------------------------------------
    def record(self) -> dict:
        """The sidecar record: every field (tuples as lists), then
        :meth:`extra_record`."""
        out = {f.name: _plain(getattr(self, f.name)) for f, _ in self.specs()}
        out.update(self.extra_record())
        return out

    def extra_record(self) -> dict:
        """Values derived from the fields that the sidecar also records (a
        subclass's; the base has none)."""
        return {}

    @classmethod
    def paper(cls) -> dict:
        """The paper's setting: field -> its declared default, for every field declared
        ``paper=True``, and ``"source"``: :data:`PAPER_SOURCE`.

        Raises:
            KeyError: when the class declares no field ``paper=True``.
        """
        out = {f.name: cls.default_of(f.name) for f, m in cls.specs() if m["paper"]}
        if not out:
            raise KeyError(f"{cls.NAME!r} declares no paper setting")
        return {**out, "source": cls.PAPER_SOURCE}

    def paper_setting(self) -> dict:
        """The sidecar record of the paper's setting: ``{"paper": the setting
        (:meth:`paper`), "at_paper_setting": bool, "differs": {field: [ours,
        paper]}}``."""
        paper = self.paper()
        differs = {k: [_plain(getattr(self, k)), v] for k, v in paper.items()
                   if k != "source" and _plain(getattr(self, k)) != v}
        return {"paper": paper, "at_paper_setting": not differs, "differs": differs}
