"""What the analysis says about each claim: the fraction of the prior space where it
holds, the parameters that decide it, and the one parameter that decides it alone
(if any); as rows for ``robustness.csv`` and entries for ``robustness.json`` (the
schema :func:`experiments.claims.report.read_robustness` reads).

Deciding parameters of a claim, strongest first:

* a screened parameter whose total Sobol' index ``ST`` is at least :data:`ST_MIN`;
* a parameter left out of the Sobol' stage, or any parameter when the claim's
  verdict did not vary over the Sobol' points, whose Morris flip rate (the share of
  its one-at-a-time steps that change the verdict) is at least :data:`FLIP_MIN`.

One parameter decides a claim when its first-order index ``S1`` is at least
:data:`S1_ALONE` (alone it explains most of the variance of the verdict) and above
every other group's, the others' group included (small samples give first-order
estimates that sum past 1; then no parameter is named).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from experiments.claims.robustness.analysis import (OTHERS, Analysis, base_rows, flip_rate,
                                                   group_names)

#: a total Sobol' index that makes a parameter one of a claim's deciders
ST_MIN = 0.1
#: a Morris flip rate that makes a parameter one of a claim's deciders
FLIP_MIN = 0.1
#: a first-order index with which one parameter decides a claim alone
S1_ALONE = 0.5
#: verdict words that keep the paper's direction
DIRECTION = ("reproduced", "reproduced in direction only")

CSV_COLUMNS = ("claim", "item", "parameter", "screened", "mu_star", "mu_star_conf",
               "sigma", "flip_rate", "S1", "S1_conf", "ST", "ST_conf",
               "holding_fraction", "holding_lo", "holding_hi", "direction_fraction",
               "decided_by", "verdict_at_default")


def _r(x, nd=4):
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def deciding(an: Analysis, claim: str) -> list[dict]:
    """The parameters that decide ``claim`` (see the module docstring), strongest
    first, each ``{"name", "by", "S1", "ST", "mu_star", "sigma", "flip_rate"}``."""
    mor = an.morris[claim]
    sob = an.sobol.get(claim)
    out = []
    if sob is not None:
        for g in group_names(an.groups):
            if g != OTHERS and sob[g].ST >= ST_MIN:
                out.append({"name": g, "by": "sobol", "S1": _r(sob[g].S1),
                            "ST": _r(sob[g].ST)})
        out.sort(key=lambda d: -d["ST"])
    in_sobol = set(an.screened) if sob is not None else set()
    rest = [(n, flip_rate(m, an.levels)) for n, m in mor.items() if n not in in_sobol]
    rest = sorted((x for x in rest if x[1] >= FLIP_MIN), key=lambda x: -x[1])
    out += [{"name": n, "by": "morris", "S1": None, "ST": None} for n, _ in rest]
    for d in out:
        m = mor[d["name"]]
        d.update(mu_star=_r(m.mu_star), sigma=_r(m.sigma),
                 flip_rate=_r(flip_rate(m, an.levels)))
    return out


def decided_by(an: Analysis, claim: str) -> str | None:
    """The one parameter whose ``S1`` is at least :data:`S1_ALONE` and above every
    other group's, else ``None``."""
    sob = an.sobol.get(claim)
    if sob is None:
        return None
    best = max((g for g in sob if g != OTHERS), key=lambda g: sob[g].S1, default=None)
    if best is None or sob[best].S1 < S1_ALONE:
        return None
    return best if all(sob[g].S1 < sob[best].S1 for g in sob if g != best) else None


def claim_entry(an: Analysis, claim: str, verdicts: list[dict[str, str]],
                at_default: str | None) -> dict:
    """One claim's ``robustness.json`` entry.

    Args:
        verdicts: the verdict words at every Sobol' point (the base points are
            counted).
        at_default: the verdict at the world's defaults with the same reduced design.
    """
    f, lo, hi = an.holding[claim]
    base = base_rows(an.samples, len(group_names(an.groups)))
    words = [verdicts[i][claim] for i in base]
    counts = Counter(words)
    sob = an.sobol.get(claim)
    return {
        "holding_fraction": _r(f), "holding_lo": _r(lo), "holding_hi": _r(hi),
        "direction_fraction": _r(sum(counts[w] for w in DIRECTION) / len(words)),
        "points": len(words),
        "verdicts": {w: counts[w] for w in sorted(counts)},
        "verdict_at_default": at_default,
        "deciding_parameters": deciding(an, claim),
        "decided_by": decided_by(an, claim),
        "varies": sob is not None,
        "sobol": None if sob is None else {
            g: {"S1": _r(s.S1), "S1_conf": _r(s.S1_conf), "ST": _r(s.ST),
                "ST_conf": _r(s.ST_conf)} for g, s in sob.items()},
        "morris": {n: {"mu_star": _r(m.mu_star), "mu_star_conf": _r(m.mu_star_conf),
                       "sigma": _r(m.sigma), "flip_rate": _r(flip_rate(m, an.levels))}
                   for n, m in an.morris[claim].items()},
    }


def csv_rows(an: Analysis, entries: dict[str, dict], items: dict[str, str]) -> list[dict]:
    """``robustness.csv``: per claim, one row per parameter (Morris; Sobol' for the
    screened) and one for the :data:`OTHERS` group, with the claim's holding
    fraction repeated on each."""
    out = []
    for claim, e in entries.items():
        common = {"claim": claim, "item": items.get(claim, ""),
                  "holding_fraction": e["holding_fraction"],
                  "holding_lo": e["holding_lo"], "holding_hi": e["holding_hi"],
                  "direction_fraction": e["direction_fraction"],
                  "decided_by": e["decided_by"] or "",
                  "verdict_at_default": e["verdict_at_default"] or ""}
        sob = e["sobol"] or {}
        for name, m in e["morris"].items():
            s = sob.get(name, {})
            out.append({**common, "parameter": name, "screened": int(name in an.screened),
                        **m, "S1": s.get("S1"), "S1_conf": s.get("S1_conf"),
                        "ST": s.get("ST"), "ST_conf": s.get("ST_conf")})
        if OTHERS in an.groups:
            s = sob.get(OTHERS, {})
            out.append({**common, "parameter": OTHERS, "screened": 0, "mu_star": None,
                        "mu_star_conf": None, "sigma": None, "flip_rate": None,
                        "S1": s.get("S1"), "S1_conf": s.get("S1_conf"),
                        "ST": s.get("ST"), "ST_conf": s.get("ST_conf")})
    return [{k: ("" if v is None else v) for k, v in r.items()} for r in out]
