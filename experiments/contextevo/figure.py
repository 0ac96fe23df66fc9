"""The ContextEvo figure: accuracy per stage and split, the ablations and
evidence-free baselines beside the paper's Table 5, and ContextEvo against
evidence-free search per seed."""

from __future__ import annotations

import numpy as np

from experiments.contextevo.evidence_free import BASELINES
from experiments.contextevo.loops import ABLATIONS
from experiments.contextevo.paper import PAPER, PAPER_HELD_OUT_NOTES
from experiments.contextevo.rows import SPLITS

def _panel_stages(ax, rows, backend: str) -> None:
    """Accuracy per stage and split for each setting; the held-out paired difference
    of the final iteration from the start, with its 95% interval, above each group."""
    full = [r for r in rows if r["variant"] == "full"]
    settings = list(dict.fromkeys((r["setting"], r["start"]) for r in full))
    stages = list(dict.fromkeys(r["stage"] for r in full))
    width = 0.8 / (len(SPLITS) * len(stages))
    for k, (setting, start) in enumerate(settings):
        for a, split in enumerate(SPLITS):
            for b, stage in enumerate(stages):
                r = next((x for x in full if (x["setting"], x["start"], x["split"],
                                              x["stage"]) == (setting, start, split, stage)),
                         None)
                if r is None:
                    continue
                x = k + (a * len(stages) + b - (len(SPLITS) * len(stages) - 1) / 2) * width
                ax.bar(x, r["accuracy"], width, color=f"C{b}", alpha=(0.45, 1.0, 0.7)[a],
                       label=stage if k == 0 and a == 0 else None,
                       edgecolor="k" if split == "held_out" else "none", linewidth=0.6)
                if stage != "start":
                    _paired_whisker(ax, x, r, "diff_vs_start", "diff_lo", "diff_hi")
    # the held-out difference goes under each group's name, not above its bars, so
    # the axis ends at a fraction of 1 whatever the bars' heights
    ticks = []
    for setting, start in settings:
        last = next((x for x in full if (x["setting"], x["start"], x["split"], x["stage"])
                     == (setting, start, "held_out", stages[-1])), None)
        n = {x["split"]: x["n"] for x in full if (x["setting"], x["start"]) == (setting, start)}
        ticks.append(f"{setting}\nfrom {start}\nn = " + " | ".join(
            str(n.get(sp, "?")) for sp in SPLITS) + " tasks" + (
            "" if last is None else f"\nheld-out {last['diff_vs_start']:+.2f}\n"
            f"[{last['diff_lo']:+.2f}, {last['diff_hi']:+.2f}]"))
    ax.set_xticks(range(len(settings)), ticks, fontsize=8)
    ax.set_ylim(0, 1.0)
    ax.set_ylabel("solved fraction")
    ax.legend(fontsize=7, loc="upper left", ncol=len(stages))
    ax.set_title(f"(a) ContextEvo, {backend} back-end: bars per group = held-in | "
                 "held-out (outlined) | all;\nwhiskers: each iteration's paired 95% "
                 "interval of its difference from start, around its bar;\nunder each "
                 "group: held-out difference, final iteration minus start [95% CI]",
                 fontsize=8)


def _paired_whisker(ax, pos, r, diff: str, lo: str, hi: str, horizontal=False) -> None:
    """Row ``r``'s 95% paired interval of its difference from its reference (columns
    ``diff``, ``lo``, ``hi``), drawn around its bar's end at ``pos``: the whisker
    spans reference + [lo, hi] (the pressure figure's convention), so it crosses the
    reference's value exactly when the interval holds 0; clipped to [0, 1] (a
    resampled reference can be higher than the reference, so reference + lo can
    fall below 0, where no solved fraction lies). None where ``r`` has no interval."""
    if r.get(lo, "") == "" or r.get(hi, "") == "":
        return
    v, d = float(r["accuracy"]), float(r[diff])
    low = min(max(v - d + float(r[lo]), 0.0), v)
    high = max(min(v - d + float(r[hi]), 1.0), v)
    err = [[v - low], [high - v]]
    kw = dict(fmt="none", ecolor="k", elinewidth=0.8, capsize=2, zorder=3)
    if horizontal:
        ax.errorbar(v, pos, xerr=err, **kw)
    else:
        ax.errorbar(pos, v, yerr=err, **kw)


