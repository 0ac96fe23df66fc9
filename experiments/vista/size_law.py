"""The size law of tool results in the shipped trajectories (THEORY.md §5).

The sorted-window game (:mod:`sim.games.sorted_window`) draws block sizes i.i.d. from
a heavy-tailed law; this module measures the bundled trajectories' tool-result sizes
in cl100k_base tokens and fits that law (no fitted law passes its KS test; the tests
and the empirical spread that ``task.size_sd`` takes are in
:mod:`experiments.priors.sizes`). It lives in experiments/ because it ties the
games to the workspace importers (sim.games imports no workspace code).
"""

from __future__ import annotations

import numpy as np


def tool_result_sizes() -> np.ndarray:
    """cl100k tokens of every tool result in the bundled trajectories (float64)."""
    from sim.tasks.trajectory_tasks import interactions, trajectory_files
    from sim.tasks.tokens import count_tokens
    from sim.workspace import load_trajectory

    return np.array([count_tokens(out) for f in trajectory_files()
                     for _, _, out in interactions(load_trajectory(f))], dtype=float)


def fit_tool_result_sizes(sizes: np.ndarray | None = None) -> dict:
    """Maximum-likelihood fits (scipy, location fixed at 0) of the tool-result sizes:
    lognormal (``mu``, ``sd`` of ln s) and Pareto (``alpha``, ``scale``), with each
    fit's log-likelihood (nats) and Kolmogorov-Smirnov statistic."""
    from scipy import stats

    x = tool_result_sizes() if sizes is None else np.asarray(sizes, dtype=float)
    x = x[x > 0]
    sd, _, scale = stats.lognorm.fit(x, floc=0)
    alpha, _, p_scale = stats.pareto.fit(x, floc=0)
    return {"n": int(x.size), "median_tokens": float(np.median(x)), "max_tokens": float(x.max()),
            "lognormal": {"mu": float(np.log(scale)), "sd": float(sd),
                          "loglik_nats": float(stats.lognorm.logpdf(x, sd, 0, scale).sum()),
                          "ks": float(stats.kstest(x, "lognorm", (sd, 0, scale)).statistic)},
            "pareto": {"alpha": float(alpha), "scale": float(p_scale),
                       "loglik_nats": float(stats.pareto.logpdf(x, alpha, 0, p_scale).sum()),
                       "ks": float(stats.kstest(x, "pareto", (alpha, 0, p_scale)).statistic)}}
