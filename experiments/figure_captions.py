"""The captions of the committed figures (``figures/NAME.png``), for the docs'
gallery (``docs/gallery.py``): what each figure shows, in a sentence or two."""

from __future__ import annotations

#: what each committed figure shows (the gallery's captions); a figure missing here
#: is captioned by its experiment's one-line help
CAPTIONS: dict[str, str] = {
    "theorem1": "Theorem 1: recovery burden E[Z]/kappa against the rate I(J*;Y) in bits "
                "for every channel (ledger, blind, content-only, list, windowed ledger), "
                "with the sum-form bound, the affine floor and the achievability curve.",
    "proposition2": "Proposition 2: the content channel's rate (bits) against n, with the "
                    "paper's and the centroid bound, and E[Z]/kappa as n grows.",
    "proposition1": "Proposition 1: success probability of lossy compressors against the "
                    "bound B/(Nk) + 1/k, beside a recoverable archive, in the recovery "
                    "game T(N, k, B).",
    "pressure": "VISTA Fig. 4: accuracy of each context program against context growth "
                "(8K-256K tokens) with synthetic agents; paired bootstrap intervals.",
    "pressure_llm": "VISTA Fig. 4 with the embedded real model (Qwen2.5-Coder-1.5B) on "
                    "small LOCA-like tasks.",
    "window": "VISTA Fig. 6: retrieval-then-synthesis accuracy against the context "
              "window W, VISTA against ReAct.",
    "ablations": "VISTA Fig. 8: the six mechanism ablations, tasks solved and archive / "
                 "recovery counts.",
    "cost": "VISTA Table 2: cache-aware dollar cost per task for each context program.",
    "overhead": "VISTA Fig. 10: dashboard tokens against registered blocks on real "
                "trajectories, full ledger and bounded ledger.",
    "perception": "VISTA Table 5: the perception probe with a real model, with and "
                  "without the dashboard.",
    "presentation": "Does the ledger's layout change a real model's archive choice? "
                    "(four layouts, paired trials).",
    "presentation_plain": "The presentation probe with a plain tool schema.",
    "presentation_plain_sorted_unpinned-bounded_ledger":
        "The presentation probe: sorted unpinned ledger against the bounded ledger, "
        "plain tool schema.",
    "sorted_window": "The bounded ledger as a sorted window: E[blocks archived] against "
                     "the listed rows w, beside the full ledger, content-only and blind "
                     "agents.",
    "evoharness": "Evo-Harness: held-out pass rate per feedback level and mode, and "
                  "skills against ContextEvo's evolved context policy (synthetic agents).",
    "evoharness_llm": "Evo-Harness with the embedded real model: no-evolve against "
                      "online-standard on three small tasks.",
    "contextevo": "ContextEvo: held-in, held-out and all-task scores of the frozen start "
                  "and the evolved programs, with the stage ablations and random-search "
                  "baselines.",
    "contextevo_llm": "ContextEvo with the embedded real model as annotator and editor "
                      "(quick grid).",
}
