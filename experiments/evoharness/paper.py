"""The paper numbers the Evo-Harness experiment is set against, in one place.

Evo-Harness Table 4 (feedback levels), Table 3 (ablations), Fig. 5 (transfer) and
Table 2 (per-solver gains on CL-Bench, "All" column); ContextEvo Table 3 (reward and
mean tokens per run). Pass rates in %, rewards in [0, 1]. These are inputs for the
claims judge; the experiment writes its own measurements beside them, never a verdict.
"""

from __future__ import annotations

PAPER = {
    "table4_swe": {"no-evolve": 63.67, "self": 61.67, "minimal": 67.33, "standard": 67.00},
    "table4_cl": {"no-evolve": 29.54, "self": 27.96, "minimal": 29.86, "standard": 34.02},
    "table3_swe": {"no-evolve": 63.67, "no-propose": 65.33, "general-only": 66.67,
                   "topic-only": 64.33, "full": 67.00},
    "table3_cl": {"no-evolve": 29.54, "no-propose": 33.28, "general-only": 30.28,
                  "topic-only": 33.70, "full": 34.02},
    "fig5_swe": {"no-evolve": 68.8, "train-split": 73.4, "online": 75.0},
    "table2_cl_gain": {"Opus 4.7": 3.7, "Opus 4.6": 4.5, "Opus 4.5": 3.8,
                       "Kimi-K2.5": 1.1, "GPT-OSS": 0.8},
    "contextevo_table3": {"baseline": (0.417, 8.57e6), "skill-only": (0.370, 9.61e6),
                          "context-policy": (0.448, 7.52e6),
                          "combined": (0.419, 9.69e6)},
}
