"""Estimates with intervals from the calibration probes' rows (issues 21 and 37).

Proportions get a Wilson 95% interval (:func:`experiments.intervals.wilson`),
medians a bootstrap 95% percentile interval (:func:`experiments.intervals.median_ci`).
A parse failure counts as a failure of the behaviour measured (no index written, no
row read, the value not used, no right handle), except in ``agent.p_confabulate``, a
ratio of two answers (wrong / (wrong + abstain)), where it is neither and is reported
beside it; its rows are values, several to a decision and three decisions to a case,
so its intervals are Wilson's at an effective size (:func:`case_proportion`).

``agent.sigma`` is the noise of the content channel's log error, fitted beside its
bias (:func:`size_noise`: mean and sd of ``ln(estimate / truth)``, a bootstrap over
snapshots); :func:`median_rel_error_for_sigma` links a noise to VISTA Table 5's median
relative error, the route by which :mod:`sim.world` turned that table into the prior.
The degradation curve ``p_use(L) = 1 - D x^k / (1 + x^k)``, ``x = L / h``
(:meth:`sim.agents.profiles.Profile.p_use`) is fitted to the needle answers by
maximum likelihood, with a bootstrap over cases for its intervals.
"""

from __future__ import annotations

import math

import numpy as np

from experiments.intervals import Z_ROUNDED, median_ci, wilson

#: the estimates of the dashboard probe's ledger-free answers: a probe of their own
#: (the content channel's bias and noise), beside the ledger rows' ``dashboard``
SIZE_NOISE = "size-noise"
#: the method of :func:`case_proportion`'s rows, and the methods whose rows are
#: proportions with a Wilson interval (the figure's middle panel plots these)
CASE_WILSON = "wilson at n / design effect over cases"
PROPORTION_METHODS = ("wilson", CASE_WILSON)
#: bounds of the degradation-curve fit: D, log h (tokens), k
FIT_BOUNDS = ((0.0, 1.0), (math.log(100.0), math.log(1e7)), (0.3, 5.0))


def estimate(probe: str, quantity: str, parameter: str, condition: str, value: float,
             low: float, high: float, n: int, k: int | str = "", parse_failures: int = 0,
             method: str = "wilson", note: str = "") -> dict:
    """One estimate row (the CSV's columns)."""
    return {"probe": probe, "quantity": quantity, "parameter": parameter,
            "condition": condition, "estimate": value, "low": low, "high": high, "n": n,
            "k": k, "parse_failures": parse_failures, "method": method, "note": note}


def proportion(probe, quantity, parameter, condition, rows, success, fail=None,
               note="") -> dict:
    """Wilson estimate of ``success(row)`` over ``rows`` (parse failures included as
    failures); ``fail(row)`` marks rows left out of the denominator (counted in the
    note)."""
    use = [r for r in rows if not (fail and fail(r))]
    k = sum(bool(success(r)) for r in use)
    n = len(use)
    _, lo, hi = wilson(k, n, z=Z_ROUNDED)
    pf = sum(r.get("outcome") == "parse_failure" for r in rows)
    left = len(rows) - n
    if left:
        note = (note + "; " if note else "") + f"{left} row(s) outside the ratio"
    return estimate(probe, quantity, parameter, condition, k / n if n else math.nan,
                    lo, hi, n, k, pf, "wilson", note)


def design_effect(k: list[int], n: list[int]) -> float:
    """The design effect of a proportion whose trials come in clusters (``k[i]``
    successes of ``n[i]`` trials in cluster ``i``; clusters independent, trials of one
    cluster not): the cluster-robust (linearised) variance of ``sum k / sum n`` over
    the binomial one, at least 1 (Kish 1965; Korn & Graubard 1998 for its use with a
    score interval). 1 where the binomial variance is 0 (p = 0 or 1) or there are
    fewer than 2 clusters."""
    a, b = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    total, m = float(b.sum()), a.size
    if m < 2 or total <= 0:
        return 1.0
    p = float(a.sum()) / total
    binomial = p * (1 - p) / total
    robust = m / (m - 1) * float(np.sum((a - p * b) ** 2)) / total ** 2
    return max(1.0, robust / binomial) if binomial > 0 else 1.0


