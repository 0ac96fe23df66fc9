"""Theory checks that can fail both ways: theory's reference values are compared for
equality with the simulators' (experiments.crosschecks, theory.proposition1/2), and
a deliberately wrong value on either side raises ProofError."""

import pytest
import sympy as sp

from experiments import crosschecks
from sim.games import recovery
from sim.games.content_rate import content_rate_exact
from sim.games.information import content_rate_n2
from theory import proposition1 as p1
from theory import proposition2 as p2
from theory.proof import ProofError, ProofRecord
from experiments.theory_report import CHECKS
from tests.theory.record_texts import assert_texts, recorded

N, K, B = p1.GAME_SYMBOLS


def _scaled_mc(factor):
    """theory's Monte Carlo rate on a wrong scale (e.g. nats: factor ln 2)."""
    return lambda n, k, s: (lambda m: (m[0] * factor, m[1] * factor))(p2._mc_rate(n, k, s))


@pytest.mark.parametrize("name", ["check_prop2_rates_equal_simulator",
                                  "check_prop1_closed_forms_equal_simulator"])
def test_crosscheck_passes_and_is_registered(name):
    record, calls = recorded(getattr(crosschecks, name))
    assert isinstance(record, ProofRecord) and record.steps
    for points, err, tol in record.numeric.values():
        assert points > 0 and err <= tol
    assert f"experiments.crosschecks:{name}" in CHECKS
    assert_texts(f"experiments.crosschecks:{name}", record, calls)


WRONG = {
    "theory n=2 anchor off by 1e-6": (crosschecks.check_prop2_rates_equal_simulator, dict(
        theory_rate_n2=lambda k, s: p2._exact_rate_n2(k, s) + 1e-6)),
    "sim content_rate_n2 off by 1e-6": (crosschecks.check_prop2_rates_equal_simulator, dict(
        sim_rate_n2=lambda k, s: content_rate_n2(k, s) + 1e-6)),
    "sim exact rate in nats": (crosschecks.check_prop2_rates_equal_simulator, dict(
        sim_rate=lambda n, k, s: (content_rate_exact(n, k, s)[0] * 0.6931471805599453, 0.0))),
    "theory Monte Carlo in nats (crosscheck)": (crosschecks.check_prop2_rates_equal_simulator,
                                                dict(mc_rate=_scaled_mc(0.6931471805599453))),
    "theory Monte Carlo 10% high (crosscheck)": (crosschecks.check_prop2_rates_equal_simulator,
                                                 dict(mc_rate=_scaled_mc(1.1))),
    "theory Monte Carlo in nats (centroid check)": (p2.check_prop2_centroid, dict(
        mc_rate=_scaled_mc(0.6931471805599453))),
    "theory Monte Carlo 10% low (paper check)": (p2.check_prop2_paper, dict(
        mc_rate=_scaled_mc(0.9))),
    "theory n=2 anchor 1% high (centroid check)": (p2.check_prop2_centroid, dict(
        rate_n2=lambda k, s: 1.01 * p2._exact_rate_n2(k, s))),
    "keep-blocks guesses with 2^-(k+1)": (crosschecks.check_prop1_closed_forms_equal_simulator,
                                          dict(keep=sp.floor(B / K) / N
                                               + (1 - sp.floor(B / K) / N) * 2 ** (-K - 1))),
    "keep-blocks with ceil(B/k)": (crosschecks.check_prop1_closed_forms_equal_simulator,
                                   dict(keep=sp.ceiling(B / K) / N
                                        + (1 - sp.ceiling(B / K) / N) * 2 ** (-K))),
    "sim keep_blocks off": (crosschecks.check_prop1_closed_forms_equal_simulator,
                            dict(sim_keep=lambda *g: recovery.keep_blocks_success(*g) * 1.001)),
    "sim keep_prefix off": (crosschecks.check_prop1_closed_forms_equal_simulator,
                            dict(sim_prefix=lambda n, k, b: 2.0 ** -(k - b // n - 1))),
    "keep-prefix off by one bit (combined bound)": (p1.check_combined_bound, dict(
        prefix=2 ** (-(K - sp.floor(B / N) - 1)))),
    "keep-blocks 2^-(k+1) (combined bound)": (p1.check_combined_bound, dict(
        keep=sp.floor(B / K) / N + (1 - sp.floor(B / K) / N) * 2 ** (-K - 1))),
}


@pytest.mark.parametrize("case", sorted(WRONG))
def test_wrong_value_is_rejected(case):
    check, kwargs = WRONG[case]
    with pytest.raises(ProofError):
        check(**kwargs)
