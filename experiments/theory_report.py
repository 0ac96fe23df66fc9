"""``ctxsim theory``: run every symbolic check and print one line per result.

It lives in experiments/ because it also runs the cross-checks of theory/ reference
values against the simulators (:mod:`experiments.crosschecks`); theory/ imports
nothing of ours.

Checks register here as ``"module:function"`` strings; each function takes no
arguments and returns a :class:`theory.proof.ProofRecord` or raises
:class:`theory.proof.ProofError`.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # sympy loads with theory.proof: only a check that runs needs it
    from theory.proof import ProofRecord

#: Every check, in the order of THEORY.md.
CHECKS: list[str] = [
    "theory.proposition1:check_fano_per_block",
    "theory.proposition1:check_independence",
    "theory.proposition1:check_combined_bound",
    "theory.proposition1:check_separation",
    "theory.proposition1:check_fixed_budget",
    # Theorem 1 (THEORY.md §2)
    "theory.list_fano:check_list_fano",
    "theory.recovery_burden:check_recovery_burden",
    "theory.theorem1_bound:check_sum_ge_affine",
    "theory.corollaries:check_threshold",
    "theory.corollaries:check_price",
    "theory.corollaries:check_ledger_endpoint",
    "theory.corollaries:check_blind_endpoint",
    "theory.blind:check_blind_closed_form",
    "theory.list_channel:check_list_achievability",
    "theory.windowed_ledger:check_windowed_ledger",
    # Proposition 2 (THEORY.md §3)
    "theory.proposition2:check_prop2_paper",
    "theory.proposition2:check_prop2_centroid",
    "theory.proposition2:check_centroid_below_paper",
    # theory/ reference values = the simulators' (experiments/ may import both)
    "experiments.crosschecks:check_prop2_rates_equal_simulator",
    "experiments.crosschecks:check_prop1_closed_forms_equal_simulator",
]


def load(spec: str):
    """Import ``"module:function"`` and return the function."""
    module, func = spec.split(":")
    return getattr(importlib.import_module(module), func)


def static_title(spec: str) -> str | None:
    """The title (``ProofRecord.result``) a check will print, read from its source
    without running it: the string literal its ``ProofRecord(...)`` call starts
    with; None when the title is computed (then only running the check tells)."""
    import ast
    import importlib.util

    module, func = spec.split(":")
    found = importlib.util.find_spec(module)
    if found is None or not found.origin:
        return None
    tree = ast.parse(pathlib.Path(found.origin).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == func:
            for call in ast.walk(node):
                if (isinstance(call, ast.Call) and getattr(call.func, "id", None)
                        == "ProofRecord" and call.args
                        and isinstance(call.args[0], ast.Constant)
                        and isinstance(call.args[0].value, str)):
                    return call.args[0].value
    return None


def run_all(names: list[str] | None = None
            ) -> list[tuple[str, ProofRecord | Exception]]:
    """Run the checks: all, or those whose spec or printed title (the record's
    ``result``) contains one of ``names``, case-insensitively. Titles are read from
    the checks' source (:func:`static_title`), so a filter that matches nothing is
    known without running anything; a check whose title is computed is run to
    learn it only when some name matches no spec or static title.

    Returns ``(spec, record-or-exception)`` pairs: a check that fails
    (:class:`ProofError`) or raises anything else does not stop the rest.
    """
    terms = [n.lower() for n in names or []]
    titles = {spec: static_title(spec) for spec in CHECKS} if terms else {}

    def matches(spec: str, title: str | None) -> bool:
        return any(t in spec.lower() or (title is not None and t in title.lower())
                   for t in terms)

    unmatched = [t for t in terms
                 if not any(t in spec.lower() or t in (titles[spec] or "").lower()
                            for spec in CHECKS)]
    results = []
    for spec in CHECKS:
        hit = not terms or matches(spec, titles.get(spec))
        if not hit and not (unmatched and titles.get(spec) is None):
            continue
        from theory.proof import ProofRecord

        try:
            outcome: ProofRecord | Exception = load(spec)()
        except Exception as exc:  # noqa: BLE001 - reported as this check's line
            outcome = exc
        if not hit:
            title = outcome.result.lower() if isinstance(outcome, ProofRecord) else ""
            if not any(t in title for t in unmatched):
                continue
        results.append((spec, outcome))
    return results


def counted(n: int, noun: str) -> str:
    """``"1 symbolic step"``, ``"8 symbolic steps"``: ``n`` and ``noun``, plural unless
    ``n`` is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def numeric_summary(record: ProofRecord) -> str:
    """How close the spot checks came to failing, in their own units: the worst
    error as a fraction of its tolerance, and which check it was (a cross-check
    against Monte Carlo measures its error in standard errors; its tolerance too)."""
    points = sum(n for n, _, _ in record.numeric.values())
    if not record.numeric:
        return "no numeric points"
    name, (_, worst, tol) = max(
        record.numeric.items(),
        key=lambda kv: kv[1][1] / kv[1][2] if kv[1][2] > 0 else (0.0 if kv[1][1] == 0
                                                                  else float("inf")))
    if tol > 0:
        share = f"{worst / tol:.0%} of its tolerance: {worst:.2g} <= {tol:.2g}"
    else:
        share = "exact: 0 error allowed, 0 found"
    return (f"{counted(points, 'numeric point')} within tolerance (worst {share}, in "
            f"{name!r})")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ctxsim theory``."""
    parser.add_argument("only", nargs="*", metavar="FILTER",
                        help="run only checks whose name or printed title contains one "
                             "of these, case-insensitively (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every step (default: one line per result)")


def main(args: argparse.Namespace) -> int:
    """Print one line per result; exit status 1 if any check failed or raised, 2
    if a FILTER matched no check."""
    import sys

    results = run_all(args.only or None)
    if not results:
        print(f"ctxsim theory: no check matches {' '.join(args.only)!r} (names: "
              f"{', '.join(spec.split(':')[1] for spec in CHECKS)})", file=sys.stderr)
        return 2
    from theory.proof import ProofError

    failed = 0
    for spec, outcome in results:
        if isinstance(outcome, ProofError):
            failed += 1
            print(f"FAIL {spec}: {outcome}")
            continue
        if isinstance(outcome, Exception):
            failed += 1
            print(f"ERROR {spec}: {type(outcome).__name__}: {outcome}")
            continue
        print(f"ok   {outcome.result}: {counted(len(outcome.steps), 'symbolic step')}, "
              f"{numeric_summary(outcome)} [{outcome.source}]")
        if args.verbose:
            for step in outcome.steps:
                print(f"       - {step.description}: {step.evidence}")
            for name, (n, worst, tol) in outcome.numeric.items():
                print(f"       - spot check {name!r}: {counted(n, 'point')}, worst error "
                      f"{worst:.3g}, tolerance {tol:.3g}")
    return 1 if failed else 0
