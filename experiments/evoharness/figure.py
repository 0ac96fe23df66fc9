"""The Evo-Harness figure: pass rate per arm, harness size against its caps over the
stream, and skills vs context policy (reward, then input tokens, one column per arm)."""

from __future__ import annotations

import numpy as np

from experiments.settings.evoharness import GridConfig
from experiments.output import new_figure

#: the arm every policy arm is compared with in panels (c) and (d)
POLICY_REFERENCE = "baseline"


def figure(tab: list[dict], traces: dict, prow: list[dict], cfg: GridConfig,
           ppairs: list[dict] = ()):
    """Four panels; ``traces``: ``{"arm/profile": (trace, caps)}`` (``trace``: the
    stream's :class:`~sim.evolve.evoharness.online.UpdateRecord` s); ``prow``: the rows
    of ``evoharness_policy.csv``; ``ppairs``: those of ``evoharness_policy_pairs.csv``
    (each arm's paired difference from :data:`POLICY_REFERENCE`, printed under its
    column with its 95% interval; none printed where ``ppairs`` is empty)."""
    fig, axes = new_figure(1, 4, figsize=(22, 4.8), width_ratios=[1.35, 1.2, 0.85, 0.85])
    _panel_arms(axes[0], tab, cfg)
    _panel_traces(axes[1], traces)
    _panel_policy(axes[2], axes[3], prow, ppairs, cfg)
    return fig


def _panel_arms(ax, tab, cfg) -> None:
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
    ax.set_title(f"(a) Arms ({cfg.program}, {cfg.growth // 1000}K growth, "
                 f"B={cfg.budget // 1000}K, b={cfg.b})", fontsize=9)
    ax.legend(fontsize=7, title="profile", title_fontsize=7)
    ax.set_ylim(0, 1)


def _panel_traces(ax, traces) -> None:
    """One colour per arm (its caps in its legend entry), solid skills and dotted
    tokens: a legend of one entry per arm plus the two line styles."""
    from matplotlib.lines import Line2D

    handles = []
    for k, (name, (tr, caps)) in enumerate(traces.items()):
        steps = [t.step for t in tr]
        c = f"C{k % 10}"
        # each arm thinner than the one before: arms whose traces coincide (several
        # fill their caps on the same steps) show as nested lines, none hidden
        lw = max(0.8, 3.2 - 0.4 * k)
        ax.plot(steps, [t.skills / caps["max_skills"] for t in tr], color=c, lw=lw,
                label=f"{name} skills / {caps['max_skills']}")
        ax.plot(steps, [t.tokens / caps["max_total_tokens"] for t in tr], color=c,
                ls=":", lw=lw, label=f"{name} tokens / {caps['max_total_tokens']}")
        handles.append(Line2D([], [], color=c, lw=lw, label=f"{name.split('/')[0]} (caps "
                              f"{caps['max_skills']}, {caps['max_total_tokens']} tok)"))
    handles += [Line2D([], [], color="k", label="skills / cap"),
                Line2D([], [], color="k", ls=":", label="tokens / cap")]
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel("update step (tasks of the stream)")
    ax.set_ylabel("harness size / its cap (solid: skills, dotted: tokens)")
    ax.set_ylim(0, 1.1)
    ax.legend(handles=handles, fontsize=6, ncol=1, loc="lower right")
    prof = {n.split("/")[1] for n in traces if "/" in n}
    ax.set_title("(b) Harness size against the caps over the stream (rep 0"
                 + (f", {', '.join(sorted(prof))} profile)" if prof else ")"), fontsize=9)


def _pair_label(ppairs, arm: str, measure: str, fmt, base: float = 0.0) -> str:
    """``arm``'s paired difference from the reference in ``measure`` with its 95%
    interval, as a tick label's further lines, each number written by ``fmt`` (and as a
    percentage of ``base`` when it is given); "" when the pairs do not hold it."""
    p = next((p for p in ppairs if p["arm"] == arm and p["reference"] == POLICY_REFERENCE
              and p["measure"] == measure), None)
    if p is None:
        return ""
    d, lo, hi = (float(p[k]) for k in ("diff", "lo", "hi"))
    share = f" ({100 * d / base:+.2f}%)" if base else ""
    return f"\n{fmt(d)}{share}\n[{fmt(lo)}, {fmt(hi)}]"


def _k(tokens: float) -> str:
    """Signed thousands of tokens, one decimal below 100K (a tick label stays short)."""
    return f"{tokens / 1e3:+.1f}K" if abs(tokens) < 1e5 else f"{tokens / 1e3:+.0f}K"


def _panel_policy(ax, tx, prow, ppairs, cfg) -> None:
    """Reward and mean input tokens per policy arm, one column each (arms that tie
    stay visible side by side); the token axis starts at 0, so a difference of a few
    thousand tokens in three million looks as small as it is, its paired interval
    printed under the arm; the paper's values as grey diamonds."""
    arms = [r["arm"] for r in prow]
    x = np.arange(len(arms))
    for i, r in enumerate(prow):
        ax.errorbar(i, r["reward"], yerr=[[r["reward"] - r["reward_lo"]],
                                          [r["reward_hi"] - r["reward"]]],
                    fmt="o", color=f"C{i}", capsize=3)
        tx.bar(i, r["mean_tokens"] / 1e6, 0.6, color=f"C{i}")
    paper_r = [(i, float(r["paper_reward"])) for i, r in enumerate(prow)
               if r.get("paper_reward", "") != ""]
    paper_t = [(i, float(r["paper_mean_tokens"]) / 1e6) for i, r in enumerate(prow)
               if r.get("paper_mean_tokens", "") != ""]
    if paper_r:
        # beside our point, not on it (a paper value can sit on our whisker's cap)
        ax.scatter([i + 0.25 for i, _ in paper_r], [v for _, v in paper_r], marker="D",
                   color="grey", s=22, zorder=3, label="paper (Evo-Harness)")
        ax.legend(fontsize=7, loc="upper right")
    if paper_t:
        tx.scatter([i + 0.25 for i, _ in paper_t], [v for _, v in paper_t], marker="D",
                   color="grey", s=22, zorder=3, label="paper (Evo-Harness)")
        tx.legend(fontsize=7, loc="upper right")
    program = ", ".join(sorted({r["program"] for r in prow}))
    ref = f"minus {POLICY_REFERENCE} [95%]"
    ax.set_xlim(-0.5, len(arms) - 0.4)
    tx.set_xlim(-0.5, len(arms) - 0.4)
    ax.set_xticks(x, [a + _pair_label(ppairs, a, "reward", "{:+.3f}".format) for a in arms],
                  fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel(f"reward (pass rate, held-out, {program}; 95% CI)")
    ax.set_title(f"(c) Skills vs ContextEvo policy: reward\n{cfg.long_growth // 1000}K "
                 f"growth, B={cfg.long_budget // 1000}K; under each arm: {ref}",
                 fontsize=8)
    base = next((float(r["mean_tokens"]) for r in prow if r["arm"] == POLICY_REFERENCE), 0.0)
    tx.set_xticks(x, [a + _pair_label(ppairs, a, "mean_tokens", _k, base)
                      for a in arms], fontsize=7)
    tx.set_ylim(0, None)
    tx.set_ylabel("mean input tokens per run (M)")
    tx.set_title(f"(d) input tokens per run, axis from 0\nunder each arm: tokens {ref}",
                 fontsize=8)
