"""``ctxsim theory``: run every symbolic check and print one line per result.

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


def run_all(names: list[str] | None = None) -> list[tuple[str, ProofRecord | ProofError]]:
    """Run the checks (all, or those whose spec contains one of ``names``).

    Returns ``(spec, record-or-error)`` pairs; a failing check does not stop the rest.
    """
    results = []
    for spec in CHECKS:
        if names and not any(n in spec for n in names):
            continue
        try:
            results.append((spec, load(spec)()))
        except ProofError as exc:
            results.append((spec, exc))
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ctxsim theory``."""
    parser.add_argument("only", nargs="*", help="run only checks whose name contains these")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every step")


def main(args: argparse.Namespace) -> int:
    """Print one line per result; exit status 1 if any check failed."""
    failed = 0
    for spec, outcome in run_all(args.only or None):
        if isinstance(outcome, ProofError):
            failed += 1
            print(f"FAIL {spec}: {outcome}")
            continue
        print(f"ok   {outcome.summary()}")
        if args.verbose:
            for step in outcome.steps:
                print(f"       - {step.description}: {step.evidence}")
    return 1 if failed else 0
