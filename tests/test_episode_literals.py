"""Every number that changes an episode is in the world table or explained (issue 31,
"Every number in the table").

The checker reads the episode-changing code with :mod:`ast` and lists every numeric
literal in it; each must be explained by an entry of
:data:`tests.episode_literals_allowed.ALLOWED` (file, scope, value, kind, reason), or
be one of the forms that are explained where they stand:

* a literal inside ``world_param(...)`` (a row of the world table: default, prior
  range, unit, source) or ``knob(...)`` / ``trigger_knob(...)`` / ``_flag(...)`` (a
  program's own setting, with its source; a program's knobs are what defines that
  program, not a property of the world it runs in);
* a keyword argument of ``Profile(...)``, ``TaskParams(...)`` or ``BrowseParams(...)``:
  a named point of the world table (``tests/test_world.py`` checks each lies inside
  the prior);
* a constant subscript (``row[2]``): a position in a record, not a quantity;
* the trivial values 0 and 1 (and -1): empty, identity, a count's step, an index's
  end, a boolean-like flag. 2 is *not* trivial: "half", "twice" and "two of" are
  quantities whose choice changes an episode, so each use of 2 is explained too.

The walked set (:data:`WALKED`) is the code one synthetic episode runs: the synthetic
agent and its profile, every context program, every task generator, the harness
loop, the episode set-up, the program context and the cost ledger. Left out, and why:
the workspace (``sim/workspace``: the system under test, whose format constants are
its specification, pinned by its own tests), the LLM agent (``sim/agents/llm*``: a
real model's request settings, not the simulated world), the theory games
(``sim/games``: no episode), the evolution loops (``sim/evolve``: they choose
programs, whose knobs are declared) and the sweeps (``experiments``: their settings
are declared ``paper=True`` fields recorded in the sidecars).

An entry names its scope (the enclosing ``Class.function``, ``<module>`` at top
level), so the same value used for another purpose elsewhere in the file is a new,
unexplained literal; an entry no literal matches any more is stale and fails too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.episode_literals_allowed import ALLOWED, KINDS

ROOT = Path(__file__).resolve().parents[1]
#: the episode-changing code (see the module doc for what is left out and why)
WALKED = ("sim/agents/synthetic.py", "sim/agents/profiles.py", "sim/policies/*.py",
          "sim/tasks/*.py", "sim/harness.py", "sim/episode.py", "sim/program_context.py",
          "sim/cost.py")
#: calls whose literals are declared where they stand (a world row, a program knob)
DECLARED = frozenset({"world_param", "knob", "trigger_knob", "_flag"})
#: constructors whose keyword literals are named points of the world table
POINTS = frozenset({"Profile", "TaskParams", "BrowseParams"})
TRIVIAL = frozenset({0, 1, -1})


def walked_files(root: Path | None = None) -> list[str]:
    """The walked modules under ``root`` (default: the repository), as
    repository-relative posix paths, sorted."""
    root = ROOT if root is None else root
    out = set()
    for pattern in WALKED:
        out.update(p.relative_to(root).as_posix() for p in root.glob(pattern))
    return sorted(out)


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _number(node: ast.expr):
    """The number a literal node spells (``-3`` is one literal), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _number(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


class _Literals(ast.NodeVisitor):
    def __init__(self):
        self.scope: list[str] = []
        self.found: dict[tuple[str, object], list[int]] = {}

    def _scoped(self, node):
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Call(self, node: ast.Call):
        name = _name(node.func)
        if name in DECLARED:
            return
        if name in POINTS:
            self.visit(node.func)
            for a in node.args:
                self.visit(a)
            for kw in node.keywords:
                if _number(kw.value) is None:
                    self.visit(kw.value)
            return
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript):
        self.visit(node.value)
        if _number(node.slice) is None:
            self.visit(node.slice)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        if _number(node) is not None:
            self._record(_number(node), node)
        else:
            self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant):
        if _number(node) is not None:
            self._record(node.value, node)

    def _record(self, value, node):
        if value in TRIVIAL:
            return
        scope = ".".join(self.scope) or "<module>"
        self.found.setdefault((scope, value), []).append(node.lineno)


def literals(source: str) -> dict[tuple[str, object], list[int]]:
    """``{(scope, value): [line, ...]}`` of the non-trivial numeric literals of
    ``source`` (Python text) outside the forms the module doc exempts."""
    v = _Literals()
    v.visit(ast.parse(source))
    return v.found


def _key(value) -> tuple[str, float]:
    # 12 and 12.0 are one number; the type is kept apart so that an entry says
    # exactly what the code spells
    return (type(value).__name__, float(value))


