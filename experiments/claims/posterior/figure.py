"""``posterior.png`` and ``predictive.png`` (issue 30, item 4).

``posterior.png``: one row per fitted world parameter, its prior range scaled to [0, 1] in
the sampling space (grey bar), the posterior's 90% interval (blue) and median
(dot); pinned parameters (interval at most half the prior's) first and in bold.

``predictive.png``: one row per simulated paper number, every value divided by the
paper's number (the dashed line at 1): the posterior predictive 90% interval and
mean (blue; red where the paper's number is outside it), the prior predictive one
(grey, ``predict`` numbers only), and the predictive p on the right.
"""

from __future__ import annotations

import textwrap

import numpy as np

from experiments.output import new_figure


def _unit(row: dict, v: float) -> float:
    lo, hi = float(row["prior_low"]), float(row["prior_high"])
    if row["log"]:
        return (np.log(v) - np.log(lo)) / (np.log(hi) - np.log(lo))
    return (v - lo) / (hi - lo)


def parameter_figure(rows: list[dict], title: str):
    """The posterior figure (rows of ``experiments.claims.posterior.run.parameter_rows``)."""
    # a parameter integrated out has its prior as posterior: nothing to draw
    rows = sorted((r for r in rows if r.get("fitted", True)),
                  key=lambda r: (not r["pinned"], r["width_share"]))
    lines = textwrap.wrap(title, 120)   # a long title would widen the saved figure
    fig, ax = new_figure(figsize=(10, 0.28 * len(rows) + 1.6 + 0.15 * len(lines)))
    for i, r in enumerate(rows):
        ax.plot([0, 1], [i, i], color="0.85", lw=6, solid_capstyle="butt")
        ax.plot([_unit(r, r["lo"]), _unit(r, r["hi"])], [i, i], color="tab:blue", lw=3)
        ax.plot(_unit(r, r["median"]), i, "o", color="tab:blue", ms=4)
        ax.text(1.02, i, f"{r['width_share']:.2f}", va="center", fontsize=7)
    ax.set_yticks(range(len(rows)))
    labels = ax.set_yticklabels([r["parameter"] + (" (log)" if r["log"] else "")
                                 for r in rows], fontsize=7)
    for lab, r in zip(labels, rows):
        if r["pinned"]:
            lab.set_fontweight("bold")
    ax.invert_yaxis()
    ax.set_xlim(-0.02, 1.12)
    ax.set_xlabel("position in the prior range (sampling space: ln for log-uniform)\n"
                  "grey: prior, blue: posterior 90% interval and median; right: "
                  "posterior width / prior width", fontsize=8)
    ax.set_title("\n".join(lines), fontsize=8)
    return fig


def predictive_figure(rows: list[dict], title: str):
    """The predictive figure (rows of
    ``experiments.claims.posterior.run.prediction_rows``)."""
    fig, ax = new_figure(figsize=(10, 0.34 * len(rows) + 1.6))
    for i, r in enumerate(rows):
        p = float(r["paper"])
        if r["prior_lo"] != "":
            ax.plot([r["prior_lo"] / p, r["prior_hi"] / p], [i + 0.18] * 2,
                    color="0.6", lw=2)
        colour = "tab:blue" if r["verdict"] == "predicted" else "tab:red"
        ax.plot([r["lo"] / p, r["hi"] / p], [i, i], color=colour, lw=3)
        ax.plot(r["mean"] / p, i, "o", color=colour, ms=4)
        ax.text(1.01, i, f"p = {r['p']:.2f}", va="center", fontsize=7,
                transform=ax.get_yaxis_transform())
    ax.axvline(1.0, color="k", ls="--", lw=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{r['cell']} ({r['role']}; paper {r['paper']:g})"
                        for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("simulated / paper's number: posterior predictive 90% interval "
                  "and mean, blue where predicted (p >= 0.10), red where not; grey: "
                  "prior predictive")
    ax.set_title(title, fontsize=8)
    return fig
