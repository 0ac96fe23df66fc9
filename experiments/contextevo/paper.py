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
_HELD_OUT = {v: d["held_out"] for v, d in PAPER.items() if "held_out" in d}
#: the paper's held-out results (fractions) printed beside the ablation bars, built
#: from the registry's Table 5 held-out scores: No-Review as its change from Full,
#: No-Replay as Full's score and its own
PAPER_HELD_OUT_NOTES = {
    "no_review": f"held-out {_HELD_OUT['no_review'] - _HELD_OUT['full']:+.3f}",
    "no_replay": f"held-out {_HELD_OUT['full']:.3f} -> {_HELD_OUT['no_replay']:.3f}"}
