"""Which similarity Evo-Harness ships: rapidfuzz, BM25 and their combination compared
on the labelled set ``tests/evolve/data/evoharness_retrieval.json`` (issue 20).

Run: ``python3 -m experiments.evoharness.similarity_table``. Prints, per method, the
retrieval MRR over the labelled task -> skill queries, the merge R-precision over the
labelled skill pairs (the top-R pairs by score, R = the number of true merges, that
are true merges), and the precision, recall and trap merges (pairs labelled "never
merge" at or above the threshold) at the threshold that maximises F1 for that method.
"""

from __future__ import annotations

import json
import pathlib

from sim.evolve.evoharness.similarity import METHODS, pair_similarity, scores
from sim.evolve.evoharness.skills import directives_of, opposes

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests/evolve/data/" \
    "evoharness_retrieval.json"


def skill_text(s: dict) -> str:
    """The text a skill is matched by: trigger and body."""
    return f"{s['trigger']} {s['body']}"


def load(path=DATA) -> dict:
    """The labelled set (skills, queries, pairs)."""
    return json.loads(pathlib.Path(path).read_text())


def mrr(data: dict, method: str) -> float:
    """Mean reciprocal rank of the labelled skill among all skills (triggers only, as
    Select retrieves by the trigger)."""
    names = [s["name"] for s in data["skills"]]
    docs = [s["trigger"] for s in data["skills"]]
    total = 0.0
    for q in data["queries"]:
        sc = scores(q["task"], docs, method)
        order = sorted(range(len(names)), key=lambda i: (-sc[i], names[i]))
        total += 1.0 / (1 + [names[i] for i in order].index(q["skill"]))
    return total / len(data["queries"])


def _opposed(a: dict, b: dict) -> bool:
    return any(opposes(x, y) for x in directives_of(a["body"])
               for y in directives_of(b["body"]))


def pair_scores(data: dict, method: str, guard: bool = False
                ) -> list[tuple[float, bool]]:
    """``(score, should_merge)`` of every labelled pair; with ``guard`` a pair whose
    directives oppose scores -1 (the curator never merges it)."""
    by = {s["name"]: s for s in data["skills"]}
    corpus = [skill_text(s) for s in data["skills"]]
    out = []
    for p in data["pairs"]:
        a = p["a"] if isinstance(p["a"], dict) else by[p["a"]]
        b = p["b"] if isinstance(p["b"], dict) else by[p["b"]]
        sc = pair_similarity(skill_text(a), skill_text(b), corpus, method)
        out.append((-1.0 if guard and _opposed(a, b) else sc, bool(p["merge"])))
    return out


def merge_metrics(sc: list[tuple[float, bool]]) -> dict:
    """R-precision, and precision / recall / false merges at the F1-best threshold."""
    r = sum(m for _, m in sc)
    top = sorted(sc, key=lambda x: -x[0])[:r]
    best = None
    for thr in sorted({s for s, _ in sc}):
        tp = sum(1 for s, m in sc if s >= thr and m)
        fp = sum(1 for s, m in sc if s >= thr and not m)
        prec, rec = tp / max(1, tp + fp), tp / r
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        if best is None or f1 > best["f1"]:
            best = {"threshold": thr, "precision": prec, "recall": rec, "f1": f1,
                    "false_merges": fp}
    return {"r_precision": sum(m for _, m in top) / r, **best}


def table(data: dict | None = None) -> list[dict]:
    """One row per method."""
    data = data or load()
    rows = []
    for m in METHODS:
        g = merge_metrics(pair_scores(data, m, guard=True))
        rows.append({"method": m, "mrr": mrr(data, m),
                     **merge_metrics(pair_scores(data, m)),
                     **{f"guarded_{k}": v for k, v in g.items()}})
    return rows


def main() -> list[dict]:
    """Print the table; return its rows."""
    data = load()
    rows = table(data)
    print(f"{len(data['queries'])} labelled task -> skill queries over "
          f"{len(data['skills'])} skills; {len(data['pairs'])} labelled skill pairs "
          f"({sum(p['merge'] for p in data['pairs'])} true merges)")
    print(f"{'method':<9} {'MRR':>6} {'merge R-prec':>12} {'thr':>6} {'prec':>6} "
          f"{'recall':>6} {'false':>5} | with the opposite-directive guard: "
          f"{'R-prec':>6} {'thr':>6} {'prec':>6} {'recall':>6} {'false':>5}")
    for r in rows:
        print(f"{r['method']:<9} {r['mrr']:6.3f} {r['r_precision']:12.3f} "
              f"{r['threshold']:6.3f} {r['precision']:6.3f} {r['recall']:6.3f} "
              f"{r['false_merges']:5d} | {'':34}{r['guarded_r_precision']:6.3f} "
              f"{r['guarded_threshold']:6.3f} {r['guarded_precision']:6.3f} "
              f"{r['guarded_recall']:6.3f} {r['guarded_false_merges']:5d}")
    return rows


if __name__ == "__main__":  # pragma: no cover
    main()
