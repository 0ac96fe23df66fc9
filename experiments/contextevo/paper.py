"""The ContextEvo paper's numbers that ``ctxsim run contextevo`` sets beside its own
(one place, so a claims registry can take them over whole).

Table 5 (LHTB-46, DeepSeek-V4-Flash): all-task and held-out scores, as fractions
(the paper prints percent; 41.66% is 0.4166 here, so every accuracy column of the
CSV has one unit). The paper reports no evidence-free baseline.
"""

from __future__ import annotations

_TABLE5_PERCENT = {"native": {"all": 41.66}, "full": {"all": 44.78, "held_out": 43.12},
                   "no_review": {"all": 44.78 - 12.15, "held_out": 26.19},
                   "no_aggregation": {"all": 44.78 - 2.29},
                   "no_replay": {"all": 44.78 - 3.72, "held_out": 35.29},
                   "no_update": {"all": 44.78 - 6.44}}
#: variant -> split -> accuracy (fraction)
PAPER = {v: {s: round(x / 100, 6) for s, x in d.items()} for v, d in _TABLE5_PERCENT.items()}
#: the paper's held-out drops (fractions) printed beside the ablation bars
PAPER_HELD_OUT_NOTES = {"no_review": "held-out -0.169",
                        "no_replay": "held-out 0.431 -> 0.353"}
