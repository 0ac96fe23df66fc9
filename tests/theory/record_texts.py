"""What a check's ProofRecord carries and where it spot-checks, against a committed
copy (issue 38).

Mutation testing edits the record's title, source, statement and step names as it
edits any string, and moves a spot check's grid point or loosens its tolerance;
the checks' pass/fail tests cannot see those edits (the true statement passes
either way), and ``ctxsim theory`` prints the text. Each check-running test runs
the check with :func:`recorded` and compares with ``data/records.json``: title,
source (which must cite THEORY.md or a paper), statement as sympy prints it, every
step's description and evidence (the expression it proved, as sympy prints it: an
edit of a side lemma's expression shows only there), every numeric entry's point
count and tolerance (a check's own tolerance, as proposition1's ``_record_pairs``
takes, shows only there), every spot check's name and point count, and every
numeric check's grid, tolerance, mode (relative or absolute), symbols and
expressions as the check passed them to ``theory.proof``, and the largest and
smallest gap and the gaps' sum of each enumeration a check runs itself
(``_record_pairs``). Left out: the errors the helpers measure (float round-off).
The copy is the same under any PYTHONHASHSEED; a sympy release that prints an
expression differently shows as a diff of evidence and expression strings only:
rewrite the copy then.

After an intended change to a check's text, rewrite the copy with
``python3 -m tests.theory.record_texts`` and review its diff.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

DATA = Path(__file__).with_name("data") / "records.json"


#: the numeric checks of theory.proof whose arguments are recorded: (grid argument's
#: position, its name)
NUMERIC = {"spot_check": (5, "grid"), "check_inequality_on_grid": (5, "points")}
#: their sympy arguments, recorded as sympy prints them (an edited side of an
#: inequality, a renamed symbol or an edited closed form passes the check as well)
EXPRESSIONS = {"spot_check": ("symbols", "expr"),
               "check_inequality_on_grid": ("symbols", "lhs", "rhs")}
#: a check module's own numeric route: lhs - rhs gaps it computed itself (proposition1's
#: enumerations), recorded as their count, largest value, smallest value and sum to 1e-9
#: (exact enumeration at a fixed seed: the values are sums of logs, far above round-off;
#: the sum sees which random encoders were drawn)
GAPS = "_record_pairs"


def _points(grid):
    if isinstance(grid, Mapping):
        return {str(k): [float(v) for v in vals] for k, vals in grid.items()}
    return [[float(v) for v in p] for p in grid]


def _text(value) -> str | list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return str(value)


def recorded(check, *args, **kwargs):
    """(record, numeric calls) of ``check(*args, **kwargs)``: each call of a
    :data:`NUMERIC` function by a module of theory/ or experiments.crosschecks, as
    ``[function, check name, grid, tolerance, relative, {argument: text}]`` (the
    :data:`EXPRESSIONS` arguments as sympy prints them), and each call of a module's
    :data:`GAPS` function as ``[GAPS, check name, count, max, min, sum, tolerance]``."""
    import inspect

    import theory.proof as proof

    calls, patched = [], []

    def wrap(fname, real):
        pos, key = NUMERIC[fname]
        sig = inspect.signature(real)

        def recording(*a, **kw):
            a = list(a)
            if len(a) > pos:
                a[pos] = grid = a[pos] if isinstance(a[pos], Mapping) else list(a[pos])
            else:
                kw[key] = grid = (kw[key] if isinstance(kw[key], Mapping)
                                  else list(kw[key]))
            got = sig.bind(*a, **kw).arguments
            calls.append([fname, got["name"], _points(grid), got.get("tol"),
                          got.get("relative"),
                          {arg: _text(got[arg]) for arg in EXPRESSIONS[fname]}])
            return real(*a, **kw)
        return recording

    def wrap_gaps(real):
        def recording(record, name, gaps, tol):
            gaps = [float(g) for g in gaps]
            calls.append([GAPS, name, len(gaps), round(max(gaps), 9) if gaps else None,
                          round(min(gaps), 9) if gaps else None,
                          round(sum(gaps), 9) if gaps else None, tol])
            return real(record, name, gaps, tol)
        return recording

    reals = {fname: getattr(proof, fname) for fname in NUMERIC}
    for name, mod in list(sys.modules.items()):
        if mod is None or mod is proof or not (name.startswith("theory.")
                                               or name == "experiments.crosschecks"):
            continue
        for fname, real in reals.items():
            if getattr(mod, fname, None) is real:
                patched.append((mod, fname, real))
                setattr(mod, fname, wrap(fname, real))
        if callable(getattr(mod, GAPS, None)):
            real = getattr(mod, GAPS)
            patched.append((mod, GAPS, real))
            setattr(mod, GAPS, wrap_gaps(real))
    try:
        return check(*args, **kwargs), calls
    finally:
        for mod, fname, real in patched:
            setattr(mod, fname, real)


def texts(record, calls) -> dict:
    """The comparable text of a ProofRecord and its numeric checks' arguments."""
    return {"result": record.result, "source": record.source,
            "statement": str(record.statement),
            "steps": [[s.description, s.evidence] for s in record.steps],
            # a numeric entry's point count and tolerance (its error measured is round-off)
            "numeric": {name: [n, tol] for name, (n, _, tol) in record.numeric.items()},
            "grids": calls}


def assert_texts(spec: str, record, calls) -> None:
    """``record`` and ``calls`` (of check ``spec``, "module:function", run with
    :func:`recorded`) read as the committed copy."""
    want = json.loads(DATA.read_text())
    assert spec in want, f"{spec} has no committed text: run python3 -m tests.theory.record_texts"
    got = json.loads(json.dumps(texts(record, calls)))  # tuples as JSON reads them
    assert got == want[spec], spec
    assert any(s in record.source for s in ("THEORY.md §", "VISTA", "ContextEvo")), \
        record.source


def main() -> None:
    from experiments.theory_report import CHECKS, load

    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps({spec: texts(*recorded(load(spec))) for spec in CHECKS},
                               indent=1, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
