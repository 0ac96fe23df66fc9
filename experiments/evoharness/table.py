"""Per-arm numbers of the Evo-Harness grid: pass rates with bootstrap intervals over
tasks, paired differences (common random numbers: every arm plays the same tasks with
the same episode seeds) and the curation counts. Numbers only; whether they order as
the paper's is for the claims judge."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from experiments.evoharness.arms import Arm
from experiments.intervals import bootstrap_mean_ci

COLUMNS = ("arm", "profile", "mode", "feedback", "levels", "curator", "reflect",
           "n_tasks", "reps", "pass_rate", "pass_lo", "pass_hi", "diff_vs_no_evolve",
           "diff_lo", "diff_hi", "mean_tokens", "skills_shown", "skills_read",
           "final_skills", "final_skill_tokens", "cap_skills", "cap_tokens",
           "budget_accept", "budget_merge", "budget_skip")
#: paired comparisons written beside the table: (arm, reference, what the paper reports)
COMPARISONS = (
    ("online-self", "no-evolve", "Table 4: self feedback below no-evolve"),
    ("online-minimal", "no-evolve", "Table 4: minimal feedback above no-evolve"),
    ("online-standard", "no-evolve", "Table 4: standard feedback above no-evolve"),
    ("online-standard", "online-self", "Table 4: standard above self"),
    ("train-split-standard", "no-evolve", "Fig. 5: train-split above no-evolve"),
    ("online-standard", "train-split-standard", "Fig. 5: online at least train-split"),
    ("general-only", "online-standard", "Table 3: general-only below full"),
    ("topic-only", "online-standard", "Table 3: topic-only below full"),
    ("no-propose", "no-evolve", "Table 3: no-propose above no-evolve"),
    ("no-propose", "online-standard", "Table 3: no-propose below full"),
    ("add-only", "online-standard", "curation: ADD-only against the budgeted curator"),
)


def per_task(summaries, col: str = "solved") -> dict[str, float]:
    """Mean of ``col`` (a :class:`~sim.evolve.evoharness.online.TaskRecord` field) per
    task id over the replicates."""
    by = defaultdict(list)
    for s in summaries:
        for r in s.rows:
            by[r.task_id].append(float(getattr(r, col)))
    return {k: float(np.mean(v)) for k, v in by.items()}


def paired_runs(runs, ref_runs, seed: int, col: str = "solved", what: str = "") -> tuple:
    """``(mean, lo, hi)`` of ``runs`` minus ``ref_runs`` (each a list of stream
    summaries) over tasks: the per-task means of ``col`` over replicates, paired
    bootstrap (95%). Raises ValueError naming ``what`` if they scored different tasks."""
    a, b = per_task(runs, col), per_task(ref_runs, col)
    if set(a) != set(b):
        raise ValueError(f"{what} scored different tasks")
    ids = sorted(a)
    return bootstrap_mean_ci([a[i] - b[i] for i in ids], seed=seed)


def paired(results, arm: str, ref: str, profile: str, seed: int) -> tuple:
    """``(mean, lo, hi)`` of arm minus ref over tasks (paired bootstrap)."""
    return paired_runs(results[(arm, profile)], results[(ref, profile)], seed,
                       what=f"{arm} and {ref} ({profile})")


def _mean(xs) -> float:
    return float(np.mean(xs)) if len(xs) else 0.0


def table(results, arm_list: list[Arm], seed: int) -> list[dict]:
    """One row per arm (:data:`COLUMNS`)."""
    out = []
    for a in arm_list:
        runs = results[(a.arm, a.profile)]
        rows = [r for s in runs for r in s.rows]
        pt = per_task(runs)
        m, lo, hi = bootstrap_mean_ci([pt[i] for i in sorted(pt)], seed=seed)
        d, dlo, dhi = paired(results, a.arm, "no-evolve", a.profile, seed)
        budget = {k: sum(s.budget[k] for s in runs) for k in ("ACCEPT", "MERGE", "SKIP")}
        out.append({**a.to_row(), "n_tasks": len(pt), "reps": len(runs),
                    "pass_rate": round(m, 4), "pass_lo": round(lo, 4),
                    "pass_hi": round(hi, 4), "diff_vs_no_evolve": round(d, 4),
                    "diff_lo": round(dlo, 4), "diff_hi": round(dhi, 4),
                    "mean_tokens": round(_mean([r.tokens for r in rows]), 1),
                    "skills_shown": round(_mean([r.skills_shown for r in rows]), 3),
                    "skills_read": round(_mean([r.skills_read for r in rows]), 3),
                    "final_skills": round(_mean([s.final_skills for s in runs]), 2),
                    "final_skill_tokens": round(_mean([s.final_tokens for s in runs]), 1),
                    "cap_skills": runs[0].caps["max_skills"],
                    "cap_tokens": runs[0].caps["max_total_tokens"],
                    "budget_accept": budget["ACCEPT"], "budget_merge": budget["MERGE"],
                    "budget_skip": budget["SKIP"]})
    return out


def comparisons(results, profiles, seed: int) -> list[dict]:
    """Every :data:`COMPARISONS` pair per profile: the paired mean difference and its
    95% interval (numbers only), plus each profile's gain over no-evolve
    (online-standard; Table 2 relates it to solver strength)."""
    out = []
    for p in profiles:
        for arm, ref, paper in COMPARISONS:
            if (arm, p) in results and (ref, p) in results:
                m, lo, hi = paired(results, arm, ref, p, seed)
                out.append({"profile": p, "arm": arm, "reference": ref,
                            "paper": paper, "diff": round(m, 4), "lo": round(lo, 4),
                            "hi": round(hi, 4)})
    return out


#: evoharness_pairs.csv: one row per :func:`comparisons` entry
PAIRS_COLUMNS = ("profile", "arm", "reference", "paper", "diff", "lo", "hi")


def budget_decisions(results) -> dict:
    """``{"arm/profile": {"ACCEPT": n, "MERGE": n, "SKIP": n}}`` of the budget-forced
    decisions, summed over replicates, for every evolving arm."""
    out = {}
    for (arm, p), runs in sorted(results.items()):
        if runs[0].arm.evolving:
            out[f"{arm}/{p}"] = {k: sum(s.budget[k] for s in runs)
                                 for k in ("ACCEPT", "MERGE", "SKIP")}
    return out


def resolution(comps: list[dict]) -> dict:
    """How many comparisons' intervals exclude zero (the grid resolves their
    direction) and which do not."""
    open_ = [f"{c['arm']} - {c['reference']} ({c['profile']})" for c in comps
             if c["lo"] <= 0 <= c["hi"]]
    return {"resolved": len(comps) - len(open_), "total": len(comps),
            "unresolved": open_}
