"""How much of the prior gives a claim its claimed sign (issue 30, item 1): a
Gaussian-process metamodel of a claim's expected effect over the world's
parameters, fitted to noisy per-point effects with each point's own standard error
as its noise, and the shares of the prior it implies, with intervals.

Why a Gaussian process (Rasmussen & Williams 2006, ch. 2 and 5): each world point's
effect ``y_i = f(x_i) + e_i`` carries known sampling noise ``e_i ~ N(0, se_i^2)``
(the point's paired SE, :mod:`experiments.claims.robustness.effects`), and the
question is about ``f``, the *expected* effect, not ``y``: the share of the prior
where ``f`` has the claimed sign. Counting points where ``y_i`` has the sign
(or where a small study's verdict is "reproduced") mixes ``f`` with the noise and
pulls every share toward 1/2 (or toward 0: that was power, not robustness). A GP
with a heteroscedastic noise term (``alpha = se_i^2``, plus a fitted white term
for what the SEs miss) separates the two; its posterior over ``f`` at fresh prior
draws carries both the uncertainty from having sampled finitely many points
(far from the points ``f`` is uncertain) and each point's noise. Gradient-boosted
trees give no calibrated interval; deconvolving the ``y_i`` alone discards where
the points are. The calibration is checked on held-out points
(:func:`cross_validate`) and on test functions with a known share
(tests/experiments/claims/test_robustness_metamodel.py).

Kernel: an unknown offset (a fixed constant term, prior SD one effect scale) plus a
constant times an ARD squared-exponential over the unit cube (one length scale per
parameter: parameters the effect does not depend on get long scales), plus a white
term (bounded to at most the standardised variance); hyperparameters
by maximum marginal likelihood (scikit-learn's ``GaussianProcessRegressor``) on at
most :data:`FIT_POINTS` of the points; the posterior of the latent ``f`` (without
the white term) given *every* point is computed here from the fitted kernel.
Hyperparameter uncertainty is not propagated (plug-in): the coverage tests measure
what that costs (95 of 100 runs covered the known share at the 95% level).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

#: fresh prior draws at which the posterior of f is sampled
PRIOR_POINTS = 1000
#: joint posterior draws of f at those points
DRAWS = 400
#: the intervals' level (two-sided)
LEVEL = 0.95
#: folds of the held-out check
FOLDS = 5
#: at most this many points (a seeded random subset) fit the hyperparameters; the
#: posterior then conditions on every point. The marginal likelihood's gradient
#: costs O(n^2 d) per step: 392 points x 32 parameters took 260 s a fit, 100-150
#: points 6-10 s (2 shared cores, measured)
FIT_POINTS = 120
#: an expected effect within this share of the effects' RMS over the points is
#: zero, not a sign: where a world makes both arms fail (or pass) every task the
#: paired effect is exactly 0 with SE 0, and the posterior's jitter of 1e-5 around
#: it must not count as half a sign (measured on the quick run: Fig4-decline's
#: share was 0.50 [0.12, 0.91] with mean effect -1e-6 before this margin)
NEGLIGIBLE = 0.01
#: L-BFGS-B steps of the hyperparameter fit: at 100 and 150 points x 32 parameters
#: 60 steps reached a log marginal likelihood within 0.15 of the converged fit's
#: (-103.24 vs -103.09; -141.98 vs -141.98) at a third of the time (measured)
MAXITER = 60
#: the shortest length scale (unit cube) by default. The robustness analysis
#: passes its Morris grid's spacing instead (1/3: its points sit on 4 levels of
#: each prior, and say nothing about variation between them): at 0.05 the fits on
#: the committed run's 445 points put 15-21 of the 41 length scales of the Fig. 8a
#: claims at that bound, an f that is noise between the points, whose Sobol'
#: indices were then ~0.88 for a dozen parameters at once
LENGTH_MIN = 0.05
#: the evidence (log marginal likelihood over an offset-only GP's, the same points)
#: below which the data do not show the effect to vary over the prior: its Sobol'
#: indices are not reported (they would be the kernel's prior's; on pure noise at
#: 127 points x 41 parameters every parameter got ST 0.24 [0.19, 0.30]). 3 is
#: "strong" on Kass & Raftery's (1995) scale for a Bayes factor; this is a ratio of
#: fitted (type-II maximum) likelihoods, which favours the larger model, so 3 is a
#: floor, not a test
EVIDENCE_MIN = 3.0
#: Sobol' indices on the metamodel (:func:`sobol_indices`): Saltelli base sample
#: per design, independent designs, posterior draws per design, random Fourier
#: features of a prior draw. Measured at 253 points x 41 parameters (a known
#: function of 3 of them, small noise): base 256 took 4.8 s a claim with the
#: design's Monte Carlo error the larger part of the interval (ST of an
#: interacting parameter [0.22, 0.39]), base 1,024 16 s ([0.28, 0.32]); 512 is
#: between, about 9 s
SOBOL_BASE = 512
SOBOL_BLOCKS = 8
SOBOL_DRAWS = 50
FEATURES = 1024


@dataclass(frozen=True)
class Estimate:
    """A posterior summary: point value (the posterior mean) and its interval."""

    value: float
    lo: float
    hi: float

    def as_dict(self, nd: int = 4) -> dict:
        return {"value": round(self.value, nd), "lo": round(self.lo, nd),
                "hi": round(self.hi, nd)}


class Metamodel:
    """A GP fitted to effects ``y`` (shape ``(n,)``) with SEs ``se`` at points ``X``
    (shape ``(n, d)``, each column in [0, 1]); see the module docstring.

    Raises:
        ValueError: for mismatched shapes, fewer than 3 points, a negative or
            non-finite SE, or points outside the unit cube.
    """

    def __init__(self, X, y, se, seed: int = 0, restarts: int = 0,
                 fit_points: int = FIT_POINTS, maxiter: int = MAXITER,
                 length_min: float = LENGTH_MIN):
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.gaussian_process import GaussianProcessRegressor
        from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

        X, y, se = np.asarray(X, float), np.asarray(y, float), np.asarray(se, float)
        if X.ndim != 2 or y.shape != (len(X),) or se.shape != y.shape:
            raise ValueError(f"need X (n, d), y (n,), se (n,); got {X.shape}, "
                             f"{y.shape}, {se.shape}")
        if len(X) < 3:
            raise ValueError(f"a metamodel needs at least 3 points, got {len(X)}")
        if not (np.isfinite(y).all() and np.isfinite(se).all() and (se >= 0).all()):
            raise ValueError("effects must be finite and SEs finite and >= 0")
        if X.min() < 0 or X.max() > 1:
            raise ValueError("points must lie in the unit cube (scale by the priors)")
        self.mean = float(y.mean())
        # a constant effect still has a scale: its noise (never divide by zero)
        self.scale = float(max(y.std(), np.sqrt(np.mean(se**2)), 1e-12))
        self.X, self.y = X, (y - self.mean) / self.scale
        self.noise = (se / self.scale) ** 2
        d = X.shape[1]
        # the fixed constant term is an unknown offset with a prior SD of one
        # effect scale: the posterior then carries the uncertainty of the mean
        # level itself (without it, the plug-in sample mean was taken as known;
        # measured on the quick run: Fig8a-no-dashboard, 97 of 115 points at 0 and
        # SE 0.17, read as -0.024 +- 0.002 everywhere, sign share 1.00 [1.00, 1.00])
        kernel = ((ConstantKernel(1.0, "fixed")
                   + ConstantKernel(1.0, (1e-3, 1e2)) * RBF(np.full(d, max(0.5, length_min)), (length_min, 1e3)))
                  + WhiteKernel(0.05, (1e-6, 1.0)))
        def optimizer(obj, x0, bounds):
            from scipy.optimize import minimize

            r = minimize(obj, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                         options={"maxiter": maxiter})
            return r.x, r.fun

        sub = np.arange(len(X))
        if len(X) > fit_points:
            sub = np.sort(np.random.default_rng(seed).choice(len(X), fit_points,
                                                             replace=False))
        gp = GaussianProcessRegressor(kernel, alpha=self.noise[sub] + 1e-8,
                                      optimizer=optimizer,
                                      n_restarts_optimizer=restarts,
                                      random_state=seed)
        with warnings.catch_warnings():
            # a parameter the effect ignores runs to the longest length scale, and
            # SEs that explain all the scatter leave no white noise: both expected
            warnings.filterwarnings("ignore", category=ConvergenceWarning)
            gp.fit(self.X[sub], self.y[sub])
        self.kernel = gp.kernel_
        self.signal = gp.kernel_.k1          # offset + constant x RBF: the latent f
        # the evidence that f varies at all: the fitted kernel's log marginal
        # likelihood over that of an offset alone (plus the white term), on the
        # same points (sobol_indices reports no indices of an f the data do not
        # show to vary: their shares would be those of the kernel's prior)
        null = GaussianProcessRegressor(ConstantKernel(1.0, "fixed")
                                        + WhiteKernel(0.05, (1e-6, 1.0)),
                                        alpha=self.noise[sub] + 1e-8,
                                        optimizer=optimizer, random_state=seed)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=ConvergenceWarning)
            null.fit(self.X[sub], self.y[sub])
        self.evidence = float(gp.log_marginal_likelihood_value_
                              - null.log_marginal_likelihood_value_)
        self.white = float(gp.kernel_.k2.noise_level)
        K = self.signal(self.X) + np.diag(self.noise + self.white + 1e-8)
        self._chol = _cholesky(K)
        self._alpha = _solve(self._chol, self.y)

    def posterior(self, Z, cov: bool = True):
        """The latent ``f``'s posterior at ``Z`` (``(m, d)``, unit cube), in the
        effect's units: ``(mean (m,), covariance (m, m))``, or the variances
        ``(m,)`` when ``cov`` is false."""
        Z = np.asarray(Z, float)
        Ks = self.signal(Z, self.X)
        mu = Ks @ self._alpha
        v = _half_solve(self._chol, Ks.T)
        if cov:
            C = self.signal(Z) - v.T @ v
            return self.mean + self.scale * mu, self.scale**2 * C
        var = np.clip(self.signal.diag(Z) - np.sum(v * v, axis=0), 0, None)
        return self.mean + self.scale * mu, self.scale**2 * var

    def draws(self, Z, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` joint draws of ``f`` at ``Z``: shape ``(n, len(Z))``."""
        mu, C = self.posterior(Z)
        L = _cholesky(C, jitter=1e-10 * max(float(np.mean(np.diag(C))), 1e-300))
        return mu + rng.standard_normal((n, len(mu))) @ L.T


    def pathwise(self, n: int, rng: np.random.Generator, features: int = FEATURES):
        """``n`` draws of the latent ``f`` as functions (standardised units, the
        offset ``mean``/``scale`` not applied): a callable ``Z (m, d) -> (m, n)``,
        one column a draw, evaluated at as many points as wanted at a cost linear
        in them.

        Pathwise conditioning (Wilson et al. 2020, "Efficiently sampling functions
        from Gaussian process posteriors", eq. 6): a prior draw ``f0`` of the fitted
        signal kernel, approximated by ``features`` random Fourier features of its
        RBF part (Rahimi & Recht 2007; its offset exactly), is moved by the exact
        update ``k(., X) (K + S)^-1 (y - f0(X) - e)``, ``e ~ N(0, S)``, ``S`` each
        point's noise plus the white term: the draws have the posterior's mean
        exactly and its covariance up to the features' approximation of the prior
        (tests/experiments/claims/test_robustness_metamodel.py compares them with
        :meth:`posterior`). A joint draw at ``m`` points by :meth:`draws` costs a
        Cholesky of ``m x m``; a Sobol' design needs ``m`` in the tens of thousands.
        """
        offset = float(self.signal.k1.constant_value)
        amp = float(self.signal.k2.k1.constant_value)
        length = np.broadcast_to(np.asarray(self.signal.k2.k2.length_scale, float),
                                 (self.X.shape[1],))
        omega = rng.standard_normal((features, len(length))) / length
        phase = rng.uniform(0.0, 2.0 * np.pi, features)
        w = rng.standard_normal((features, n)) * math.sqrt(2.0 * amp / features)
        z0 = rng.standard_normal(n) * math.sqrt(offset)

        def prior(Z):
            return z0 + np.cos(Z @ omega.T + phase) @ w

        noise = self.noise + self.white + 1e-8
        e = rng.standard_normal((len(self.y), n)) * np.sqrt(noise)[:, None]
        v = _solve(self._chol, self.y[:, None] - prior(self.X) - e)

        def f(Z):
            Z = np.asarray(Z, float)
            return prior(Z) + self.signal(Z, self.X) @ v

        return f


