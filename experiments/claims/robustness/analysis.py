"""Global sensitivity of pass/fail outputs over a box of parameters, with SALib:
Morris screening of every parameter, then Sobol' indices (Saltelli's design) on the
few that matter, and the fraction of the box where each output holds.

The model is any ``evaluate(X, stage) -> {output: values}``: ``X`` is an array of
points (one row per point, one column per :class:`Factor`, in the factors' units; the
designs are drawn uniform in each factor's sampling space, ``ln`` of a log-uniform one)
and each output's values are one number per row (for a claim: 1 where its verdict
holds, else 0). Nothing here knows about claims or episodes
(:mod:`experiments.claims.robustness.model` does), so the same code path is tested on
functions with known indices.

Methods (SALib, Herman & Usher 2017):

* Morris (1991) elementary effects on a ``levels``-level grid, ``trajectories``
  one-at-a-time paths of ``k + 1`` points each: ``mu*`` (mean absolute effect per
  unit of the normalised range) and ``sigma`` (its spread: interaction or
  non-linearity), with a bootstrap interval on ``mu*`` (Campolongo et al. 2007).
  For a 0/1 output, ``mu* x delta`` (``delta = levels / (2 (levels - 1))``, the
  step) is the share of one-parameter steps that flip it: :func:`flip_rate`.
* Sobol' first-order ``S1`` and total ``ST`` indices (Saltelli et al. 2010
  estimators) for the screened parameters, each its own group, with every other
  parameter in one group ``OTHERS``: the other parameters still vary over their
  priors, and ``ST`` of ``OTHERS`` measures what the screening left out. Design:
  a scrambled Sobol' sequence, ``samples * (groups + 2)`` points.
* The holding fraction: the mean of the output over the Sobol' design's base
  points (its ``A`` and ``B`` matrices: ``2 * samples`` independent uniform points
  of the whole box) with a Wilson (1927) score interval.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

#: the Sobol' group of every parameter the screening did not keep
OTHERS = "others"
#: Morris grid levels (SALib's default; the step is levels / (2 (levels - 1)) = 2/3)
LEVELS = 4
#: bootstrap resamples of SALib's intervals on mu*, S1 and ST
RESAMPLES = 200


@dataclass(frozen=True)
class Factor:
    """One input of the model: a name and its prior range ``[low, high]``, uniform,
    or log-uniform with ``log`` (uniform in ``ln`` of the value: the designs are
    drawn, and the indices measured, in that sampling space; the model sees the
    value, :func:`natural`)."""

    name: str
    low: float
    high: float
    log: bool = False

    def __post_init__(self):
        if not self.low < self.high:
            raise ValueError(f"factor {self.name}: need low < high, got "
                             f"[{self.low}, {self.high}]")
        if self.log and not self.low > 0:
            raise ValueError(f"factor {self.name}: a log-uniform prior needs low > 0, "
                             f"got low={self.low!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """The range in the sampling space: ``(ln low, ln high)`` if ``log``."""
        if self.log:
            return float(np.log(self.low)), float(np.log(self.high))
        return float(self.low), float(self.high)

    def to_sampling(self, x):
        """A value (or array of them) in the sampling space (``ln x`` if ``log``)."""
        return np.log(x) if self.log else np.asarray(x, dtype=float)


def natural(factors: Sequence[Factor], X: np.ndarray) -> np.ndarray:
    """Points of the sampling space (rows, one column per factor) as the factors'
    values: ``exp`` of a log-uniform factor's column, clipped into ``[low, high]``
    (``exp(ln high)`` can land an ulp above ``high``), the others unchanged."""
    X = np.array(X, dtype=float)
    for j, f in enumerate(factors):
        if f.log:
            X[:, j] = np.clip(np.exp(X[:, j]), f.low, f.high)
    return X


Evaluate = Callable[[np.ndarray, str], Mapping[str, np.ndarray]]


def problem(factors: Sequence[Factor], groups: Sequence[str] | None = None) -> dict:
    """SALib's problem dict of ``factors`` (optionally with a group per factor).

    Raises:
        ValueError: for no factors or a duplicate name.
    """
    names = [f.name for f in factors]
    if not names:
        raise ValueError("no factors to analyse")
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate factor names in {names}")
    out = {"num_vars": len(names), "names": names,
           "bounds": [list(f.bounds) for f in factors]}
    if groups is not None:
        out["groups"] = list(groups)
    return out


def _seed(seed: int, stage: str) -> int:
    """A positive seed for one stage (SALib treats a seed of 0 as no seed)."""
    ss = np.random.SeedSequence([seed, *map(ord, stage)])
    return int(ss.generate_state(1, dtype=np.uint32)[0]) + 1


def step(levels: int = LEVELS) -> float:
    """Morris step ``delta`` in normalised units: ``levels / (2 (levels - 1))``."""
    return levels / (2 * (levels - 1))


def clip(factors: Sequence[Factor], X: np.ndarray) -> np.ndarray:
    """``X`` (the sampling space) clipped into each factor's range there (SALib's
    scaling can overshoot a bound by a rounding error)."""
    lo = np.array([f.bounds[0] for f in factors])
    hi = np.array([f.bounds[1] for f in factors])
    return np.clip(X, lo, hi)


def morris_design(factors: Sequence[Factor], trajectories: int, seed: int,
                  levels: int = LEVELS) -> np.ndarray:
    """``trajectories * (k + 1)`` Morris points, shape ``(points, k)``.

    Raises:
        ValueError: for fewer than one trajectory.
    """
    from SALib.sample import morris

    if trajectories < 1:
        raise ValueError(f"need at least one Morris trajectory, got {trajectories}")
    return morris.sample(problem(factors), trajectories, num_levels=levels,
                         seed=_seed(seed, "morris"))


@dataclass(frozen=True)
class MorrisRow:
    """One parameter's Morris indices for one output (units of the output per
    normalised range)."""

    mu_star: float
    sigma: float
    mu_star_conf: float


def morris_indices(factors: Sequence[Factor], X: np.ndarray, y: np.ndarray, seed: int,
                   levels: int = LEVELS) -> dict[str, MorrisRow]:
    """Morris ``mu*``, ``sigma`` and the bootstrap interval of ``mu*`` per factor."""
    from SALib.analyze import morris

    with warnings.catch_warnings():
        # one trajectory has no spread: SALib's sigma is then nan (reported as null)
        warnings.filterwarnings("ignore", "Degrees of freedom", RuntimeWarning)
        warnings.filterwarnings("ignore", "invalid value encountered", RuntimeWarning)
        res = morris.analyze(problem(factors), np.asarray(X, float),
                             np.asarray(y, float), num_resamples=RESAMPLES,
                             num_levels=levels, seed=_seed(seed, "morris-ci"))
    return {f.name: MorrisRow(float(res["mu_star"][i]), float(res["sigma"][i]),
                              float(res["mu_star_conf"][i]))
            for i, f in enumerate(factors)}


def flip_rate(row: MorrisRow, levels: int = LEVELS) -> float:
    """For a 0/1 output: the share of one-parameter Morris steps that change it."""
    return row.mu_star * step(levels)


def screen(indices: Mapping[str, Mapping[str, MorrisRow]], names: Sequence[str],
           keep: int, scale: Mapping[str, float] | None = None) -> list[str]:
    """The ``keep`` parameters with the largest ``mu*`` for any output (ties: table
    order), in ``names`` order; every parameter when ``keep >= len(names)``.
    ``scale``: output -> a divisor of its ``mu*`` (its spread, so that outputs in
    different units, a 0/1 verdict and a token difference, compete fairly); an
    output with a zero or non-finite scale, and a non-finite ``mu*``, is skipped."""
    if keep < 1:
        raise ValueError(f"need to keep at least one parameter, got {keep}")
    scale = scale or {}

    def norm(o, ix, n):
        s = scale.get(o, 1.0)
        v = ix[n].mu_star / s if np.isfinite(s) and s > 0 else np.nan
        return v if np.isfinite(v) else 0.0

    score = {n: max((norm(o, ix, n) for o, ix in indices.items()), default=0.0)
             for n in names}
    order = sorted(names, key=lambda n: (-score[n], names.index(n)))
    kept = set(order[:keep])
    return [n for n in names if n in kept]


def groups_for(names: Sequence[str], screened: Sequence[str]) -> list[str]:
    """A Sobol' group per parameter: its own name if screened, else :data:`OTHERS`."""
    keep = set(screened)
    return [n if n in keep else OTHERS for n in names]