def _panel_variants(ax, rows, first: str, backend: str = "synthetic") -> None:
    """Final-iteration accuracy on all tasks: full, ablations, evidence-free baselines
    (ours, per task set) beside the paper's Table 5 (fractions)."""
    def name(r):
        return f"evidence-free: {r['baseline']}" if r["variant"] == "evidence_free" \
            else r["variant"]
    last = {r["setting"]: r["stage"] for r in rows if r["variant"] == "full"}
    pick = [r for r in rows if r["split"] == "all" and r["start"] == first
            and r["stage"] == last.get(r["setting"])]
    starts_ = {r["setting"]: r for r in rows if r["variant"] == "full" and r["split"] == "all"
               and r["stage"] == "start" and r["start"] == first}
    names = ["start"] + list(ABLATIONS) + [f"evidence-free: {b}" for b in BASELINES]
    settings = list(dict.fromkeys(r["setting"] for r in pick))
    ys = np.arange(len(names))
    h = 0.8 / (len(settings) + 1)
    for i, setting in enumerate(settings):
        got = {name(r): r for r in pick if r["setting"] == setting}
        if setting in starts_:
            got["start"] = starts_[setting]
        pos = ys + (i - len(settings) / 2) * h
        ax.barh(pos, [got[n]["accuracy"] if n in got else np.nan for n in names], h,
                color=f"C{i}", label=f"ours: {setting} from {first}")
        for y, n in zip(pos, names):
            r = got.get(n)
            if r is None or n == "start":
                continue
            if n == "full":  # full's reference is the start
                _paired_whisker(ax, y, r, "diff_vs_start", "diff_lo", "diff_hi", True)
            else:
                _paired_whisker(ax, y, r, "diff_vs_full", "full_lo", "full_hi", True)
    paper = [PAPER["native"]["all"]] + [PAPER.get(n, {}).get("all", np.nan)
                                        for n in names[1:]]
    ax.barh(ys + (len(settings) / 2) * h, paper, h, color="C7",
            label="paper: LHTB-46, Table 5 (no evidence-free baseline there)")
    # the paper's held-out numbers beside the paper's own bar, named as the paper's
    for y, n, v in zip(ys, names, paper):
        if n in PAPER_HELD_OUT_NOTES:
            ax.text(v + 0.01, y + (len(settings) / 2) * h,
                    f"paper: {PAPER_HELD_OUT_NOTES[n]}", fontsize=6, va="center",
                    color="dimgrey")
    ax.set_yticks(ys, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("solved fraction, all tasks, final iteration\n(whiskers: 95% paired "
                  "interval of the difference from full, for full from start)", fontsize=8)
    ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1)
    # the title says what the panel holds: without ablation or baseline rows (the llm
    # back-end runs neither) it shows the paper's bars only
    ours = any(r["variant"] != "full" for r in pick)
    ax.set_title("(b) ablations and evidence-free baselines at equal budget\n"
                 "(paper: orderings, not sizes)" if ours else
                 f"(b) the paper's Table 5 ablations only:\nnot run with the {backend} "
                 "back-end", fontsize=8)


def seeds_not_run(rows: list[dict], backend: str) -> str:
    """Why panel (c) is empty, in the words of the run that made ``rows``: the
    evidence-free seeds run only with the synthetic back-end (:func:`run_all`), only
    with the ablations, and only with ``--ef-seeds`` at least 2."""
    if backend != "synthetic":
        return (f"evidence-free seeds not run with the {backend} back-end\n"
                "(they run with the synthetic back-end only)")
    if not any(r["variant"] != "full" for r in rows):
        return "evidence-free seeds not run (--no-ablations)"
    return "evidence-free seeds not run (--ef-seeds 0)"


def _panel_seeds(ax, seed_rows, comparison, why_not: str = "") -> None:
    """Held-out accuracy per seed, ContextEvo and each evidence-free baseline, with
    the paired interval of ContextEvo minus each over seeds; ``why_not`` when there
    are no seeds."""
    if not seed_rows:
        ax.set_axis_off()
        ax.text(0.5, 0.5, why_not, ha="center", va="center", fontsize=9)
        return
    settings = list(dict.fromkeys(r["setting"] for r in seed_rows))
    arms = [("full", "")] + [("evidence_free", b) for b in BASELINES]
    lines = []
    for k, setting in enumerate(settings):
        for a, (var, base) in enumerate(arms):
            ys = [r["heldout_accuracy"] for r in seed_rows if r["setting"] == setting
                  and r["variant"] == var and r["baseline"] == base]
            x = k + (a - (len(arms) - 1) / 2) * 0.18
            ax.scatter(np.full(len(ys), x), ys, s=12, color=f"C{a}",
                       label=("ContextEvo" if var == "full" else f"evidence-free: {base}")
                       if k == 0 else None)
            ax.plot([x - 0.07, x + 0.07], [np.mean(ys)] * 2, color=f"C{a}", lw=2)
        for base, c in comparison.get(setting, {}).items():
            lines.append(f"{setting}, ContextEvo - {base}: {c['mean']:+.3f} "
                         f"[{c['lo']:+.3f}, {c['hi']:+.3f}]")
    ax.set_xticks(range(len(settings)), settings, fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("held-out solved fraction (one dot per seed; bar: mean)")
    ax.legend(fontsize=6, loc="lower left")
    n = comparison and next(iter(next(iter(comparison.values())).values()))["n_seeds"]
    ax.set_title(f"(c) ContextEvo vs evidence-free search, {n} seeds, equal budget",
                 fontsize=8)
    ax.text(0.0, -0.16, "paired per-seed difference, 95% t-interval over seeds:\n"
            + "\n".join(lines), transform=ax.transAxes, fontsize=6, va="top")


def figure(rows: list[dict], path, backend: str, notes=(), seed_rows=(), comparison=None):
    """The ContextEvo figure, three panels.

    Panel (a): accuracy per stage and split per setting with the held-out paired interval;
    (b) ablations and evidence-free baselines, ours beside the paper; (c) ContextEvo
    vs evidence-free search per seed.
    """
    from experiments.output import new_figure, save_figure
    from experiments.paired import CRN_NOTE

    fig, axes = new_figure(1, 3, figsize=(17, 5.4),
                           gridspec_kw={"width_ratios": [1.3, 1.1, 1.0]})
    _panel_stages(axes[0], rows, backend)
    first = next((r["start"] for r in rows if r["variant"] == "full"), "")
    _panel_variants(axes[1], rows, first, backend)
    _panel_seeds(axes[2], list(seed_rows), comparison or {}, seeds_not_run(rows, backend))
    fig.text(0.5, -0.02, CRN_NOTE, ha="center", fontsize=7)
    if notes:
        fig.text(0.01, -0.05, "attribution vs the simulator's true causes, pooled over "
                 "iterations (precision/recall):\n" + "\n".join(notes), ha="left",
                 va="top", fontsize=6.5)
    return save_figure(fig, path)
