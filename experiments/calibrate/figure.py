"""The calibration figure (``calibration.png``, issues 21 and 37): each measured
parameter on its prior range, the other proportions, and the needle answers against
request length with the fitted curve and the prior's band."""

from __future__ import annotations

import math
import textwrap


def plot(ests: list[dict], trials: dict, path, model: str):
    """Three panels: each measured parameter on its prior range (0 = low, 1 = high;
    log scale for token counts), the other proportions, and the needle answers
    against request length with the fitted curve and the prior's band."""
    import numpy as np

    from experiments.calibrate.estimates import PROPORTION_METHODS, p_use, prior_p_use_range
    from experiments.output import new_figure, save_figure
    from experiments.intervals import Z_ROUNDED, wilson
    from sim.world import TABLE

    fig, (a1, a2, a3) = new_figure(1, 3, figsize=(14, 4.6))
    params = [e for e in ests if e["parameter"] in TABLE]

    def unit(name, v):
        p = TABLE[name]
        if p.unit == "tokens":
            return (math.log(max(v, 1)) - math.log(p.low)) / (math.log(p.high) - math.log(p.low))
        return (v - p.low) / (p.high - p.low)

    for i, e in enumerate(params):
        p = TABLE[e["parameter"]]
        a1.plot([0, 1], [i, i], color="0.8", lw=6, solid_capstyle="butt")
        a1.plot(unit(p.name, p.default), i, "|", color="0.4", ms=12)
        # the prior's own numbers at the bar's ends: the axis is a position in each
        # parameter's range, so the numbers it stands for are written on the row
        for end, ha in ((0, "left"), (1, "right")):
            v = (p.low, p.high)[end]
            a1.text(end, i - 0.22, f"{v / 1e3:g}K" if p.unit == "tokens" else f"{v:.3g}",
                    ha=ha, va="bottom", fontsize=6, color="0.35")
        finite = math.isfinite(e["estimate"])
        if finite:
            x, lo, hi = (np.clip(unit(p.name, v), -0.6, 1.6)
                         for v in (e["estimate"], e["low"], e["high"]))
            a1.errorbar(x, i, xerr=[[max(0, x - lo)], [max(0, hi - x)]], fmt="o",
                        color="C3" if not p.low <= e["estimate"] <= p.high else "C0",
                        capsize=3)
        outside = finite and not p.low <= e["estimate"] <= p.high
        a1.text(1.65, i, (f"{e['estimate']:.3g} [{e['low']:.3g}, {e['high']:.3g}] "
                          f"n={e['n']}" + ("\nCONTRADICTS the prior" if outside else ""))
                if finite else f"not identified, n={e['n']}",
                va="center", fontsize=7, color="C3" if outside else "black")
    a1.set_yticks(range(len(params)), [e["parameter"] for e in params], fontsize=8)
    a1.set_xlim(-0.65, 2.9)
    a1.set_xticks([-0.5, 0, 0.5, 1, 1.5], ["-0.5", "0", "0.5", "1", "1.5"])
    a1.set_xlabel("position in the prior range (0 = low, 1 = high;\nlog for token "
                  "counts; prior's numbers on each row)", fontsize=7)
    a1.set_title("measured vs prior (grey bar; | default; 95% interval)", fontsize=9)

    props = [e for e in ests if e["method"] in PROPORTION_METHODS
             and e["probe"] != "context"]
    for i, e in enumerate(props):
        if e["n"]:
            # Wilson's bound at k = 0 (or n) can miss the estimate by a rounding error
            a2.errorbar(e["estimate"], i, xerr=[[max(0.0, e["estimate"] - e["low"])],
                                                [max(0.0, e["high"] - e["estimate"])]],
                        fmt="o", color="C0" if e["parameter"] else "C2", capsize=3)
    a2.set_yticks(range(len(props)), [f"{e['probe']}: {e['quantity'][:38]} "
                                      f"({e['condition']}, n={e['n']})" for e in props],
                  fontsize=6)
    a2.set_xlim(-0.02, 1.02)
    a2.set_xlabel("proportion (Wilson 95%)")
    a2.invert_yaxis()
    a1.set_ylim(len(params) - 0.5, -0.8)  # inverted, with room for row 0's prior numbers

    ctx = trials.get("context") or []
    if ctx:
        groups = {}
        for r in ctx:
            groups.setdefault(r["condition"].split("/")[0], []).append(r)
        xs = []
        for rs in groups.values():
            L = float(np.mean([r["request_tokens"] for r in rs]))
            k = sum(r["outcome"] == "correct" for r in rs)
            _, lo, hi = wilson(k, len(rs), z=Z_ROUNDED)
            a3.errorbar(L, k / len(rs), [[k / len(rs) - lo], [hi - k / len(rs)]],
                        fmt="o", color="C0", capsize=3)
            a3.annotate(f"{k}/{len(rs)}", (L, hi), xytext=(0, 3), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)
            xs.append(L)
        grid = np.linspace(1, max(xs) * 1.3, 200)
        band = np.array([prior_p_use_range(x) for x in grid])
        a3.fill_between(grid, band[:, 0], band[:, 1], color="0.85", label="prior range")
        fit = {e["parameter"]: e["estimate"] for e in ests if e["probe"] == "context"
               and e["parameter"]}
        if len(fit) == 3 and all(math.isfinite(v) for v in fit.values()):
            a3.plot(grid, p_use(grid, fit["agent.ctx_drop_max"],
                                fit["agent.ctx_half_tokens"], fit["agent.ctx_shape"]),
                    color="C3", label="fit")
        why = "" if len(fit) == 3 and all(math.isfinite(v) for v in fit.values()) else (
            # a flat run of points and no curve: say why, in the estimate's words
            "\n" + textwrap.fill("no fitted curve: " + unidentified_reason(ests), 52))
        a3.set_ylim(-0.02, 1.05)
        a3.set_xlabel("request tokens (cl100k)" + why, fontsize=9 if why else None)
        a3.set_ylabel("value used correctly")
        a3.legend(fontsize=8, loc="lower left")
    a3.set_title("needle in the stream (Wilson 95%, k/n per length)", fontsize=9)
    fig.suptitle(f"Calibration of the synthetic agent against {model}", fontsize=10)
    return save_figure(fig, path)


def unidentified_reason(ests: list[dict]) -> str:
    """Why the degradation curve has no estimate, from the fit rows' note (the text
    after "not identified:", up to its next ";"); "the fit was not run" when no
    fit row says."""
    for e in ests:
        note = str(e.get("note", ""))
        if e.get("probe") == "context" and "not identified:" in note:
            return "not identified, " + note.split("not identified:", 1)[1].split(";")[0].strip()
    return "the fit was not run"
