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

from theory.proof import ProofError, ProofRecord

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


def run_all(names: list[str] | None = None
            ) -> list[tuple[str, ProofRecord | Exception]]:
    """Run the checks: all, or those whose spec or printed title (the record's
    ``result``) contains one of ``names``, case-insensitively. A title is only
    known once its check ran, so checks are run for title matching only when some
    name matches no spec.

    Returns ``(spec, record-or-exception)`` pairs: a check that fails
    (:class:`ProofError`) or raises anything else does not stop the rest.
    """
    terms = [n.lower() for n in names or []]
    by_title = [t for t in terms if not any(t in spec.lower() for spec in CHECKS)]
    results = []
    for spec in CHECKS:
        hit = not terms or any(t in spec.lower() for t in terms)
        if not hit and not by_title:
            continue
        try:
            outcome: ProofRecord | Exception = load(spec)()
        except Exception as exc:  # noqa: BLE001 - reported as this check's line
            outcome = exc
        if not hit:
            title = outcome.result.lower() if isinstance(outcome, ProofRecord) else ""
            if not any(t in title for t in by_title):
                continue
        results.append((spec, outcome))
    return results


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
        print(f"ok   {outcome.summary()}")
        if args.verbose:
            for step in outcome.steps:
                print(f"       - {step.description}: {step.evidence}")
    return 1 if failed else 0
