"""``robustness.png``: claims (rows) by world parameters (columns), each cell shaded
by the parameter's Morris flip rate for the claim (the share of its one-at-a-time
steps that change whether the claim is reproduced), the screened parameters'
total Sobol' index written in their cells; beside each claim, the fraction of the
prior space where it holds with its Wilson interval."""

from __future__ import annotations

import numpy as np

from experiments.output import new_figure
from experiments.claims.robustness.analysis import OTHERS, Analysis


def figure(an: Analysis, entries: dict[str, dict], title: str):
    """The figure (a matplotlib ``Figure``)."""
    claims = list(entries)
    names = [f.name for f in an.factors]
    cols = names + ([OTHERS] if OTHERS in an.groups else [])
    flips = np.full((len(claims), len(cols)), np.nan)
    for i, c in enumerate(claims):
        for j, n in enumerate(names):
            flips[i, j] = entries[c]["morris"][n]["flip_rate"]
    fig, (ax, bx) = new_figure(1, 2, figsize=(17, 0.42 * len(claims) + 3.2),
                               gridspec_kw={"width_ratios": [len(cols), 5]},
                               sharey=True)
    im = ax.imshow(np.ma.masked_invalid(flips), cmap="Blues", vmin=0, vmax=max(
        0.25, float(np.nanmax(flips)) if np.isfinite(flips).any() else 0.25),
        aspect="auto")
    for i, c in enumerate(claims):
        sob = entries[c]["sobol"]
        for j, n in enumerate(cols):
            if sob is not None and n in sob and sob[n]["ST"] is not None:
                st = sob[n]["ST"]
                ax.text(j, i, f"{st:.2f}", ha="center", va="center", fontsize=6.5,
                        color="white" if np.nan_to_num(flips[i, j]) > 0.6 * im.get_clim()[1]
                        else "black", fontweight="bold" if st >= 0.1 else "normal")
            elif n == OTHERS:
                ax.text(j, i, "-", ha="center", va="center", fontsize=6.5, color="grey")
        one = entries[c]["decided_by"]
        if one:
            j = cols.index(one)
            ax.add_patch(_box(j, i))
    ax.set_xticks(range(len(cols)), [n.split(".", 1)[-1] for n in cols], rotation=60,
                  ha="right", fontsize=7)
    for j, n in enumerate(cols):
        if n in an.screened:
            ax.get_xticklabels()[j].set_fontweight("bold")
    ax.set_yticks(range(len(claims)), claims, fontsize=8)
    ax.set_xlabel("world parameter (bold: screened into the Sobol' stage; numbers: total "
                  "Sobol' index ST; red box: decides the claim alone, S1 >= 0.5 and the "
                  "largest)", fontsize=8)
    cb = fig.colorbar(im, ax=ax, location="top", fraction=0.025, pad=0.01, aspect=60)
    cb.set_label("Morris flip rate (share of one-parameter steps that change the "
                 "verdict)", fontsize=7)
    y = np.arange(len(claims))
    f = np.array([entries[c]["holding_fraction"] for c in claims], float)
    lo = np.array([entries[c]["holding_lo"] for c in claims], float)
    hi = np.array([entries[c]["holding_hi"] for c in claims], float)
    d = np.array([entries[c]["direction_fraction"] for c in claims], float)
    bx.barh(y, d, color="0.85", label="reproduced or in direction only")
    bx.barh(y, f, color="C0", height=0.5, label="reproduced (holds)")
    bx.errorbar(f, y, xerr=[f - lo, hi - f], fmt="none", ecolor="k", capsize=2, lw=1)
    for i in y:
        bx.text(1.02, i, f"{f[i]:.2f}", va="center", fontsize=7)
    bx.set_xlim(0, 1.15)
    bx.set_xticks([0, 0.25, 0.5, 0.75, 1])
    bx.set_xlabel("fraction of the prior space (95% Wilson interval)", fontsize=8)
    bx.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(title, fontsize=9)
    return fig


def _box(j: int, i: int):
    from matplotlib.patches import Rectangle

    return Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=1.5)