def case_proportion(quantity: str, parameter: str, condition: str, rows: list[dict],
                    success, counted=lambda x: True) -> dict:
    """The confabulate probe's proportions: ``success(row)`` among the rows where
    ``counted(row)``. Its rows are values: one decision answers all of a use step's
    values, and a case's three conditions ask about the same task, so the rows of a
    case are not independent draws. The interval is Wilson's at the effective sample
    size ``n / deff`` (:func:`design_effect` over cases), not at ``n``, which would take
    the rows as independent and be too narrow. ``n`` is the rows counted; the note
    names the cases and the design effect."""
    cases = sorted({x["case"] for x in rows})
    k_case = [sum(bool(success(x)) for x in rows if x["case"] == c and counted(x))
              for c in cases]
    n_case = [sum(bool(counted(x)) for x in rows if x["case"] == c) for c in cases]
    k, n = sum(k_case), sum(n_case)
    pf = sum(x["outcome"] == "parse_failure" for x in rows)
    deff = design_effect(k_case, n_case)
    note = (f"over {len(cases)} case(s), design effect {deff:.2f}: the interval counts "
            f"{n / deff:.1f} effective values" if n else f"over {len(cases)} case(s)")
    if len(rows) > n:
        note += f"; {len(rows) - n} row(s) outside the ratio"
    p, lo, hi = wilson(k / deff, n / deff, z=Z_ROUNDED) if n else wilson(0, 0)
    return estimate("confabulate", quantity, parameter, condition,
                    k / n if n else math.nan, lo, hi, n, k, pf,
                    CASE_WILSON, note)


def median_rel_error_for_sigma(sigma: float) -> float:
    """``median |exp(sigma Z) - 1|`` for standard normal ``Z`` (closed form)."""
    from scipy.stats import norm

    if sigma <= 0:
        return 0.0
    from scipy.optimize import brentq

    def mass(m):
        lo = math.log(1 - m) / sigma if m < 1 else -math.inf
        return norm.cdf(math.log1p(m) / sigma) - norm.cdf(lo) - 0.5

    return brentq(mass, 1e-12, 1e6)


def sigma_from_median(m: float, cap: float = 5.0) -> float:
    """The lognormal sd whose median relative error is ``m`` (inverse of
    :func:`median_rel_error_for_sigma`; ``cap`` when ``m`` is beyond it, 0 for 0)."""
    from scipy.optimize import brentq

    if not m > 0:
        return 0.0
    if not math.isfinite(m) or m >= median_rel_error_for_sigma(cap):
        return cap
    return brentq(lambda s: median_rel_error_for_sigma(s) - m, 1e-6, cap)


def p_use(L, drop: float, half: float, shape: float):
    """:meth:`sim.agents.profiles.Profile.p_use` vectorised over ``L`` (tokens)."""
    x = np.power(np.asarray(L, dtype=float) / half, shape)
    return 1.0 - drop * x / (1.0 + x)


def fit_curve(L, ok, starts=None) -> tuple[float, float, float]:
    """Maximum-likelihood ``(ctx_drop_max, ctx_half_tokens, ctx_shape)`` for binary
    outcomes ``ok`` at request lengths ``L`` (tokens), within :data:`FIT_BOUNDS`
    (L-BFGS-B from each of ``starts``, ``(D, h, k)`` triples; default a 3x3x3 grid)."""
    from scipy.optimize import minimize

    L = np.asarray(L, dtype=float)
    ok = np.asarray(ok, dtype=float)

    def nll(th):
        p = np.clip(p_use(L, th[0], math.exp(th[1]), th[2]), 1e-9, 1 - 1e-9)
        return -float(np.sum(ok * np.log(p) + (1 - ok) * np.log(1 - p)))

    if starts is None:
        starts = [(d, h, k) for d in (0.2, 0.5, 0.9) for h in (500.0, 3_000.0, 50_000.0)
                  for k in (0.7, 1.5, 3.0)]
    best = None
    for d, h, k in starts:
        r = minimize(nll, [d, math.log(h), k], method="L-BFGS-B", bounds=FIT_BOUNDS)
        if best is None or r.fun < best.fun:
            best = r
    d, lh, k = best.x
    return float(d), float(math.exp(lh)), float(k)


def fit_with_intervals(rows: list[dict], seed: int = 0, reps: int = 100
                       ) -> tuple[tuple[float, float, float], np.ndarray]:
    """The curve fitted to the context probe's rows (parse failures as misuses) and
    ``reps`` bootstrap refits over cases (array ``(reps, 3)``)."""
    L = np.array([r["request_tokens"] for r in rows], dtype=float)
    ok = np.array([r["outcome"] == "correct" for r in rows], dtype=float)
    point = fit_curve(L, ok)
    groups = {}
    for i, r in enumerate(rows):
        groups.setdefault(r["case"], []).append(i)
    idx = list(groups.values())
    rng = np.random.default_rng([seed, 21, 9])
    boots = []
    for _ in range(reps):
        pick = np.concatenate([idx[j] for j in rng.integers(0, len(idx), len(idx))])
        boots.append(fit_curve(L[pick], ok[pick], starts=[point, (0.5, 3_000.0, 1.5)]))
    return point, np.array(boots)


