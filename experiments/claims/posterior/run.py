"""``ctxsim claims --posterior``: the fit, the predictive check and the files
``posterior.csv``/``.json``/``.png`` (each parameter's posterior against its prior)
and ``predictive.csv``/``.json``/``.png`` (each paper number against its
predictive interval): ``experiments.claims.posterior``."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

NAME, PREDICTIVE = "posterior", "predictive"
#: a parameter is "pinned" when its posterior 90% interval is at most this share of
#: its prior's (in the sampling space)
PINNED = 0.5
#: the predictive p below which a paper number is "not predicted"
ALPHA = 0.10


def add_arguments(group) -> None:
    """``--posterior`` and its sizes (the executor, ``--seed`` and ``--quick`` are
    the robustness group's)."""
    from experiments.settings.posterior import PosteriorSettings

    group.add_argument("--posterior", action="store_true", help=(
        "fit the world's parameters to the baselines' numbers (ABC-SMC, pyabc) and "
        "check every VISTA number against its posterior predictive interval: writes "
        "posterior.csv/.json/.png and predictive.csv/.json/.png in --out, then the "
        "scorecard with its 'predicted from the baselines' column (default: off)"))
    PosteriorSettings.add_arguments(group)


def config(args):
    """The effective ``PosteriorSettings``
    (``--config`` is the robustness design's file, so it is not read here)."""
    import argparse

    from experiments.settings.posterior import PosteriorSettings

    return PosteriorSettings.from_args(argparse.Namespace(**{**vars(args),
                                                             "config": None}))


def factors():
    """Every world parameter as a factor of its prior (the table's range; ``log``
    where log-uniform)."""
    from sim.world import TABLE

    from experiments.claims.robustness.analysis import Factor

    return [Factor(n, p.low, p.high, p.log) for n, p in TABLE.items()]


def predict_ids(registry=None) -> list[str]:
    """The ``predict`` cells a point simulates, in registry order."""
    from experiments.claims.robustness.stats import STATS

    if registry is None:
        from experiments.claims.registry import REGISTRY as registry
    return [c.id for c in registry.predict_cells() if c.id in STATS]


def compute(cfg, executor=None, progress: bool = False) -> dict:
    """Fit, then draw the predictive distributions. Returns ``{"fit", "factors",
    "predictions", "draws", "seconds"}``."""
    from experiments.claims.posterior.fit import fit
    from experiments.claims.posterior.observed import observed
    from experiments.claims.posterior.predictive import (prediction, prior_draws,
                                                         resample, simulate_points)
    from experiments.claims.posterior.screen import fitted_names, screen_table
    from experiments.claims.registry import REGISTRY

    fs = factors()
    obs = observed(REGISTRY)
    table = screen_table(fs, list(obs), seed=cfg.seed)
    t0 = time.perf_counter()
    post = fit(fs, obs, population=cfg.population, generations=cfg.generations,
               simulations=cfg.simulations, tasks=cfg.suite_tasks, seed=cfg.seed,
               executor=executor, fitted=fitted_names(fs, table))
    t1 = time.perf_counter()
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 11]))
    names = post.names
    post_pts = [dict(zip(names, map(float, r)))
                for r in resample(post.particles, post.weights, cfg.draws, rng)]
    prior_pts = [dict(zip(names, map(float, r)))
                 for r in prior_draws(fs, cfg.draws, rng)]
    pred = predict_ids(REGISTRY)
    sims = {"posterior": simulate_points(list(obs) + pred, post_pts, "posterior",
                                         cfg.seed, cfg.suite_tasks, cfg.predict_queries,
                                         executor, progress),
            "prior": simulate_points(pred, prior_pts, "prior", cfg.seed, cfg.suite_tasks,
                                     cfg.predict_queries, executor, progress)}
    paper = {c.id: float(c.value) for c in REGISTRY.cells()}
    out = []
    for cid in list(obs) + pred:
        role = "fit" if cid in obs else "predict"
        row = {"cell": cid, "role": role,
               "posterior": prediction(cid, paper[cid],
                                       [d[cid] for d in sims["posterior"]]),
               "prior": (prediction(cid, paper[cid], [d[cid] for d in sims["prior"]])
                         if role == "predict" else None)}
        out.append(row)
    return {"fit": post, "factors": fs, "predictions": out, "draws": sims,
            "screen": table, "fit_seconds": t1 - t0,
            "seconds": time.perf_counter() - t0}


def parameter_rows(fit, fs) -> list[dict]:
    """``posterior.csv``: per parameter the prior range, whether it was fitted (else
    integrated out: its posterior is its prior, given exactly), the weighted
    posterior median and 90% interval, and the interval's width as a share of the
    prior's (both in the sampling space)."""
    rows = []
    fitted = set(fit.fitted)
    for j, f in enumerate(fs):
        lo, hi = f.bounds
        if f.name in fitted:
            x = f.to_sampling(fit.particles[:, j])
            q = weighted_quantiles(x, fit.weights, [0.05, 0.5, 0.95])
        else:
            q = lo + (hi - lo) * np.array([0.05, 0.5, 0.95])
        share = float((q[2] - q[0]) / (0.9 * (hi - lo)))
        back = np.exp(q) if f.log else q
        rows.append({"parameter": f.name, "prior_low": f.low, "prior_high": f.high,
                     "log": f.log, "fitted": f.name in fitted, "median": _r(back[1]), "lo": _r(back[0]),
                     "hi": _r(back[2]), "width_share": round(share, 4),
                     "pinned": share <= PINNED})
    return rows


