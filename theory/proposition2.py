"""Proposition 2: the content-only channel Y_i = ln s_i + sigma eps_i carries few bits.

Model (THEORY.md §3, after subtracting ln l from every coordinate): P_j = N(ln(kappa) e_j,
sigma^2 I_n) given J* = j. Three results, one check each:

* centroid bound: I(J*; Y) <= E_j KL(P_j || Q) for any Q (the golden formula
  E_j KL(P_j||Q) = I + KL(P_bar||Q)); with Q = N(mu 1, sigma^2 I), mu = ln(kappa)/n,
  KL = ||ln(kappa) e_j - mu 1||^2 / (2 sigma^2) = (1 - 1/n)(ln kappa)^2/(2 sigma^2) nats;
* paper's bound: I <= (1/n^2) sum_{j,k} KL(P_j||P_k) (convexity of KL in its second
  argument); each pairwise KL is (ln kappa)^2/sigma^2 nats, so the average is
  (1 - 1/n)(ln kappa)^2/sigma^2 nats, and the paper's (ln 2)(log2 kappa)^2/sigma^2 bits is
  exactly the pairwise KL (ln kappa)^2/sigma^2 nats converted to bits (the (1 - 1/n)
  dropped);
* centroid < paper: paper = 2 x centroid x n/(n-1) for every n >= 2.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp
from scipy import integrate, special
from sympy.stats import E as expectation
from sympy.stats import Normal
from sympy.utilities.lambdify import implemented_function

from theory import bounds
from theory import statements as st
from theory.proof import (ProofRecord, check_inequality_on_grid, prove_nonnegative,
                          prove_zero, spot_check)
from theory.proof import prove_positive

LN_KAPPA = sp.log(st.kappa)


# ----------------------------------------------------------------------------- numerics

def _log_normal_pdf(x: float, mean: float, s: float) -> float:
    """ln of the N(mean, s^2) density at x (inline: scipy.stats per-call overhead is
    ~100x the arithmetic inside quad)."""
    return -0.5 * ((x - mean) / s) ** 2 - math.log(s * math.sqrt(2 * math.pi))


def _kl_quad(a: float, b: float, s: float) -> float:
    """KL(N(a, s^2) || N(b, s^2)) in nats by quadrature of p log(p/q) over a +- 40 s."""
    def integrand(x):
        lp = _log_normal_pdf(x, a, s)
        return math.exp(lp) * (lp - _log_normal_pdf(x, b, s))
    val, _ = integrate.quad(integrand, a - 40 * s, a + 40 * s, epsabs=1e-13, epsrel=1e-12,
                            limit=200)
    return val


def _exact_rate_n2(kappa: float, sigma: float) -> float:
    """I(J*; Y) in bits for n = 2, by 1-D quadrature (THEORY.md §3 test anchor).

    D = Y_1 - Y_2 ~ N(+-ln kappa, 2 sigma^2); p(J* = 1 | D) = 1/(1 + exp(-a D)),
    a = ln(kappa)/sigma^2; by symmetry I = 1 - E[log2(1 + exp(-a D)) | J* = 1].
    """
    mu, sd, a = math.log(kappa), math.sqrt(2) * sigma, math.log(kappa) / sigma ** 2
    def integrand(d):
        return math.exp(_log_normal_pdf(d, mu, sd)) * np.logaddexp(0, -a * d)
    val, _ = integrate.quad(integrand,
                            mu - 15 * sd, mu + 15 * sd, epsabs=1e-13, epsrel=1e-12, limit=200)
    return 1 - val / math.log(2)


def _mc_rate_samples(n: float, kappa: float, sigma: float, samples: int = 20000
                     ) -> np.ndarray:
    """Monte Carlo draws of log2(n p(J* | Y)) in bits, shape (samples,), read-only;
    their mean estimates I(J*; Y).

    p = softmax(a Y), a = ln(kappa)/sigma^2; J* = 0 w.l.o.g. (the model is
    exchangeable). Seeded by (n, kappa), so every check sees the same draws (and
    several checks share them: cached).
    """
    return _draws(int(n), int(kappa), float(sigma), int(samples))


@functools.lru_cache(maxsize=64)
def _draws(n: int, kappa: int, sigma: float, samples: int) -> np.ndarray:
    """:func:`_mc_rate_samples` with its arguments normalised (the cache key)."""
    rng = np.random.default_rng(20261129 + int(n) * 1000 + int(kappa))
    n = int(n)
    y = sigma * rng.standard_normal((samples, n))
    y[:, 0] += np.log(kappa)
    a = np.log(kappa) / sigma ** 2
    logits = a * y
    log_post = logits[:, 0] - special.logsumexp(logits, axis=1)
    vals = (np.log(n) + log_post) / np.log(2)
    vals.setflags(write=False)
    return vals


def _mc_rate(n: float, kappa: float, sigma: float, samples: int = 20000
             ) -> tuple[float, float]:
    """Monte Carlo I(J*; Y) in bits and its standard error (sample SD / sqrt(samples))
    from :func:`_mc_rate_samples`."""
    vals = _mc_rate_samples(n, kappa, sigma, samples)
    return float(vals.mean()), float(vals.std(ddof=1) / np.sqrt(samples))


def _mc_lower_limit(mean: float, se: float) -> float:
    """The Monte Carlo lower confidence limit mean - 5 SE (bits) that the one-sided
    bound checks compare with the bound."""
    return mean - _Z_MC * se


_SIGMAS = (0.25, 0.5, 1.0, 2.0, 4.0)
_KAPPAS = (2, 3, 8, 100)
#: Standard errors allowed between a Monte Carlo rate and an exact one.
_Z_MC = 5.0


#: Batches of the batch-means check of a Monte Carlo standard error.
_BATCHES = 50


def _sample_summary(vals: np.ndarray) -> tuple[float, float]:
    """(mean, standard error) of iid draws, summed with ``math.fsum`` (written apart
    from :func:`_mc_rate` on purpose: it is the reference a reported SE is held to)."""
    vals = np.asarray(vals, dtype=float)
    size = vals.size
    mean = math.fsum(vals.tolist()) / size
    return mean, math.sqrt(math.fsum(((vals - mean) ** 2).tolist()) / ((size - 1) * size))


def _batch_means_z(vals: np.ndarray, se: float) -> float:
    """How far ``se`` is from the batch-means standard error of ``vals``, in normal
    units: with B batch means, (B - 1) (SE_batch / se)^2 ~ chi^2(B - 1) if ``se`` is
    right; the Wilson-Hilferty cube root maps it to ~N(0, 1). An SE that does not
    come from these draws (wrong scale, a missing sqrt(samples)) is far out."""
    means = np.asarray(vals).reshape(_BATCHES, -1).mean(axis=1)
    se_batch = means.std(ddof=1) / math.sqrt(_BATCHES)
    df = _BATCHES - 1
    x = (se_batch / se) ** 2 if se > 0 else math.inf
    return (x ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))


def _check_mc_summaries(rec: ProofRecord, points, mc_samples, mc_rate, mc_low) -> None:
    """Validate, at every Monte Carlo point (n, kappa, sigma), what the rate checks
    use against the draws it came from: the reported mean and SE equal the sample's
    (exact up to summation round-off: 1e-12 bits, 1e-9 relative); the lower limit is
    exactly sample mean - 5 sample SE (1e-12 bits); and the SE agrees with the
    batch-means SE of the same draws within 5 standard normal units
    (Wilson-Hilferty), an independent estimator that checks the iid formula itself."""
    syms = [st.n, st.kappa, st.sigma]

    @functools.cache
    def sample(nn, k, s):
        vals = np.asarray(mc_samples(nn, k, s), dtype=float)
        return (vals, *_sample_summary(vals))

    reported_mean = implemented_function("I_mc_mean", lambda nn, k, s: mc_rate(nn, k, s)[0])
    reported_se = implemented_function("I_mc_se", lambda nn, k, s: mc_rate(nn, k, s)[1])
    batch_z = implemented_function("I_mc_batch_z", lambda nn, k, s: _batch_means_z(
        sample(nn, k, s)[0], mc_rate(nn, k, s)[1]))
    spot_check(rec, "Monte Carlo mean = its draws' mean (bits)", syms,
               reported_mean(*syms), lambda nn, k, s: sample(nn, k, s)[1], points, tol=1e-12)
    spot_check(rec, "Monte Carlo SE = its draws' SD / sqrt(samples) (relative)", syms,
               reported_se(*syms), lambda nn, k, s: sample(nn, k, s)[2], points, tol=1e-9,
               relative=True)
    spot_check(rec, "Monte Carlo lower limit = draws' mean - 5 SE (bits)", syms,
               mc_low(*syms),
               lambda nn, k, s: sample(nn, k, s)[1] - _Z_MC * sample(nn, k, s)[2],
               points, tol=1e-12)
    spot_check(rec, "Monte Carlo SE = batch-means SE of its draws (normal units)", syms,
               batch_z(*syms), lambda *a: 0.0, points, tol=_Z_MC)


def _rate_is_below(rec: ProofRecord, bound: sp.Expr, name: str, rate_n2=None,
                   mc_rate=None, mc_samples=None) -> None:
    """Numeric: the exact n = 2 rate (quadrature) and Monte Carlo lower limits
    (mean - 5 SE) for n = 4, 16, 64 lie below ``bound`` (sympy in st.n, st.kappa,
    st.sigma); the Monte Carlo estimator equals the n = 2 quadrature within 5 SE, so
    a Monte Carlo value on a wrong scale (nats, a lost log2 n) fails here instead of
    slipping under a one-sided bound; and every Monte Carlo mean, SE and lower limit
    is validated against its draws (:func:`_check_mc_summaries`), so an inflated SE
    or a lowered limit cannot make the one-sided check vacuous.

    Tol 1e-9 bits for quadrature error (epsabs 1e-13 on an O(1) integrand); the Monte
    Carlo side already subtracts 5 standard errors. ``rate_n2``, ``mc_rate`` and
    ``mc_samples`` replace :func:`_exact_rate_n2`, :func:`_mc_rate` and
    :func:`_mc_rate_samples` (tests inject wrong ones).
    """
    rate_n2 = rate_n2 or _exact_rate_n2
    # Each point's draws are used by several checks: memoised (they are seeded).
    mc_rate = functools.cache(mc_rate or _mc_rate)
    mc_samples = functools.cache(mc_samples or _mc_rate_samples)
    exact = implemented_function("I_n2", lambda n, k, s: rate_n2(k, s))
    mc_low = implemented_function("I_mc_low", lambda n, k, s: _mc_lower_limit(
        *mc_rate(n, k, s)))
    mc_z = implemented_function("I_mc_z", lambda n, k, s: (lambda m: (m[0] - rate_n2(k, s))
                                                            / m[1])(mc_rate(n, k, s)))
    syms = [st.n, st.kappa, st.sigma]
    anchor_pts = [(2, k, s) for k in (2, 3) for s in (0.25, 1.0, 4.0)]
    bound_pts = [(nn, k, s) for nn in (4, 16, 64) for k in (2, 3) for s in (0.25, 1.0)
                 if k < nn]
    _check_mc_summaries(rec, anchor_pts + bound_pts, mc_samples, mc_rate, mc_low)
    spot_check(rec, "Monte Carlo rate at n = 2 equals the quadrature (in SE)", syms,
               mc_z(*syms), lambda n, k, s: 0.0, anchor_pts, tol=_Z_MC)
    check_inequality_on_grid(rec, f"exact n=2 rate (quadrature) <= {name}", syms,
                             exact(*syms), bound,
                             [(2, k, s) for k in _KAPPAS for s in _SIGMAS], tol=1e-9)
    check_inequality_on_grid(rec, f"Monte Carlo rate - 5 SE <= {name}", syms, mc_low(*syms),
                             bound, bound_pts, tol=0.0)


# ----------------------------------------------------------------------------- symbolic steps

def _gaussian_kl_1d(rec: ProofRecord) -> sp.Expr:
    """Prove KL(N(a, s^2) || N(b, s^2)) = (a - b)^2/(2 s^2) nats; return it in (a, b)."""
    a, b = sp.symbols("a b", real=True)
    x = Normal("X", a, st.sigma)
    log_ratio = ((x - b) ** 2 - (x - a) ** 2) / (2 * st.sigma ** 2)   # log p(x) - log q(x)
    kl = (a - b) ** 2 / (2 * st.sigma ** 2)
    prove_zero(rec, expectation(log_ratio) - kl, "1-D: E_p[log p/q] = (a - b)^2/(2 sigma^2) nats")
    # Independent coordinates: the log-ratio of product densities is the sum of the
    # coordinate log-ratios (shown for 3 coordinates), so KL adds over coordinates.
    xs, aa, bb = (sp.symbols(f"{c}1:4", real=True) for c in "xab")

    def dens(v, c):
        """Unnormalised N(c, sigma^2) density (the normalisers cancel in the ratio)."""
        return sp.exp(-(v - c) ** 2 / (2 * st.sigma ** 2))
    ratio = (sp.Mul(*[dens(v, c) for v, c in zip(xs, aa)])
             / sp.Mul(*[dens(v, d) for v, d in zip(xs, bb)]))
    coordinate_sum = sum(((v - d) ** 2 - (v - c) ** 2) / (2 * st.sigma ** 2)
                         for v, c, d in zip(xs, aa, bb))
    prove_zero(rec, sp.expand_log(sp.log(ratio), force=True) - coordinate_sum,
               "product densities: log-ratio (hence KL) adds over coordinates")
    return kl.subs({a: sp.Symbol("A"), b: sp.Symbol("B")})


def _golden_formula(rec: ProofRecord) -> None:
    """E_j KL(P_j || Q) = I(J; Y) + KL(P_bar || Q): exact for a generic 3 x 3 channel."""
    rows = []
    for j in range(3):
        p = sp.symbols(f"p{j}_0:2", positive=True)
        rows.append([p[0], p[1], 1 - p[0] - p[1]])
    q = sp.symbols("q0:2", positive=True)
    Q = [q[0], q[1], 1 - q[0] - q[1]]
    bar = [sum(row[y] for row in rows) / 3 for y in range(3)]

    def kl(P, R):
        return sum(P[y] * sp.log(P[y] / R[y]) for y in range(3))
    mean_kl = sum(kl(row, Q) for row in rows) / 3
    info = sum(kl(row, bar) for row in rows) / 3
    prove_zero(rec, sp.expand(sp.expand_log(mean_kl - info - kl(bar, Q), force=True)),
               "golden formula E_j KL(P_j||Q) = I + KL(P_bar||Q) (generic 3x3), "
               "so I <= E_j KL(P_j||Q)")


# ----------------------------------------------------------------------------- checks

def check_prop2_centroid(*, centroid: sp.Expr = st.PROP2_CENTROID,
                         numeric=bounds.prop2_centroid_bound_bits, rate_n2=None,
                         mc_rate=None, mc_samples=None) -> ProofRecord:
    """Prove I <= (1 - 1/n)(ln kappa)^2/(2 sigma^2 ln 2) bits and spot-check it."""
    n, kappa, sigma = st.n, st.kappa, st.sigma
    rec = ProofRecord("Proposition 2: centroid bound (bits)",
                      "THEORY.md §3 (tighter centroid bound)",
                      sp.Le(sp.Symbol("I"), centroid))
    _golden_formula(rec)
    kl = _gaussian_kl_1d(rec)
    A, B = sp.Symbol("A"), sp.Symbol("B")
    mu, bq = LN_KAPPA / n, sp.Symbol("b", real=True)
    spread = (LN_KAPPA - bq) ** 2 + (n - 1) * bq ** 2       # ||ln(kappa) e_j - b 1||^2
    prove_zero(rec, sp.diff(spread, bq).subs(bq, mu), "mu = ln(kappa)/n minimises ||m_j - b 1||^2")
    kl_nats = kl.subs({A: LN_KAPPA, B: mu}) + (n - 1) * kl.subs({A: 0, B: mu})
    prove_zero(rec, kl_nats - (1 - 1 / n) * LN_KAPPA ** 2 / (2 * sigma ** 2),
               "KL(P_j || N(mu 1, sigma^2 I)) = (1 - 1/n)(ln kappa)^2/(2 sigma^2) nats, every j")
    prove_zero(rec, kl_nats / sp.log(2) - centroid, "nats / ln 2 = the claimed bits figure")

    # Numeric 1 (independent): the n-dimensional KL as a sum of 1-D quadratures
    # (one shifted coordinate, n - 1 centred ones). Tol 1e-8 relative: quad's
    # requested accuracy is 1e-12 relative per integral, summed over <= 64 coordinates.
    syms = [n, kappa, sigma]
    grid = [(nn, k, s) for nn in (3, 4, 16, 64) for k in (2, 3, 8) for s in (0.3, 1.0, 3.0)
            if k < nn]
    spot_check(rec, "KL closed form (bits) vs quadrature", syms, centroid,
               lambda nn, k, s: (_kl_quad(np.log(k), np.log(k) / nn, s) +
                                 (nn - 1) * _kl_quad(0.0, np.log(k) / nn, s)) / np.log(2),
               grid, tol=1e-8, relative=True)
    # Numeric 2: bounds.py against the statement (relative 1e-12: same formula).
    spot_check(rec, "bounds.prop2_centroid_bound_bits vs sympy", syms, centroid, numeric,
               grid + [(2 ** 40, 2, 0.1)], tol=1e-12, relative=True)
    _rate_is_below(rec, centroid, "centroid bound", rate_n2, mc_rate, mc_samples)
    return rec


def check_prop2_paper(*, paper: sp.Expr = st.PROP2_PAPER,
                      numeric=bounds.prop2_paper_bound_bits, rate_n2=None,
                      mc_rate=None, mc_samples=None) -> ProofRecord:
    """Derive the paper's (ln 2)(log2 kappa)^2/sigma^2 bits from pairwise KL and check it."""
    n, kappa, sigma = st.n, st.kappa, st.sigma
    rec = ProofRecord("Proposition 2: paper's pairwise-KL bound (bits)",
                      "VISTA Proposition 2, App. A Steps 1-3; THEORY.md §3",
                      sp.Le(sp.Symbol("I"), paper))
    x = sp.Symbol("x", positive=True)
    prove_positive(rec, -sp.diff(sp.log(x), x, 2),
                   "ln is concave: KL(P || sum_k Q_k/n) <= sum_k KL(P||Q_k)/n (Jensen), so "
                   "I = E_j KL(P_j||P_bar) <= (1/n^2) sum_{j,k} KL(P_j||P_k)")
    kl = _gaussian_kl_1d(rec)
    A, B = sp.Symbol("A"), sp.Symbol("B")
    pair = kl.subs({A: LN_KAPPA, B: 0}) + kl.subs({A: 0, B: LN_KAPPA})   # coordinates j, k
    prove_zero(rec, pair - LN_KAPPA ** 2 / sigma ** 2,
               "KL(P_j||P_k) = (ln kappa)^2/sigma^2 nats for j != k (0 for j = k)")
    prove_zero(rec, (n * (n - 1) * pair / n ** 2) - (1 - 1 / n) * LN_KAPPA ** 2 / sigma ** 2,
               "pair average (1/n^2) sum_{j,k} = (1 - 1/n)(ln kappa)^2/sigma^2 nats")
    prove_zero(rec, pair / sp.log(2) - paper,
               "paper's bits figure = (ln kappa)^2/sigma^2 nats / ln 2: the pairwise KL, "
               "(1 - 1/n) dropped; (ln 2)(log2 kappa)^2 = (ln kappa)^2/ln 2")

    syms = [kappa, sigma]
    grid = [(k, s) for k in (2, 3, 8, 100) for s in (0.3, 1.0, 3.0)]
    # Numeric 1 (independent): pairwise KL by quadrature over the two differing
    # coordinates, in bits. Tol 1e-8 relative (two 1e-12-accurate integrals).
    spot_check(rec, "pairwise KL (bits) vs quadrature", syms, paper,
               lambda k, s: (_kl_quad(np.log(k), 0.0, s) + _kl_quad(0.0, np.log(k), s)) / np.log(2),
               grid, tol=1e-8, relative=True)
    spot_check(rec, "bounds.prop2_paper_bound_bits vs sympy", syms, paper, numeric, grid,
               tol=1e-12, relative=True)
    _rate_is_below(rec, paper, "paper bound", rate_n2, mc_rate, mc_samples)
    return rec