def prior_p_use_range(L: float) -> tuple[float, float]:
    """The lowest and highest ``p_use(L)`` over the prior box of the three curve
    parameters (:mod:`sim.world`; ``p_use`` is monotone in each, so a corner attains
    each extreme)."""
    from sim.world import TABLE

    names = ("agent.ctx_drop_max", "agent.ctx_half_tokens", "agent.ctx_shape")
    vals = [float(p_use(L, d, h, k)) for d in (TABLE[names[0]].low, TABLE[names[0]].high)
            for h in (TABLE[names[1]].low, TABLE[names[1]].high)
            for k in (TABLE[names[2]].low, TABLE[names[2]].high)]
    return min(vals), max(vals)


def summarize(trials: dict[str, list[dict]], seed: int = 0) -> list[dict]:
    """Every estimate from the probes' rows: ``trials`` maps probe name to its rows
    (``dashboard`` to ``{"perception": rows, "presentation": rows}``)."""
    out = []
    r = trials.get("index")
    if r:
        for cond, parameter, what in (
                ("purpose", "agent.p_index", "the index's purpose stated"),
                ("tool", "", "the paper's tool text alone")):
            rc = [x for x in r if x["condition"] == cond]
            if not rc:
                continue
            out.append(proportion("index", f"a later reader can find the key ({what})",
                                  parameter, cond, rc,
                                  lambda x: x["outcome"] == "recoverable",
                                  fail=lambda x: x["outcome"] == "off_target",
                                  note="its record named or its value copied; one "
                                       "key per case"))
            kept = [x for x in rc if x["outcome"] != "off_target"]
            out.append(proportion("index", "replacement is only a block id", "", cond,
                                  kept, lambda x: x["outcome"] == "bare_id"))
            out.append(proportion("index", "whole key named (synthetic agent's "
                                  "matcher)", "", cond, kept, lambda x: x["strict"] == 1))
    r = trials.get("confabulate")
    if r:
        # a parse failure or a recovery is neither wrong nor abstained: outside it
        out.append(case_proportion("wrong value rather than abstain",
                                   "agent.p_confabulate", "all", r,
                                   lambda x: x["outcome"] == "wrong",
                                   lambda x: x["outcome"] in ("wrong", "abstain")))
        for cond in sorted({x["condition"] for x in r}):
            rc = [x for x in r if x["condition"] == cond]
            for what in ("wrong", "abstain", "recover"):
                if what == "recover" and cond != "archived":
                    continue
                out.append(case_proportion(f"share {what}", "", cond, rc,
                                           lambda x, w=what: x["outcome"] == w))
    r = trials.get("recovery")
    if r:
        out.append(proportion("recovery", "recovery call names the right handle", "",
                              "indexed", r, lambda x: x["outcome"] == "right_handle",
                              note="over every decision (answering without a read "
                                   "counts as a miss)"))
        # the synthetic agent's parameter is per read: a decision that answered
        # instead of reading is no read, so it leaves the ratio
        out.append(proportion("recovery", "a read goes to the handle the index names",
                              "agent.p_find_target", "indexed", r,
                              lambda x: x["outcome"] == "right_handle",
                              fail=lambda x: x["outcome"] == "no_recovery"))
        out.append(proportion("recovery", "recovers at all (rather than answering)", "",
                              "indexed", r, lambda x: x["outcome"] in
                              ("right_handle", "wrong_handle")))
    d = trials.get("dashboard")
    if d:
        out += _dashboard(d, seed)
    r = trials.get("context")
    if r:
        out += _context(r, seed)
    return out


def _dashboard(d: dict, seed: int) -> list[dict]:
    out = []
    per = d.get("perception") or []
    plus = [x for x in per if x["condition"] == "+dash"]
    out.append(proportion("dashboard", "ledger row read exactly (block size error "
                          "<= 0.02)", "agent.p_row_read", "full ledger", plus,
                          lambda x: x["rel_error"] <= 0.02,
                          note="one block per snapshot, disjoint snapshots"))
    minus = [x for x in per if x["condition"] == "-dash"]
    if minus:
        out += size_noise(minus, seed)
    return out + _presentation(d)


