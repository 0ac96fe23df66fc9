"""Proof steps that :mod:`theory.proof` does not provide, in the same style.

Each helper either records a step on the :class:`~theory.proof.ProofRecord` or
raises :class:`~theory.proof.ProofError` naming the result and the step.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import sympy as sp

from theory.proof import ProofError, ProofRecord


def prove_positive(record: ProofRecord, expr: sp.Expr, description: str,
                   substitutions: Mapping[sp.Symbol, sp.Expr] | None = None) -> None:
    """Prove ``expr > 0`` from the symbol assumptions (after ``substitutions``).

    Needed where a quantity is divided by (``log2(n/m)`` with m < n): non-negativity,
    which is all ``prove_nonnegative`` shows, would not license the division.
    """
    target = sp.sympify(expr).subs(substitutions or {})
    for form in (target, sp.simplify(target), sp.factor(target), sp.expand(target)):
        if form.is_positive is True:
            record.step(description, f"{form} > 0")
            return
    raise ProofError(f"{record.result}: step '{description}' failed: cannot show "
                     f"{target} > 0 from the symbol assumptions")


def prove_all_zero(record: ProofRecord, exprs: Iterable[sp.Expr], description: str) -> None:
    """Prove every expression in ``exprs`` is identically 0 (``expand`` then ``simplify``).

    One step for a family of instances (e.g. one identity per support size), so a
    record does not list dozens of near-identical steps.
    """
    count = 0
    for expr in exprs:
        reduced = sp.expand(expr)
        if reduced != 0:
            reduced = sp.simplify(reduced)
        if reduced != 0:
            raise ProofError(f"{record.result}: step '{description}' failed at instance "
                             f"{count}: {expr} reduces to {reduced}, not 0")
        count += 1
    if count == 0:
        raise ProofError(f"{record.result}: step '{description}' has no instances")
    record.step(description, f"{count} instances reduce to 0")
