"""What the runner reads in a module's source and in the tools' output: the bodies of
numba kernels (cosmic-ray's part), type annotations (never mutated), whether mutmut
has a function to mutate, a mutmut mutant's module and function, a mutant's lines."""

from __future__ import annotations

import ast


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions, (line, column), of every type annotation in ``source``."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        anns = []
        if isinstance(node, ast.arg) and node.annotation is not None:
            anns.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            anns.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            anns.append(node.annotation)
        for a in anns:
            spans.append(((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)))
    return spans


def in_spans(pos: tuple[int, int], spans) -> bool:
    return any(start <= tuple(pos) < end for start, end in spans)


def njit_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of the body of every function decorated with numba's ``njit`` or
    ``jit`` (``@njit``, ``@nb.njit(...)``, ``@numba.jit(...)``)."""
    def is_jit(d):
        f = d.func if isinstance(d, ast.Call) else d
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        return name in ("njit", "jit")

    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any(map(is_jit, node.decorator_list)):
            first = node.body[0]
            spans.append(((first.lineno, first.col_offset),
                          (node.end_lineno, node.end_col_offset)))
    return spans


def mutmut_applicable(source: str) -> bool:
    """Whether mutmut has anything to mutate: a function or method without a
    decorator (mutmut 3 leaves decorated ones, ``@njit`` kernels included, alone)."""
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.decorator_list
               for n in ast.walk(ast.parse(source)))


def mutmut_module(name: str) -> tuple[str, str]:
    """(module path, function) of a mutmut mutant name, e.g.
    ``experiments.claims.rules.x_gap_verdict__mutmut_7`` ->
    ("experiments/claims/rules.py", "x_gap_verdict")."""
    head, sep, _ = name.rpartition("__mutmut_")
    if not sep:
        raise ValueError(f"not a mutmut mutant name: {name!r}")
    module, _, func = head.rpartition(".")
    return module.replace(".", "/") + ".py", func


def mutated_text(diff: str) -> str:
    """The lines a mutant adds (a unified diff's ``+`` lines), stripped, joined by
    newlines: what identifies the mutant inside its function."""
    return "\n".join(line[1:].strip() for line in diff.splitlines()
                     if line.startswith("+") and not line.startswith("+++"))