@dataclass(frozen=True)
class Indices:
    """One parameter's Sobol' indices of the expected effect (shares of its variance
    over the prior), each the posterior mean over the metamodel's draws with its
    95% interval."""

    S1: Estimate
    ST: Estimate


def sobol_indices(model: Metamodel, rng: np.random.Generator, base: int = SOBOL_BASE,
                  blocks: int = SOBOL_BLOCKS, draws: int = SOBOL_DRAWS,
                  features: int = FEATURES, level: float = LEVEL
                  ) -> list[Indices] | None:
    """First-order and total Sobol' indices of the expected effect ``f`` for every
    parameter (one :class:`Indices` per column of the points, in order), with
    intervals that carry both the metamodel's uncertainty about ``f`` and the
    Monte Carlo error of the design; ``None`` when the effects did not vary (no
    variance to share out).

    Method (Marrel et al. 2009, "Calculations of Sobol indices for the Gaussian
    process metamodel", RESS 94): Saltelli's estimators (SALib's ``first_order``
    and ``total_order``, Saltelli et al. 2010) applied to each posterior draw of
    ``f`` (:meth:`Metamodel.pathwise`) on SALib's scrambled Sobol' design of
    ``base x (d + 2)`` points; ``blocks`` independent designs of ``draws`` draws
    each, so the spread over draws includes the design's own sampling error. No
    episode is played: the indices come from the points the metamodel was fitted
    to, whatever design placed them.

    Raises:
        ValueError: for a base that is not a power of two, or fewer than one block
            or draw.
    """
    from SALib.analyze.sobol import first_order, total_order
    from SALib.sample import sobol

    if base < 2 or base & (base - 1):
        raise ValueError(f"the Sobol' base sample must be a power of two >= 2, "
                         f"got {base}")
    if blocks < 1 or draws < 1:
        raise ValueError(f"need at least one block and one draw, got {blocks} and "
                         f"{draws}")
    if np.ptp(model.y) == 0:
        return None
    d = model.X.shape[1]
    prob = {"num_vars": d, "names": [f"x{j}" for j in range(d)],
            "bounds": [[0.0, 1.0]] * d}
    s1, st = [], []
    for _ in range(blocks):
        seed = int(rng.integers(1, 2**31))
        Z = sobol.sample(prob, base, calc_second_order=False, scramble=True, seed=seed)
        Y = model.pathwise(draws, rng, features)(Z).reshape(base, d + 2, draws)
        A, B = Y[:, 0], Y[:, d + 1]
        s1.append(np.stack([first_order(A, Y[:, 1 + j], B) for j in range(d)], 1))
        st.append(np.stack([total_order(A, Y[:, 1 + j], B) for j in range(d)], 1))
    S1, ST = np.concatenate(s1), np.concatenate(st)
    return [Indices(_interval(S1[:, j], level), _interval(ST[:, j], level))
            for j in range(d)]

