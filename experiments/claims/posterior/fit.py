"""ABC-SMC (pyabc) of the world's parameters given the baselines' ``fit`` numbers
(issue 30, item 3).

The prior is the world table's (``ctxsim world``), each parameter uniform in its
sampling space (``ln`` of a log-uniform one, as the robustness design draws it). The
fit runs in the logit of each parameter's position in its range, ``z = logit((x - lo)
/ (hi - lo))``, whose prior is then the standard logistic law: the same prior, with no
bounds. pyabc's multivariate normal transition proposes unbounded points, and in the
bounded space almost every 41-dimensional proposal fell outside some bound (the first
default run spent 44 minutes in generation 1 redrawing proposals, an SVD each, without
a simulation); in the logit space every proposal is a point of the prior. The
simulator plays the ``fit`` numbers' episodes at a proposed point at the paper's
suite size; the distance is pyabc's adaptive Euclidean distance (each statistic
scaled by its median absolute deviation over the generation's simulations, so a
token count and an accuracy weigh alike), the threshold the median distance of the
last generation. The result is the last generation's weighted particles.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np


@dataclass
class FitModel:
    """pyabc's model: a point in the sampling space -> the simulated ``fit`` numbers.

    The design seed of the simulation is drawn from numpy's global stream, which
    ``experiments.claims.posterior.sampler.SeededSampler`` seeds per candidate.

    Attributes:
        factors: the fitted parameters
            (:class:`~experiments.claims.robustness.analysis.Factor`).
        cells: the ``fit`` cell ids simulated.
        tasks: LOCA-like tasks per simulation.
        simulate: ``(cells, values, seed, tasks) -> {cell: value}`` (default:
            ``experiments.claims.posterior.simulate.simulate``); a test passes a
            cheap closed form.
        nuisance: parameters integrated out: each simulation draws them from their
            prior (numpy's global stream, seeded per candidate).
    """

    factors: Sequence
    cells: Sequence[str]
    tasks: int
    simulate: Callable | None = None
    nuisance: Sequence = ()

    def __call__(self, pars: Mapping[str, float]) -> dict[str, float]:
        z = np.array([[float(pars[f.name]) for f in self.factors]])
        values = dict(zip((f.name for f in self.factors),
                          map(float, from_logit(self.factors, z)[0])))
        if self.nuisance:   # numpy's global stream: seeded per candidate
            from experiments.claims.posterior.predictive import prior_draws

            values.update(zip((f.name for f in self.nuisance),
                              map(float, prior_draws(self.nuisance, 1, np.random)[0])))
        seed = int(np.random.randint(0, 2**32, dtype=np.uint64))
        if self.simulate is None:
            from experiments.claims.posterior.simulate import simulate

            return simulate(self.cells, values, seed, self.tasks)
        return self.simulate(self.cells, values, seed, self.tasks)


@dataclass
class Fit:
    """The posterior.

    Attributes:
        names: the parameters, in factor order.
        particles: the last generation's points, values (natural units), shape
            ``(population, len(names))``; a column of a parameter not fitted holds
            draws from its prior (it was integrated out).
        weights: their normalised importance weights, shape ``(population,)``.
        fitted: the parameters fitted, in factor order (the others were integrated
            out: their columns of ``particles`` are prior draws).
        generations: per generation ``{"t", "epsilon", "simulations",
            "acceptance"}`` (``t = 0`` first; pyabc's calibration sample is counted
            in ``simulations`` of the first).
        simulations: every simulation run, calibration included.
        observed: the ``fit`` numbers fitted to.
    """

    names: list[str]
    particles: np.ndarray
    weights: np.ndarray
    fitted: list[str]
    generations: list[dict] = field(default_factory=list)
    simulations: int = 0
    observed: dict[str, float] = field(default_factory=dict)

    def ess(self) -> float:
        """Kish's effective sample size of the weights."""
        return float(1.0 / np.sum(self.weights ** 2))


def prior(factors: Sequence):
    """pyabc's prior in the fit's space: each factor's logit coordinate standard
    logistic, which is the factor uniform on its sampling-space bounds."""
    import pyabc

    return pyabc.Distribution(**{f.name: pyabc.RV("logistic", 0.0, 1.0)
                                 for f in factors})


def to_logit(factors: Sequence, x: np.ndarray) -> np.ndarray:
    """Sampling-space points ``x`` (shape ``(n, len(factors))``) -> the fit's
    coordinates ``logit((x - lo) / (hi - lo))``."""
    from scipy.special import logit

    lo = np.array([f.bounds[0] for f in factors])
    hi = np.array([f.bounds[1] for f in factors])
    return logit((np.asarray(x, dtype=float) - lo) / (hi - lo))


def from_logit(factors: Sequence, z: np.ndarray) -> np.ndarray:
    """The fit's coordinates ``z`` (shape ``(n, len(factors))``) -> values in natural
    units (the inverse of :func:`to_logit`, then
    :func:`~experiments.claims.robustness.analysis.natural`)."""
    from scipy.special import expit

    from experiments.claims.robustness.analysis import natural

    lo = np.array([f.bounds[0] for f in factors])
    hi = np.array([f.bounds[1] for f in factors])
    return natural(list(factors), lo + (hi - lo) * expit(np.asarray(z, dtype=float)))


def fit(factors: Sequence, observed: Mapping[str, float], *, population: int,
        generations: int, simulations: int, tasks: int, seed: int = 0,
        executor=None, simulate: Callable | None = None,
        fitted: Sequence[str] | None = None) -> Fit:
    """Run ABC-SMC and return the posterior.

    Args:
        factors: the parameters and their prior ranges.
        observed: ``fit`` cell id -> paper value
            (``experiments.claims.posterior.observed.observed``).
        population: particles per generation.
        generations: generations at most.
        simulations: simulations at most (pyabc stops after the generation that
            reaches it).
        tasks: LOCA-like tasks per simulation.
        seed: the run's seed (every candidate's seed derives from it).
        executor: where simulations run (``None``: in process).
        simulate: a stand-in simulator for ``FitModel`` (tests).
        fitted: the names of the factors to fit (default: all); the others are
            integrated out (:class:`FitModel`'s ``nuisance``) and their columns of
            the result are prior draws.

    Raises:
        ValueError: for no observations or no factors, or a ``fitted`` name that
            is not a factor.
    """
    import logging

    import pyabc

    from experiments.claims.posterior.sampler import seeded_sampler

    if not observed:
        raise ValueError("no fit numbers to fit to")
    if not factors:
        raise ValueError("no parameters to fit")
    for name in ("ABC", "ABC.Sampler", "ABC.Distance", "ABC.Epsilon",
                 "ABC.Population", "ABC.Adaptation", "ABC.History", "ABC.Transition"):
        logging.getLogger(name).setLevel(logging.WARNING)
    names = [f.name for f in factors]
    fitted = list(names if fitted is None else fitted)
    unknown = sorted(set(fitted) - set(names))
    if unknown or not fitted:
        raise ValueError(f"fitted must name some of the factors {names}, got {fitted}")
    fit_fs = [f for f in factors if f.name in fitted]
    rest = [f for f in factors if f.name not in fitted]
    cells = list(observed)
    model = FitModel(fit_fs, cells, tasks, simulate, rest)
    np.random.seed(np.random.SeedSequence([seed, 7]).generate_state(1)[0])
    abc = pyabc.ABCSMC(model, prior(fit_fs),
                       pyabc.AdaptivePNormDistance(p=2),
                       population_size=population,
                       sampler=seeded_sampler(seed, executor))
    with tempfile.TemporaryDirectory(prefix="ctxsim-posterior-") as tmp:
        abc.new(f"sqlite:///{Path(tmp) / 'abc.db'}",
                {c: float(observed[c]) for c in cells})
        history = abc.run(max_nr_populations=generations,
                          max_total_nr_simulations=simulations)
        df, w = history.get_distribution(m=0, t=history.max_t)
        pops = history.get_all_populations()
        total = int(history.total_nr_simulations)
    Xf = from_logit(fit_fs, df[[f.name for f in fit_fs]].to_numpy(dtype=float))
    X = np.empty((len(Xf), len(names)))
    X[:, [names.index(f.name) for f in fit_fs]] = Xf
    if rest:   # integrated out: their posterior is their prior (a seeded draw)
        from experiments.claims.posterior.predictive import prior_draws

        rng = np.random.default_rng(np.random.SeedSequence([seed, 13]))
        X[:, [names.index(f.name) for f in rest]] = prior_draws(rest, len(X), rng)
    gens = []
    for _, r in pops[pops.t >= 0].iterrows():
        sims = int(r.samples)
        gens.append({"t": int(r.t), "epsilon": float(r.epsilon), "simulations": sims,
                     "acceptance": round(population / sims, 4) if sims else None})
    w = np.asarray(w, dtype=float)
    return Fit(names, X, w / w.sum(), [f.name for f in fit_fs], gens, total,
               dict(observed))
