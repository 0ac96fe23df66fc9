"""The judge's attribution (and the annotator's) against the simulator's true
causes, pooled over a loop's iterations, and the hypotheses each screen rejected
(ContextEvo §4.3; the sidecar's ``attribution`` and ``hypotheses_rejected``)."""

from __future__ import annotations

def _pool(entries, get) -> dict:
    tot = {"attributed": 0, "correct": 0, "true": 0}
    for e in entries:
        a = get(e)
        if a:
            for k in tot:
                tot[k] += a[k]
    return {**tot,
            "precision": tot["correct"] / tot["attributed"] if tot["attributed"] else None,
            "recall": tot["correct"] / tot["true"] if tot["true"] else None}


def attribution_summary(logs: dict, mislabel: float | None = None) -> dict:
    """Judge attribution precision/recall (and the annotator's) against the
    simulator's true causes, pooled over the iterations of each setting, at the run's
    mislabel rate and (synthetic back-end) at mislabel 0 on the same trajectories."""
    table, lines = {}, []

    def f(x):
        return "n/a" if x is None else f"{x:.2f}"
    for key, entries in logs.items():
        rec = {"attribution": _pool(entries, lambda e: e.get("attribution", {}).get("all")),
               "annotation": _pool(entries, lambda e: e.get("annotation", {}).get("all")),
               "attribution_mislabel0": _pool(entries, lambda e: e.get(
                   "attribution_reference", {}).get("judge", {}).get("all")),
               "annotation_mislabel0": _pool(entries, lambda e: e.get(
                   "attribution_reference", {}).get("annotation", {}).get("all"))}
        table[key] = rec
        j, a, j0 = rec["attribution"], rec["annotation"], rec["attribution_mislabel0"]
        rate = "" if mislabel is None else f" at mislabel {mislabel:g}"
        line = (f"{key}: judge precision {f(j['precision'])} ({j['correct']}/"
                f"{j['attributed']}), recall {f(j['recall'])} ({j['correct']}/{j['true']})"
                f"{rate}; annotator {f(a['precision'])}/{f(a['recall'])}")
        if j0["true"]:
            line += (f"; at mislabel 0: judge {f(j0['precision'])}/{f(j0['recall'])}, "
                     f"annotator {f(rec['annotation_mislabel0']['precision'])}/"
                     f"{f(rec['annotation_mislabel0']['recall'])}")
        lines.append(line)
    return {"table": table, "lines": lines}


def rejections(entries) -> dict:
    """Rejection counts by reason, summed over ``entries`` (a loop's per-iteration
    log dicts, each with an optional ``"rejections"`` mapping reason -> count)."""
    out: dict = {}
    for e in entries:
        for k, v in e.get("rejections", {}).items():
            out[k] = out.get(k, 0) + v
    return out