def group_names(groups: Sequence[str]) -> list[str]:
    """The distinct groups in order of first appearance (SALib's order)."""
    return list(dict.fromkeys(groups))


def sobol_design(factors: Sequence[Factor], groups: Sequence[str], samples: int,
                 seed: int) -> np.ndarray:
    """Saltelli's design for first and total indices of the groups:
    ``samples * (groups + 2)`` points, in blocks ``A``, ``AB_1`` to ``AB_g``, ``B``.

    Raises:
        ValueError: unless ``samples`` is a power of two (Sobol' sequences are
            balanced only then) and there are at least two groups.
    """
    from SALib.sample import sobol

    if samples < 2 or samples & (samples - 1):
        raise ValueError(f"--samples must be a power of two >= 2, got {samples}")
    if len(group_names(groups)) < 2:
        raise ValueError("a Sobol' analysis needs at least two groups of parameters")
    return sobol.sample(problem(factors, groups), samples, calc_second_order=False,
                        scramble=True, seed=_seed(seed, "sobol"))


def base_rows(samples: int, n_groups: int) -> np.ndarray:
    """Row indices of the ``A`` and ``B`` points of a :func:`sobol_design`."""
    block = n_groups + 2
    starts = np.arange(samples) * block
    return np.sort(np.concatenate([starts, starts + block - 1]))


