"""The paper numbers the Evo-Harness experiment is set against (read from the claims
registry, where they are held once).

Evo-Harness Table 4 (feedback levels), Table 3 (ablations), Fig. 5 (transfer) and
Table 2 (per-solver gains on CL-Bench, "All" column); ContextEvo Table 3 (reward and
mean tokens per run). Pass rates in %, rewards in [0, 1]. These are inputs for the
claims judge; the experiment writes its own measurements beside them, never a verdict.
"""

from __future__ import annotations

from experiments.claims.registry.evoharness import paper_tables

#: table -> arm -> number; held once, in the claims registry
PAPER = paper_tables()
