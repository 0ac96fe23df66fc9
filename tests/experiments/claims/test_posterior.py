"""The posterior's pieces (issue 30, item 3): the fit reads no ``predict`` number,
the seeded sampler gives one population wherever it runs, ABC-SMC recovers a known
posterior, and the predictive p against a plain reference."""

import concurrent.futures as cf
import dataclasses

import numpy as np
import pytest

from experiments.claims.posterior.fit import fit
from experiments.claims.posterior.observed import observed
from experiments.claims.posterior.predictive import predictive_p, resample
from experiments.claims.posterior.run import predict_ids, weighted_quantiles
from experiments.claims.records import Role
from experiments.claims.registry import REGISTRY
from experiments.claims.robustness.analysis import Factor


def _toy(cells, values, seed, tasks):
    rng = np.random.default_rng(seed)
    return {"y": values["a"] + rng.normal(0, 0.05), "z": 2 * values["b"]
            + rng.normal(0, 0.05)}


FACTORS = [Factor("a", 0.0, 1.0), Factor("b", 0.1, 10.0, log=True)]


def _fit(executor=None, seed=3):
    return fit(FACTORS, {"y": 0.3, "z": 4.0}, population=40, generations=4,
               simulations=2000, tasks=1, seed=seed, simulate=_toy, executor=executor)


def test_observed_holds_only_fit_cells():
    obs = observed(REGISTRY)
    fit_ids = {c.id for c in REGISTRY.fit_cells()}
    assert obs and set(obs) <= fit_ids
    assert not set(obs) & {c.id for c in REGISTRY.predict_cells()}
    assert set(predict_ids(REGISTRY)) <= {c.id for c in REGISTRY.predict_cells()}


class _Spy:
    """A registry that records which cells were read and refuses predict ones."""

    def __init__(self, reg):
        self.reg = reg

    def fit_cells(self):
        return self.reg.fit_cells()

    def cells(self, role=None):
        if role is not Role.FIT:
            raise AssertionError("the fit asked for cells beyond the fit ones")
        return self.reg.cells(role)

    def predict_cells(self):
        raise AssertionError("the fit read a predict cell")


def test_fit_observations_do_not_depend_on_predict_numbers():
    assert observed(_Spy(REGISTRY)) == observed(REGISTRY)


def test_unlisted_fit_cell_is_refused():
    class Reg:
        def fit_cells(self):
            c = REGISTRY.fit_cells()[0]
            return (dataclasses.replace(c, id="NEW:baseline"),)

    with pytest.raises(ValueError, match="NEW:baseline"):
        observed(Reg())


def test_seeded_sampler_same_population_in_process_and_on_two_workers():
    a = _fit()
    with cf.ProcessPoolExecutor(2) as ex:
        b = _fit(ex)
    assert np.array_equal(a.particles, b.particles)
    assert np.array_equal(a.weights, b.weights)
    c = _fit(seed=4)
    assert not np.array_equal(a.particles, c.particles)


def test_abc_recovers_a_known_posterior():
    # y = a + N(0, 0.05), observed 0.3, a ~ U(0, 1): the posterior of a is about
    # N(0.3, 0.05); ABC's tolerance widens it, so the check is on the location and
    # on a width far below the prior's (sd 0.29)
    r = _fit()
    a = r.particles[:, 0]
    mean = float(np.sum(r.weights * a))
    sd = float(np.sqrt(np.sum(r.weights * (a - mean) ** 2)))
    assert abs(mean - 0.3) < 0.06
    assert sd < 0.12
    b = r.particles[:, 1]
    assert abs(float(np.sum(r.weights * b)) - 2.0) < 0.4


def test_predictive_p_against_a_plain_count():
    rng = np.random.default_rng(0)
    t = rng.integers(0, 10, size=200).astype(float)
    for x in (-1.0, 0.0, 3.0, 4.5, 9.0, 12.0):
        below = sum(v < x for v in t) + 0.5 * sum(v == x for v in t)
        above = sum(v > x for v in t) + 0.5 * sum(v == x for v in t)
        assert predictive_p(t, x) == pytest.approx(min(1.0, 2 * min(below, above)
                                                       / len(t)))
    assert predictive_p(t, 100.0) == 0.0
    with pytest.raises(ValueError):
        predictive_p([], 1.0)


def test_resample_follows_weights_and_refuses_bad_ones():
    X = np.arange(4.0)[:, None]
    got = resample(X, np.array([0.0, 0.5, 0.25, 0.25]), 400,
                   np.random.default_rng(1))[:, 0]
    assert np.count_nonzero(got == 0) == 0
    assert np.count_nonzero(got == 1) == 200
    assert np.count_nonzero(got == 2) == 100
    with pytest.raises(ValueError, match="weights"):
        resample(X, np.array([1.0, -1.0, 0.5, 0.5]), 3, np.random.default_rng(1))


