"""The size law of real tool results, with its goodness-of-fit tests (issue 31;
``task.size_sd``, ``browse.size_sd``).

The tool results the package can read are the shipped trajectories' (418 results,
:func:`experiments.vista.size_law.tool_result_sizes`: real runs) and those of the
importer format samples (``sim/data/trajectories/formats``: 17 results, text written
for ctxsim to exercise the importers, so reported beside the real ones but never
pooled into the fit).

Every candidate law is fitted by maximum likelihood (scipy, location 0) and tested
with the Kolmogorov-Smirnov statistic ``D``. Two critical values at level ``alpha``:
the asymptotic one of a fully specified law, ``c(alpha) / sqrt(n)``
(``c(0.05) = 1.358``), and, for the lognormal, the one with its two parameters
estimated (Lilliefors: the KS of the normal fitted to ``ln s``, by Monte Carlo).
Estimating parameters only lowers the critical value, so a law rejected at the
asymptotic one is rejected by the exact test too. Token counts are integers; the
statistic is taken against the continuous law (ties count as steps).

The ties bound what any continuous law can do here: the most frequent size (22
tokens, 43 of the 418 results) is a jump of 0.103 in the empirical CDF, so
``D >= 0.051`` against every continuous law (:func:`ks_floor_continuous`), above the
lognormal's 0.044 critical value with its two parameters estimated (and below the
0.066 of a fully specified law: only a law fixed in advance could pass).

When no law passes, the size law is the empirical distribution: the generators draw
it (:mod:`sim.tasks.size_law`, the 418 sizes shipped as ``sim/data/result_sizes.csv``),
and its spread of ``ln s`` (sd, with a bootstrap interval over results) is the
default of ``size_sd``, which stretches the empirical ln-shape.
"""

from __future__ import annotations

import numpy as np

#: candidate laws (scipy.stats names), each fitted with location 0
LAWS = ("lognorm", "fisk", "genpareto", "weibull_min", "gamma")


def format_sample_sizes() -> np.ndarray:
    """cl100k tokens of every tool result in the importer format samples."""
    from sim.tasks.tokens import count_tokens
    from sim.tasks.trajectory_tasks import DATA, interactions
    from sim.workspace import load_trajectory

    return np.array([count_tokens(out) for f in sorted((DATA / "formats").iterdir())
                     for _, _, out in interactions(load_trajectory(f))], dtype=float)


def ks_critical(n: int, alpha: float = 0.05) -> float:
    """The asymptotic KS critical value ``c(alpha) / sqrt(n)`` of a fully specified
    law (Kolmogorov distribution, scipy ``kstwobign``).

    Raises:
        ValueError: unless ``n >= 1`` and ``0 < alpha < 1``.
    """
    from scipy.stats import kstwobign

    if n < 1 or not 0 < alpha < 1:
        raise ValueError(f"need n >= 1 and 0 < alpha < 1, got n={n!r}, alpha={alpha!r}")
    return float(kstwobign.ppf(1 - alpha) / np.sqrt(n))


def lilliefors_critical(n: int, alpha: float = 0.05, reps: int = 4_000,
                        seed=0) -> float:
    """The ``1 - alpha`` quantile of the KS statistic of a normal with mean and sd
    estimated from ``n`` draws (the lognormal test on ``ln s``), by Monte Carlo over
    ``reps`` samples (numpy Generator seeded by ``seed``)."""
    from scipy.stats import norm

    if n < 2 or reps < 10:
        raise ValueError(f"need n >= 2 and reps >= 10, got n={n!r}, reps={reps!r}")
    z = np.sort(np.random.default_rng(seed).standard_normal((reps, n)), axis=1)
    u = norm.cdf((z - z.mean(1, keepdims=True)) / z.std(1, keepdims=True))
    i = np.arange(1, n + 1)
    d = np.maximum((i / n - u).max(1), (u - (i - 1) / n).max(1))
    return float(np.quantile(d, 1 - alpha))


def ks_floor_continuous(sizes) -> float:
    """The smallest KS statistic any continuous law can reach on ``sizes``: half the
    largest jump of their empirical CDF (the share of the most frequent value / 2),
    since a continuous CDF passes a jump's two ends at one point."""
    _, counts = np.unique(np.asarray(sizes, dtype=float), return_counts=True)
    return float(counts.max() / counts.sum() / 2)


def gof(sizes, alpha: float = 0.05, laws=LAWS) -> dict:
    """Each law's fit and test on ``sizes`` (tokens > 0): ``{"n", "alpha",
    "critical_asymptotic", "critical_lognormal_estimated", "laws": {name: {"params",
    "loglik_nats", "ks", "passes"}}}``; ``passes`` compares ``ks`` with the exact
    critical value for the lognormal and the asymptotic one otherwise (conservative:
    see the module docstring).

    Raises:
        ValueError: for fewer than 2 sizes or a size <= 0.
    """
    from scipy import stats

    x = np.asarray(sizes, dtype=float)
    if x.size < 2 or not (x > 0).all():
        raise ValueError(f"need >= 2 sizes, all > 0; got {x.size} with min "
                         f"{x.min() if x.size else None!r}")
    crit = ks_critical(x.size, alpha)
    crit_ln = lilliefors_critical(x.size, alpha)
    out = {}
    for name in laws:
        law = getattr(stats, name)
        params = law.fit(x, floc=0)
        ks = float(stats.kstest(x, name, params).statistic)
        out[name] = {"params": [float(p) for p in params],
                     "loglik_nats": float(law.logpdf(x, *params).sum()), "ks": ks,
                     "passes": ks <= (crit_ln if name == "lognorm" else crit)}
    return {"n": int(x.size), "alpha": alpha, "critical_asymptotic": crit,
            "critical_lognormal_estimated": crit_ln, "laws": out}


def log_spread(sizes, reps: int = 2_000, seed=0) -> dict:
    """The empirical spread of ``ln s``: population sd (the lognormal MLE's sd),
    ``IQR / 1.349`` (the sd a normal with that interquartile range has) and a
    bootstrap 95% percentile interval of the sd over results."""
    logs = np.log(np.asarray(sizes, dtype=float))
    rng = np.random.default_rng(seed)
    boots = logs[rng.integers(0, logs.size, (reps, logs.size))].std(axis=1)
    q1, q3 = np.percentile(logs, [25, 75])
    return {"sd": float(logs.std()), "iqr_sd": float((q3 - q1) / 1.349),
            "sd_ci95": (float(np.quantile(boots, 0.025)),
                        float(np.quantile(boots, 0.975)))}
