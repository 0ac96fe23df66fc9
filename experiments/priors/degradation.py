"""``agent.ctx_drop_max``, ``agent.ctx_half_tokens`` and ``agent.ctx_shape`` fitted to
the published long-context tables (issue 31).

The synthetic agent uses a visible fact correctly with probability
``p_use(L) = 1 - D x^k / (1 + x^k)``, ``x = L / h`` for a request of ``L`` tokens
(:meth:`sim.agents.profiles.Profile.p_use`). A benchmark's accuracy at length ``L``
is read as ``A0 p_use(L)``: ``A0`` its short-context accuracy (what a model gets
wrong without any length), ``p_use`` what length costs.

* NoLiMa (``data/nolima.csv``, Table 3): ``A0`` is the table's base score (measured
  at 250-1K tokens); ``(D, h, k)`` are fitted to the six lengths 1K-32K.
* RULER (``data/ruler.csv``): no score below 4K, so ``A0`` is fitted too, from the
  six lengths 4K-128K; only models claiming at least 128K (every length inside
  their window: a score past the window measures truncation, not degradation).

Each model is fitted by least squares on the scores (fractions; scipy
``least_squares`` from a 3x3x3 grid of starts) within the bounds of the calibration
fit (:data:`experiments.calibrate.estimates.FIT_BOUNDS`). A table identifies a
half-point only near the lengths it measured: a fit whose ``h`` lies beyond
:data:`IDENTIFIED_FACTOR` times the table's longest length (a decline that has
barely begun by 128K) is reported but does not widen the prior. The prior of each
parameter spans the identified fits of both tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from experiments.calibrate.estimates import FIT_BOUNDS, p_use
from experiments.priors import read_table

#: tokens in RULER's "K" (its scripts run 4096 ... 131072) and in NoLiMa's (its run
#: configs set context_length 1000 ... 32000)
K_RULER, K_NOLIMA = 1024, 1000
#: a half-point beyond this many times a table's longest length is not identified
IDENTIFIED_FACTOR = 4.0
#: (table, its score columns, their lengths in tokens)
TABLES = {
    "nolima": (("s1k", "s2k", "s4k", "s8k", "s16k", "s32k"),
               tuple(K_NOLIMA * 2 ** i for i in range(6))),
    "ruler": (("s4k", "s8k", "s16k", "s32k", "s64k", "s128k"),
              tuple(4 * K_RULER * 2 ** i for i in range(6))),
}
#: RULER models fitted: those claiming at least this window (tokens)
RULER_MIN_CLAIMED = 128 * K_RULER


@dataclass(frozen=True)
class CurveFit:
    """One model's fitted curve.

    Attributes:
        table, model: the source table and the model's row.
        a0: short-context accuracy (fraction; NoLiMa's base score, fitted for RULER).
        drop, half, shape: ``D``, ``h`` (tokens), ``k``.
        rmse: root mean square residual (percentage points).
        identified: ``h`` within ``IDENTIFIED_FACTOR`` x the longest length.
    """

    table: str
    model: str
    a0: float
    drop: float
    half: float
    shape: float
    rmse: float
    identified: bool


def fit_scores(lengths, scores, a0: float | None = None) -> tuple[float, ...]:
    """Least-squares ``(A0, D, h, k)`` of ``A0 p_use(L; D, h, k)`` to ``scores``
    (fractions) at ``lengths`` (tokens); ``a0`` fixes ``A0`` (else fitted in [0, 1]).
    Returns ``(A0, D, h, k, rmse)`` with ``rmse`` in the scores' units.

    Raises:
        ValueError: for mismatched or too few points (fewer than the free parameters).
    """
    from scipy.optimize import least_squares

    L = np.asarray(lengths, dtype=float)
    s = np.asarray(scores, dtype=float)
    free = 3 if a0 is not None else 4
    if L.shape != s.shape or L.size < free:
        raise ValueError(f"need >= {free} matching (length, score) points, got "
                         f"{L.size} lengths and {s.size} scores")
    (dlo, dhi), (hlo, hhi), (klo, khi) = FIT_BOUNDS
    lo, hi = [dlo, hlo, klo], [dhi, hhi, khi]
    if a0 is None:
        lo, hi = [0.0] + lo, [1.0] + hi

    def resid(t):
        amp, th = (a0, t) if a0 is not None else (t[0], t[1:])
        return amp * p_use(L, th[0], math.exp(th[1]), th[2]) - s

    best = None
    for d in (0.3, 0.7, 0.95):
        for h in (4e3, 3e4, 2e5):
            for k in (0.8, 1.5, 3.0):
                x0 = [d, math.log(h), k] if a0 is not None \
                    else [min(1.0, s[0] * 1.02), d, math.log(h), k]
                r = least_squares(resid, x0, bounds=(lo, hi))
                if best is None or r.cost < best.cost:
                    best = r
    t = list(best.x)
    amp = a0 if a0 is not None else t.pop(0)
    rmse = math.sqrt(2 * best.cost / L.size)
    return float(amp), float(t[0]), float(math.exp(t[1])), float(t[2]), rmse


def fit_table(name: str) -> list[CurveFit]:
    """Every fitted model of table ``name`` (``"nolima"`` or ``"ruler"``).

    Raises:
        KeyError: for another table name.
    """
    if name not in TABLES:
        raise KeyError(f"no degradation table {name!r}; known: {sorted(TABLES)}")
    cols, lengths = TABLES[name]
    out = []
    for r in read_table(name):
        if name == "ruler" and int(r["claimed_tokens"]) < RULER_MIN_CLAIMED:
            continue
        scores = [float(r[c]) / 100 for c in cols]
        a0 = float(r["base"]) / 100 if name == "nolima" else None
        amp, d, h, k, rmse = fit_scores(lengths, scores, a0)
        out.append(CurveFit(name, r["model"], amp, d, h, k, 100 * rmse,
                            h <= IDENTIFIED_FACTOR * max(lengths)))
    return out


def all_fits() -> list[CurveFit]:
    """The fits of NoLiMa's models, then RULER's."""
    return fit_table("nolima") + fit_table("ruler")


def curve_ranges(fits: list[CurveFit] | None = None) -> dict[str, tuple[float, float]]:
    """``{"agent.ctx_drop_max": (lo, hi), "agent.ctx_half_tokens": ...,
    "agent.ctx_shape": ...}``: the span of the identified fits."""
    use = [f for f in (all_fits() if fits is None else fits) if f.identified]
    if not use:
        raise ValueError("no identified fit to span")
    span = lambda vals: (min(vals), max(vals))  # noqa: E731
    return {"agent.ctx_drop_max": span([f.drop for f in use]),
            "agent.ctx_half_tokens": span([f.half for f in use]),
            "agent.ctx_shape": span([f.shape for f in use])}
