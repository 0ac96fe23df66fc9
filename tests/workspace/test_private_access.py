"""No module reads or writes a workspace's private attributes but the class itself
(issue 36: one field, one name). Every attribute access in ``sim/`` and
``experiments/`` is read with :mod:`ast`; an access ``X._name`` where ``_name`` is a
private attribute of :class:`~sim.workspace.Workspace` (its class or a fresh
instance) and ``X`` is not ``self`` is a violation outside
``sim/workspace/workspace.py``. ``self`` (or ``super()``) is the object's own: the
class, its mixin (``durability.py``) and a subclass (``memory.py``'s scratch workspace) reach their
own state that way. Tests are not scanned: white-box tests of the guard count its
measures through ``_measure_with`` on purpose.

What the ``Durable`` mixin (``sim/workspace/durability.py``) shares with
``workspace.py`` through ``self``: the writer lock ``_lock`` and ``_lock_token`` (taken
by ``Workspace._acquire_lock``, released by ``Durable.close``), ``_temporary`` (the
directory of a ``directory=None`` workspace, made in ``Workspace.__init__``, removed
by ``close``) and ``_reserved`` (the durable id bound: 0 on open, raised by
``Durable._reserve``); and the mixin's own ``_commit``, ``_apply``, ``_checkpoint``,
``_check_writer`` and ``_reserve``, which ``workspace.py``'s operations call. That
is allowed: the mixin is not a client but a part of the one class, split off by
job (the durable side: journal, checkpoint, lock, close) so each file stays small;
at run time both halves are one object's methods, and ``self`` is that object.
"""

import ast
import re
from pathlib import Path

from sim.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
OWNER = ROOT / "sim" / "workspace" / "workspace.py"
#: the state record's former private aliases: gone, ``ws.state.<field>`` is the name
ALIASES = ("_refs", "_by_sha", "_call_owner", "_next_block", "_next_group")


def private_names(tmp: Path) -> set[str]:
    """Private (single underscore) attributes of the class and of a new instance."""
    ws = Workspace(tmp / "w", tokenizer="char")
    try:
        names = set(dir(Workspace)) | set(vars(ws))
    finally:
        ws.close()
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def own(node: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the object's own attribute."""
    if isinstance(node, ast.Call):
        node = node.func if not node.args else None
        return isinstance(node, ast.Name) and node.id == "super"
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def violations(paths, names: set[str], root: Path = ROOT) -> list[str]:
    """``path:line X._name`` (path below ``root``) for each access to one of
    ``names`` not through self."""
    bad = []
    # only a file that names one of them after a dot can access one (parsing all of
    # them costs seconds); the AST then tells ``self._x`` from ``ws._x``
    named = re.compile(r"\.(%s)\b" % "|".join(map(re.escape, sorted(names))))
    for path in paths:
        text = path.read_text()
        if not named.search(text):
            continue
        tree = ast.parse(text, str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in names and not own(
                    node.value):
                bad.append(f"{path.relative_to(root)}:{node.lineno} "
                           f"{ast.unparse(node)}")
    return bad


def scanned() -> list[Path]:
    return [p for top in ("sim", "experiments")
            for p in sorted((ROOT / top).rglob("*.py")) if p != OWNER]


def test_no_private_workspace_attribute_is_used_outside_the_class(tmp_path):
    names = private_names(tmp_path)
    assert {"_apply", "_commit", "_admit", "_lock", "_reserved"} <= names  # it sees them
    assert violations(scanned(), names) == []


def test_the_check_finds_a_planted_access(tmp_path):
    """The scan is not vacuous: a module reaching into a workspace is named."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f(ws, self):\n    self._apply({})\n    return ws._reserved\n")
    found = violations([bad], private_names(tmp_path), tmp_path)
    assert len(found) == 1 and found[0] == "bad.py:3 ws._reserved"


def test_the_state_aliases_are_gone():
    for name in ALIASES:
        assert not hasattr(Workspace, name), name
    hits = [f"{p.relative_to(ROOT)}: {name}" for p in sorted(ROOT.rglob("*.py"))
            if ".git" not in p.parts for name in ALIASES
            if f"._{name[1:]}" in p.read_text() and p != Path(__file__).resolve()]
    assert hits == []
