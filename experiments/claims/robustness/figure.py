"""``robustness.png``: claims (rows) by world parameters (columns), each cell shaded
by the parameter's total Sobol' index ST of the claim's *effect* and printing that
same number, in grey italics where its interval leaves [0, 1] (flagged: not a
finding); no ST: a grey dash where the Morris stage screened the parameter out (only
with a simulated Sobol' stage; by default every parameter's ST comes from the
effect's metamodel), "const" where the effect did not vary (or was undefined
somewhere). Beside each
claim: the share of the prior where the expected effect has the claimed sign, with
its 95% metamodel interval, over the power of the design's study (grey: the share
of points where its verdict is "reproduced"). An ST above 1 is drawn at 1 and
printed ">1"."""

from __future__ import annotations

import numpy as np

from experiments.output import new_figure
from experiments.claims.robustness.analysis import OTHERS, Analysis
from experiments.claims.robustness.metamodel import EVIDENCE_MIN


def figure(an: Analysis, entries: dict[str, dict], title: str):
    """The figure (a matplotlib ``Figure``)."""
    claims = list(entries)
    names = [f.name for f in an.factors]
    cols = names + ([OTHERS] if OTHERS in an.groups else [])
    st = np.full((len(claims), len(cols)), np.nan)
    for i, c in enumerate(claims):
        sob = entries[c]["sobol"]
        for j, n in enumerate(cols):
            if sob is not None and n in sob and sob[n]["ST"] is not None:
                st[i, j] = sob[n]["ST"]
    fig, (ax, bx) = new_figure(1, 2, figsize=(18, 0.5 * len(claims) + 4.2),
                               gridspec_kw={"width_ratios": [len(cols), 5]},
                               sharey=True)
    # one encoding per cell: the shade is the printed ST, clipped to [0, 1]
    shown = np.clip(st, 0.0, 1.0)
    im = ax.imshow(np.ma.masked_invalid(shown), cmap="Blues", vmin=0, vmax=1,
                   aspect="auto")
    clipped = False
    for i in range(len(claims)):
        for j in range(len(cols)):
            v = st[i, j]
            if np.isnan(v):
                # no ST: the verdict never varied over the Sobol' points, or the
                # parameter was screened out by Morris
                const = entries[claims[i]]["sobol"] is None
                ev = entries[claims[i]]["effect"].get("evidence")
                word = "n.i." if ev is not None and ev < EVIDENCE_MIN else "const"
                ax.text(j, i, word if const else "–", ha="center", va="center",
                        fontsize=8 if const else 12, color="0.5")
                continue
            clipped |= v > 1
            cell = entries[claims[i]]["sobol"][cols[j]]
            flag = cell.get("ST_flagged", cell.get("flagged", False))
            ax.text(j, i, ">1" if v > 1 else f"{max(v, 0.0):.2f}", ha="center",
                    va="center", fontsize=8, color="0.45" if flag else "white"
                    if shown[i, j] > 0.6 else "black", fontstyle="italic" if flag
                    else "normal", fontweight="bold" if v >= 0.1 and not flag
                    else "normal")
        one = entries[claims[i]]["decided_by"]
        if one:
            ax.add_patch(_box(cols.index(one), i))
    # full names: several groups share a short name (``agent.x``, ``task.x``)
    ax.set_xticks(range(len(cols)), cols, rotation=60, ha="right", fontsize=9)
    for j, n in enumerate(cols):
        if n in an.screened:
            ax.get_xticklabels()[j].set_fontweight("bold")
    ax.set_yticks(range(len(claims)), claims, fontsize=10)
    note = ("; >1: an ST estimate above 1, drawn at 1 (Sobol' total-index estimates can "
            "exceed 1 from sampling error at small N)" if clipped else "")
    ax.set_xlabel("world parameter" + (" (bold: screened into the Sobol' stage)"
                                       if an.screened else ""), fontsize=9)
    fig.supxlabel("Cell shade and number: total Sobol' index ST of the claim's effect "
                  "(grey italics: its interval leaves [0, 1], flagged, not a finding); "
                  "grey 'const': the effect did not vary (or was undefined), no ST; "
                  "grey 'n.i.': the points do not show it to vary over the prior "
                  f"(metamodel evidence below {EVIDENCE_MIN:g}), no ST; "
                  + ("grey dash: screened out by Morris, no ST (the effect's Morris "
                     "mu* in the CSV); " if an.screened else "ST from the effect's "
                     "metamodel (posterior mean over its draws); ")
                  + "red "
                  "box: decides the claim alone, S1 >= 0.5 and the largest" + note + ".",
                  fontsize=9, wrap=True)
    cb = fig.colorbar(im, ax=ax, location="top", fraction=0.025, pad=0.01, aspect=60)
    cb.set_label("total Sobol' index ST (clipped to [0, 1])", fontsize=9)
    y = np.arange(len(claims))
    share = [entries[c]["effect"]["sign_share"] or {} for c in claims]
    f = np.array([s.get("value", np.nan) for s in share], float)
    lo = np.array([s.get("lo", np.nan) for s in share], float)
    hi = np.array([s.get("hi", np.nan) for s in share], float)
    p = np.array([entries[c]["power"]["value"] for c in claims], float)
    tasks = entries[claims[0]]["power"]["tasks"] if claims else 0
    bx.barh(y, p, color="0.85", label=f"power: a {tasks}-task study says reproduced")
    bx.plot(f, y, "o", color="C0", label="expected effect has the claimed sign")
    # the value is the posterior mean, which a skewed posterior can put just outside
    # its own quantile interval (0.996 with both ends at 1.0): no negative bar
    bx.errorbar(f, y, xerr=[np.clip(f - lo, 0, None), np.clip(hi - f, 0, None)],
                fmt="none", ecolor="C0", capsize=2, lw=1)
    for i in y:
        bx.text(1.02, i, "n/a" if np.isnan(f[i]) else f"{f[i]:.2f}", va="center",
                fontsize=9)
    bx.set_xlim(0, 1.15)
    bx.set_xticks([0, 0.25, 0.5, 0.75, 1])
    bx.set_xlabel("share of the prior (95% metamodel interval)", fontsize=9)
    bx.legend(fontsize=9, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(title, fontsize=11)
    return fig


def _box(j: int, i: int):
    from matplotlib.patches import Rectangle

    return Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=1.5)
