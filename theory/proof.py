"""Proof records: what a symbolic check established, step by step.

A check builds a statement with sympy, proves each step (an identity simplifies to
zero, an inequality's slack is shown non-negative on its domain, a limit evaluates
without an unevaluated ``Limit``), then spot-checks the same expressions
numerically with ``sympy.lambdify`` on a grid against an independent numeric
route. Any failed step raises :class:`ProofError` naming the step.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import sympy as sp


class ProofError(AssertionError):
    """A step of a symbolic check failed; the message names the result and step."""


@dataclasses.dataclass
class Step:
    """One proved step: a short description and the sympy object that shows it."""

    description: str
    evidence: str


@dataclasses.dataclass
class ProofRecord:
    """The outcome of one check.

    Attributes:
        result: the result's name, e.g. ``"Theorem 1 (list-Fano)"``.
        source: where it is stated (paper, section, equation).
        statement: the statement as a sympy expression or relation (printable).
        steps: the symbolic steps proved, in order.
        numeric: ``{name: (points checked, max abs error, tolerance)}`` of the spot checks.
    """

    result: str
    source: str
    statement: sp.Basic | str
    steps: list[Step] = dataclasses.field(default_factory=list)
    numeric: dict[str, tuple[int, float, float]] = dataclasses.field(default_factory=dict)

    def step(self, description: str, evidence) -> None:
        """Record a proved step."""
        self.steps.append(Step(description, str(evidence)))

    def summary(self) -> str:
        """One line: result, number of symbolic steps and numeric points."""
        points = sum(n for n, _, _ in self.numeric.values())
        worst = max((e for _, e, _ in self.numeric.values()), default=0.0)
        return (f"{self.result}: {len(self.steps)} symbolic steps, "
                f"{points} numeric points (max err {worst:.1e}) [{self.source}]")


def prove_zero(record: ProofRecord, expr: sp.Expr, description: str) -> None:
    """Prove ``expr == 0`` identically (``simplify``); raise ProofError otherwise."""
    simplified = sp.simplify(expr)
    if simplified != 0:
        raise ProofError(f"{record.result}: step '{description}' failed: "
                         f"expression simplifies to {simplified}, not 0")
    record.step(description, f"simplify({expr}) == 0")


def _prove_sign(record: ProofRecord, expr: sp.Expr, description: str,
                substitutions: Mapping[sp.Symbol, sp.Expr] | None, strict: bool) -> None:
    """Prove ``expr > 0`` (strict) or ``expr >= 0`` from the symbol assumptions."""
    attribute, relation = ("is_positive", ">") if strict else ("is_nonnegative", ">=")
    raw = sp.sympify(expr).subs(substitutions or {})
    # The form as written comes first: simplify can turn a decidable log(1 + x) into
    # an undecidable log((d + m)/d); factor/expand sometimes expose the sign instead.
    for form in (raw, sp.simplify(raw), sp.factor(raw), sp.expand(raw), sp.together(raw)):
        if getattr(form, attribute) is True:
            record.step(description, f"{form} {relation} 0")
            return
    raise ProofError(f"{record.result}: step '{description}' failed: cannot show "
                     f"{raw} {relation} 0 from the symbol assumptions")


def prove_nonnegative(record: ProofRecord, expr: sp.Expr, description: str,
                      substitutions: Mapping[sp.Symbol, sp.Expr] | None = None) -> None:
    """Prove ``expr >= 0`` under the assumptions of its symbols.

    ``substitutions`` reparametrise the domain (e.g. ``t -> 1 + u`` with ``u``
    non-negative) so sympy's assumption system can decide the sign; the
    substituted expression must be provably non-negative (``is_nonnegative``), or
    the step fails with :class:`ProofError`.
    """
    _prove_sign(record, expr, description, substitutions, strict=False)


def prove_positive(record: ProofRecord, expr: sp.Expr, description: str,
                   substitutions: Mapping[sp.Symbol, sp.Expr] | None = None) -> None:
    """Prove ``expr > 0`` under the assumptions of its symbols (as
    :func:`prove_nonnegative`). Needed where a quantity is divided by (``log2(n/m)``
    with m < n): non-negativity would not license the division."""
    _prove_sign(record, expr, description, substitutions, strict=True)


def prove_all_zero(record: ProofRecord, exprs: Iterable[sp.Expr], description: str) -> None:
    """Prove every expression in ``exprs`` is identically 0 (``expand`` then ``simplify``).

    One step for a family of instances (e.g. one identity per support size), so a
    record does not list dozens of near-identical steps. Raises :class:`ProofError`
    at the first instance that does not reduce to 0, or if there are none.
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


def spot_check(record: ProofRecord, name: str, symbols: Sequence[sp.Symbol],
               expr: sp.Expr, reference: Callable[..., float],
               grid: Mapping[sp.Symbol, Iterable[float]] | Iterable[Sequence[float]],
               tol: float, relative: bool = False) -> None:
    """Evaluate ``expr`` (lambdified) against ``reference`` at every grid point.

    ``grid`` is either a mapping symbol -> values (its Cartesian product is used)
    or an iterable of points ordered like ``symbols``. Points where ``expr`` is
    not finite are an error, not skipped. Raises ProofError with the worst point
    if any error exceeds ``tol`` (absolute, or relative to ``|reference|``).
    """
    f = sp.lambdify(list(symbols), expr, modules=["numpy", "scipy"])
    if isinstance(grid, Mapping):
        points = list(itertools.product(*(list(grid[s]) for s in symbols)))
    else:
        points = [tuple(p) for p in grid]
    if not points:
        raise ProofError(f"{record.result}: spot check '{name}' has an empty grid")
    worst, worst_point = 0.0, None
    for point in points:
        got = float(f(*point))
        want = float(reference(*point))
        if not (np.isfinite(got) and np.isfinite(want)):
            raise ProofError(f"{record.result}: spot check '{name}' not finite at "
                             f"{dict(zip(map(str, symbols), point))}: {got} vs {want}")
        err = abs(got - want) / (max(abs(want), 1e-300) if relative else 1.0)
        if err > worst:
            worst, worst_point = err, point
    if worst > tol:
        raise ProofError(f"{record.result}: spot check '{name}' error {worst:.3g} > tol "
                         f"{tol:.3g} at {dict(zip(map(str, symbols), worst_point))}")
    record.numeric[name] = (len(points), worst, tol)


def check_inequality_on_grid(record: ProofRecord, name: str, symbols: Sequence[sp.Symbol],
                             lhs: sp.Expr, rhs: sp.Expr,
                             points: Iterable[Sequence[float]], tol: float = 0.0) -> None:
    """Numerically confirm ``lhs <= rhs + tol`` at every point (a spot check of an
    inequality the symbolic steps proved). Raises ProofError at the first violation."""
    f = sp.lambdify(list(symbols), lhs - rhs, modules=["numpy", "scipy"])
    n, worst = 0, -np.inf
    for point in points:
        gap = float(f(*point))
        if not np.isfinite(gap):
            raise ProofError(f"{record.result}: '{name}' not finite at {point}")
        if gap > tol:
            raise ProofError(f"{record.result}: '{name}' violated at "
                             f"{dict(zip(map(str, symbols), point))}: lhs - rhs = {gap:.3g}")
        worst = max(worst, gap)
        n += 1
    if n == 0:
        raise ProofError(f"{record.result}: '{name}' has an empty grid")
    record.numeric[name] = (n, max(worst, 0.0), tol)