def test_weighted_quantiles_match_unweighted_with_equal_weights():
    x = np.random.default_rng(2).normal(size=1001)
    q = weighted_quantiles(x, np.ones_like(x), [0.05, 0.5, 0.95])
    assert np.allclose(q, np.quantile(x, [0.05, 0.5, 0.95]), atol=0.01)


# -- --profile posterior ----------------------------------------------------------------
def _posterior_file(tmp_path, rows, **extra):
    import json

    path = tmp_path / "posterior.json"
    path.write_text(json.dumps({"git_commit": "abcdef123", "simulations": 48,
                                "parameters": rows, **extra}))
    return path


def test_posterior_values_are_the_medians_and_bad_files_are_named(tmp_path):
    from experiments.claims.posterior.profile import posterior_values
    from sim.world import TABLE

    p = TABLE["agent.p_index"]
    mid = (p.low + p.high) / 2
    path = _posterior_file(tmp_path, [{"parameter": "agent.p_index", "median": mid,
                                       "pinned": True}])
    values, notes = posterior_values(path)
    assert values == {"agent.p_index": mid}
    assert "abcdef12" in notes[0] and "pinned by the fit: agent.p_index" in notes[0]
    with pytest.raises(FileNotFoundError, match="claims --posterior"):
        posterior_values(tmp_path / "missing.json")
    for rows, match in (([{"parameter": "agent.nope", "median": 1.0}], "agent.nope"),
                        ([{"parameter": "agent.p_index", "median": p.high * 2}],
                         "not a number in its prior"),
                        ([{"parameter": "agent.p_index", "median": p.low - 1e-9}],
                         "not a number in its prior"),
                        ([], "'parameters' list")):
        with pytest.raises(ValueError, match=match):
            posterior_values(_posterior_file(tmp_path, rows))
    # both ends of the prior are in it
    for v in (p.low, p.high):
        assert posterior_values(_posterior_file(
            tmp_path, [{"parameter": "agent.p_index", "median": v}]))[0] == \
            {"agent.p_index": v}


def test_profile_posterior_runs_the_sweep_at_the_medians(tmp_path, monkeypatch):
    import dataclasses

    from experiments.claims.posterior import profile
    from experiments.cli import build_parser
    from experiments.settings.sweeps import POSTERIOR
    from experiments.settings.vista import PressureSettings
    from experiments.sweep import loca_specs
    from sim.world import TABLE

    p, k = TABLE["agent.p_index"], TABLE["agent.keep_recent"]
    monkeypatch.setattr(profile, "DEFAULT_PATH", _posterior_file(tmp_path, [
        {"parameter": "agent.p_index", "median": p.low},
        {"parameter": "agent.keep_recent", "median": k.high}]))

    def settings(*extra):
        args = build_parser(["run", "pressure"]).parse_args(
            ["run", "pressure", "--profile", POSTERIOR, "--quick", *extra])
        return PressureSettings.from_args(args)

    cfg = settings()
    assert dict(cfg.world) == {"agent.p_index": p.low, "agent.keep_recent": k.high}
    assert cfg.extra_record()["posterior"]["values"] == dict(cfg.world)
    # --world amends the fitted point
    amended = settings("--world", f"agent.p_index={p.high}")
    assert dict(amended.world)["agent.p_index"] == p.high
    cfg = dataclasses.replace(cfg, levels=(8000,), programs=("vista",), budget=8000,
                              families=1, seeds=1, dashboard_tokens=None)
    assert loca_specs(cfg)[0].world.profile.p_index == p.low


def test_the_logit_space_is_the_same_prior_without_bounds():
    """The fit's coordinates (experiments.claims.posterior.fit): to_logit and
    from_logit are inverses, and the standard logistic prior of a coordinate is the
    factor uniform in its sampling space (KS against the uniform)."""
    from scipy import stats

    from experiments.claims.posterior.fit import from_logit, prior, to_logit
    from experiments.claims.robustness.analysis import natural

    rng = np.random.default_rng(5)
    u = rng.uniform(size=(400, 2))
    lo = np.array([f.bounds[0] for f in FACTORS])
    hi = np.array([f.bounds[1] for f in FACTORS])
    x = lo + (hi - lo) * u
    np.testing.assert_allclose(from_logit(FACTORS, to_logit(FACTORS, x)),
                               natural(FACTORS, x), rtol=1e-12)
    np.random.seed(11)
    draws = [prior(FACTORS).rvs() for _ in range(2000)]
    z = np.array([[d[f.name] for f in FACTORS] for d in draws])
    v = from_logit(FACTORS, z)
    assert stats.kstest(v[:, 0], "uniform", args=(0.0, 1.0)).pvalue > 1e-3
    assert stats.kstest(np.log(v[:, 1]), "uniform",
                        args=(np.log(0.1), np.log(10.0) - np.log(0.1))).pvalue > 1e-3
    # a huge coordinate is the bound, never past it
    edge = from_logit(FACTORS, np.array([[60.0, -60.0]]))[0]
    assert edge[0] == 1.0 and edge[1] == pytest.approx(0.1)


