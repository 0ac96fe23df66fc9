"""Typed program knobs (issue 36): every built-in program declares its knobs as a
frozen dataclass with help, source and range; a bad knob is refused naming it and
the allowed ones or its range, on both sides of each boundary; the plugin forms of
docs/plugins.md (the typed one and the older ``DEFAULTS`` dict) keep working."""

from __future__ import annotations

import dataclasses
import pathlib
import pickle
import re
import sys

import pytest

from sim.policies import PROGRAMS, make_program
from sim.policies.base import ContextProgram
from sim.policies.knobs import ProgramKnobs, describe, knob

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _classes():
    return sorted({cls for cls, _ in PROGRAMS.values()}, key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", _classes(), ids=lambda c: c.__name__)
def test_every_builtin_knob_is_typed_documented_and_its_default_allowed(cls):
    assert dataclasses.is_dataclass(cls.Knobs) and cls.Knobs.__dataclass_params__.frozen
    assert "DEFAULTS" not in vars(cls)          # one declaration: the dataclass
    for row in describe(cls.Knobs):
        assert row["help"] and row["source"], row
        d = row["default"]
        if isinstance(d, (int, float)) and not isinstance(d, bool):
            assert (row["low"] is None or row["low"] <= d) and \
                (row["high"] is None or d <= row["high"]), row
    # the defaults build, and the instance reads them through .knobs
    prog = cls()
    assert prog.knobs == cls.Knobs()
    for f in dataclasses.fields(cls.Knobs)[:1]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(prog.knobs, f.name, None)


def test_registered_overrides_reach_the_program():
    """The registry's knob overrides against the registry table, read back typed."""
    for name, (cls, over) in PROGRAMS.items():
        prog = make_program(name)
        assert type(prog) is cls
        assert prog.knobs == dataclasses.replace(cls.Knobs(), **over), name
    assert make_program("vista_bounded_ledger").dashboard == "bounded_ledger:400"
    assert make_program("masking_openhands").knobs.window == 100


def test_builtin_defaults_are_the_sources_values_and_the_grammar_reads_them():
    """The defaults against the numbers their sources state (module docstrings of
    sim/policies), and ContextEvo's grammar (sim/evolve/contextevo/spec.py) reading
    each mechanism's defaults from the program that implements it."""
    from sim.evolve.contextevo.spec import MECHANISMS

    assert make_program("masking").knobs.window == 10            # Complexity Trap M=10
    assert make_program("masking_openhands").knobs.window == 100  # OpenHands
    c = make_program("clearing").knobs                            # Anthropic
    assert (c.trigger, c.keep, c.fraction, c.placeholder) == (100_000, 3, None, True)
    loca = make_program("clearing_loca").knobs                    # LOCA-bench reset
    assert (loca.fraction, loca.placeholder) == (0.5, False)
    assert make_program("summarization").knobs.keep_last == 20    # LangChain
    a = make_program("auto_archive").knobs
    assert (a.trigger, a.target, a.keep) == (0.8, 0.5, 3)         # VISTA §3.1
    rep = MECHANISMS["representation_update"]
    assert rep["mask"] == {"window": 10, "marker": "[Old observation omitted]"}
    assert rep["archive_oldest"] == {"to": a.target, "keep": a.keep}
    assert rep["clear"] == {"keep": 3, "fraction": None, "placeholder": True}
    assert MECHANISMS["memory_update"]["notes"] == {"keep_last": 4}
    assert MECHANISMS["request_assembly"]["trim"] == {"trim_to": 1.0}


def test_an_unknown_knob_names_itself_and_the_allowed_ones():
    with pytest.raises(TypeError, match=re.escape(
            "ReAct has no knob(s) ['window']; knobs: ['trim_to']")):
        make_program("react", window=3)
    with pytest.raises(TypeError, match=re.escape("ContextFolding has no knob(s) ['x']; "
                                                  "knobs: []")):
        make_program("folding", x=1)


@pytest.mark.parametrize("program, knob_name, inside, outside, message", [
    ("masking", "window", 0, -1, r"window=-1 is outside its range \[0, 10000\]"),
    ("masking", "window", 10_000, 10_001, r"window=10001 is outside"),
    ("auto_archive", "target", 1.0, 1.01, r"target=1.01 is outside its range "
                                          r"\[0.0, 1.0\]"),
    ("summarization", "max_lines", 1, 0, r"max_lines=0 is outside its range \[1, inf\]"),
    ("react", "trim_to", 0.05, 0.04, r"trim_to=0.04 is outside its range \[0.05, 1.0\]"),
    ("clearing", "fraction", None, 0.0, r"fraction=0.0 is outside"),
    ("clearing", "fraction", 1.0, "half", r"fraction='half': expected a finite number "
                                          r"or None"),
    ("masking", "window", 3, 2.5, r"window=2.5: expected an int"),
    ("masking", "window", 3, True, r"window=True: expected an int"),
    ("vista", "no_archive", True, 1, r"no_archive=1: expected a bool"),
    ("auto_archive", "trigger", 0.8, float("nan"), r"trigger=nan: expected a finite"),
    ("masking", "marker", "[x]", 3, r"marker=3: expected a str"),
])
def test_a_bad_knob_value_is_refused_naming_it_on_each_side(program, knob_name, inside,
                                                            outside, message):
    assert getattr(make_program(program, **{knob_name: inside}).knobs, knob_name) == inside
    with pytest.raises(ValueError, match=message):
        make_program(program, **{knob_name: outside})


def test_a_value_out_of_range_fails_before_any_program_exists():
    """The check is the knobs class's own (no program half-built)."""
    from sim.policies.fixed import MaskingKnobs

    with pytest.raises(ValueError, match="Masking knob window=-2"):
        MaskingKnobs.make("Masking", {"window": -2})
    assert MaskingKnobs.make("Masking", {}) == MaskingKnobs()


def _doc_program(tmp_path, doc: str, name: str):
    """The first python block of ``doc`` holding ``class KeepLast``, as module ``name``."""
    text = (ROOT / "docs" / doc).read_text()
    blocks = re.findall(r"```(?:python|\{code-cell\} ipython3)\n(.*?)```", text, re.S)
    code = next(b for b in blocks if "class KeepLast" in b)
    code = code.replace("%%writefile keep_last.py\n", "")
    (tmp_path / f"{name}.py").write_text(code)
    sys.path.insert(0, str(tmp_path))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(tmp_path))