def _cholesky(K, jitter: float = 0.0):
    from scipy.linalg import cholesky

    eye = np.eye(len(K))
    for j in (jitter, 1e-10, 1e-8, 1e-6, 1e-4):
        try:
            return cholesky(K + j * eye * max(float(np.mean(np.diag(K))), 1e-300)
                            if j else K, lower=True)
        except np.linalg.LinAlgError:
            continue
    raise np.linalg.LinAlgError("covariance not positive definite even with jitter")


def _solve(L, b):
    from scipy.linalg import cho_solve

    return cho_solve((L, True), b)


def _half_solve(L, B):
    from scipy.linalg import solve_triangular

    return solve_triangular(L, B, lower=True)


def _interval(samples, level: float = LEVEL) -> Estimate:
    a = (1 - level) / 2
    lo, hi = np.quantile(samples, [a, 1 - a])
    return Estimate(float(np.mean(samples)), float(lo), float(hi))


def prior_resample(F: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each posterior draw (a row of ``F``, its values at the prior draws) on its
    own bootstrap resample of the prior draws: a functional of the rows (a share, a
    mean, a spread) then carries the Monte Carlo error of using ``F.shape[1]``
    prior draws as well as the posterior's."""
    idx = rng.integers(0, F.shape[1], F.shape)
    return np.take_along_axis(F, idx, axis=1)


def share_draws(F: np.ndarray, low: float, high: float) -> np.ndarray:
    """Per row of ``F``, the share of its values in ``(low, high)``."""
    return np.mean((F > low) & (F < high), axis=1)


@dataclass(frozen=True)
class Summary:
    """What the metamodel says about one claim over the prior.

    Attributes:
        sign_share: share of the prior where the expected effect is in the claimed
            set (the claim's sign, or a tie's band).
        tolerance_share: share where it is within the tolerance of the paper's
            number (``None``: no comparable paper number).
        mean: the prior mean of the expected effect.
        spread: its standard deviation over the prior.
        cv: the held-out check (:func:`cross_validate`).
        points: the points fitted.
    """

    sign_share: Estimate
    tolerance_share: Estimate | None
    mean: Estimate
    spread: Estimate
    cv: dict
    points: int
    white: float
    kernel: str
    indices: list[Indices] | None = None
    evidence: float = math.nan


def summarise(X, y, se, low: float, high: float, paper: float | None = None,
              tolerance: float | None = None, seed: int = 0,
              prior_points: int = PRIOR_POINTS, draws: int = DRAWS,
              level: float = LEVEL, folds: int = FOLDS, indices: bool = False,
              length_min: float = LENGTH_MIN) -> Summary:
    """Fit a :class:`Metamodel` and summarise the expected effect over a uniform
    prior on the unit cube (the world's priors, scaled).

    Args:
        X, y, se: points (``(n, d)`` in [0, 1]), effects and their SEs.
        low, high: the claimed set ``(low, high)``; a sign, ``(0, inf)`` or
            ``(-inf, 0)``, starts :data:`NEGLIGIBLE` x the effects' RMS away
            from zero (an effect indistinguishable from zero has no sign).
        paper, tolerance: the paper's number and the half-width around it.
        seed: seeds the fit's restarts, the prior draws and the posterior draws.
        indices: also the Sobol' indices of the expected effect per parameter
            (:func:`sobol_indices`, on a generator of their own), when the data show
            it to vary (``evidence`` at least :data:`EVIDENCE_MIN`; else ``None``).
        length_min: the shortest length scale the kernel may take (unit cube):
            the resolution of the design that placed the points.
    """
    rng = np.random.default_rng(np.random.SeedSequence([seed, 30]))
    model = Metamodel(X, y, se, seed=seed, length_min=length_min)
    margin = NEGLIGIBLE * float(np.sqrt(np.mean(np.square(y))))
    # a sign (one side of zero) starts past the negligible margin; a band stays
    low = margin if low == 0 and high == math.inf else low
    high = -margin if high == 0 and low == -math.inf else high
    Z = rng.random((prior_points, np.asarray(X).shape[1]))
    F = prior_resample(model.draws(Z, draws, rng), rng)
    tol = None
    if paper is not None and tolerance is not None:
        tol = _interval(share_draws(F, paper - tolerance, paper + tolerance), level)
    ix = None
    if indices and model.evidence >= EVIDENCE_MIN:
        ix = sobol_indices(model, np.random.default_rng(np.random.SeedSequence(
            [seed, 30, 1])), level=level)
    return Summary(_interval(share_draws(F, low, high), level), tol,
                   _interval(F.mean(axis=1), level), _interval(F.std(axis=1), level),
                   cross_validate(model, folds, level, seed), len(model.y), model.white,
                   str(model.kernel), ix, model.evidence)


def cross_validate(model: Metamodel, folds: int = FOLDS, level: float = LEVEL,
                   seed: int = 0) -> dict:
    """Held-out check of a fitted :class:`Metamodel`, its hyperparameters fixed:
    each fold's points predicted from the others. Returns ``{"z_sd"`` (SD of the
    standardised residuals ``(y - mean) / sqrt(var_f + white + se^2)``: 1 when
    calibrated), ``"coverage"`` (share with ``|z|`` below the level's normal
    quantile: ``level`` when calibrated), ``"rmse"`` (effect units),
    ``"folds"}``."""
    from scipy.stats import norm

    n = len(model.y)
    k = min(folds, n)
    order = np.random.default_rng(seed).permutation(n)
    z, err = np.empty(n), np.empty(n)
    for f in range(k):
        test = order[f::k]
        train = np.setdiff1d(order, test)
        X, y, noise = model.X[train], model.y[train], model.noise[train]
        L = _cholesky(model.signal(X) + np.diag(noise + model.white + 1e-8))
        Ks = model.signal(model.X[test], X)
        mu = Ks @ _solve(L, y)
        v = _half_solve(L, Ks.T)
        var = np.clip(model.signal.diag(model.X[test]) - np.sum(v * v, axis=0), 0, None)
        err[test] = model.y[test] - mu
        z[test] = err[test] / np.sqrt(var + model.white + model.noise[test])
    q = norm.ppf(0.5 + level / 2)
    return {"z_sd": round(float(np.std(z)), 4),
            "coverage": round(float(np.mean(np.abs(z) < q)), 4),
            "rmse": round(float(model.scale * math.sqrt(np.mean(err**2))), 6),
            "folds": k}
