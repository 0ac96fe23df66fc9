"""ContextEvo against evidence-free search at the same evaluation budget, over several
seeds (issue 19 item 1; the working rule: an optimizer's gain counts only against
evidence-free search at the same budget, on held-out tasks, with a paired interval
over several seeds).

For each seed s (base seed, base + 1, ...): new task instances and episode seeds
(``base_seed = s``), the ContextEvo loop (synthetic back-end keyed by s), and each
evidence-free baseline (:data:`BASELINES`) from the same start with exactly the same
iterations x candidates held-in candidate evaluations (``candidates_evaluated``, the
count each arm spent; :mod:`sim.evolve.contextevo.budget`). ``ef_steps`` changes as many surfaces per
candidate as the editor's median changeset in that seed's ContextEvo run. All arms
of one seed share the task instances, split and episode seeds (common random
numbers), so the per-seed difference of held-out accuracies is paired.

The interval: the per-seed differences d_s (ContextEvo minus baseline, held-out
accuracy of the final iteration), their mean and a 95% Student-t interval over seeds
(n - 1 degrees of freedom). Numbers only: whether they reproduce the claim is the
claims judge's (``EvidenceFree``, from ``contextevo_seeds.csv``).
"""

from __future__ import annotations

import numpy as np

from experiments.intervals import LEVEL

#: CSV ``baseline`` value -> loop mode
BASELINES = {"moves": "ef_moves", "steps": "ef_steps", "best_of_n": "best_of_n",
             "single_move": "single_move"}
SEED_COLUMNS = ("setting", "start", "seed", "variant", "baseline", "n_held_out",
                "held_out_families", "heldout_accuracy", "heldout_gain_vs_start",
                "step_surfaces", "candidates_evaluated")


def median_changeset(res) -> int:
    """The median number of surfaces the editor's applied changesets changed in a
    ContextEvo run (at least 1; 1 when it proposed none)."""
    sizes = [c["surfaces"] for e in res.log for c in e.get("changesets", [])
             if not c.get("rejected") and c.get("applied")]
    return max(1, int(round(float(np.median(sizes))))) if sizes else 1


def seed_interval(diffs, level: float = LEVEL) -> dict:
    """Mean of ``diffs`` (one per seed) with its Student-t interval.

    Raises:
        ValueError: for fewer than 2 seeds.
    """
    from experiments.intervals import student_t

    d = np.asarray(diffs, dtype=float)
    if d.size < 2:
        raise ValueError(f"a seed interval needs at least 2 seeds, got {d.size}")
    m, lo, hi = student_t(d, level)
    return {"mean": round(m, 4), "lo": round(lo, 4), "hi": round(hi, 4),
            "n_seeds": int(d.size), "level": level, "per_seed": [round(x, 4) for x in d]}


def _held_out_acc(res, stage: str) -> float:
    return float(np.mean([res.solved[stage][t] for t in res.held_out]))


def run_seeds(make_sets, start, seeds, make_backend, config_kw: dict, progress=print,
              done: dict | None = None):
    """ContextEvo and every baseline of :data:`BASELINES` from ``start`` for each seed.

    Args:
        make_sets: seed -> list of task sets (:class:`~sim.evolve.contextevo.loop.TaskSet`).
        start: the start spec.
        seeds: the seeds (at least 2).
        make_backend: seed -> a back-end.
        config_kw: :class:`~sim.evolve.contextevo.loop.EvolveConfig` keywords shared by
            every arm (iterations, candidates, exposed surfaces, split).
        done: ``(seed, setting) -> (ContextEvo result, {baseline: result})`` already
            run with exactly these settings (the main run's seed), reused as they are.

    Returns:
        ``(rows, comparison)``: per-seed rows (:data:`SEED_COLUMNS`) and, per setting
        and baseline, :func:`seed_interval` of ContextEvo minus the baseline.
    """
    from sim.evolve.contextevo.loop import EvolveConfig, Runner, evolve

    rows, diffs = [], {}
    for seed in seeds:
        for ts in make_sets(seed):
            if (seed, ts.name) in (done or {}):
                full, base_res = done[(seed, ts.name)]
                size = median_changeset(full)
                arms = {("full", ""): full, **{("evidence_free", b): r
                                               for b, r in base_res.items()}}
            else:
                runner = Runner(ts)
                full = evolve(start, ts, make_backend(seed),
                              EvolveConfig(seed=seed, **config_kw), runner)
                size = median_changeset(full)
                arms = {("full", ""): full}
                for name, mode in BASELINES.items():
                    arms[("evidence_free", name)] = evolve(
                        start, ts, None, EvolveConfig(seed=seed, mode=mode,
                                                      step_surfaces=size, **config_kw),
                        runner)
            last = list(full.solved)[-1]
            ce = _held_out_acc(full, last)
            for (variant, base), res in arms.items():
                acc = _held_out_acc(res, last)
                rows.append({"setting": ts.name, "start": start.name, "seed": seed,
                             "variant": variant, "baseline": base,
                             "n_held_out": len(res.held_out),
                             # the seed's split: families held out whole (";"-joined;
                             # empty under the per-task split)
                             "held_out_families": ";".join(res.held_out_families),
                             "heldout_accuracy": round(acc, 4),
                             "heldout_gain_vs_start": round(
                                 acc - _held_out_acc(res, "start"), 4),
                             "step_surfaces": size if base == "steps" else "",
                             # the budget every arm spends exactly (iterations x
                             # candidates; sim.evolve.contextevo.budget)
                             "candidates_evaluated": res.evaluations})
                if variant == "evidence_free":
                    diffs.setdefault(ts.name, {}).setdefault(base, []).append(ce - acc)
            progress(f"[contextevo] seed {seed} {ts.name}: ContextEvo held-out {ce:.3f}; "
                     + ", ".join(f"{b} {_held_out_acc(arms[('evidence_free', b)], last):.3f}"
                                 for b in BASELINES))
    comparison = {s: {b: seed_interval(d) for b, d in per.items()}
                  for s, per in diffs.items()}
    return rows, comparison
