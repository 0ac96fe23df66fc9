"""``ctxsim claims --robustness``: the options, the executor, and the files
``robustness.csv``, ``robustness_points.csv`` (every point's effects),
``robustness.json`` and ``robustness.png`` (sizes and their cost:
:mod:`experiments.claims.robustness`)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from experiments.arguments import UsageError, given_flags, only_with, positive_int

NAME = "robustness"


#: what the analysis leaves out, and why (said in the JSON and the docs)
NOT_INCLUDED = ("ContextEvo and Evo-Harness claims: an evolution loop per world point "
                "costs minutes to hours, too costly for a sample of hundreds of points; "
                "theory claims: no world parameter enters them; Table 5 and Fig. 10: a "
                "real model's answers and replayed trajectories, not the synthetic agent; "
                "Fig. 4 at 16K-64K and 256K growth: the reduced sweeps play 8K and 128K; "
                "Fig. 8b's counts, Fig. 9's rescue share and Table 7's steps: their "
                "checks have no paired effect with a standard error yet")


def power_of_two(text: str) -> int:
    """An argparse ``type``: 0 (no Sobol' stage) or a power of two >= 2 (a balanced
    Sobol' sample)."""
    import argparse

    from experiments.arguments import nonnegative_int

    n = nonnegative_int(text)
    if n == 1 or n & (n - 1):
        raise argparse.ArgumentTypeError(f"{text!r} is neither 0 (no Sobol' stage) nor "
                                         "a power of two >= 2 (a Sobol' base sample "
                                         "must be)")
    return n


def add_arguments(parser) -> None:
    """``--robustness`` and its options
    (:class:`~experiments.settings.robustness.RobustnessSettings`: ``--config``,
    ``--quick``, ``--samples``, ``--trajectories``, ``--screen``, ``--tasks``,
    ``--queries``, ``--claims``, ``--params``, ``--jobs``, ``--scheduler``, ``--seed``,
    ``--no-progress``)."""
    from experiments.settings.robustness import RobustnessSettings

    g = parser.add_argument_group("robustness (--robustness)")
    g.add_argument("--robustness", action="store_true",
                   help="global sensitivity of every agent-level claim over the world's "
                        "priors (`ctxsim world`): writes robustness.csv/.json/.png in "
                        "--out, then the scorecard with its robustness column "
                        "(default: off, the scorecard alone)")
    RobustnessSettings.add_arguments(g)


def only_with_robustness() -> tuple[dict[str, str], dict[str, object]]:
    """The options that mean something only with ``--robustness``: every option
    :class:`~experiments.settings.robustness.RobustnessSettings` adds, as
    ``(dest -> flag, dest -> value when not given)`` for
    :func:`~experiments.arguments.given_flags`."""
    from experiments.settings.robustness import RobustnessSettings

    options = RobustnessSettings.parser_defaults()
    return ({d: f for d, (f, _) in options.items()},
            {d: v for d, (_, v) in options.items()})


def check_options(args) -> None:
    """Refuse robustness options given without ``--robustness`` (they would be
    silently ignored), ``--jobs``/``--seed`` away from their defaults.

    Raises:
        UsageError: naming the options (exit 2).
    """
    from experiments.settings.posterior import PosteriorSettings

    posterior = PosteriorSettings.parser_defaults()
    if not getattr(args, "posterior", False):
        only_with("--posterior", given_flags(args, {d: f for d, (f, _) in
                                                    posterior.items()},
                                             {d: v for d, (_, v) in posterior.items()}))
    if not getattr(args, "robustness", False):
        flags, defaults = only_with_robustness()
        if getattr(args, "posterior", False):
            # the executor, the seed, --quick and --no-progress are shared
            for d in ("jobs", "scheduler", "seed", "quick", "no_progress"):
                flags.pop(d, None)
        only_with("--robustness", given_flags(args, flags, defaults))


def select(args) -> tuple[list, list[str]]:
    """The claims and world parameters ``--claims`` and ``--params`` name.

    Raises:
        UsageError: naming an id that is not an agent-level claim, or an unknown
            parameter (and the valid ones; exit 2).
    """
    from sim.world import TABLE

    from experiments.claims.robustness.model import agent_claims

    claims = agent_claims()
    if args.claims:
        by_id = {c.id: c for c in claims}
        bad = [c for c in args.claims if c not in by_id]
        if bad:
            raise UsageError(f"--claims {' '.join(bad)}: not agent-level claims; valid: "
                           f"{' '.join(by_id)}")
        claims = [by_id[c] for c in dict.fromkeys(args.claims)]
    params = list(TABLE)
    if args.params:
        bad = [p for p in args.params if p not in TABLE]
        if bad:
            raise UsageError(f"--params {' '.join(bad)}: not world parameters; valid: "
                           f"{' '.join(TABLE)}")
        params = list(dict.fromkeys(args.params))
    return claims, params


def config(args):
    """The effective design
    (:class:`~experiments.settings.robustness.RobustnessSettings`): explicit options
    win; ``--quick`` shrinks the others; ``claims`` and ``params`` as
    :func:`select` resolves them.

    Raises:
        UsageError: see :func:`select`.
    """
    import dataclasses

    from experiments.settings.robustness import RobustnessSettings

    cfg = RobustnessSettings.from_args(args)
    claims, params = select(args)
    return dataclasses.replace(cfg, claims=tuple(c.id for c in claims),
                               params=tuple(params))


@contextlib.contextmanager
def executor_for(jobs: int, scheduler: str | None):
    """A Dask client (``scheduler``), a process pool (``jobs > 1``) or ``None`` (in
    process), closed on exit."""
    from experiments.executors import process_pool
    from experiments.sweep import dask_client

    if scheduler:
        with dask_client(scheduler) as client:
            yield client
    elif jobs > 1:
        # an interrupt cancels the queued jobs and ends the workers (issue 33)
        with process_pool(jobs) as ex:
            yield ex
    else:
        yield None


def effect_points(model, an) -> tuple:
    """Every point played, scaled to the unit cube of the priors' sampling space
    (``ln`` of a log-uniform factor; rows: the
    defaults, the Morris points, the Sobol' points), and the effects there (one
    dict claim -> :class:`~experiments.claims.robustness.effects.Effect` per
    point)."""
    import numpy as np

    from experiments.claims.robustness.model import world_point

    lo = np.array([f.bounds[0] for f in an.factors])
    width = np.array([f.bounds[1] for f in an.factors]) - lo
    default = dict(world_point({}))
    at_default = [[float(f.to_sampling(default[f.name])) for f in an.factors]]
    X = np.vstack([at_default, an.morris_X, an.sobol_X])
    effects = (model.effects["default"] + model.effects["morris"]
               + model.effects.get("sobol", []))
    return np.clip((X - lo) / width, 0, 1), effects


def effect_summary(U, effects: list, seed: int, names=None,
                   length_min: float | None = None) -> dict:
    """One claim's effect over the prior: the metamodel
    (:func:`~experiments.claims.robustness.metamodel.summarise`) fitted to its
    paired effect at every point played (``U``: the points in the unit cube;
    ``effects``: its :class:`~experiments.claims.robustness.effects.Effect` there,
    the defaults first, ``None`` where the data missed; a point where the effect is
    undefined is dropped and counted), each point's SE as its noise; the claimed
    set, the paper's number and the effect at the defaults. With ``names`` (one
    per column of ``U``) also each parameter's Sobol' indices of the expected
    effect on the metamodel, ``"indices": {name: {"S1": {value, lo, hi}, "ST":
    ...}}`` (``None``: the effect did not vary, or the points do not show it to);
    ``length_min``: the kernel's shortest length scale (default the metamodel's)."""
    import numpy as np

    from experiments.claims.robustness.metamodel import summarise

    e = effects
    ok = [i for i, x in enumerate(e) if x is not None and np.isfinite(x.value)
          and np.isfinite(x.se)]
    ref = next(x for x in e if x is not None)
    out = {"scale": ref.scale, "paper": _finite(ref.paper), "tolerance":
           _finite(ref.tolerance), "claimed": [_finite(ref.low), _finite(ref.high)],
           "at_default": {"value": _finite(e[0].value if e[0] else None),
                          "se": _finite(e[0].se if e[0] else None),
                          "n": e[0].n if e[0] else 0},
           "points": len(ok), "dropped": len(e) - len(ok)}
    if len(ok) < 3:
        return {**out, "sign_share": None, "tolerance_share": None, "mean": None,
                "spread": None, "cv": None, "indices": None, "evidence": None}
    s = summarise(U[ok], np.array([e[i].value for i in ok]),
                  np.array([e[i].se for i in ok]), ref.low, ref.high, ref.paper,
                  ref.tolerance, seed=seed, indices=names is not None,
                  **({} if length_min is None else {"length_min": length_min}))
    nd = 6
    indices = None
    if s.indices is not None and names is not None:
        indices = {n: {"S1": ix.S1.as_dict(), "ST": ix.ST.as_dict()}
                   for n, ix in zip(names, s.indices)}
    return {**out, "indices": indices, "evidence": round(s.evidence, 3),
            "sign_share": s.sign_share.as_dict(),
            "tolerance_share": s.tolerance_share.as_dict() if s.tolerance_share else None,
            "mean": s.mean.as_dict(nd), "spread": s.spread.as_dict(nd), "cv": s.cv,
            "white_noise": round(s.white, 6), "kernel": s.kernel}


def _effect_job(job) -> dict:
    return effect_summary(*job)


def effect_summaries(model, an, claim_ids, seed: int, executor=None) -> dict:
    """:func:`effect_summary` of every claim, on ``executor`` when given (one job a
    claim), in claim order whatever the executor; with the metamodel's Sobol'
    indices when the analysis played no Sobol' stage (``an.samples == 0``)."""
    from experiments.executors import ordered_map

    U, effects = effect_points(model, an)
    names = None if an.samples else [f.name for f in an.factors]
    # without a Sobol' stage every point but the defaults sits on the Morris grid:
    # the kernel resolves nothing finer than its spacing, 1 / (levels - 1)
    grid = None if an.samples else 1 / (an.levels - 1)
    jobs = [(U, [x[c] for x in effects], seed, names, grid) for c in claim_ids]
    return dict(zip(claim_ids, ordered_map(_effect_job, jobs, executor)))


def metamodel_sobol(an, summaries: dict) -> None:
    """Fill ``an.sobol`` (effect output -> parameter ->
    :class:`~experiments.claims.robustness.analysis.SobolRow`) from the metamodel
    indices of :func:`effect_summaries`, for an analysis without a Sobol' stage:
    the claims' deciding parameters then come from them (``None``: the effect did
    not vary)."""
    from experiments.claims.robustness.analysis import SobolRow
    from experiments.claims.robustness.model import effect_output

    def triple(e):
        return (e["value"], e["lo"], e["hi"])

    for claim, s in summaries.items():
        # kept once, in the entry's "sobol", not again in its "effect"
        ix = s.pop("indices", None)
        an.sobol[effect_output(claim)] = None if ix is None else {
            n: SobolRow.from_interval(triple(v["S1"]), triple(v["ST"]))
            for n, v in ix.items()}


def point_rows(model, an) -> tuple[list[str], list[dict]]:
    """``robustness_points.csv``: one row per world point played (the defaults,
    then the Morris and Sobol' points in order) with its stage, index, design seed
    (:func:`~experiments.claims.robustness.model.point_seed`), every parameter's
    value, per claim the verdict, the effect and its SE, and per paper cell its
    sweeps cover the simulated value (``stat:<cell id>``,
    :mod:`experiments.claims.robustness.stats`): the simulations the summaries come
    from, reusable as a reference table (issue 30, item 3)."""
    from experiments.claims.robustness.analysis import natural
    from experiments.claims.robustness.model import point_seed, world_point

    names = [f.name for f in an.factors]
    default = dict(world_point({}))
    stages = [("default", [[default[n] for n in names]]),
              ("morris", natural(an.factors, an.morris_X)),
              ("sobol", natural(an.factors, an.sobol_X))]
    from experiments.claims.robustness.stats import STATS

    claims = model.claim_ids
    cols = ["stage", "point", "design_seed", *names]
    for c in claims:
        cols += [f"{c}:verdict", f"{c}:effect", f"{c}:se"]
    cols += [f"stat:{cid}" for cid in STATS]
    rows = []
    for stage, X in stages:
        for i, x in enumerate(X):
            r = {"stage": stage, "point": i,
                 "design_seed": point_seed(model.design.seed, stage, i),
                 **{n: float(v) for n, v in zip(names, x)}}
            for c in claims:
                e = model.effects[stage][i][c]
                r.update({f"{c}:verdict": model.verdicts[stage][i][c],
                          f"{c}:effect": _finite(e.value) if e else None,
                          f"{c}:se": _finite(e.se) if e else None})
            stats = model.stats.get(stage, [{}] * (i + 1))[i]
            r.update({f"stat:{cid}": _finite(stats.get(cid)) for cid in STATS})
            rows.append({k: ("" if v is None else v) for k, v in r.items()})
    return cols, rows


def _finite(x):
    import math

    return None if x is None or not math.isfinite(x) else round(float(x), 6)


def compute(cfg, claims=None, params=None, executor=None, progress: bool = False
            ) -> dict:
    """Run the analysis; returns ``{"analysis", "entries", "model", "wall_seconds",
    "reference"}``.

    Args:
        cfg: the design (:class:`~experiments.settings.robustness.RobustnessSettings`:
            trajectories, samples, screen, tasks, queries, windows, seed).
        claims: the claims to analyse (default: every agent-level claim).
        params: the world parameters to vary (default: the whole table); the others
            stay at their defaults.
        executor: where episodes and judging run (``None``: in process).
    """
    from sim.world import TABLE

    from experiments.claims.robustness.analysis import Factor, analyse
    from experiments.claims.robustness.model import Design, WorldModel, agent_claims
    from experiments.claims.robustness.summary import claim_entry

    claims = list(claims if claims is not None else agent_claims())
    names = list(params) if params is not None else list(TABLE)
    factors = [Factor(n, TABLE[n].low, TABLE[n].high, TABLE[n].log) for n in names]
    design = Design.for_claims(claims, tasks=cfg.tasks, queries=cfg.queries,
                               windows=tuple(cfg.windows), seed=cfg.seed)
    model = WorldModel(design, claims, names, executor=executor, progress=progress)
    t0 = time.perf_counter()
    verdicts, effects = model.evaluate([{}], "default")
    model.effects["default"], model.verdicts["default"] = effects, verdicts
    reference = verdicts[0]
    an = analyse(factors, model, cfg.trajectories, cfg.samples, cfg.screen,
                 cfg.seed)
    t1 = time.perf_counter()
    summaries = effect_summaries(model, an, [c.id for c in claims], cfg.seed, executor)
    if not an.samples:
        metamodel_sobol(an, summaries)
    power_stage = "sobol" if an.samples else "morris"
    entries = {c.id: claim_entry(an, c.id, model.verdicts[power_stage], reference[c.id],
                                 summaries[c.id], cfg.tasks)
               for c in claims}
    wall = time.perf_counter() - t0
    return {"analysis": an, "entries": entries, "model": model, "design": design,
            "claims": claims, "wall_seconds": wall, "reference": reference,
            "metamodel_seconds": time.perf_counter() - t1}


def write(result: dict, cfg, out: Path) -> list[Path]:
    """``robustness.csv``, ``robustness.json`` and ``robustness.png`` in ``out``."""
    from dataclasses import asdict

    from experiments.output import save_figure, write_csv, write_sidecar
    from experiments.claims.robustness.figure import figure
    from experiments.claims.robustness.summary import CSV_COLUMNS, csv_rows

    an, entries, design = result["analysis"], result["entries"], result["design"]
    items = {c.id: c.item_key for c in result["claims"]}
    points = an.points + 1
    episodes = result["model"].episodes
    workers = cfg.jobs if not cfg.scheduler else None
    paths = [write_csv(out / f"{NAME}.csv", CSV_COLUMNS, csv_rows(an, entries, items)),
             write_csv(out / f"{NAME}_points.csv", *point_rows(result["model"], an))]
    how = (f"Sobol' (N = {an.samples}) on {len(an.screened)} screened parameters"
           if an.samples else f"Sobol' indices of each effect on its metamodel "
           f"({len(an.factors)} parameters)")
    title = (f"Robustness of the agent-level claims over the world's priors: Morris "
             f"({an.trajectories} trajectories), {how}; {design.tasks} LOCA-like tasks "
             f"and {design.queries} queries x {len(design.windows)} windows per point, "
             f"{points} points, {episodes:,} episodes")
    paths.append(save_figure(figure(an, entries, title), out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg.record(), {
        "design": asdict(design),
        "effect": "per point, each claim's paired effect and its SE (common random "
        "numbers across arms, a design seed drawn per point); sign_share: the share "
        "of the prior where the expected effect lies in the claimed set, from a "
        "Gaussian-process metamodel with each point's SE as its noise, 95% interval "
        "over its posterior (experiments.claims.robustness.metamodel)",
        "power_when": "the claim's verdict at the point is 'reproduced' (the claims "
        "package's own judge on the reduced sweeps' CSVs)",
        "screened": an.screened, "groups": an.groups, "points": points,
        "episodes": episodes, "wall_seconds": round(result["wall_seconds"], 1),
        "metamodel_seconds": round(result["metamodel_seconds"], 1),
        "seconds_per_point": round(result["wall_seconds"] / points, 3),
        # wall time x local workers: CPU time only on an otherwise idle machine
        "worker_wall_seconds_per_point": (
            round(result["wall_seconds"] * workers / points, 3) if workers else None),
        "not_included": NOT_INCLUDED, "verdicts_at_default": result["reference"],
        "claims": entries}))
    return paths


def main(args) -> list[Path]:
    """Run the analysis from the command line and write its files into ``args.out``
    (as a set: nothing lands unless the run succeeds); returns their paths."""
    from experiments.output import output_set

    cfg = config(args)
    out = Path(args.out)
    with output_set(out) as staging:
        claims, params = select(args)
        with executor_for(cfg.jobs, cfg.scheduler) as ex:
            result = compute(cfg, claims, params, executor=ex,
                             progress=not args.no_progress)
        names = [p.name for p in write(result, cfg, staging)]
    for claim, e in result["entries"].items():
        one = f"; decided by {e['decided_by']}" if e["decided_by"] else ""
        sh = e["effect"]["sign_share"]
        share = ("sign share n/a" if sh is None else
                 f"sign share {sh['value']:.2f} [{sh['lo']:.2f}, {sh['hi']:.2f}]")
        print(f"{claim:<24} {share}; power {e['power']['value']:.2f}{one}")
    print(f"robustness: {result['analysis'].points + 1} world points, "
          f"{result['model'].episodes:,} episodes, {result['wall_seconds']:.0f} s")
    return [out / n for n in names]