@pytest.mark.parametrize("doc", ["plugins.md", "tutorial.md"])
def test_the_documented_plugin_program_runs_with_typed_knobs(tmp_path, doc):
    """The KeepLast of the docs: typed knobs, refused bad knobs, a pickled copy (a
    --jobs worker) and the plugin check episode."""
    from sim import plugins

    name = f"doc_keep_last_{doc.split('.')[0]}"
    mod = _doc_program(tmp_path, doc, name)
    sys.modules[name] = mod
    try:
        prog = mod.KeepLast(keep=2)
        assert prog.knobs.keep == 2 and mod.KeepLast().knobs.keep == 4
        assert pickle.loads(pickle.dumps(prog)).knobs == prog.knobs
        with pytest.raises(TypeError, match=r"KeepLast has no knob\(s\) \['kep'\]; "
                                            r"knobs: \['keep'\]"):
            mod.KeepLast(kep=1)
        with pytest.raises(ValueError, match=r"KeepLast knob keep=-1 is outside its "
                                             r"range \[0, inf\]"):
            mod.KeepLast(keep=-1)
        plugins.check_program(f"{name}:KeepLast")      # plays one episode, checked
    finally:
        plugins.forget_module(name)
        sys.modules.pop(name, None)


class OldStyle(ContextProgram):
    """The older plugin form: a DEFAULTS dict, knobs read as attributes."""

    DEFAULTS = {"keep": 4, "label": None}


class OldStyleChild(OldStyle):
    DEFAULTS = {"keep": 2}


def test_the_older_defaults_form_still_works():
    prog = OldStyle(keep=7)
    assert (prog.keep, prog.label) == (7, None) and prog.knobs.keep == 7
    assert repr(prog) == "OldStyle(keep=7, label=None)"
    assert pickle.loads(pickle.dumps(prog)).keep == 7
    assert OldStyleChild().keep == 2
    with pytest.raises(AttributeError):
        OldStyleChild().label                  # its own DEFAULTS replace the parent's
    with pytest.raises(TypeError, match=re.escape("OldStyle has no knob(s) ['kep']; "
                                                  "knobs: ['keep', 'label']")):
        OldStyle(kep=1)
    with pytest.raises(AttributeError):
        make_program("react").trim_to          # a typed program: knobs via .knobs only


def test_describe_lists_a_users_knobs_as_declared():
    @dataclasses.dataclass(frozen=True)
    class K(ProgramKnobs):
        keep: int = knob(4, "kept", low=0, unit="results", source="mine")
        share: float | None = knob(None, "a share", low=0.0, high=1.0, none_ok=True,
                                   source="mine")

    assert describe(K) == [
        {"name": "keep", "default": 4, "type": "int", "low": 0, "high": None,
         "unit": "results", "help": "kept", "source": "mine"},
        {"name": "share", "default": None, "type": "float", "low": 0.0, "high": 1.0,
         "unit": "", "help": "a share", "source": "mine"}]
    assert K.make("K", {"share": None}) == K()