@dataclass(frozen=True)
class SobolRow:
    """One group's Sobol' indices for one output (shares of its variance)."""

    S1: float
    S1_conf: float
    ST: float
    ST_conf: float
    #: an interval that is not symmetric (a metamodel's, from its draws; the
    #: ``_conf`` half-widths are then the larger side): ``(lo, hi)`` per index
    S1_interval: tuple[float, float] | None = None
    ST_interval: tuple[float, float] | None = None

    @classmethod
    def from_interval(cls, S1: tuple[float, float, float],
                      ST: tuple[float, float, float]) -> "SobolRow":
        """From ``(value, lo, hi)`` of each index; each ``_conf`` is the larger
        distance from the value to an end, so ``value +- conf`` holds the interval
        (what :func:`~experiments.claims.robustness.summary.flagged` tests)."""
        def half(v, lo, hi):
            return max(v - lo, hi - v)

        return cls(S1[0], half(*S1), ST[0], half(*ST), (S1[1], S1[2]), (ST[1], ST[2]))


def sobol_indices(factors: Sequence[Factor], groups: Sequence[str], y: np.ndarray,
                  seed: int) -> dict[str, SobolRow] | None:
    """``S1``, ``ST`` and their bootstrap half-widths per group; ``None`` when ``y``
    does not vary (no variance to share out: nothing decides it) or is not finite
    everywhere."""
    from SALib.analyze import sobol

    y = np.asarray(y, float)
    if not np.isfinite(y).all() or np.ptp(y) == 0:
        # an undefined effect at some point (a ratio over a zero sum), or no variance
        return None
    with warnings.catch_warnings():
        # a 0/1 output is constant on some of the design's blocks as a matter of
        # course; the all-constant case is handled above
        warnings.filterwarnings("ignore", "Constant values encountered", UserWarning)
        res = sobol.analyze(problem(factors, groups), y, calc_second_order=False,
                            num_resamples=RESAMPLES, seed=_seed(seed, "sobol-ci"))
    return {g: SobolRow(float(res["S1"][i]), float(res["S1_conf"][i]),
                        float(res["ST"][i]), float(res["ST_conf"][i]))
            for i, g in enumerate(group_names(groups))}


def holding(y: np.ndarray) -> tuple[float, float, float]:
    """``(fraction, lo, hi)``: the mean of 0/1 values ``y`` with its 95% Wilson
    interval (:func:`experiments.intervals.wilson`).

    Raises:
        ValueError: for an empty ``y`` or values other than 0 and 1.
    """
    from experiments.intervals import wilson

    y = np.asarray(y, float)
    if y.size == 0:
        raise ValueError("no points to count")
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("a holding fraction needs 0/1 values")
    return wilson(int(y.sum()), y.size)


