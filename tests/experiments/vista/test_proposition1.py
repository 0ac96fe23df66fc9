"""``ctxsim run proposition1 --quick`` in a temp dir: files, CSV values and the
values the figure draws (THEORY.md §1)."""

import argparse
import json
import math

import numpy as np
import pytest

from experiments import cli
from experiments.vista import proposition1
from experiments.output import read_csv
from sim.games.recovery import fano_bound, recoverable_max_N
from tests.games.helpers import assert_binomial_at_most, assert_binomial_matches
from theory.proposition1 import fixed_budget_threshold


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("prop1")
    drawn = {}
    original = proposition1.plot

    def capture(rows, meta, path):
        drawn.update(original(rows, meta, path))
        return drawn

    proposition1.plot = capture
    try:
        parser = argparse.ArgumentParser()
        proposition1.add_arguments(parser)
        paths = proposition1.run(parser.parse_args(["--quick", "--out", str(out),
                                                    "--seed", "3"]))
    finally:
        proposition1.plot = original
    return out, paths, read_csv(out / "proposition1.csv"), drawn


def test_registered_in_cli():
    assert cli.EXPERIMENTS["proposition1"][0] == "experiments.vista.proposition1"
    parser = argparse.ArgumentParser()
    proposition1.add_arguments(parser)
    args = parser.parse_args([])
    assert (args.quick, args.out, args.seed) == (False, "figures", 1)


def test_files_and_sidecar(quick_run):
    out, paths, rows, _ = quick_run
    assert [p.name for p in paths] == ["proposition1.csv", "proposition1.png",
                                       "proposition1.json"]
    assert all(p.stat().st_size > 0 for p in paths)
    assert list(rows[0]) == proposition1.COLUMNS
    meta = json.loads((out / "proposition1.json").read_text())
    assert meta["config"]["seed"] == 3 and meta["config"]["grid"] == "quick"
    assert meta["fixed_N_max"] == recoverable_max_N(32, 32768) == 2728
    assert meta["fixed_N_star"] == pytest.approx(fixed_budget_threshold(32768, 32))


def _key(r):
    return r["panel"], r["strategy"], int(r["N"]), int(r["k"]), int(r["B"])


def test_simulations_match_closed_forms_and_bound(quick_run):
    _, _, rows, _ = quick_run
    closed = {_key(r): float(r["success"]) for r in rows if r["source"] == "closed_form"}
    sims = [r for r in rows if r["source"] == "simulated"]
    assert len(sims) > 60
    for r in sims:
        p, n = closed[_key(r)], int(r["trials"])
        # exact binomial tests (a normal approximation fails for rare p)
        successes = round(float(r["success"]) * n)
        assert_binomial_matches(successes, n, p, r)
        N, k, B = int(r["N"]), int(r["k"]), int(r["B"])
        assert float(r["bound"]) == pytest.approx(fano_bound(N, k, B), rel=1e-12)
        assert float(r["B_over_Nk"]) == pytest.approx(B / (N * k), rel=1e-12)
        if r["strategy"] != "recoverable":
            assert_binomial_at_most(successes, n, float(r["bound"]), r)


def test_separation_panel(quick_run):
    _, _, rows, drawn = quick_run
    x, y = drawn["separation/recoverable/closed_form"]
    assert list(x) == [2.0 ** j for j in range(7, 21)] and np.all(y == 1.0)
    xs, ys = drawn["separation/recoverable/simulated"]
    assert list(xs) == [2.0 ** j for j in range(7, 11)] and np.all(ys == 1.0)
    bx, by = drawn["separation/bound"]
    assert np.all(np.diff(by) < 0)
    N = 2 ** 20
    assert by[-1] == pytest.approx(fano_bound(N, 1024, math.floor(1.5 * N * 20)))
    assert by[-1] < 0.031
    _, keep = drawn["separation/keep_blocks/closed_form"]
    assert np.all(keep <= by) and keep[-1] < 0.03


def test_fixed_budget_panel_drops_when_handles_stop_fitting(quick_run):
    _, _, _, drawn = quick_run
    x, y = drawn["fixed_budget/recoverable/closed_form"]
    assert np.all(y[x <= 2728] == 1.0) and np.all(y[x > 2728] == 0.0)
    assert 2728 in x and 2729 in x
    xs, ys = drawn["fixed_budget/recoverable/simulated"]
    assert np.array_equal(ys, (xs <= 2728).astype(float))
    _, by = drawn["fixed_budget/bound"]
    assert by[-1] == pytest.approx(32768 / (2 ** 20 * 32) + 1 / 32)


def test_budget_panel(quick_run):
    _, _, _, drawn = quick_run
    bx, by = drawn["budget/bound"]
    assert np.allclose(by, bx + 1 / 8)                       # B/(Nk) + 1/k with k = 8
    x, y = drawn["budget/recoverable/closed_form"]
    assert np.array_equal(y, (x * 128 >= 72).astype(float))  # 16 handles of 4 bits + 8
    for s in ("keep_blocks", "keep_prefix", "linear_hash"):
        x, y = drawn[f"budget/{s}/closed_form"]
        assert len(x) == 128 and np.all(y <= x + 1 / 8 + 1e-15)
    x, y = drawn["budget/linear_hash/closed_form"]
    assert y[-1] > 0.3 and y[60] < 0.01     # only near B = Nk does the hash keep a block
