"""The Evo-Harness figure: pass rate per arm, harness size against its caps over the
stream, and skills vs context policy."""

from __future__ import annotations

import numpy as np

from experiments.evoharness.config import GridConfig
from experiments.output import new_figure


def figure(tab: list[dict], traces: dict, prow: list[dict], cfg: GridConfig):
    """Three panels; ``traces``: ``{"arm/profile": (trace, caps)}``."""
    fig, axes = new_figure(1, 3, figsize=(17, 4.8))
    ax = axes[0]
    order = list(dict.fromkeys(r["arm"] for r in tab))
    profiles = list(dict.fromkeys(r["profile"] for r in tab))
    w = 0.8 / len(profiles)
    for j, p in enumerate(profiles):
        rs = {r["arm"]: r for r in tab if r["profile"] == p}
        x = np.arange(len(order)) + (j - (len(profiles) - 1) / 2) * w
        y = np.array([rs[a]["pass_rate"] for a in order])
        lo = y - np.array([rs[a]["pass_lo"] for a in order])
        hi = np.array([rs[a]["pass_hi"] for a in order]) - y
        ax.bar(x, y, w, yerr=[lo, hi], capsize=2, label=p)
    ax.set_xticks(np.arange(len(order)), order, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("pass rate (held-out tasks, 95% CI)")
    ax.set_title(f"Arms ({cfg.program}, {cfg.growth // 1000}K growth, "
                 f"B={cfg.budget // 1000}K, b={cfg.b})", fontsize=9)
    ax.legend(fontsize=7, title="profile", title_fontsize=7)
    ax.set_ylim(0, 1)
    ax = axes[1]
    for k, (name, (tr, caps)) in enumerate(traces.items()):
        steps = [t["step"] for t in tr]
        c = f"C{k % 10}"
        ax.plot(steps, [t["skills"] / caps["max_skills"] for t in tr], color=c,
                label=f"{name} skills / {caps['max_skills']}")
        ax.plot(steps, [t["tokens"] / caps["max_total_tokens"] for t in tr], color=c,
                ls=":", label=f"tokens / {caps['max_total_tokens']}")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel("update step (tasks of the stream)")
    ax.set_ylabel("harness size / its cap (solid: skills, dotted: tokens)")
    ax.set_ylim(0, 1.1)
    ax.legend(fontsize=5.5, ncol=2, loc="lower right")
    ax.set_title("Harness size against the caps over the stream (rep 0)", fontsize=9)
    ax = axes[2]
    for r in prow:
        ax.errorbar(r["mean_tokens"] / 1e3, r["reward"],
                    yerr=[[r["reward"] - r["reward_lo"]], [r["reward_hi"] - r["reward"]]],
                    fmt="o", capsize=3, label=f"{r['arm']} ({r['program']})")
    ax.set_xlabel("mean input tokens per run (K)")
    ax.set_ylabel("reward (pass rate, held-out)")
    ax.set_title(f"Skills vs ContextEvo context policy, {cfg.long_growth // 1000}K "
                 f"growth, B={cfg.long_budget // 1000}K", fontsize=9)
    ax.legend(fontsize=7)
    return fig