def weighted_quantiles(x, w, qs) -> np.ndarray:
    """Quantiles ``qs`` of values ``x`` with weights ``w`` (the inverse of the
    weighted empirical CDF, midpoint rule)."""
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    order = np.argsort(x)
    x, w = x[order], w[order]
    c = (np.cumsum(w) - 0.5 * w) / w.sum()
    return np.interp(qs, c, x)


def _r(v) -> float:
    return float(f"{float(v):.6g}")


PRED_COLUMNS = ["cell", "role", "paper", "mean", "lo", "hi", "p", "n", "verdict",
                "prior_mean", "prior_lo", "prior_hi", "prior_p"]


def verdict(p: float) -> str:
    """``"predicted"`` when the predictive p is at least :data:`ALPHA`, else
    ``"not predicted"``: the one rule the table, the scorecard and the figure's
    colours follow (the 90% interval interpolates between the draws, so a paper
    number at its edge can fall just outside it with p = 0.10)."""
    return "predicted" if p >= ALPHA else "not predicted"


def prediction_rows(predictions) -> list[dict]:
    """``predictive.csv``: one row per simulated paper number."""
    rows = []
    for r in predictions:
        d = {"cell": r["cell"], "role": r["role"], **r["posterior"].as_dict()}
        d.pop("cell", None)
        d = {"cell": r["cell"], **d, "verdict": verdict(r["posterior"].p)}
        pr = r["prior"]
        d.update({"prior_mean": _r(pr.mean) if pr else "", "prior_lo": _r(pr.lo) if pr
                  else "", "prior_hi": _r(pr.hi) if pr else "",
                  "prior_p": round(pr.p, 4) if pr else ""})
        rows.append(d)
    return rows


def write(result: dict, cfg, out: Path) -> list[Path]:
    """The six files in ``out``."""
    from experiments.claims.posterior.figure import parameter_figure, predictive_figure
    from experiments.claims.posterior.observed import FIT_LEFT_OUT
    from experiments.output import save_figure, write_csv, write_sidecar

    fit, fs = result["fit"], result["factors"]
    prows = parameter_rows(fit, fs)
    qrows = prediction_rows(result["predictions"])
    common = {"observed": fit.observed, "fit_left_out": FIT_LEFT_OUT,
              "simulations": fit.simulations, "generations": fit.generations,
              "ess": round(fit.ess(), 2), "fit_seconds": round(result["fit_seconds"], 1),
              "wall_seconds": round(result["seconds"], 1),
              "method": "ABC-SMC (pyabc), adaptive Euclidean distance (MAD scales), "
              "median epsilon, multivariate normal transition in each parameter's "
              "logit coordinate; prior: the world table, uniform in each parameter's "
              "sampling space (standard logistic in the logit); seeded batches "
              "(experiments.claims.posterior.sampler)"}
    paths = [write_csv(out / f"{NAME}.csv", list(prows[0]), prows),
             write_csv(out / f"{PREDICTIVE}.csv", PRED_COLUMNS, qrows)]
    rest = len(fs) - len(fit.fitted)
    title = (f"Posterior of the world given the baselines' numbers ({', '.join(fit.observed)}): "
             f"ABC-SMC of {len(fit.fitted)} parameters the screen finds "
             f"informed ({rest} others integrated out, their prior), "
             f"{fit.simulations} simulations of {cfg.suite_tasks} tasks, "
             f"{len(fit.generations)} generations, ESS {fit.ess():.0f}")
    paths.append(save_figure(parameter_figure(prows, title), out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg.record(), {
        **common, "pinned_when": f"posterior 90% width <= {PINNED} x the prior's",
        "fitted": fit.fitted,
        "screen": {"method": "Morris mu* of each fit number over the Morris points "
                   "of robustness_points.csv, divided by its spread; fitted when "
                   "above the largest mu* of a parameter the number's episodes never "
                   "read (experiments.claims.posterior.screen)",
                   "cells": result["screen"]},
        "parameters": prows,
        # the last generation's weighted particles (natural units, columns in the
        # order of "parameters"): the posterior itself, for draws beyond the medians
        "particles": [[_r(v) for v in row] for row in fit.particles],
        "weights": [_r(w) for w in fit.weights]}))
    ptitle = (f"Paper numbers against the world fitted to the baselines: "
              f"{cfg.draws} posterior and {cfg.draws} prior draws of "
              f"{cfg.suite_tasks} tasks, 90% intervals")
    paths.append(save_figure(predictive_figure(qrows, ptitle), out / f"{PREDICTIVE}.png"))
    paths.append(write_sidecar(out / f"{PREDICTIVE}.json", cfg.record(), {
        **common, "level": 0.90, "alpha": ALPHA,
        "p": "two-sided posterior predictive p of the paper's number (mid-p for "
        "ties); its smallest non-zero value is 1/draws",
        "cells": {r["cell"]: r for r in qrows}}))
    return paths


def main(args) -> list[Path]:
    """Run from the command line; write the files into ``args.out`` as a set."""
    from experiments.claims.robustness.run import executor_for
    from experiments.output import output_set

    cfg = config(args)
    out = Path(args.out)
    with output_set(out) as staging:
        with executor_for(cfg.jobs, cfg.scheduler) as ex:
            result = compute(cfg, executor=ex, progress=not args.no_progress)
        names = [p.name for p in write(result, cfg, staging)]
    for r in prediction_rows(result["predictions"]):
        print(f"{r['cell']:<30} {r['role']:<8} paper {r['paper']:<10g} predictive "
              f"{r['mean']:.4g} [{r['lo']:.4g}, {r['hi']:.4g}] p {r['p']:.2f} "
              f"{r['verdict']}")
    print(f"posterior: {result['fit'].simulations} simulations, "
          f"{result['seconds']:.0f} s")
    return [out / n for n in names]
