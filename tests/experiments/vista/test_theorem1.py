"""Smoke test of the Theorem 1 / Proposition 2 reproduction at the quick grid
(PySDM style): re-run it in a temp dir with a fixed seed and assert the values the
figures show."""

import json
import math

import pytest

from experiments.cli import main, run_command
from experiments.output import read_csv
from sim.games.burden_law import mc_halfwidth
from theory.bounds import bound_sum

Z4 = 4.0


def halfwidth(row) -> float:
    """Bernstein half-width (false alarm <= 6.3e-5) of the row's E[Z], from the exact
    Var Z = EZ_se^2 trials recorded in the CSV; valid in rare-event rows."""
    trials, kappa = int(row["trials"]), int(row["kappa"])
    return mc_halfwidth(float(row["EZ_se"]) ** 2 * trials, trials, kappa)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("theorem1")
    assert main(["run", "theorem1", "--quick", "--out", str(out), "--seed", "7",
                 "--no-progress"]) == 0
    return out


def floats(row, *keys):
    return [float(row[k]) for k in keys]


def test_outputs_exist(quick_run):
    for name in ("theorem1", "proposition2"):
        for ext in ("csv", "png", "json"):
            path = quick_run / f"{name}.{ext}"
            assert path.stat().st_size > 200, path
    side = json.loads((quick_run / "theorem1.json").read_text())
    assert side["config"]["seed"] == 7 and side["config"]["grid"] == "quick"
    assert "git_commit" in side and side["ctxsim_version"]


def test_every_point_is_above_the_bound_and_matches_theory(quick_run):
    rows = read_csv(quick_run / "theorem1.csv")
    assert {r["channel"] for r in rows} == {"ledger", "blind", "content", "list", "windowed"}
    for r in rows:
        n, kappa = int(r["n"]), int(r["kappa"])
        ez, se, theory, rate, rate_se = floats(r, "EZ", "EZ_se", "EZ_theory", "rate_bits",
                                               "rate_se_bits")
        assert se < 0.01 * kappa and rate_se < 0.05, r
        assert abs(ez - theory) <= halfwidth(r), r
        # the recorded bound is the bound at the recorded rate ...
        assert float(r["bound_sum"]) == pytest.approx(bound_sum(rate, n, kappa), abs=1e-12)
        # ... and the simulation respects it, allowing for the rate's own error
        assert ez + halfwidth(r) >= bound_sum(min(rate + Z4 * rate_se, math.log2(n)), n, kappa)
        assert float(r["bound_affine"]) <= float(r["bound_sum"]) + 1e-12
        if r["channel"] == "ledger":
            assert ez == 0.0 and rate == math.log2(n)
        # Z >= 0 is constant iff E[Z] = 0; otherwise the exact SE is positive even
        # where every draw was equal (plug-in SE 0), e.g. content at small sigma.
        assert (se > 0.0) == (theory > 0.0), r
        assert r["rate_method"] == ("quadrature" if r["channel"] == "content" else "exact")
        if r["channel"] == "blind":
            assert rate == 0.0 and theory == pytest.approx(kappa - kappa * (kappa + 1) / (2 * n))


def test_proposition2_rates_bounds_and_rise(quick_run):
    rows = read_csv(quick_run / "proposition2.csv")
    for r in rows:
        rate, se, centroid, paper = floats(r, "rate_bits", "rate_se_bits",
                                           "centroid_bound_bits", "paper_bound_bits")
        assert centroid <= paper
        # every row has its rate now, up to n = 2^24 at the quick grid
        assert math.isfinite(rate) and se < 1e-9, r
        assert rate <= min(centroid, math.log2(int(r["n"]))) + 1e-9
        assert abs(float(r["EZ"]) - float(r["EZ_quadrature"])) <= halfwidth(r), r
    # E[Z]/kappa rises towards 1 with n for every (kappa, sigma): compare the
    # smallest and the largest n (2^4 against 2^24 at the quick grid).
    groups = {}
    for r in rows:
        groups.setdefault((r["kappa"], r["sigma"]), []).append(r)
    for key, pts in groups.items():
        pts.sort(key=lambda r: int(r["n"]))
        lo, hi = pts[0], pts[-1]
        assert float(hi["EZ_over_kappa"]) > float(lo["EZ_over_kappa"]), key
        assert float(hi["EZ_over_kappa"]) > 0.9, key


def test_same_seed_same_table(quick_run, tmp_path):
    assert main(["run", "theorem1", "--quick", "--out", str(tmp_path), "--seed", "7",
                 "--no-progress"]) == 0
    assert (tmp_path / "theorem1.csv").read_text() == (quick_run / "theorem1.csv").read_text()
    assert (tmp_path / "proposition2.csv").read_text() == \
        (quick_run / "proposition2.csv").read_text()


def test_config_override_rejects_unknown_keys(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[quick]\nkapas = [2]\n")
    with pytest.raises(ValueError, match="kapas"):
        run_command(["run", "theorem1", "--quick", "--config", str(cfg), "--out",
                     str(tmp_path)])


def test_cli_reports_errors_in_one_line(tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[quick]\nkapas = [2]\n")
    assert main(["run", "theorem1", "--quick", "--config", str(cfg), "--out",
                 str(tmp_path)]) == 2   # an impossible input, like a usage error
    err = capsys.readouterr().err
    assert err.startswith("ctxsim run theorem1: error: unknown key(s) ['kapas']")
    assert "Traceback" not in err


def test_negative_seed_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "theorem1", "--quick", "--seed", "-1"])
    assert exc.value.code == 2
    assert "--seed" in capsys.readouterr().err


def test_theorem1_and_proposition2_do_not_import_each_other():
    # Issue 24: both import the shared grid module; proposition2 must not reach back
    # into theorem1 (also not lazily inside a function).
    import ast
    import pathlib

    import experiments.vista.proposition2 as prop2
    import experiments.vista.theorem1 as thm1

    def imported(module):
        tree = ast.parse(pathlib.Path(module.__file__).read_text())
        return {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module} | \
               {f"{node.module}.{a.name}" for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module for a in node.names}

    assert not any("theorem1" in m for m in imported(prop2))
    assert "experiments.vista.eviction_grid" in imported(prop2)
    assert "experiments.vista.eviction_grid" in imported(thm1)


def test_grid_rows_are_the_same_for_one_and_two_threads():
    """The batched sampler spreads the grid's points over the numba threads; every
    row (E[Z], both SEs, ...) must be the same whatever their number."""
    import numba

    from experiments.settings.theory import Theorem1Settings
    from experiments.vista.theorem1 import run_grid

    config = Theorem1Settings.build(Theorem1Settings.load("quick"))
    before = numba.get_num_threads()
    try:
        runs = []
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            runs.append(run_grid(config, seed=3, progress=False))
    finally:
        numba.set_num_threads(before)
    assert runs[0] == runs[-1]
    assert len({r["EZ"] for r in runs[0]}) > 10    # not a degenerate grid
