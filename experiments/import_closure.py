"""The repository files a module runs: its import closure, read from the source with
:mod:`ast` (imports inside functions included), for ``ctxsim figures``' staleness
(:mod:`experiments.figures_cli`, which re-exports :func:`import_closure`)."""

from __future__ import annotations

import ast
import pathlib

from experiments.output import ROOT


def _module_file(module: str, root: pathlib.Path = ROOT) -> pathlib.Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_names(path: pathlib.Path, module: str) -> set[str]:
    """Every module name ``path`` (module ``module``) imports, at any depth of the
    code: ``from a import b`` yields ``a`` and ``a.b`` (``b`` may be a module)."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_closure(module: str, root: pathlib.Path = ROOT,
                   packages: tuple[str, ...] = ("sim", "theory", "experiments")) -> list[str]:
    """The repository files (relative paths) that ``module`` runs: itself, every
    module of ``packages`` it imports transitively, and the ``__init__.py`` of each
    package on the way, in the checkout ``root``. Third-party imports are left out.

    Raises:
        UsageError: if ``module`` is not a file of the checkout."""
    from experiments.arguments import UsageError

    if _module_file(module, root) is None:
        raise UsageError(f"module {module!r} is not in this checkout ({root})")
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen or name.split(".")[0] not in packages:
            continue
        path = _module_file(name, root)
        if path is None:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # parent packages
        todo.extend(imported_names(path, name))
    return sorted(_module_file(m, root).relative_to(root).as_posix() for m in seen)
