"""What the analysis says about each claim (issue 30): the share of the prior where
its *expected effect* has the claimed sign (a metamodel of the per-point paired
effects, :mod:`experiments.claims.robustness.metamodel`), the share within the
stated tolerance of the paper's number, the mean effect and its spread over the
prior, and the parameters that decide the effect, from Sobol' indices of the
effect itself; as rows for ``robustness.csv`` and entries for ``robustness.json``
(the schema :func:`experiments.claims.report.read_robustness` reads).

The indices: by default those of the effect's metamodel, every parameter its own
group, each with the interval of its posterior draws
(:func:`~experiments.claims.robustness.metamodel.sobol_indices`; no episode is
played for them); with a Sobol' stage (``--samples N``), SALib's on the screened
parameters' simulated points, each with its bootstrap half-width.

Deciding parameters of a claim, strongest first: a parameter whose total
Sobol' index ``ST`` of the effect is at least :data:`ST_MIN`, whose interval
``ST +- ST_conf`` lies inside [0, 1] and above that of every parameter the claim's
episodes never read (:func:`null_prefix`: the BrowseComp-like parameters for a
LOCA-like claim, the LOCA-like task parameters for a window claim; their indices
are what sampling and the metamodel give an irrelevant parameter, so a decider must
beat them). An index whose interval leaves [0, 1] is
*flagged* (:func:`flagged`): its estimate is sampling error as much as signal, and
it is never named as deciding (the issue's Sobol' index of 1.18 +- 0.91 was one).

One parameter decides a claim when its first-order index ``S1`` is at least
:data:`S1_ALONE`, unflagged, and above every other group's.

The old verdict count stays, named for what it is: ``power``, the share of the
points (the Sobol' base points, or every Morris point without a Sobol' stage)
where a study of the design's size (``tasks`` LOCA-like tasks)
calls the claim "reproduced", with its Wilson interval; it measures statistical
power at each point as much as the claim (issue 30).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from experiments.claims.robustness.analysis import (OTHERS, Analysis, base_rows, flip_rate,
                                                   group_names)

#: a total Sobol' index that makes a parameter one of a claim's deciders
ST_MIN = 0.1
#: a first-order index with which one parameter decides a claim alone
S1_ALONE = 0.5
#: verdict words that keep the paper's direction
DIRECTION = ("reproduced", "reproduced in direction only")

CSV_COLUMNS = ("claim", "item", "parameter", "screened", "mu_star", "mu_star_conf",
               "sigma", "S1", "S1_conf", "ST", "ST_conf", "flagged", "scale",
               "sign_share", "sign_lo", "sign_hi", "tolerance", "tolerance_share",
               "tolerance_lo", "tolerance_hi", "paper_effect", "mean_effect",
               "mean_lo", "mean_hi", "spread", "effect_at_default", "se_at_default",
               "cv_z_sd", "cv_coverage", "power_reproduced", "power_lo", "power_hi",
               "power_tasks", "direction_fraction", "decided_by", "verdict_at_default")


def _r(x, nd=4):
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def flagged(value: float | None, conf: float | None) -> bool:
    """Whether an index's interval ``value +- conf`` leaves [0, 1] (or is undefined):
    such an index is not reported as a finding."""
    if value is None or conf is None or not (np.isfinite(value) and np.isfinite(conf)):
        return True
    return value - conf < 0 or value + conf > 1


def null_prefix(claim: str) -> str | None:
    """The parameter family whose episodes ``claim``'s check never reads: the
    LOCA-like task parameters (``"task."``) for a window claim (BrowseComp-like
    queries), the BrowseComp-like ones (``"browse."``) for every other (the
    posterior's screen uses the same null, :mod:`experiments.claims.posterior.screen`);
    ``None`` for an id the registry does not hold (a model of the caller's own)."""
    from experiments.claims.registry import REGISTRY

    try:
        c = REGISTRY[claim]
    except KeyError:
        return None
    return "task." if c.csv.startswith("window") else "browse."


def null_floor(sob: dict, prefix: str | None) -> float:
    """The largest upper end ``ST + ST_conf`` among the groups named ``prefix*``
    (parameters the effect cannot depend on: what sampling and the metamodel give an
    index of an irrelevant parameter); 0 when there are none."""
    return max((r.ST + r.ST_conf for g, r in sob.items()
                if prefix and g.startswith(prefix)), default=0.0)


def deciding(an: Analysis, output: str, null: str | None = None) -> list[dict]:
    """The parameters that decide the effect ``output`` (see the module docstring),
    strongest first, each ``{"name", "S1", "S1_conf", "ST", "ST_conf"}``. With
    ``null`` (a :func:`null_prefix`), a parameter decides only when its ``ST``
    interval lies above every null parameter's (:func:`null_floor`), and no null
    parameter is named."""
    sob = an.sobol.get(output)
    if sob is None:
        return []
    floor = null_floor(sob, null)
    out = [{"name": g, "S1": _r(sob[g].S1), "S1_conf": _r(sob[g].S1_conf),
            "ST": _r(sob[g].ST), "ST_conf": _r(sob[g].ST_conf)}
           for g in group_names(an.groups)
           if g != OTHERS and not (null and g.startswith(null))
           and sob[g].ST >= ST_MIN and not flagged(sob[g].ST, sob[g].ST_conf)
           and sob[g].ST - sob[g].ST_conf > floor]
    return sorted(out, key=lambda d: -d["ST"])


def decided_by(an: Analysis, output: str, null: str | None = None) -> str | None:
    """The one parameter whose unflagged ``S1`` is at least :data:`S1_ALONE` and
    above every other group's, and which is one of :func:`deciding`'s, else
    ``None``."""
    sob = an.sobol.get(output)
    if sob is None:
        return None
    best = max((g for g in sob if g != OTHERS), key=lambda g: sob[g].S1, default=None)
    if best is None or sob[best].S1 < S1_ALONE or flagged(sob[best].S1,
                                                          sob[best].S1_conf):
        return None
    if best not in {d["name"] for d in deciding(an, output, null)}:
        return None
    return best if all(sob[g].S1 < sob[best].S1 for g in sob if g != best) else None


def claim_entry(an: Analysis, claim: str, verdicts: list[dict[str, str]],
                at_default: str | None, effect: dict, tasks: int) -> dict:
    """One claim's ``robustness.json`` entry.

    Args:
        verdicts: the verdict words at every Sobol' point (the base points are
            counted for ``power``), or at every Morris point when the analysis had
            no Sobol' stage (all are counted).
        at_default: the verdict at the world's defaults with the same design.
        effect: the effect's summary (:func:`experiments.claims.robustness.run.
            effect_summary`: the metamodel's shares, the claimed set, the paper's
            number, the effect at the defaults).
        tasks: LOCA-like tasks per point (what ``power`` is the power of).
    """
    from experiments.claims.robustness.model import effect_output

    f, lo, hi = an.holding[claim]
    base = (base_rows(an.samples, len(group_names(an.groups))) if an.samples
            else range(len(verdicts)))
    words = [verdicts[i][claim] for i in base]
    counts = Counter(words)
    out = effect_output(claim)
    sob = an.sobol.get(out)
    null = null_prefix(claim)
    return {
        "effect": effect,
        "power": {"value": _r(f), "lo": _r(lo), "hi": _r(hi), "tasks": tasks,
                  "what": f"share of points where a {tasks}-task study calls it "
                          "reproduced (statistical power, not robustness)"},
        "direction_fraction": _r(sum(counts[w] for w in DIRECTION) / len(words)),
        "points": len(words),
        "verdicts": {w: counts[w] for w in sorted(counts)},
        "verdict_at_default": at_default,
        "deciding_parameters": deciding(an, out, null),
        "decided_by": decided_by(an, out, null),
        "null": {"prefix": null, "floor": None if sob is None else
                 _r(null_floor(sob, null))},
        "varies": sob is not None,
        "sobol": None if sob is None else {
            g: {"S1": _r(s.S1), "S1_conf": _r(s.S1_conf), "ST": _r(s.ST),
                "ST_conf": _r(s.ST_conf),
                **({} if s.S1_interval is None else
                   {"S1_lo": _r(s.S1_interval[0]), "S1_hi": _r(s.S1_interval[1])}),
                **({} if s.ST_interval is None else
                   {"ST_lo": _r(s.ST_interval[0]), "ST_hi": _r(s.ST_interval[1])}),
                "flagged": flagged(s.S1, s.S1_conf) or flagged(s.ST, s.ST_conf),
                "ST_flagged": flagged(s.ST, s.ST_conf)}
            for g, s in sob.items()},
        "morris": {n: {"mu_star": _r(m.mu_star, 6), "mu_star_conf": _r(m.mu_star_conf, 6),
                       "sigma": _r(m.sigma, 6)}
                   for n, m in an.morris.get(out, {}).items()},
        "verdict_morris": {n: {"mu_star": _r(m.mu_star), "flip_rate":
                               _r(flip_rate(m, an.levels))}
                           for n, m in an.morris.get(claim, {}).items()},
    }


def _est(e: dict | None, key: str):
    v = (e or {}).get(key)
    return (None, None, None) if v is None else (v["value"], v["lo"], v["hi"])


def csv_rows(an: Analysis, entries: dict[str, dict], items: dict[str, str]) -> list[dict]:
    """``robustness.csv``: per claim, one row per parameter (the effect's Morris
    indices; Sobol' for the screened) and one for the :data:`OTHERS` group, with the
    claim's shares, mean effect and power repeated on each."""
    out = []
    for claim, e in entries.items():
        ef = e["effect"]
        s, slo, shi = _est(ef, "sign_share")
        t, tlo, thi = _est(ef, "tolerance_share")
        m, mlo, mhi = _est(ef, "mean")
        common = {"claim": claim, "item": items.get(claim, ""), "scale": ef["scale"],
                  "sign_share": s, "sign_lo": slo, "sign_hi": shi,
                  "tolerance": ef["tolerance"], "tolerance_share": t,
                  "tolerance_lo": tlo, "tolerance_hi": thi, "paper_effect": ef["paper"],
                  "mean_effect": m, "mean_lo": mlo, "mean_hi": mhi,
                  "spread": _est(ef, "spread")[0],
                  "effect_at_default": ef["at_default"]["value"],
                  "se_at_default": ef["at_default"]["se"],
                  "cv_z_sd": (ef.get("cv") or {}).get("z_sd"),
                  "cv_coverage": (ef.get("cv") or {}).get("coverage"),
                  "power_reproduced": e["power"]["value"], "power_lo": e["power"]["lo"],
                  "power_hi": e["power"]["hi"], "power_tasks": e["power"]["tasks"],
                  "direction_fraction": e["direction_fraction"],
                  "decided_by": e["decided_by"] or "",
                  "verdict_at_default": e["verdict_at_default"] or ""}
        sob = e["sobol"] or {}
        for name in [f.name for f in an.factors]:
            mo = e["morris"].get(name, {})
            x = sob.get(name, {})
            out.append({**common, "parameter": name, "screened": int(name in an.screened),
                        "mu_star": mo.get("mu_star"), "mu_star_conf": mo.get("mu_star_conf"),
                        "sigma": mo.get("sigma"), "S1": x.get("S1"),
                        "S1_conf": x.get("S1_conf"), "ST": x.get("ST"),
                        "ST_conf": x.get("ST_conf"),
                        "flagged": int(x["flagged"]) if x else None})
        if OTHERS in an.groups:
            x = sob.get(OTHERS, {})
            out.append({**common, "parameter": OTHERS, "screened": 0, "mu_star": None,
                        "mu_star_conf": None, "sigma": None, "S1": x.get("S1"),
                        "S1_conf": x.get("S1_conf"), "ST": x.get("ST"),
                        "ST_conf": x.get("ST_conf"),
                        "flagged": int(x["flagged"]) if x else None})
    return [{k: ("" if v is None else v) for k, v in r.items()} for r in out]