def test_claims_posterior_writes_its_six_files_and_the_scorecard_column(tmp_path):
    """End to end at the smallest sizes: ``ctxsim claims --posterior`` writes the
    posterior and predictive files, predictive.csv holds every simulated fit and
    predict number once; with --out not --figures the scorecard is not rewritten
    (it reads predictive.json beside the CSVs: test_claims' column test)."""
    import json

    from experiments.cli import run_command
    from experiments.output import read_csv

    figs = tmp_path / "figs"
    assert run_command(["claims", "--posterior", "--quick", "--population", "4",
                        "--generations", "1", "--simulations", "8", "--suite-tasks",
                        "1", "--predict-queries", "1", "--draws", "2", "--no-progress",
                        "--out", str(figs)]) == 0
    for name in ("posterior", "predictive"):
        for ext in ("csv", "json", "png"):
            assert (figs / f"{name}.{ext}").stat().st_size > 0, (name, ext)
    rows = read_csv(figs / "predictive.csv")
    cells = [r["cell"] for r in rows]
    assert len(cells) == len(set(cells))
    assert {r["role"] for r in rows} == {"fit", "predict"}
    assert set(cells) >= set(predict_ids())
    side = json.loads((figs / "posterior.json").read_text())
    assert len(side["particles"]) == len(side["weights"]) == 4
    assert [p["parameter"] for p in side["parameters"]] == \
        [f.name for f in __import__("experiments.claims.posterior.run",
                                    fromlist=["factors"]).factors()]
    assert not (figs / "claims.md").exists()


def test_screen_fits_what_moves_a_number_above_the_null_of_unread_parameters(tmp_path):
    """A number that moves with agent.a alone, with noise: agent.a is fitted; agent.c
    (no effect) and the browse.* null are not; a missing column is named."""
    from experiments.claims.posterior.screen import fitted_names, screen_table
    from experiments.claims.robustness.analysis import morris_design, natural
    from experiments.output import write_csv

    fs = [Factor("agent.a", 0.0, 1.0), Factor("agent.c", 0.0, 1.0),
          Factor("browse.b", 0.0, 1.0), Factor("browse.d", 1.0, 100.0, log=True)]
    X = natural(fs, morris_design(fs, 8, seed=1))
    rng = np.random.default_rng(2)
    y = 5 * X[:, 0] + rng.normal(0, 0.3, len(X))
    rows = [{"stage": "morris", "point": i, **{f.name: x[j] for j, f in enumerate(fs)},
             "stat:FIG4:react_8k": y[i]} for i, x in enumerate(X)]
    rows.append({"stage": "default", "point": 0, **{f.name: 0.5 for f in fs[:3]},
                 "browse.d": 10.0, "stat:FIG4:react_8k": 99.0})
    path = tmp_path / "points.csv"
    write_csv(path, list(rows[0]), rows)
    table = screen_table(fs, ["FIG4:react_8k"], path)
    e = table["FIG4:react_8k"]
    assert e["null_prefix"] == "browse." and e["fitted"] == ["agent.a"]
    assert e["mu_star"]["agent.a"] > 5 * e["null"]
    assert fitted_names(fs, table) == ["agent.a"]
    with pytest.raises(ValueError, match="stat:FIG4:react_128k"):
        screen_table(fs, ["FIG4:react_128k"], path)
    with pytest.raises(FileNotFoundError, match="claims --robustness"):
        screen_table(fs, ["FIG4:react_8k"], tmp_path / "none.csv")


def test_a_parameter_not_fitted_is_integrated_out_and_keeps_its_prior():
    """fit(fitted=["a"]): b is drawn from its prior in every simulation, its column is
    prior draws; a is still recovered; an unknown name is refused."""
    post = fit(FACTORS, {"y": 0.3, "z": 4.0}, population=40, generations=3,
               simulations=1000, tasks=1, seed=4, simulate=_toy, fitted=["a"])
    assert post.fitted == ["a"]
    a = np.sum(post.weights * post.particles[:, 0])
    assert abs(a - 0.3) < 0.1
    b = post.particles[:, 1]
    assert np.all((b >= 0.1) & (b <= 10.0))
    assert np.std(np.log(b)) > 0.5 * np.log(100) / np.sqrt(12)   # the prior's spread
    with pytest.raises(ValueError, match="fitted must name"):
        fit(FACTORS, {"y": 0.3}, population=4, generations=1, simulations=8, tasks=1,
            simulate=_toy, fitted=["zzz"])
