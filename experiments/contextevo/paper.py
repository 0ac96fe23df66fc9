"""The ContextEvo paper's numbers that ``ctxsim run contextevo`` sets beside its own
(read from the claims registry, where they are held once).

Table 5 (LHTB-46, DeepSeek-V4-Flash): all-task and held-out scores, as fractions
(the paper prints percent; 41.66% is 0.4166 here, so every accuracy column of the
CSV has one unit). The paper reports no evidence-free baseline.
"""

from __future__ import annotations

from experiments.claims.registry.contextevo import table5

#: variant -> split -> accuracy (fraction); the percent values are held once, in the
#: claims registry (:func:`experiments.claims.registry.contextevo.table5`)
PAPER = {v: {s: round(x / 100, 6) for s, x in d.items()} for v, d in table5().items()}
#: the paper's held-out drops (fractions) printed beside the ablation bars
PAPER_HELD_OUT_NOTES = {"no_review": "held-out -0.169",
                        "no_replay": "held-out 0.431 -> 0.353"}
