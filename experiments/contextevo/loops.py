"""Every evolution loop one ``ctxsim run contextevo`` asks for: from each start on
each task set; from the first start the leave-one-stage-out ablations (ContextEvo
Table 5) and the evidence-free baselines at the same budget; and the seeds of the
ContextEvo vs evidence-free comparison (:mod:`experiments.contextevo.evidence_free`)."""

from __future__ import annotations

import time

from experiments.contextevo.evidence_free import BASELINES
from experiments.contextevo.setup import (check_splits, evolve_config, exposed,
                                          make_backend, split_options, starts, tasksets,
                                          with_seed)

#: variant -> the loop's stage switches it turns off (ContextEvo Table 5)
ABLATIONS = {"full": {}, "no_review": {"review": False},
             "no_aggregation": {"aggregate": False}, "no_replay": {"replay": False},
             "no_update": {"update": False}}


def run_all(cs, client=None, progress=print) -> dict:
    """Every loop settings ``cs`` ask for
    (:class:`~experiments.settings.contextevo.ContextEvoSettings`); returns the raw
    results (for :func:`experiments.contextevo.experiment.run`)."""
    from experiments.contextevo.evidence_free import median_changeset, run_seeds
    from sim.evolve.contextevo.loop import Runner, evolve

    sts = starts(cs)
    sets = tasksets(cs)
    splits = check_splits(cs, sets)  # a bad split fails before any episode runs
    results, ablations, ledgers, baselines = [], {}, [], {}
    for si, ts in enumerate(sets):
        runner = Runner(ts)
        for sj, start in enumerate(sts):
            backend = make_backend(cs, client)
            t0 = time.perf_counter()
            res = evolve(start, ts, backend, evolve_config(cs), runner)
            progress(f"[contextevo] {ts.name} from {start.name}: "
                     f"{time.perf_counter() - t0:.1f} s")
            results.append((ts.name, start, res))
            ledgers.append({"setting": ts.name, "start": start.name, **backend.ledger()})
            led = ledgers[-1]
            if led.get("model_calls") and led.get("failed_calls") == led["model_calls"]:
                # an evolution in which no call reached the model is not a result
                raise RuntimeError(f"every one of the {led['model_calls']} model calls "
                                   f"failed ({ts.name} from {start.name}); last: "
                                   f"{led.get('last_error') or 'unknown'}")
            if sj == 0 and not cs.no_ablations and cs.backend == "synthetic":
                abl = ablations.setdefault(ts.name, {})
                for var, over in ABLATIONS.items():
                    if var == "full":
                        abl[var] = res
                        continue
                    b = make_backend(cs, client)
                    abl[var] = evolve(start, ts, b, evolve_config(cs, **over), runner)
                    progress(f"[contextevo] {ts.name} ablation {var} done")
                    ledgers.append({"setting": ts.name, "start": start.name,
                                    "variant": var, **b.ledger()})
                size = median_changeset(res)
                for name, mode in BASELINES.items():
                    baselines.setdefault(ts.name, {})[name] = evolve(
                        start, ts, None, evolve_config(cs, mode=mode, step_surfaces=size),
                        runner)
                progress(f"[contextevo] {ts.name} evidence-free baselines done "
                         f"(steps of {size} surfaces)")
    seed_rows, comparison = [], {}
    if cs.ef_seeds and not cs.no_ablations and cs.backend == "synthetic":
        seeds = list(range(cs.seed, cs.seed + cs.ef_seeds))
        kw = {"iterations": cs.iterations, "candidates": cs.candidates,
              "hypotheses": cs.hypotheses, "exposed": exposed(cs), **split_options(cs)}

        def make_sets(seed):
            return tasksets(with_seed(cs, seed))

        def backend_of(seed):
            return make_backend(with_seed(cs, seed))

        # the main run's seed is the first: its loops from the first start are reused
        done = {(cs.seed, ts.name): (ablations[ts.name]["full"], baselines[ts.name])
                for ts in sets if ts.name in baselines}
        seed_rows, comparison = run_seeds(make_sets, sts[0], seeds, backend_of, kw,
                                          progress, done)
    return {"results": results, "ablations": ablations, "ledgers": ledgers,
            "sets": sets, "starts": sts, "baselines": baselines, "splits": splits,
            "seed_rows": seed_rows, "comparison": comparison}