@dataclass
class Analysis:
    """Everything :func:`analyse` computed.

    Attributes:
        factors: the parameters, in table order.
        outputs: the output names (in ``evaluate``'s order).
        morris_X, morris_Y: the Morris points (in the sampling space: ``ln`` of a
            log-uniform factor; :func:`natural` gives the values) and each output's
            values there.
        morris: output -> parameter -> :class:`MorrisRow`.
        screened: the parameters kept for the Sobol' stage (table order).
        groups: the Sobol' group of each parameter.
        sobol_X, sobol_Y: the Sobol' points (the sampling space, as ``morris_X``)
            and each output's values there.
        sobol: output -> group -> :class:`SobolRow` (``None``: the output did not
            vary).
        holding: output -> (fraction, lo, hi) over the Sobol' base points (0/1
            outputs only; over the Morris points when there is no Sobol' stage,
            whose interval then treats the points of a trajectory as independent).
        samples, trajectories, seed, levels: the design.
    """

    factors: list[Factor]
    outputs: list[str]
    morris_X: np.ndarray
    morris_Y: dict[str, np.ndarray]
    morris: dict[str, dict[str, MorrisRow]]
    screened: list[str]
    groups: list[str]
    sobol_X: np.ndarray
    sobol_Y: dict[str, np.ndarray]
    sobol: dict[str, dict[str, SobolRow] | None]
    holding: dict[str, tuple[float, float, float]]
    samples: int
    trajectories: int
    seed: int
    levels: int = LEVELS
    extra: dict = field(default_factory=dict)

    @property
    def points(self) -> int:
        """Model evaluations in both stages."""
        return len(self.morris_X) + len(self.sobol_X)


def _values(out: Mapping[str, np.ndarray], n: int, stage: str) -> dict[str, np.ndarray]:
    res = {k: np.asarray(v, float) for k, v in out.items()}
    bad = [k for k, v in res.items() if v.shape != (n,)]
    if bad:
        raise ValueError(f"evaluate returned values of the wrong shape for {bad} at the "
                         f"{stage} stage (expected one per point, {n})")
    return res


def analyse(factors: Sequence[Factor], evaluate: Evaluate, trajectories: int,
            samples: int, keep: int, seed: int, levels: int = LEVELS) -> Analysis:
    """Morris screening of every factor, then (unless ``samples`` is 0) Sobol'
    indices of the ``keep`` most influential (the rest as one group) and the
    holding fraction of every output.

    Args:
        factors: the parameters and their prior ranges (uniform priors).
        evaluate: ``evaluate(X, stage)`` with ``stage`` ``"morris"`` or ``"sobol"``
            returns ``{output: one value per row of X}``.
        trajectories: Morris trajectories (``trajectories * (k + 1)`` points).
        samples: Sobol' base sample (a power of two; ``samples * (groups + 2)``
            points), or 0: no Sobol' stage (``sobol`` stays empty for the caller
            to fill from a metamodel; ``holding`` counts the Morris points).
        keep: parameters kept for the Sobol' stage.
        seed: seeds both designs and SALib's bootstrap intervals.

    Raises:
        ValueError: for a bad design size, or ``evaluate`` returning values of the
            wrong shape or outputs that differ between stages.
    """
    factors = list(factors)
    names = [f.name for f in factors]
    mX = morris_design(factors, trajectories, seed, levels)
    mY = _values(evaluate(natural(factors, clip(factors, mX)), "morris"), len(mX),
                 "morris")
    outputs = list(mY)
    mor = {o: morris_indices(factors, mX, mY[o], seed, levels)
           for o in outputs if np.isfinite(mY[o]).all()}
    if samples == 0:
        # no Sobol' stage: the indices come from a metamodel of each output fitted
        # to these points (experiments.claims.robustness.metamodel.sobol_indices),
        # every parameter its own group; the holding fraction counts every point
        hold = {o: holding(mY[o]) for o in outputs if np.isin(mY[o], (0.0, 1.0)).all()}
        return Analysis(factors, outputs, mX, mY, mor, [], list(names),
                        np.empty((0, len(factors))), {o: np.empty(0) for o in outputs},
                        {}, hold, 0, trajectories, seed, levels)
    spread = {o: float(np.std(mY[o])) for o in mor}
    screened = screen(mor, names, min(keep, len(names)), spread)
    groups = groups_for(names, screened)
    sX = sobol_design(factors, groups, samples, seed)
    sY = _values(evaluate(natural(factors, clip(factors, sX)), "sobol"), len(sX),
                 "sobol")
    if list(sY) != outputs:
        raise ValueError(f"evaluate returned outputs {list(sY)} at the Sobol' stage but "
                         f"{outputs} at the Morris stage")
    sob = {o: sobol_indices(factors, groups, sY[o], seed) for o in outputs}
    base = base_rows(samples, len(group_names(groups)))
    hold = {o: holding(sY[o][base]) for o in outputs
            if np.isin(sY[o], (0.0, 1.0)).all()}
    return Analysis(factors, outputs, mX, mY, mor, screened, groups, sX, sY, sob, hold,
                    samples, trajectories, seed, levels)
