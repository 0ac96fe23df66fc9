"""Proposition 1 (recovery is necessary under budget pressure) as sympy checks.

Statement (THEORY.md §1; VISTA paper §2.6 and Appendix A). In the game T(N, k, B)
(N independent uniform k-bit blocks, a representation R with H(R) <= B < N k bits,
a uniform target revealed afterwards), any method whose decoder sees only (R, I*)
succeeds with probability

    P <= B / (N k) + 1 / k.

Checks (each returns a :class:`theory.proof.ProofRecord` or raises ProofError):

* :func:`check_fano_per_block` - H(X_i|R) <= 1 + P_e,i k, so (1 - P_e,i) k <= I(X_i;R) + 1.
* :func:`check_independence` - sum_i I(X_i;R) <= I(X^N;R) <= H(R) <= B.
* :func:`check_combined_bound` - averaging gives P <= B/(Nk) + 1/k.
* :func:`check_separation` - with k = ceil(sqrt N), B = c N log2 N the bound tends to
  0, while the recoverable strategy (handle table ~ c0 N log2 N bits) fits for c > c0.
* :func:`check_fixed_budget` - with B fixed, handles fit only up to
  N* = exp(W((B - k) ln 2 / c0)) (Lambert W), so the separation needs B to grow.

Numeric routes are independent of the symbolic ones: exact enumeration of the joint
law of (X^N, R) for small games and assorted encoders (random functions, random
linear maps, keep-blocks, keep-prefix), and scipy root finding for N*. Logs are
base 2 (bits) unless written ``ln``. This module imports nothing from ``sim``.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from theory.proof import (ProofError, ProofRecord, check_inequality_on_grid, prove_nonnegative,
                          prove_zero, spot_check)

SOURCE = "VISTA §2.6, App. A; THEORY.md §1"
LOG2 = sp.log(2)


def _log2(x):
    return sp.log(x) / LOG2


def binary_entropy(p: sp.Expr) -> sp.Expr:
    """h2(p) = -p log2 p - (1-p) log2 (1-p), in bits."""
    return -p * _log2(p) - (1 - p) * _log2(1 - p)


# --------------------------------------------------------------------------- enumeration

def _entropy_bits(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def exact_quantities(N: int, k: int, labels: np.ndarray) -> dict:
    """Exact information quantities for a deterministic encoder R = f(X^N).

    Args:
        labels: int array of length ``2^(N k)``; ``labels[x]`` is R for the block
            string whose block ``i`` is bits ``i k .. i k + k - 1`` of ``x``.

    Returns:
        dict with ``H_R`` (= I(X^N; R), bits), ``I`` (per-block I(X_i;R), bits) and
        ``success`` (per-block success of the MAP decoder given R).
    """
    x = np.arange(2 ** (N * k))
    _, r = np.unique(labels, return_inverse=True)
    n_r = int(r.max()) + 1
    H_R = _entropy_bits(np.bincount(r))
    info, success = [], []
    for i in range(N):
        xi = (x >> (i * k)) & ((1 << k) - 1)
        joint = np.zeros((n_r, 2 ** k))
        np.add.at(joint, (r, xi), 1.0)
        info.append(k + H_R - _entropy_bits(joint.ravel()))
        success.append(joint.max(axis=1).sum() / x.size)
    return {"H_R": H_R, "I": np.array(info), "success": np.array(success)}


def _encoders(N: int, k: int, B: int, rng: np.random.Generator):
    """Deterministic encoders with at most B output bits, as label arrays."""
    x = np.arange(2 ** (N * k))
    bits = (x[:, None] >> np.arange(N * k)) & 1
    weights = 1 << np.arange(max(B, 1))
    yield "random function", rng.integers(0, 2 ** B, size=x.size)
    A = rng.integers(0, 2, size=(B, N * k))
    yield "random linear", ((bits @ A.T) & 1) @ weights[:B]
    m, p = B // k, B // N
    yield "keep blocks", x & ((1 << (m * k)) - 1)
    prefix = np.zeros_like(x)
    for i in range(N):
        prefix |= ((x >> (i * k)) & ((1 << p) - 1)) << (i * p)
    yield "keep prefix", prefix


def _small_games():
    for N in (2, 3):
        for k in (1, 2, 3):
            for B in range(N * k):
                yield N, k, B


def _record_pairs(record: ProofRecord, name: str, gaps: list[float], tol: float) -> None:
    """Numeric check that every ``lhs - rhs`` gap is <= tol."""
    if not gaps:
        raise ProofError(f"{record.result}: '{name}' has no points")
    worst = max(gaps)
    if worst > tol:
        raise ProofError(f"{record.result}: '{name}' violated: lhs - rhs = {worst:.3g}")
    record.numeric[name] = (len(gaps), max(worst, 0.0), tol)


# --------------------------------------------------------------------------- checks

def check_fano_per_block() -> ProofRecord:
    """Per-block Fano: H(X_i|R) <= 1 + P_e k, hence (1 - P_e) k <= I(X_i;R) + 1.

    Steps: h2 <= 1 (concave, stationary at 1/2 where it equals 1);
    log2(2^k - 1) <= k; Fano's H(X|R) <= h2(P_e) + P_e log2(2^k - 1) then gives the
    relaxed form; rearranging with I = k - H(X_i|R) (X_i uniform) gives the claim.
    """
    p, Pe, H, k = sp.symbols("p P_e H k", positive=True)
    u, v = sp.symbols("u v", positive=True)
    rec = ProofRecord("Proposition 1 step 1 (per-block Fano)", SOURCE,
                      sp.Le((1 - Pe) * k, (k - H) + 1))
    h2 = binary_entropy(p)
    prove_nonnegative(rec, -sp.diff(h2, p, 2), "h2 is concave on (0,1)",
                      substitutions={p: 1 / (1 + u)})
    prove_zero(rec, sp.diff(h2, p).subs(p, sp.Rational(1, 2)), "h2'(1/2) = 0")
    prove_zero(rec, h2.subs(p, sp.Rational(1, 2)) - 1, "h2(1/2) = 1, so h2 <= 1")
    # with v = 2^k - 1 > 0: k - log2(2^k - 1) = log2(1 + 1/v) >= 0
    prove_zero(rec, (_log2(v + 1) - _log2(v)) - _log2(1 + 1 / v),
               "k - log2(2^k - 1) = log2(1 + 1/(2^k - 1))")
    prove_nonnegative(rec, _log2(1 + 1 / v), "log2(1 + 1/v) >= 0, so log2(2^k - 1) <= k",
                      substitutions={v: 1 / u})
    h2e, lk, fano = sp.symbols("h2e L H_Fano")  # h2(P_e), log2(2^k-1), Fano's right side
    prove_zero(rec, (1 + Pe * k - (h2e + Pe * lk)) - ((1 - h2e) + Pe * (k - lk)),
               "1 + P_e k - Fano RHS = (1 - h2(P_e)) + P_e (k - log2(2^k-1)) >= 0")
    prove_zero(rec, ((k - H) + 1 - (1 - Pe) * k) - ((1 + Pe * k) - H),
               "(I + 1) - (1 - P_e) k = (1 + P_e k) - H(X_i|R) >= 0 with I = k - H")
    # Numeric route 1: k bits through a binary symmetric channel, MAP success (1-q)^k.
    q, kk = sp.symbols("q kk", positive=True)
    h2q = binary_entropy(q)
    check_inequality_on_grid(rec, "BSC: k(1-q)^k <= k(1 - h2(q)) + 1", [kk, q],
                             kk * (1 - q) ** kk, kk * (1 - h2q) + 1,
                             [(kv, qv) for kv in (1, 2, 3, 5, 8, 16, 64)
                              for qv in np.linspace(0.01, 0.5, 25)], tol=1e-12)
    # Numeric route 2: exact enumeration of small games and encoders.
    rng = np.random.default_rng(1)
    gaps, fano_gaps = [], []
    for N, kv, B in _small_games():
        for _, labels in _encoders(N, kv, B, rng):
            qd = exact_quantities(N, kv, labels)
            pe = 1 - qd["success"]
            Hc = kv - qd["I"]
            gaps += list(((1 - pe) * kv - (qd["I"] + 1)))
            fano_gaps += list(Hc - (1 + pe * kv))
    _record_pairs(rec, "enumeration: (1 - P_e) k <= I(X_i;R) + 1", gaps, 1e-9)
    _record_pairs(rec, "enumeration: H(X_i|R) <= 1 + P_e k", fano_gaps, 1e-9)
    return rec


def check_independence() -> ProofRecord:
    """Independence step: sum_i I(X_i;R) <= I(X^N;R) <= H(R) <= B.

    Chain rule: I(X^N;R) = sum_i [H(X_i|X^{i-1}) - H(X_i|R,X^{i-1})]; independence
    makes H(X_i|X^{i-1}) = H(X_i), and H(X_i|R) = H(X_i|R,X^{i-1}) + D_i with
    D_i = I(X_i; X^{i-1} | R) >= 0, so the difference of the two sides is sum_i D_i.
    """
    n = sp.symbols("n", integer=True, positive=True)
    i = sp.symbols("i", integer=True, positive=True)
    Hx = sp.IndexedBase("H_X", nonnegative=True)   # H(X_i)
    C = sp.IndexedBase("C", nonnegative=True)       # H(X_i | R, X^{i-1})
    D = sp.IndexedBase("D", nonnegative=True)       # I(X_i; X^{i-1} | R)
    HR, HRX, B = sp.symbols("H_R H_RgX B", nonnegative=True)
    rec = ProofRecord("Proposition 1 step 2 (independence)", SOURCE,
                      sp.Le(sp.Sum(sp.Symbol("I_i"), (i, 1, n)), B))
    joint = sp.Sum(Hx[i] - C[i], (i, 1, n))            # I(X^N;R) by the chain rule
    per_block = sp.Sum(Hx[i] - (C[i] + D[i]), (i, 1, n))
    prove_zero(rec, sp.simplify((joint - per_block).doit()) - sp.Sum(D[i], (i, 1, n)).doit(),
               "I(X^N;R) - sum_i I(X_i;R) = sum_i I(X_i; X^{i-1} | R)")
    prove_nonnegative(rec, sp.Sum(D[i], (i, 1, n)), "sum of conditional informations >= 0")
    prove_nonnegative(rec, HRX, "I(X^N;R) = H(R) - H(R|X^N) <= H(R)")
    rec.step("H(R) <= B is the game's budget constraint (an assumption, not a step)",
             sp.Le(HR, B))
    rng = np.random.default_rng(2)
    gaps, budget = [], []
    for N, kv, Bv in _small_games():
        for _, labels in _encoders(N, kv, Bv, rng):
            qd = exact_quantities(N, kv, labels)
            gaps.append(float(qd["I"].sum() - qd["H_R"]))
            budget.append(qd["H_R"] - Bv)
    _record_pairs(rec, "enumeration: sum_i I(X_i;R) <= H(R)", gaps, 1e-9)
    _record_pairs(rec, "enumeration: H(R) <= B", budget, 1e-9)
    return rec


#: (N, k, B) of the recovery game, for the closed forms below.
GAME_SYMBOLS = sp.symbols("Nn kn Bn", positive=True)
#: P(success) of keep-blocks (store floor(B/k) whole blocks; guess the rest):
#: m/N + (1 - m/N) 2^-k with m = floor(B/k).
KEEP_BLOCKS = (sp.floor(GAME_SYMBOLS[2] / GAME_SYMBOLS[1]) / GAME_SYMBOLS[0]
               + (1 - sp.floor(GAME_SYMBOLS[2] / GAME_SYMBOLS[1]) / GAME_SYMBOLS[0])
               * 2 ** (-GAME_SYMBOLS[1]))
#: P(success) of keep-prefix (floor(B/N) bits of every block): 2^-(k - floor(B/N)).
KEEP_PREFIX = 2 ** (-(GAME_SYMBOLS[1] - sp.floor(GAME_SYMBOLS[2] / GAME_SYMBOLS[0])))


def check_combined_bound(*, keep: sp.Expr | None = None, prefix: sp.Expr | None = None
                         ) -> ProofRecord:
    """Combined bound: P = (1/N) sum_i (1 - P_e,i) <= B/(Nk) + 1/k.

    With slacks s_i = (I_i + 1)/k - (1 - P_e,i) >= 0 (step 1) and
    t = B - sum_i I_i >= 0 (step 2): bound - P = (1/N) sum_i s_i + t/(N k) >= 0.
    The keep-blocks and keep-prefix closed forms (``keep``, ``prefix``: sympy in
    :data:`GAME_SYMBOLS`, default :data:`KEEP_BLOCKS`, :data:`KEEP_PREFIX`) are checked
    equal to enumeration before they are checked under the bound.
    """
    N, k, B = sp.symbols("N k B", positive=True)
    i = sp.symbols("i", integer=True, positive=True)
    n = sp.symbols("n", integer=True, positive=True)
    I = sp.IndexedBase("I", nonnegative=True)
    S = sp.IndexedBase("s", nonnegative=True)
    t = sp.symbols("t", nonnegative=True)
    bound = B / (N * k) + 1 / k
    rec = ProofRecord("Proposition 1 (combined bound)", SOURCE,
                      sp.Le(sp.Symbol("P_success"), bound))
    # success per block in terms of the slacks; B = sum I + t; N = n
    succ_sum = sp.Sum((I[i] + 1) / k - S[i], (i, 1, n))
    P = succ_sum / n
    Bsub = sp.Sum(I[i], (i, 1, n)) + t
    gap = bound.subs({N: n, B: Bsub}) - P
    prove_zero(rec, sp.simplify(gap.doit() - (sp.Sum(S[i], (i, 1, n)).doit() / n
                                              + t / (n * k))),
               "bound - P = (1/N) sum_i s_i + t/(N k)")
    prove_nonnegative(rec, sp.Sum(S[i], (i, 1, n)) / n + t / (n * k),
                      "sum of non-negative slacks over positive N, k")
    prove_zero(rec, (B + N) / (N * k) - bound, "(B + N)/(N k) = B/(N k) + 1/k")
    # Numeric: closed forms of the concrete lossy strategies sit under the bound.
    keep = KEEP_BLOCKS if keep is None else keep
    prefix = KEEP_PREFIX if prefix is None else prefix
    Nn, kn, Bn = GAME_SYMBOLS
    small = [(Nv, kv, Bv) for Nv, kv, Bv in _small_games()]
    # ... and equal the exact success of the encoders they describe (enumeration of
    # the joint law), so a wrong closed form cannot hide under the bound.
    rng = np.random.default_rng(5)
    enumerated = {}
    for Nv, kv, Bv in small:
        encoders = dict(_encoders(Nv, kv, Bv, rng))
        enumerated[(Nv, kv, Bv)] = {
            name: float(exact_quantities(Nv, kv, encoders[name])["success"].mean())
            for name in ("keep blocks", "keep prefix")}
    spot_check(rec, "keep_blocks closed form = enumeration", [Nn, kn, Bn], keep,
               lambda *g: enumerated[tuple(int(v) for v in g)]["keep blocks"], small,
               tol=1e-12)
    spot_check(rec, "keep_prefix closed form = enumeration", [Nn, kn, Bn], prefix,
               lambda *g: enumerated[tuple(int(v) for v in g)]["keep prefix"], small,
               tol=1e-12)
    pts = [(Nv, kv, Bv) for Nv in (2, 3, 5, 16, 64, 1000) for kv in (1, 2, 3, 8, 33)
           for Bv in sorted({0, 1, Nv * kv // 3, Nv * kv // 2, Nv * kv - 1})]
    bnd = Bn / (Nn * kn) + 1 / kn
    check_inequality_on_grid(rec, "keep_blocks closed form <= bound", [Nn, kn, Bn], keep, bnd,
                             pts)
    check_inequality_on_grid(rec, "keep_prefix closed form <= bound", [Nn, kn, Bn], prefix, bnd,
                             pts)
    rng = np.random.default_rng(3)
    gaps = []
    for Nv, kv, Bv in _small_games():
        for _, labels in _encoders(Nv, kv, Bv, rng):
            qd = exact_quantities(Nv, kv, labels)
            gaps.append(float(qd["success"].mean() - (Bv / (Nv * kv) + 1 / kv)))
    _record_pairs(rec, "enumeration: MAP success <= B/(Nk) + 1/k", gaps, 1e-12)
    return rec


def check_separation() -> ProofRecord:
    """Asymptotic separation along k = ceil(sqrt N), B = c N log2 N.

    The lossy bound (c log2 N + 1)/ceil(sqrt N) -> 0 (sympy limit, plus the envelope
    (c log2 N + 1)/sqrt N -> 0), and the recoverable strategy's need
    N ceil(c0 ceil(log2 N)) + k <= N (c0 (log2 N + 1) + 1) + sqrt N + 1, divided by
    B, tends to c0/c < 1 for c > c0: it fits for all large N. B < N k holds
    eventually since c log2 N / sqrt N -> 0.
    """
    N, c, c0, e = sp.symbols("N c c0 epsilon", positive=True)
    k = sp.ceiling(sp.sqrt(N))
    B = c * N * _log2(N)
    bound = B / (N * k) + 1 / k
    rec = ProofRecord("Proposition 1 (asymptotic separation)", SOURCE,
                      sp.Eq(sp.Limit(bound, N, sp.oo), 0))

    def limit(expr, want, description):
        got = sp.limit(expr, N, sp.oo)
        if got.has(sp.Limit) or got.has(sp.AccumBounds):
            raise ProofError(f"{rec.result}: limit for '{description}' unevaluated: {got}")
        # the expression is in the step's text: an edit of it that keeps a true
        # limit would otherwise pass unseen
        prove_zero(rec, sp.simplify(got - want), f"{description}: lim {expr} = {got}")

    prove_zero(rec, sp.simplify(bound - (c * _log2(N) + 1) / k),
               "bound = (c log2 N + 1) / ceil(sqrt N)")
    limit(bound, 0, "lossy bound -> 0")
    limit((c * _log2(N) + 1) / sp.sqrt(N), 0, "envelope (c log2 N + 1)/sqrt N -> 0")
    limit(1 - bound, 1, "gap 1 - bound -> 1 against a recoverable success of 1")
    limit(c * _log2(N) / sp.sqrt(N), 0, "B/(N sqrt N) -> 0, so B < N k eventually")
    need = N * (c0 * (_log2(N) + 1) + 1) + sp.sqrt(N) + 1
    limit(need / B, c0 / c, "recoverable need / B -> c0/c")
    prove_nonnegative(rec, 1 - c0 / c, "c0/c < 1 when c = c0 + epsilon",
                      substitutions={c: c0 + e})
    # Numeric: the bound with ceilings against a direct float evaluation.
    spot_check(rec, "bound with ceil(sqrt N)", [N, c], bound,
               lambda n_, c_: (c_ * n_ * math.log2(n_)) / (n_ * math.ceil(math.sqrt(n_)))
               + 1 / math.ceil(math.sqrt(n_)),
               {N: [2.0 ** j for j in range(4, 41, 3)], c: [1.1, 1.5, 3.0]}, tol=1e-12,
               relative=True)
    # Numeric: the integer handle cost (with both ceilings) fits from N = 2^10 on
    # for c = 1.5 c0, and stays under the envelope used above.
    over = []
    for c0v in (1.0, 1.5, 2.0):
        cv = 1.5 * c0v
        for j in range(10, 61):
            n_ = 2 ** j
            hb = math.ceil(c0v * math.ceil(math.log2(n_)) - 1e-12)
            need_int = n_ * hb + math.ceil(math.sqrt(n_))
            over.append(need_int - math.floor(cv * n_ * math.log2(n_)))
            over.append(need_int - float(need.subs({N: n_, c0: c0v})))
    _record_pairs(rec, "integer handle cost fits and is under the envelope", over, 0.0)
    return rec


def check_fixed_budget() -> ProofRecord:
    """With B fixed the handle table outgrows the budget: no separation.

    c0 N log2 N + k <= B  iff  N <= N* = exp(W((B - k) ln 2 / c0)) (Lambert W; the
    left side increases in N for N >= 1). Parametrising by w = W(y), y = w e^w,
    shows N* solves the equation; c0 N log2 N / B -> oo shows every fixed B fails.
    """
    N, B, k, c0, w, u = sp.symbols("N B k c0 w u", positive=True)
    cost = c0 * N * _log2(N) + k
    y = (B - k) * LOG2 / c0
    n_star = sp.exp(sp.LambertW(y))
    rec = ProofRecord("Proposition 1 (fixed budget threshold)", SOURCE,
                      sp.Eq(sp.Symbol("N_star"), n_star))
    solved = sp.solve(sp.Eq(cost, B), N)
    if not any(sp.simplify(s - n_star) == 0 for s in solved):
        raise ProofError(f"{rec.result}: sympy.solve gave {solved}, expected {n_star}")
    rec.step("sympy.solve(c0 N log2 N + k = B, N)", solved)
    # B - k = c0 w e^w / ln 2 is y = w e^w, and then N* = e^w.
    prove_zero(rec, cost.subs({N: sp.exp(w)}) - (c0 * w * sp.exp(w) / LOG2 + k),
               "cost(e^w) = c0 w e^w / ln2 + k = B when W(y) = w")
    prove_nonnegative(rec, sp.diff(cost, N), "cost increases in N for N >= 1",
                      substitutions={N: 1 + u})
    got = sp.limit(cost / B, N, sp.oo)
    if got != sp.oo:
        raise ProofError(f"{rec.result}: cost/B -> {got}, expected oo")
    rec.step("handle cost / B -> oo as N -> oo", got)
    from scipy.optimize import brentq

    def root(B_, k_, c0_):
        return brentq(lambda n_: c0_ * n_ * math.log2(n_) + k_ - B_, 1.0, 1e18, xtol=1e-12,
                      rtol=1e-14)

    spot_check(rec, "N* (Lambert W) vs brentq root", [B, k, c0], sp.re(n_star), root,
               [(Bv, kv, cv) for Bv in (2.0 ** 10, 2.0 ** 15, 2.0 ** 20, 1e6)
                for kv in (8.0, 32.0) for cv in (1.0, 1.5, 3.0)], tol=1e-9, relative=True)
    # At powers of two (ceil(log2 N) = log2 N) with c0 = 1 the integer rule of the
    # simulator, N ceil(log2 N) + k <= B, holds exactly for N <= N*: as the cost
    # increases in N (proved above), the largest j with 2^j j + k <= B, found by a
    # plain integer scan, is floor(log2 N*).
    def largest_fitting_exponent(B_, k_):
        j = 0
        while 2 ** (j + 1) * (j + 1) + k_ <= B_:
            j += 1
        return j

    spot_check(rec, "power-of-two N fits iff N <= N*", [B, k],
               sp.floor(sp.log(sp.re(n_star.subs(c0, 1)), 2)), largest_fitting_exponent,
               [(Bv, kv) for Bv in (2 ** 12, 2 ** 15, 2 ** 18, 10 ** 6) for kv in (8, 32)]
               # no N >= 2 fits (N* = 1.56); B within k of 2^9 9 + k (N* = 511.6) and
               # between 2^9 9 + k and 2^9 10 + k (N* = 521.6): the scan's each term counts
               + [(9, 8), (2 ** 9 * 9 + 4, 8), (2 ** 9 * 9 + 108, 8)], tol=0.0)
    return rec


def fixed_budget_threshold(B: float, k: float, c0: float = 1.0) -> float:
    """N* = exp(W((B - k) ln 2 / c0)): the largest real N with c0 N log2 N + k <= B.

    Numeric value of the expression proved in :func:`check_fixed_budget`.

    Raises:
        ValueError: unless B > k >= 0 and c0 > 0.
    """
    if not (c0 > 0):
        raise ValueError(f"c0 must be > 0, got {c0}")
    if not (0 <= k < B):
        raise ValueError(f"need 0 <= k < B, got k={k}, B={B}")
    from scipy.special import lambertw

    return float(np.exp(lambertw((B - k) * math.log(2) / c0).real))
