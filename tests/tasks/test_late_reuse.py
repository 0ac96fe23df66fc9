"""Values from bulky early results needed again late (issue 31, "Recovery as a
mechanism"): which values sit in bulk data (``task.p_late_reuse``), the size-biased
law of the result holding one (tested in ``test_size_law.py``), and that the
mechanism moves nothing else of a task."""

import numpy as np
import pytest

from sim.tasks.families import FAMILIES, TaskParams, family_spec
from sim.tasks.loca import bulk_facts, loca_task

ELIGIBLE = [f for f in range(len(FAMILIES)) if family_spec(f).bulk_reuse]


def test_eligible_families_are_overflow_and_churn():
    assert {family_spec(f).archetype for f in ELIGIBLE} == {"overflow", "churn"}
    for f in set(range(15)) - set(ELIGIBLE):
        assert bulk_facts(f, 0, params=TaskParams(p_late_reuse=0.9)) == ()


def test_the_share_of_values_in_bulk_data_is_p_late_reuse():
    """Per value a Bernoulli(p_late_reuse) draw: the share over many instances within
    4 binomial standard errors, for two values of the parameter."""
    for p in (0.2, 0.7):
        tp = TaskParams(p_late_reuse=p)
        n = k = 0
        for f in ELIGIBLE:
            for s in range(150):
                n += family_spec(f).n_facts
                k += len(bulk_facts(f, s, params=tp))
        assert abs(k / n - p) < 4 * (p * (1 - p) / n) ** 0.5


def test_bulk_values_are_large_early_and_needed_again_late():
    """A value in bulk data sits in one of its task's largest results (the
    size-biased law), arrives in the first third of the task and is needed by the
    answer; an ordinary value's result sits mid-distribution."""
    bulky, plain = [], []
    for f in ELIGIBLE:
        for s in range(5):
            task = loca_task(f, s, 256_000)
            sizes = np.array([st.tokens for st in task.steps if st.kind == "observe"])
            chosen = set(bulk_facts(f, s))
            for j, (key, fact) in enumerate(task.facts.items()):
                occ = [i for i, st in enumerate(task.steps) if key + ": " in st.content]
                if len(occ) > 1:
                    continue  # superseded: the early record is not needed again
                rank = (sizes < task.steps[fact.source].tokens).mean()
                (bulky if j in chosen else plain).append(rank)
                if j in chosen:
                    assert fact.source < len(task.steps) / 3
                    assert key in task.steps[-1].needs
    assert len(bulky) > 10 and len(plain) > 10
    assert np.median(bulky) > 0.85
    assert 0.25 < np.median(plain) < 0.75


def test_a_task_without_a_bulk_value_is_unchanged():
    """The draws come from their own stream and the size draw is one lognormal
    either way: a task none of whose values was drawn equals the task at
    p_late_reuse = 0 (so nothing else of the suite moved); one with a drawn value
    differs."""
    lo, hi = TaskParams(p_late_reuse=0.1), TaskParams(p_late_reuse=0.9)
    same = changed = 0
    for f in ELIGIBLE:
        for s in range(5):
            t_lo, t_hi = loca_task(f, s, 128_000, params=lo), loca_task(f, s, 128_000,
                                                                          params=hi)
            if not bulk_facts(f, s, params=lo):
                same += 1
                off = loca_task(f, s, 128_000, params=TaskParams(p_late_reuse=0.0))
                assert t_lo == off
            if set(bulk_facts(f, s, params=hi)) != set(bulk_facts(f, s, params=lo)):
                changed += t_lo != t_hi
    assert same > 5 and changed > 5
    for f in set(range(15)) - set(ELIGIBLE):
        assert loca_task(f, 0, 64_000, params=hi) == loca_task(f, 0, 64_000, params=lo)


def test_under_pressure_bulk_values_are_archived_and_recovered():
    """The mechanism does what it is for: with more values in bulk data, VISTA's
    largest-first archiving takes more evidence under pressure, so more values are
    recovered (recovery targets) on the same tasks and agent draws; without the
    recover tool none is."""
    from sim.agents import SyntheticAgent
    from sim.harness import run_episode
    from sim.policies import make_program

    def targets(p, program="vista"):
        tp = TaskParams(p_late_reuse=p)
        return sum(run_episode(loca_task(f, s, 128_000, params=tp), make_program(program),
                               SyntheticAgent("medium"), budget=64_000, seed=7 * f + s,
                               fast=True).recovery_targets
                   for f in ELIGIBLE for s in range(2))

    low, high = targets(0.1), targets(0.9)
    assert high > low + 3
    assert targets(0.9, "vista_no_recover") == 0


def test_the_prior_is_the_measured_bulk_share():
    """task.p_late_reuse's default is the shipped session's measured share (rounded
    to 0.1) and its range holds the measurement's interval."""
    from experiments.vista.late_reuse import measure
    from sim.world import TABLE

    m = measure()
    row = TABLE["task.p_late_reuse"]
    assert (m["k"], m["n"]) == (11, 25) and m["trajectories"] == ["pi_large-session.jsonl"]
    assert m["p"] == pytest.approx((11 / 25 - m["b"]) / (m["w"] - m["b"]))
    assert row.default == round(m["p"], 1)
    assert row.low <= m["p_low"] and m["p_high"] <= row.high


@pytest.mark.parametrize("p", [0.2, 0.7])
def test_the_bulk_share_estimator_recovers_a_known_mixture(p):
    """Values placed in a lognormal stream of results, a share p at a uniformly
    random token (size-biased), the rest in a uniformly chosen result: the estimate
    is within 4 standard errors of p (the binomial SE of q over w - b)."""
    from experiments.vista.late_reuse import bulk_share

    rng = np.random.default_rng(5)
    sizes = np.exp(rng.normal(4.0, 1.64, 400))
    n = 4000
    bulk = rng.random(n) < p
    pick = np.where(bulk, rng.choice(400, n, p=sizes / sizes.sum()),
                    rng.integers(0, 400, n))
    est = bulk_share(sizes, pick)
    se = (est["q"] * (1 - est["q"]) / n) ** 0.5 / (est["w"] - est["b"])
    assert abs(est["p"] - p) < 4 * se
    assert est["p_low"] < p < est["p_high"]


def test_reused_values_are_paths_written_again_late():
    from experiments.vista.late_reuse import reused_values

    steps = [("ls", "{}", "src/pkg/mod.py\nsrc/pkg/other.py\n")] + [
        ("bash", '{"command": "true"}', "ok")] * 11
    steps[4] = ("read", '{"path": "src/pkg/other.py"}', "x")  # too soon: 4 < 10
    steps[11] = ("edit", '{"path": "src/pkg/mod.py"}', "done")
    assert reused_values(steps, gap=10) == [(0, 11)]
    assert reused_values(steps, gap=3) == [(0, 4), (0, 11)]
    with pytest.raises(ValueError, match="gap"):
        reused_values(steps, gap=0)
