"""Proposition 1 sympy checks (THEORY.md §1) and their numeric helpers.

The checks themselves raise ProofError on failure; these tests run them, check
that the numeric routes are sensitive (a false statement is caught), and compare
the symbolic fixed-budget threshold with the simulator's integer threshold.
"""

import math

import numpy as np
import pytest
import sympy as sp

from sim.games.recovery import (fano_bound, keep_blocks_success, keep_prefix_success,
                                recoverable_max_N)
from theory import proposition1 as p1
from theory.proof import ProofError, ProofRecord
from experiments.theory_report import CHECKS, run_all
from tests.theory.record_texts import assert_texts, recorded


@pytest.mark.parametrize("name", ["check_fano_per_block", "check_independence",
                                  "check_combined_bound", "check_separation",
                                  "check_fixed_budget"])
def test_check_passes_and_is_registered(name):
    record, calls = recorded(getattr(p1, name))
    assert isinstance(record, ProofRecord)
    assert len(record.steps) >= 3
    assert sum(n for n, _, _ in record.numeric.values()) > 0
    assert f"theory.proposition1:{name}" in CHECKS
    assert_texts(f"theory.proposition1:{name}", record, calls)


def test_report_runs_the_proposition1_checks():
    results = run_all(["proposition1"])
    assert len(results) == 5
    assert all(isinstance(outcome, ProofRecord) for _, outcome in results)


def test_exact_quantities_on_known_encoders():
    N, k = 2, 3
    x = np.arange(2 ** (N * k))
    ident = p1.exact_quantities(N, k, x)                # R = X^N
    assert ident["H_R"] == pytest.approx(6) and ident["I"] == pytest.approx([3, 3])
    assert ident["success"] == pytest.approx([1, 1])
    const = p1.exact_quantities(N, k, np.zeros_like(x))  # R constant
    assert const["H_R"] == 0 and const["I"] == pytest.approx([0, 0])
    assert const["success"] == pytest.approx([1 / 8, 1 / 8])
    # keep block 0 (B = 3 bits): matches the simulator's closed form
    keep = p1.exact_quantities(N, k, x & 7)
    assert keep["success"].mean() == pytest.approx(keep_blocks_success(N, k, 3))


def test_enumerated_encoders_match_simulator_closed_forms():
    rng = np.random.default_rng(0)
    for N, k, B in [(2, 3, 4), (3, 2, 5), (3, 3, 2), (2, 2, 1)]:
        enc = dict(p1._encoders(N, k, B, rng))
        assert p1.exact_quantities(N, k, enc["keep blocks"])["success"].mean() == \
            pytest.approx(keep_blocks_success(N, k, B))
        assert p1.exact_quantities(N, k, enc["keep prefix"])["success"].mean() == \
            pytest.approx(keep_prefix_success(N, k, B))


def test_numeric_route_catches_a_false_bound():
    # R = X^N carries N k bits; claiming B = N k - 3 must fail the enumeration check
    N, k = 2, 3
    q = p1.exact_quantities(N, k, np.arange(2 ** (N * k)))
    rec = ProofRecord("sensitivity", "test", sp.true)
    gap = float(q["success"].mean() - (N * k - 3) / (N * k) - 1 / k)
    assert gap == pytest.approx(1 / 6)
    with pytest.raises(ProofError, match="violated"):
        p1._record_pairs(rec, "false bound", [gap], 1e-12)


@pytest.mark.parametrize("B,k", [(2 ** 12, 8), (32768, 32), (10 ** 5, 17), (10 ** 6, 64)])
def test_fixed_budget_threshold_brackets_the_integer_threshold(B, k):
    n_star = p1.fixed_budget_threshold(B, k, 1.0)
    assert n_star * math.log2(n_star) + k == pytest.approx(B, rel=1e-10)
    n_max = recoverable_max_N(k, B, 1.0)
    # ceil(log2 N) >= log2 N, so integer handles fit no further than N*; and they
    # cost at most N (log2 N + 1), which fits up to about N*/2.
    assert n_max <= n_star
    assert (n_max + 1) * math.ceil(math.log2(n_max + 1)) + k > B
    assert n_max >= n_star / 2 - 1


def test_fixed_budget_threshold_rejects_bad_arguments():
    with pytest.raises(ValueError, match="c0 must be"):
        p1.fixed_budget_threshold(100, 8, 0.0)
    with pytest.raises(ValueError, match="need 0 <= k < B"):
        p1.fixed_budget_threshold(8, 8, 1.0)


def test_separation_bound_from_the_simulator_decreases_to_zero():
    values = []
    for j in range(8, 41, 4):
        N = 2 ** j
        k = math.isqrt(N - 1) + 1
        values.append(fano_bound(N, k, int(1.5 * N * math.log2(N))))
    assert all(a > b for a, b in zip(values, values[1:]))
    assert values[-1] == pytest.approx((1.5 * 40 + 1) / 2 ** 20, rel=1e-12)
