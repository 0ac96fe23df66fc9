"""Comparing a committed CSV with its rerun as numbers (``ctxsim figures --verify``,
issue 33).

Byte equality fails on a machine whose floating point rounds differently (a
different CPU, BLAS or compiler): on a fresh clone theorem1's rerun differed in 269
of 2,428 lines, by at most 3.2e-11 relative. So each cell is compared as the column
it is in asks:

* text (a cell that does not parse as a number on either side; the header): exactly;
* a number with a Monte Carlo standard error beside it (column ``X`` with ``X_se``,
  or ``STEM_UNIT`` with ``STEM_se_UNIT``: ``EZ`` / ``EZ_se``, ``rate_bits`` /
  ``rate_se_bits``; or a pair named apart in :data:`SE_NAMED_APART`): within that
  row's committed SE, a difference the sampling
  noise of the estimate already allows (and never below the relative tolerance);
* a standard error itself (the ``X_se`` of a column ``X``): within :data:`REL_TOL`
  of its estimate's committed magnitude as well, since it is in the estimate's
  units: theorem1's quadrature rates carry an error estimate of ~1e-13 bits that is
  rounding noise (a rerun here moved it by 0.6%, 1e-15 bits, beside rates of ~1 bit);
* any other number: within :data:`REL_TOL` (1e-9) of the larger magnitude, with an
  absolute floor of :data:`ABS_FLOOR` (1e-12) times the column's largest committed
  magnitude, so that a value that should be 0 and comes back as 1e-17 (cancellation
  in sums of order-1 terms) is equal. 1e-9 is 30 times the 3.2e-11 seen on theorem1,
  and about 10^7 machine epsilons: any change of the code or the data moves a result
  far more. ``nan`` equals ``nan``; ``inf`` equals only ``inf`` of its sign.
"""

from __future__ import annotations

import csv
import math
import pathlib
from dataclasses import dataclass, field

#: relative tolerance of a number without a standard error
REL_TOL = 1e-9
#: absolute floor, times the column's largest committed magnitude
ABS_FLOOR = 1e-12
#: differing cells shown per file (all are counted)
SHOWN = 5
#: an estimate whose standard-error column neither naming rule finds -> that column
#: (sorted_window.csv, experiments.vista.sorted_window.COLUMNS: the full ledger's
#: E[Z] ``EZ_full_ledger`` beside its SE ``EZ_full_se``; robustness.csv,
#: experiments.claims.robustness.summary.CSV_COLUMNS: the paired effect at the
#: default world point ``effect_at_default`` beside its SE ``se_at_default``)
SE_NAMED_APART = {"EZ_full_ledger": "EZ_full_se", "effect_at_default": "se_at_default"}


def se_column(name: str, header: list[str]) -> str | None:
    """The Monte Carlo standard-error column of column ``name`` in ``header``:
    ``NAME_se``, ``STEM_se_UNIT`` for ``NAME = STEM_UNIT``, or the column
    :data:`SE_NAMED_APART` names; None if none is in ``header``."""
    candidates = [f"{name}_se"]
    stem, sep, unit = name.rpartition("_")
    if sep and stem:
        candidates.append(f"{stem}_se_{unit}")
    if name in SE_NAMED_APART:
        candidates.append(SE_NAMED_APART[name])
    return next((c for c in candidates if c in header and c != name), None)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@dataclass(frozen=True)
class CellDifference:
    """One cell that differs: its file ``line`` (the header is line 1), ``column``,
    both texts, and for numbers the absolute difference and the tolerance."""

    line: int
    column: str
    committed: str
    rerun: str
    difference: float | None = None
    tolerance: float | None = None

    def __str__(self) -> str:
        where = f"line {self.line}, column {self.column}"
        values = f"{self.committed[:40]!r} committed, {self.rerun[:40]!r} rerun"
        if self.difference is None:
            return f"{where}: {values} (text differs)"
        return (f"{where}: {values}, |difference| {self.difference:.3g} > "
                f"tolerance {self.tolerance:.3g}")