def check_centroid_below_paper(*, centroid: sp.Expr = st.PROP2_CENTROID,
                               paper: sp.Expr = st.PROP2_PAPER) -> ProofRecord:
    """Prove paper = 2 x centroid x n/(n-1), so centroid < paper for every n >= 2."""
    n = st.n
    rec = ProofRecord("Proposition 2: centroid bound < paper's bound",
                      "THEORY.md §3", sp.Lt(centroid, paper))
    prove_zero(rec, paper - 2 * centroid * n / (n - 1), "paper = 2 x centroid x n/(n - 1)")
    a = sp.Symbol("a", nonnegative=True)
    c = sp.Symbol("c", nonnegative=True)
    # The difference, for n = 2 + a and kappa = 2 + c (the game's integer ranges).
    prove_positive(rec, sp.factor(paper - centroid).subs({n: 2 + a, st.kappa: 2 + c}),
                   "paper - centroid = centroid (n + 1)/(n - 1) > 0 for n >= 2, kappa >= 2")
    prove_zero(rec, sp.limit(paper / centroid, n, sp.oo) - 2,
               "ratio -> 2 as n -> oo ('about half')")
    prove_nonnegative(rec, (2 * n / (n - 1) - 2).subs(n, 2 + a),
                      "ratio 2n/(n-1) >= 2: the centroid bound is at most half the paper's")
    pts = [(nn, k, s) for nn in (3, 10, 1000, 2 ** 40) for k in (2, 3, 64) for s in (0.1, 1.0, 5.0)
           if k < nn]
    # Numeric: the bounds.py values, ratio exact up to round-off (relative 1e-12).
    spot_check(rec, "bounds paper/centroid ratio = 2n/(n-1)", [n, st.kappa, st.sigma],
               2 * n / (n - 1), lambda nn, k, s: bounds.prop2_paper_bound_bits(k, s)
               / bounds.prop2_centroid_bound_bits(nn, k, s), pts, tol=1e-12, relative=True)
    check_inequality_on_grid(rec, "centroid <= paper (lambdified)", [n, st.kappa, st.sigma],
                             centroid, paper, pts, tol=0.0)
    return rec
