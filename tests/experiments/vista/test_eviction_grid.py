"""The eviction grid's bulk paths against the plain per-point computation they
replaced (issue 35): E[Z] theory and both bounds evaluated once on arrays, E[Z] and
its plug-in SE a block at a time, must give every grid row exactly (==, not within
a tolerance) what one scalar call per point gives."""

import math

import numpy as np
import pytest

from experiments.settings.theory import Theorem1Settings
from experiments.vista.eviction_grid import (bounds, channel_rate, grid_points,
                                             point_seed, simulate_points, theory_EZ)
from sim.games.channels import BLIND, CONTENT, LEDGER, LIST, WINDOWED
from sim.games.content_burden import content_EZ
from sim.games.eviction import play
from theory.bounds import (blind_EZ, bound_affine, bound_sum, list_achievability_EZ_m,
                           windowed_EZ)


def plain_theory_EZ(channel, n, kappa):
    """One scalar closed form (or quadrature) per point: the code the bulk path replaced."""
    code = channel.code
    if code == LEDGER:
        return 0.0
    if code == BLIND:
        return float(blind_EZ(n, kappa))
    if code == LIST:
        return float(list_achievability_EZ_m(channel.list_size(n), kappa))
    if code == WINDOWED:
        return float(windowed_EZ(n, kappa, channel.w))
    assert code == CONTENT
    return content_EZ(n, kappa, channel.sigma)


@pytest.fixture(scope="module")
def default_points():
    return grid_points(Theorem1Settings.build(Theorem1Settings.load("default")))


def test_theory_EZ_equals_the_scalar_formulas_at_every_default_grid_point(default_points):
    bulk = theory_EZ(default_points).tolist()
    plain = [plain_theory_EZ(ch, n, kappa) for ch, n, kappa, _ in default_points]
    assert bulk == plain
    assert len({ch.code for ch, *_ in default_points}) == 5     # every kind reached


def test_theory_EZ_rejects_a_channel_without_theory(default_points):
    class Unknown(type(default_points[0][0])):
        code = 99

    with pytest.raises(ValueError, match="no E\\[Z\\] theory"):
        theory_EZ(default_points[:3] + [(Unknown(), 64, 4, 0)])


def test_bounds_equal_the_scalar_bounds_at_every_default_grid_point(default_points):
    """At each point's exact rate (the content channel's rate is quadrature, so its
    points take rates spread over [0, log2 n], ends included), by kappa and at once."""
    rng = np.random.default_rng(0)
    rates = []
    for ch, n, kappa, _ in default_points:
        if ch.code == CONTENT:
            rates.append(float(rng.choice([0.0, math.log2(n), rng.uniform(0, math.log2(n))])))
        else:
            rates.append(channel_rate(ch, n, kappa)[0])
    n = np.array([p[1] for p in default_points])
    kappa = np.array([p[2] for p in default_points])
    low_sum, low_affine = bounds(np.array(rates), n, kappa)
    assert low_sum.tolist() == [bound_sum(r, int(a), int(k))
                                for r, a, k in zip(rates, n, kappa)]
    assert low_affine.tolist() == [bound_affine(r, int(a), int(k))
                                   for r, a, k in zip(rates, n, kappa)]
    assert (low_sum > 0).sum() > 100 and len(set(kappa.tolist())) == 4


def test_bounds_keep_theorys_input_checks():
    with pytest.raises(ValueError, match="^I_bits"):
        bounds(np.array([1.0, 9.0]), np.array([16, 64]), np.array([2, 4]))
    with pytest.raises(ValueError, match="^n"):
        bounds(np.array([1.0, 1.0]), np.array([16, 4]), np.array([2, 4]))


def test_simulated_rows_equal_a_plain_per_point_run():
    """Every row of the quick grid (E[Z], both SEs, rate, theory, bounds) against
    play() and the scalar functions, one point at a time."""
    config = Theorem1Settings.build(Theorem1Settings.load("quick"))
    points = grid_points(config)
    rows = simulate_points(points, config, seed=5)
    assert len(rows) == len(points)
    for (ch, n, kappa, index), row in zip(points, rows):
        result = play(n, kappa, ch, trials=config.trials,
                      seed=point_seed(5, ch, n, kappa, index).spawn(2)[0])
        rate, err, method = channel_rate(ch, n, kappa)
        assert row == {
            "channel": ch.name, "order": "random" if ch.code == BLIND else "bayes",
            "method": "exact", "n": n, "kappa": kappa, "param": row["param"],
            "rate_bits": rate, "rate_se_bits": err, "rate_method": method,
            "EZ": result.EZ, "EZ_se": result.EZ_se, "EZ_se_sample": result.EZ_se_sample,
            "EZ_over_kappa": result.EZ / kappa,
            "EZ_theory": plain_theory_EZ(ch, n, kappa),
            "bound_sum": bound_sum(rate, n, kappa),
            "bound_affine": bound_affine(rate, n, kappa),
            "trials": config.trials, "seed": 5}
        assert row["param"] == ch.param(n) or math.isnan(ch.param(n))