@dataclass
class Comparison:
    """The outcome of :func:`compare_csv`: ``problem`` (a header or line-count
    mismatch, None if the shapes agree), every differing cell, the number of
    numeric cells that differ in text but within tolerance (``within``; of them
    ``errors_within`` standard errors, compared in their estimates' units), and the
    largest relative difference among the others (an SE of rounding noise moves by
    a large share of itself: 25% for one of 6e-22)."""

    problem: str | None = None
    cells: list[CellDifference] = field(default_factory=list)
    within: int = 0
    errors_within: int = 0
    largest_relative: float = 0.0

    @property
    def equal(self) -> bool:
        return self.problem is None and not self.cells

    def report(self, shown: int = SHOWN) -> list[str]:
        """Lines saying how the files differ: the shape problem, or the count of
        differing cells (lines, columns) and the first ``shown`` of them."""
        if self.problem:
            return [self.problem]
        if not self.cells:
            return []
        lines = len({c.line for c in self.cells})
        by_column: dict[str, int] = {}
        for c in self.cells:
            by_column[c.column] = by_column.get(c.column, 0) + 1
        columns = ", ".join(f"{k} {v}" for k, v in by_column.items())
        out = [f"{len(self.cells)} cell(s) in {lines} line(s) beyond tolerance "
               f"(by column: {columns})"]
        out += [str(c) for c in self.cells[:shown]]
        if len(self.cells) > shown:
            out.append(f"... and {len(self.cells) - shown} more")
        return out


def _equal_numbers(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol


def compare_csv(committed: pathlib.Path, rerun: pathlib.Path) -> Comparison:
    """Compare two CSV files cell by cell (see the module docstring for the rule
    each column follows). The tolerances come from the committed file."""
    with open(committed, newline="") as fh:
        left = list(csv.reader(fh))
    with open(rerun, newline="") as fh:
        right = list(csv.reader(fh))
    out = Comparison()
    if not left or not right or left[0] != right[0]:
        a, b = (left[0] if left else []), (right[0] if right else [])
        out.problem = f"header differs: {a!r} committed, {b!r} rerun"
        return out
    if len(left) != len(right):
        out.problem = f"{len(left)} lines committed, {len(right)} in the rerun"
        return out
    header = left[0]
    se_of = {i: header.index(c) for i, name in enumerate(header)
             if (c := se_column(name, header)) is not None}
    estimate_of = {j: i for i, j in se_of.items()}
    scale = [max((abs(v) for row in left[1:] if i < len(row)
                  and (v := _number(row[i])) is not None and math.isfinite(v)),
                 default=0.0) for i in range(len(header))]
    for n, (ra, rb) in enumerate(zip(left[1:], right[1:]), start=2):
        if len(ra) != len(rb):
            out.cells.append(CellDifference(
                n, f"(all: {len(ra)} cells committed, {len(rb)} in the rerun)",
                ",".join(ra), ",".join(rb)))
            continue
        for i, (x, y) in enumerate(zip(ra, rb)):
            if x == y:
                continue
            column = header[i] if i < len(header) else f"#{i + 1}"
            a, b = _number(x), _number(y)
            if a is None or b is None:
                out.cells.append(CellDifference(n, column, x, y))
                continue
            finite = math.isfinite(a) and math.isfinite(b)
            tol = max(REL_TOL * max(abs(a), abs(b)) if finite else 0.0,
                      ABS_FLOOR * scale[i] if i < len(scale) else 0.0)
            se = _number(ra[se_of[i]]) if i in se_of and se_of[i] < len(ra) else None
            if se is not None and math.isfinite(se):
                tol = max(tol, abs(se))
            est = _number(ra[estimate_of[i]]) if i in estimate_of else None
            if est is not None and math.isfinite(est):   # an SE, in its estimate's units
                tol = max(tol, REL_TOL * abs(est))
            if _equal_numbers(a, b, tol):
                out.within += 1
                if i in estimate_of:
                    out.errors_within += 1
                elif finite and max(abs(a), abs(b)) > 0:
                    out.largest_relative = max(out.largest_relative,
                                               abs(a - b) / max(abs(a), abs(b)))
            else:
                diff = abs(a - b) if math.isfinite(a - b) else math.inf
                out.cells.append(CellDifference(n, column, x, y, diff, tol))
    return out