def size_noise(rows: list[dict], seed: int = 0, reps: int = 2000) -> list[dict]:
    """Bias and noise of the content channel, fitted separately from the ledger-free
    size answers (one per snapshot): with ``r = ln(estimate / truth)``, the bias is
    ``mean(r)`` and the noise ``agent.sigma`` is ``sd(r)`` (ddof 1), the lognormal
    ``exp(bias + sigma Z)`` of a perceived size; 95% percentile intervals from
    ``reps`` bootstrap resamples of the snapshots. The world's content channel has no
    bias term (:mod:`sim.agents.profiles`): an interval for the bias that excludes 0
    says the world's unbiased channel does not fit this model. Also the median
    relative error, VISTA Table 5's measure. Unanswered questions are left out of the
    fit and counted as parse failures."""
    r = np.array([x["log_ratio"] for x in rows if x["log_ratio"] is not None], float)
    fails = len(rows) - len(r)
    rel = [x["rel_error"] for x in rows]
    med, mlo, mhi = median_ci(rel, resamples=reps, seed=seed)
    out = [estimate(SIZE_NOISE, "median relative block-size error", "", "none", med,
                    mlo, mhi, len(rel), parse_failures=fails, method="bootstrap median")]
    few = len(r) < 3   # an sd and its bootstrap need a few answers
    rng = np.random.default_rng([seed, 21, 8])
    boot = r[rng.integers(0, len(r), (reps, len(r)))] if not few else None
    for name, quantity, stat, note in (
            ("", "content-channel bias, mean ln(estimate / truth)",
             lambda a, **kw: a.mean(**kw), "the world assumes 0 (an unbiased channel)"),
            ("agent.sigma", "content-channel noise, sd of ln(estimate / truth)",
             lambda a, **kw: a.std(ddof=1, **kw), "fitted beside the bias")):
        if few:
            value = lo = hi = math.nan
            note += f"; not identified: {len(r)} answered size(s), 3 needed"
        else:
            value = float(stat(r))
            lo, hi = (float(q) for q in np.quantile(stat(boot, axis=1), [0.025, 0.975]))
        out.append(estimate(SIZE_NOISE, quantity, name, "none", value, lo, hi, len(r),
                            parse_failures=fails, method="bootstrap over snapshots",
                            note=note))
    return out


def _presentation(d: dict) -> list[dict]:
    out = []
    pres = d.get("presentation") or []
    for cond, name in (("ledger", "full ledger"), ("bounded_ledger", "bounded ledger")):
        rc = [x for x in pres if x["condition"] == cond]
        if rc:
            chance = float(np.mean([1 / x["candidates"] for x in rc]))
            e = proportion("dashboard", "archives the largest block", "", name,
                           [{**x, "outcome": "parse_failure" if x["invalid"] else ""}
                            for x in rc], lambda x: x["correct"] == 1,
                           note=f"chance {chance:.2f}")
            out.append(e)
    return out


def _context(rows: list[dict], seed: int) -> list[dict]:
    out = []
    for cond in sorted({x["condition"] for x in rows},
                       key=lambda c: (int(c[1:].split("/")[0]), c)):
        rc = [x for x in rows if x["condition"] == cond]
        L = float(np.mean([x["request_tokens"] for x in rc]))
        lo, hi = prior_p_use_range(L)
        out.append(proportion("context", f"value used correctly at {L:.0f} tokens", "",
                              cond, rc, lambda x: x["outcome"] == "correct",
                              note=f"prior p_use range [{lo:.3f}, {hi:.3f}]"))
    out.append(proportion("context", "answer contains the true value (lenient: "
                          "exact match not required)", "", "all", rows,
                          lambda x: bool(x["truth"]) and x["truth"] in x["answer"]))
    (d, h, k), boots = fit_with_intervals(rows, seed)
    short, longest = (min(x["request_tokens"] for x in rows),
                      max(x["request_tokens"] for x in rows))
    span = f"lengths {short}-{longest} tokens; fit D={d:.3g}, h={h:.4g}, k={k:.3g}"
    # no drop within the lengths measured: h and k say nothing; a drop already at the
    # shortest length (h below it, or k at a bound): the misses there are not
    # length-driven, and the curve (p_use(0) = 1) cannot tell them from a drop
    flat = d < 0.02
    early = not flat and (h < short or k in FIT_BOUNDS[2] or
                          math.log(h) in FIT_BOUNDS[1])
    for j, (name, v) in enumerate((("agent.ctx_drop_max", d), ("agent.ctx_half_tokens", h),
                                   ("agent.ctx_shape", k))):
        b = boots[:, j]
        lo, hi = float(np.quantile(b, 0.025)), float(np.quantile(b, 0.975))
        note = span
        if (flat and j) or early:
            v = math.nan
            lo, hi = (math.exp(x) if j == 1 else x for x in FIT_BOUNDS[j])
            note += ("; not identified: no drop within these lengths" if flat else
                     "; not identified: misses already at the shortest length "
                     "(not length-driven); see the per-length rows")
        out.append(estimate("context", "degradation curve (maximum likelihood)", name,
                            "fit", v, lo, hi, len(rows),
                            parse_failures=sum(x["outcome"] == "parse_failure"
                                               for x in rows),
                            method="MLE, bootstrap over cases", note=note))
    return out
