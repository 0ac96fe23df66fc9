"""Every Theorem 1 / Proposition 2 check passes, and a wrong statement makes it fail."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import experiments.theory_report as report
from theory import bounds
from theory import statements as st
from theory.blind import check_blind_closed_form
from theory.corollaries import (check_blind_endpoint, check_ledger_endpoint, check_price,
                                check_threshold)
from theory.list_channel import check_list_achievability
from theory.list_fano import check_list_fano
from theory.proof import ProofError, ProofRecord
from theory.proposition2 import (check_centroid_below_paper, check_prop2_centroid,
                                 check_prop2_paper)
from theory.recovery_burden import check_recovery_burden
from theory.theorem1_bound import check_sum_ge_affine
from theory.windowed_ledger import check_windowed_ledger
from tests.theory.record_texts import assert_texts, recorded

MODULES = ("list_fano", "recovery_burden", "theorem1_bound", "corollaries", "blind",
           "list_channel", "windowed_ledger", "proposition2")
SPECS = [s for s in report.CHECKS if s.split(":")[0].split(".")[-1] in MODULES]


def test_every_result_is_registered():
    """One registered check per result of the issue (13)."""
    assert len(SPECS) == 13


@pytest.mark.parametrize("spec", SPECS)
def test_check_passes(spec):
    """Each check returns a record with symbolic steps and at least one numeric spot check."""
    record, calls = recorded(report.load(spec))
    assert isinstance(record, ProofRecord)
    assert record.steps, spec
    assert record.numeric, spec
    for points, err, tol in record.numeric.values():
        assert points > 0 and err <= tol
    assert_texts(spec, record, calls)


def _scaled(func, factor):
    """A numeric implementation that is off by a relative ``factor``."""
    return lambda *args: func(*args) * factor


# (check, wrong claim) pairs: each must raise ProofError naming the result.
WRONG = {
    "list-Fano without the +1": (check_list_fano, dict(bound=st.I / st.log2(st.n / st.m))),
    "list-Fano numeric off": (check_list_fano, dict(numeric=_scaled(bounds.list_fano_bound, 0.99))),
    "tail sum from t = 0": (check_recovery_burden, dict(tail_start=0)),
    "floor without the +1": (check_sum_ge_affine, dict(floor_inner=1 - st.I / st.NU)),
    "bound_sum numeric off": (check_sum_ge_affine,
                              dict(sum_numeric=lambda I, n, k: bounds.bound_sum(I, n, k) + 1e-6)),
    "threshold off by a bit": (check_threshold, dict(claimed=st.THRESHOLD + 1)),
    "threshold numeric off": (check_threshold,
                              dict(numeric=lambda *a: bounds.threshold_rate_bits(*a) + 1e-6)),
    "price with nu/kappa inverted": (check_price, dict(claimed=st.Delta * st.kappa / st.NU - 1)),
    "ledger bound not zero": (check_ledger_endpoint,
                              dict(numeric=lambda I, n, k: bounds.bound_sum(I, n, k) + 1e-3)),
    "blind achieved too small": (check_blind_endpoint, dict(achieved=st.BLIND - st.kappa / 2)),
    "blind with kappa(kappa-1)": (check_blind_closed_form,
                                  dict(closed_form=st.kappa
                                       - st.kappa * (st.kappa - 1) / (2 * st.n))),
    "blind numeric off": (check_blind_closed_form,
                          dict(numeric=_scaled(bounds.blind_EZ, 1 + 1e-9))),
    "list high branch wrong": (check_list_achievability,
                               dict(high=st.kappa - st.kappa ** 2 / (2 * st.m))),
    "list low branch m/2": (check_list_achievability, dict(low=st.m / 2)),
    "windowed rate without (1 - w/n)": (check_windowed_ledger,
                                        dict(rate=st.log2(st.n) - st.log2(st.n - st.w))),
    "windowed closed form 2(n-w)+1": (check_windowed_ledger, dict(
        closed_form=(1 - st.w / st.n)
        * (st.kappa - st.kappa * (st.kappa + 1) / (2 * (st.n - st.w) + 1)))),
    "centroid without 1/2": (check_prop2_centroid, dict(centroid=2 * st.PROP2_CENTROID)),
    "centroid numeric off": (check_prop2_centroid,
                             dict(numeric=_scaled(bounds.prop2_centroid_bound_bits, 1.001))),
    "paper in nats mislabelled bits": (check_prop2_paper, dict(paper=st.PROP2_PAPER * sp.log(2))),
    "centroid above paper": (check_centroid_below_paper, dict(centroid=3 * st.PROP2_CENTROID)),
}


@pytest.mark.parametrize("case", sorted(WRONG))
def test_wrong_statement_is_rejected(case):
    """Perturbing a formula (symbolic or numeric) makes the check raise ProofError."""
    check, kwargs = WRONG[case]
    with pytest.raises(ProofError):
        check(**kwargs)


def test_report_runs_theory_checks(capsys):
    """``ctxsim theory list_channel`` prints one ok line and exits 0."""
    import argparse
    status = report.main(argparse.Namespace(only=["list_channel"], verbose=True))
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[0].startswith("ok   Achievability")
    assert any(line.startswith("       - ") for line in out[1:])


def test_report_counts_a_failing_check(monkeypatch, capsys):
    """A check that raises ProofError is printed as FAIL and sets exit status 1."""
    import argparse
    monkeypatch.setattr(report, "CHECKS", ["theory.recovery_burden:check_recovery_burden"])
    import theory.recovery_burden as rb
    original = rb.check_recovery_burden
    monkeypatch.setattr(rb, "check_recovery_burden", lambda: original(tail_start=0))
    assert report.main(argparse.Namespace(only=None, verbose=False)) == 1
    assert capsys.readouterr().out.startswith("FAIL")


def test_statements_agree_with_bounds_at_a_point():
    """A direct cross-check of the lambdified statements and bounds.py at one point."""
    f = sp.lambdify([st.I, st.n, st.kappa], st.SUM_FORM)
    assert f(1.5, 1000, 7) == pytest.approx(bounds.bound_sum(1.5, 1000, 7), rel=1e-12)
    g = sp.lambdify([st.n, st.kappa, st.sigma], st.PROP2_CENTROID)
    assert g(50, 4, 0.7) == pytest.approx(bounds.prop2_centroid_bound_bits(50, 4, 0.7), rel=1e-12)
    assert np.isclose(float(st.LIST_ACHIEVABILITY.subs({st.n: 64, st.kappa: 3, st.r: 4})),
                      bounds.list_achievability_EZ(64, 3, 4))