def unexplained(path: str, found: dict, allowed=ALLOWED) -> list[str]:
    """One line per literal of ``found`` (from :func:`literals` of the file ``path``)
    that no entry of ``allowed`` explains."""
    ok = {(e[0], e[1], _key(e[2])) for e in allowed}
    return [f"{path}:{lines[0]} {scope} {value!r}"
            for (scope, value), lines in sorted(found.items(), key=lambda t: t[1][0])
            if (path, scope, _key(value)) not in ok]


def all_found(root: Path | None = None) -> dict[str, dict]:
    """``{path: literals(file)}`` for every walked module under ``root``."""
    root = ROOT if root is None else root
    return {path: literals((root / path).read_text(encoding="utf-8"))
            for path in walked_files(root)}


HOW = ("a numeric literal that changes an episode must be a world parameter "
       "(sim/world_param.py world_param on a dataclass field, with a prior and a "
       "source) or an entry (file, scope, value, kind, reason) in "
       "tests/episode_literals_allowed.py:\n")


def test_every_episode_literal_is_in_the_table_or_explained():
    bad = [line for path, found in all_found().items()
           for line in unexplained(path, found)]
    assert bad == [], HOW + "\n".join(bad)


def test_no_allowance_outlives_its_literal():
    found = all_found()
    have = {(path, scope, _key(value)) for path, f in found.items() for scope, value in f}
    stale = [e[:3] for e in ALLOWED if (e[0], e[1], _key(e[2])) not in have]
    assert stale == [], f"remove these entries (no such literal any more): {stale}"


def test_every_allowance_names_its_kind_and_reason():
    walked = set(walked_files())
    keys = [(e[0], e[1], _key(e[2])) for e in ALLOWED]
    assert len(keys) == len(set(keys)), "duplicate entries"
    for path, scope, value, kind, reason in ALLOWED:
        assert path in walked, path
        assert kind in KINDS, (path, scope, value, kind)
        assert len(reason.split()) >= 4, (path, scope, value, reason)


def test_the_walked_set_is_what_an_episode_runs():
    files = walked_files()
    for must in ("sim/agents/synthetic.py", "sim/policies/summarize.py",
                 "sim/policies/vista.py", "sim/tasks/loca.py", "sim/tasks/browse.py",
                 "sim/harness.py", "sim/episode.py", "sim/program_context.py",
                 "sim/cost.py"):
        assert must in files
    assert not any(f.startswith(("sim/workspace/", "sim/games/")) for f in files)


STRAY = '''
from sim.world_param import world_param
ROWS = (1, 0, -1)

class Agent:
    rate: float = world_param(0.3, 0.1, 0.9, "p", "guess: x", "doc")

    def act(self, xs, row):
        first = xs[0] + row[2] + len(xs) - 1
        point = Profile("p", sigma=0.6)
        return first * 0.37 + point.sigma

    def also(self):
        return -3, 2 * 1.5, knob(4, "help", source="s")
'''


def test_the_checker_catches_a_stray_literal_and_only_that():
    """On a synthetic source: the stray 0.37, -3, 2 and 1.5 are found with their
    scope; a world row, a knob, a subscript, a table point and 0 / 1 / -1 are not; an
    entry explains exactly its (file, scope, value)."""
    found = literals(STRAY)
    assert set(found) == {("Agent.act", 0.37), ("Agent.also", -3), ("Agent.also", 2),
                          ("Agent.also", 1.5)}
    assert found[("Agent.act", 0.37)] == [11]
    bad = unexplained("x.py", found, allowed=())
    assert len(bad) == 4 and "x.py:11 Agent.act 0.37" in bad
    explained = [("x.py", "Agent.act", 0.37, "format", "a test entry, four words"),
                 ("x.py", "Agent.also", -3, "format", "a test entry, four words"),
                 ("x.py", "Agent.also", 2, "format", "a test entry, four words")]
    assert unexplained("x.py", found, explained) == ["x.py:14 Agent.also 1.5"]
    # the same value in another scope or file is not explained by that entry
    moved = literals(STRAY.replace("first * 0.37", "first").replace(
        "return -3", "return 0.37 + -3"))
    assert unexplained("x.py", moved, explained) == ["x.py:14 Agent.also 0.37",
                                                     "x.py:14 Agent.also 1.5"]
    assert len(unexplained("y.py", found, explained)) == 4


def test_the_real_checker_fails_on_a_new_literal(monkeypatch, tmp_path):
    """Add one stray literal to a copy of a walked module: the real test fails."""
    import shutil

    import tests.test_episode_literals as m

    for path in walked_files():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, tmp_path / path)
    target = tmp_path / "sim/policies/summarize.py"
    target.write_text(target.read_text() + "\n\ndef _extra(x):\n    return x * 0.73\n")
    monkeypatch.setattr(m, "ROOT", tmp_path)
    with pytest.raises(AssertionError, match=r"summarize.py:\d+ _extra 0.73"):
        m.test_every_episode_literal_is_in_the_table_or_explained()
