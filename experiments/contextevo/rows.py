"""The rows of ``contextevo.csv``: every stage of a loop result on every split, with
the paired-bootstrap interval of its difference from the start (common random
numbers: every spec runs each task with the same episode seed) and, for an ablation
or a baseline, from the full loop."""

from __future__ import annotations

import numpy as np

from experiments.contextevo.paper import PAPER

#: accuracy, diffs and paper_accuracy are fractions of tasks solved; the
#: hyp_* / rejected_* columns count the judge's hypotheses in that iteration
COLUMNS = ("setting", "start", "variant", "baseline", "stage", "split", "n", "accuracy",
           "diff_vs_start", "diff_lo", "diff_hi", "diff_vs_full", "full_lo", "full_hi",
           "paper_accuracy", "hyp_considered", "hyp_accepted", "rejected_support",
           "rejected_screens", "rejected_replay", "error_episodes", "backend")
SPLITS = ("held_in", "held_out", "all")


def paired(solved: dict, stage: str, ref: str, tasks) -> tuple[float, float, float]:
    """Mean difference of ``stage`` minus ``ref`` over ``tasks`` with its 95%
    paired-bootstrap interval."""
    from experiments.intervals import bootstrap_mean_ci

    d = [solved[stage][t] - solved[ref][t] for t in tasks]
    return bootstrap_mean_ci(d)


def rows_of(setting: str, start: str, variant: str, res, backend: str,
            full=None, baseline: str = "") -> list[dict]:
    """CSV rows of one loop result: every stage on every split."""
    sides = {"held_in": list(res.held_in), "held_out": list(res.held_out),
             "all": sorted(res.held_in + res.held_out)}
    out = []
    for stage in res.solved:
        it = int(stage[4:]) if stage.startswith("iter") else 0
        entry = res.log[it - 1] if 0 < it <= len(res.log) else {}
        rej = entry.get("rejections", {})
        for split, tasks in sides.items():
            acc = float(np.mean([res.solved[stage][t] for t in tasks]))
            d = paired(res.solved, stage, "start", tasks)
            row = {"setting": setting, "start": start, "variant": variant,
                   "baseline": baseline, "stage": stage,
                   "split": split, "n": len(tasks), "accuracy": round(acc, 4),
                   "diff_vs_start": round(d[0], 4), "diff_lo": round(d[1], 4),
                   "diff_hi": round(d[2], 4), "diff_vs_full": "", "full_lo": "",
                   "full_hi": "", "paper_accuracy": "",
                   "hyp_considered": rej.get("considered", ""),
                   "hyp_accepted": rej.get("accepted", ""),
                   "rejected_support": rej.get("support", ""),
                   "rejected_screens": rej.get("screens", ""),
                   "rejected_replay": rej.get("replay", ""),
                   "error_episodes": sum(1 for e in res.errors.get(stage, [])
                                         if e["task_id"] in set(tasks)),
                   "backend": backend}
            if full is not None and stage == last_stage(res):
                both = {"v": res.solved[stage], "f": full.solved[last_stage(full)]}
                f = paired(both, "v", "f", tasks)
                row.update(diff_vs_full=round(f[0], 4), full_lo=round(f[1], 4),
                           full_hi=round(f[2], 4))
            paper = PAPER.get("native" if (variant == "full" and stage == "start")
                              else variant, {})
            if stage == last_stage(res) or (variant == "full" and stage == "start"):
                row["paper_accuracy"] = paper.get(split, "")
            out.append(row)
    return out


def last_stage(res) -> str:
    """The name of a loop result's final stage (the last key of ``res.solved``, e.g.
    ``"iter2"``)."""
    return list(res.solved)[-1]
