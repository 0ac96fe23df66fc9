"""``ctxsim claims``: the claims scorecard. For every claim of
:data:`experiments.claims_registry.CLAIMS` it reads the committed CSV that tests it,
computes our value with its interval, and a verdict from that data only:

* ``reproduced``: the paper's statement holds in our data, and where it gives a
  number on a comparable scale, that number is inside our interval;
* ``reproduced in direction only``: the effect has the paper's sign and our interval
  excludes zero, but the paper's number is outside our interval (or the scales are
  not comparable, e.g. synthetic tokens against a real model's);
* ``not reproduced``: otherwise;
* ``not testable here``: with the reason (not built yet, needs a real model, ...).

The verdict rules are the small functions below (``*_verdict``), tested on
synthetic CSVs: a claim changes verdict only when its data changes. Writes
``claims.md`` and ``claims.json`` in ``--out`` (default: ``figures``, the directory
it reads); runs in seconds (no simulation).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

from experiments.claims_registry import CLAIMS

REPRODUCED = "reproduced"
DIRECTION = "reproduced in direction only"
NOT_REPRODUCED = "not reproduced"
NOT_TESTABLE = "not testable here"
#: z of the 95% intervals; k standard errors for "within Monte Carlo error" checks
Z95 = 1.959964
K_SE = 4.0


# -- verdict rules (pure functions of numbers) ----------------------------------------
def gap_verdict(paper_diff: float, diff: float, lo: float, hi: float,
                comparable: bool = True) -> str:
    """A claimed difference ``paper_diff`` (nonzero) against ours with interval
    [lo, hi]: reproduced if the interval excludes zero on the paper's side and (when
    the scales are comparable) contains ``paper_diff``; direction only if it excludes
    zero on the paper's side only; otherwise not reproduced."""
    if paper_diff == 0:
        raise ValueError("a gap claim needs a nonzero paper difference; use tie_verdict")
    same_side = lo > 0 if paper_diff > 0 else hi < 0
    if not same_side:
        return NOT_REPRODUCED
    return REPRODUCED if comparable and lo <= paper_diff <= hi else DIRECTION


def order_verdict(sign: int, diff: float, lo: float | None = None,
                  hi: float | None = None) -> str:
    """A claimed ordering (``sign`` +1: ours should be above the reference, -1:
    below) where sizes are not comparable (the evolution papers' benchmarks are not
    ours): reproduced if the interval [lo, hi] excludes zero on the claimed side,
    direction only if just the point estimate ``diff`` is on that side (interval
    across zero, or no interval), otherwise not reproduced."""
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, got {sign!r}")
    if lo is not None and hi is not None and (lo > 0 if sign > 0 else hi < 0):
        return REPRODUCED
    return DIRECTION if sign * diff > 0 else NOT_REPRODUCED


def tie_verdict(lo: float, hi: float, margin: float) -> str:
    """A claimed tie: reproduced if our whole interval lies within +-``margin``."""
    return REPRODUCED if -margin <= lo and hi <= margin else NOT_REPRODUCED


def bound_verdict(violations: int, rows: int) -> str:
    """A bound claimed for every row: reproduced if rows were checked and none
    violates it beyond its Monte Carlo error."""
    return REPRODUCED if rows > 0 and violations == 0 else NOT_REPRODUCED


def rank_verdict(rank: int) -> str:
    """A claimed first place."""
    return REPRODUCED if rank == 1 else NOT_REPRODUCED


def ratio_verdict(paper_ratio: float, ratio: float, factor: float = 1.5) -> str:
    """A claimed ratio of counts: reproduced if ours is within ``factor`` of the
    paper's; direction only if it is on the same side of 1; else not reproduced."""
    if not math.isfinite(ratio):
        return NOT_REPRODUCED
    if paper_ratio / factor <= ratio <= paper_ratio * factor:
        return REPRODUCED
    same = (ratio > 1) if paper_ratio > 1 else (ratio < 1)
    return DIRECTION if same else NOT_REPRODUCED


def range_verdict(value: float, lo: float, hi: float, other: float | None = None,
                  higher: bool = True) -> str:
    """A claimed range [lo, hi]: reproduced inside it; direction only if outside but
    on the claimed side of ``other`` (the comparison condition); else not."""
    if lo <= value <= hi:
        return REPRODUCED
    if other is not None and (value > other if higher else value < other):
        return DIRECTION
    return NOT_REPRODUCED


def limit_verdict(lasts: list[float], increasing: list[bool], threshold: float) -> str:
    """A claimed limit of 1: reproduced if every series ends at >= ``threshold``;
    direction only if every series increases; else not reproduced."""
    if lasts and all(v >= threshold for v in lasts):
        return REPRODUCED
    return DIRECTION if increasing and all(increasing) else NOT_REPRODUCED


def peak_verdict(gains: dict[int, tuple[float, float, float]]) -> str:
    """A claimed interior peak of ``gains`` (W -> (gain, lo, hi)): reproduced if the
    maximum is interior and both end intervals lie below the peak's interval;
    direction only if the maximum is interior; else not reproduced."""
    ws = sorted(gains)
    if len(ws) < 3:
        return NOT_REPRODUCED
    best = max(ws, key=lambda w: gains[w][0])
    if best in (ws[0], ws[-1]):
        return NOT_REPRODUCED
    peak_lo = gains[best][1]
    if gains[ws[0]][2] < peak_lo and gains[ws[-1]][2] < peak_lo:
        return REPRODUCED
    return DIRECTION


def slope_verdict(slope: float, paper_slope: float, peak: float, paper_peak: float,
                  tol: float = 0.2, factor: float = 2.0) -> str:
    """A claimed sublinear footprint (late log-log slope ``paper_slope``, peak
    ``paper_peak`` tokens): reproduced if our slope is at most ``paper_slope + tol``
    and our peak within ``factor`` of the paper's; direction only if sublinear
    (slope < 1); else not reproduced."""
    if slope <= paper_slope + tol and peak <= paper_peak * factor:
        return REPRODUCED
    return DIRECTION if slope < 1 else NOT_REPRODUCED


# -- intervals ------------------------------------------------------------------------
def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n."""
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """p1 - p2 with Newcombe's hybrid score interval (independent samples: a
    conservative stand-in when the per-task pairing was not saved)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return (d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


# -- checks: read a CSV, return our value, its interval and the verdict ---------------
def _read(figdir: Path, name: str) -> list[dict]:
    path = figdir / name
    if not path.exists():
        raise FileNotFoundError(f"{path} (run the command in the claim's row)")
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _f(x) -> float:
    return float(x) if x not in ("", None) else float("nan")


def _res(value: str, ci: str, verdict: str, note: str = "") -> dict:
    return {"ours": value, "ci": ci, "verdict": verdict, "note": note}


def check_bound_rows(figdir, bound):
    """theorem1.csv rows whose E[Z] + K_SE SE falls below the lower bound column ``bound``."""
    rows = [r for r in _read(figdir, "theorem1.csv") if r[bound] not in ("", "nan")]
    slack = [(_f(r["EZ"]) - _f(r[bound])) / _f(r["kappa"]) for r in rows]
    bad = sum(_f(r["EZ"]) + K_SE * _f(r["EZ_se"]) < _f(r[bound]) - 1e-9 for r in rows)
    return _res(f"{bad} of {len(rows)} rows below the bound; min (E[Z]-bound)/kappa "
                f"= {min(slack):.4f}", f"E[Z] +- {K_SE:g} SE",
                bound_verdict(bad, len(rows)))


def check_ledger_endpoint(figdir):
    """theorem1.csv ledger rows: E[Z] = 0 and I = log2 n exactly."""
    rows = [r for r in _read(figdir, "theorem1.csv") if r["channel"] == "ledger"]
    bad = sum(_f(r["EZ"]) != 0 or abs(_f(r["rate_bits"]) - math.log2(_f(r["n"]))) > 1e-9
              for r in rows)
    return _res(f"{bad} of {len(rows)} ledger rows with E[Z] != 0 or I != log2 n",
                "exact", bound_verdict(bad, len(rows)))


#: family-wise false-alarm level of a "every row matches its reference" claim
FAMILY_ALPHA = 0.01


def _se_rows(rows, value, ref, se):
    """Rows whose Monte Carlo mean misses ``ref`` by more than a Bernstein half-width
    (:func:`sim.games.burden_law.mc_halfwidth` with the row's exact variance
    ``se^2 * trials`` and range ``kappa``) at a Bonferroni level FAMILY_ALPHA / rows,
    so the whole claim raises a false alarm with probability <= FAMILY_ALPHA; and
    the largest miss in half-widths. A row with SE = 0 has Var Z = 0 (Z constant):
    its half-width is 0 and it must equal the reference exactly."""
    from sim.games.burden_law import mc_halfwidth

    alpha = FAMILY_ALPHA / max(len(rows), 1)
    bad, worst = 0, 0.0
    for r in rows:
        miss = abs(_f(r[value]) - _f(r[ref]))
        width = mc_halfwidth(_f(r[se]) ** 2 * _f(r["trials"]), int(_f(r["trials"])),
                             _f(r["kappa"]), alpha)
        ratio = miss / width if width > 0 else (0.0 if miss <= 1e-9 else math.inf)
        bad += ratio > 1.0
        worst = max(worst, ratio)
    zero = sum(not _f(r[se]) > 0 for r in rows)
    note = (f"Bernstein half-width from the exact Var Z, family-wise level "
            f"{FAMILY_ALPHA:g} over {len(rows)} rows"
            + (f"; {zero} rows have Var Z = 0 and must match exactly" if zero else ""))
    return bad, len(rows), worst, note


def check_theory_rows(figdir, channel):
    """theorem1.csv rows of ``channel`` against their closed form (:func:`_se_rows`)."""
    rows = [r for r in _read(figdir, "theorem1.csv") if r["channel"] == channel
            and r["EZ_theory"] not in ("", "nan")]
    bad, n, worst, note = _se_rows(rows, "EZ", "EZ_theory", "EZ_se")
    return _res(f"{bad} of {n} rows off the closed form; largest miss {worst:.2f} "
                "half-widths", f"Bernstein, level {FAMILY_ALPHA:g}", bound_verdict(bad, n),
                note)


def check_upper_bound_rows(figdir, bound):
    """proposition2.csv rows whose rate - K_SE SE exceeds the upper bound ``bound`` (bits)."""
    rows = _read(figdir, "proposition2.csv")
    bad = sum(_f(r["rate_bits"]) - K_SE * _f(r["rate_se_bits"]) > _f(r[bound]) + 1e-9
              for r in rows)
    worst = max(_f(r["rate_bits"]) / _f(r[bound]) for r in rows)
    return _res(f"{bad} of {len(rows)} rows above the bound; max rate/bound = "
                f"{worst:.3f}", f"rate +- {K_SE:g} SE", bound_verdict(bad, len(rows)))


def check_limit_to_one(figdir, threshold):
    """Series (kappa, sigma) in the proposition's regime: at the largest n the
    paper's rate bound is below the make-room threshold log2(n/kappa)."""
    series: dict[tuple, list[dict]] = {}
    for r in _read(figdir, "proposition2.csv"):
        series.setdefault((r["kappa"], r["sigma"]), []).append(r)
    lasts, incr, out = [], [], 0
    for pts in series.values():
        pts.sort(key=lambda r: _f(r["n"]))
        if _f(pts[-1]["paper_bound_bits"]) >= _f(pts[-1]["threshold_bits"]):
            out += 1
            continue
        lasts.append(_f(pts[-1]["EZ_over_kappa"]))
        incr.append(lasts[-1] > _f(pts[0]["EZ_over_kappa"]))
    if not lasts:
        return _res("no (kappa, sigma) series reaches the regime", "-", NOT_REPRODUCED)
    return _res(f"E[Z]/kappa at the largest n: min {min(lasts):.3f} over {len(lasts)} "
                f"(kappa, sigma) in the regime", f"threshold {threshold}",
                limit_verdict(lasts, incr, threshold),
                f"{out} series whose bound stays above log2(n/kappa) at the largest n "
                "are outside the claim")


def check_quadrature_rows(figdir):
    """proposition2.csv E[Z] against its one-dimensional quadrature (:func:`_se_rows`)."""
    rows = [r for r in _read(figdir, "proposition2.csv") if r["EZ_quadrature"] not in
            ("", "nan")]
    bad, n, worst, note = _se_rows(rows, "EZ", "EZ_quadrature", "EZ_se")
    return _res(f"{bad} of {n} rows off the quadrature; largest miss {worst:.2f} "
                "half-widths", f"Bernstein, level {FAMILY_ALPHA:g}", bound_verdict(bad, n),
                note)


def check_prop1_rows(figdir):
    """proposition1.csv lossy rows whose success - K_SE SE exceeds the Prop. 1 bound."""
    rows = [r for r in _read(figdir, "proposition1.csv")
            if r["strategy"] != "recoverable" and r["bound"] not in ("", "nan")]
    bad = sum(_f(r["success"]) - K_SE * _f(r["success_se"] or 0) > _f(r["bound"]) + 1e-9
              for r in rows)
    return _res(f"{bad} of {len(rows)} lossy rows above the bound", f"{K_SE:g} SE",
                bound_verdict(bad, len(rows)))


def _paired(figdir, level, column, a="vista", b="react", name="pressure_episodes.csv"):
    """Mean over tasks of a - b in ``column`` (at ``level``; None: every row) with a
    paired bootstrap interval, from a per-episode CSV; also both means and n."""
    from experiments.paired import bootstrap_mean_ci

    rows = [r for r in _read(figdir, name)
            if level is None or int(r["level"]) == level]
    va = {r["task_id"]: _f(r[column]) for r in rows if r["program"] == a}
    vb = {r["task_id"]: _f(r[column]) for r in rows if r["program"] == b}
    if not va or set(va) != set(vb):
        raise ValueError(f"{name}: {a} and {b} at level {level} did not run the same "
                         "tasks")
    d = [va[t] - vb[t] for t in sorted(va)]
    mean, lo, hi = bootstrap_mean_ci(d)
    return mean, lo, hi, np.mean(list(va.values())), np.mean(list(vb.values())), len(d)


def check_paired_sign(figdir, name, column, level, other, paper, unit=1.0,
                      label=""):
    """A claimed ordering of VISTA against ``other`` in ``column`` (``paper``: the
    two numbers, or the claimed sign as +1/-1), on a scale not comparable with the
    paper's (synthetic tasks): at best reproduced in direction."""
    d, lo, hi, pa, pb, n = _paired(figdir, level, column, "vista", other, name)
    sign = paper[0] - paper[1] if isinstance(paper, (tuple, list)) else paper
    return _res(f"vista {pa / unit:.4g} vs {other} {pb / unit:.4g}{label} (n = {n})",
                f"diff [{lo / unit:+.4g}, {hi / unit:+.4g}] paired bootstrap",
                gap_verdict(sign, d, lo, hi, comparable=False),
                "synthetic tasks: magnitudes not comparable with the paper's")


def check_pressure_tie(figdir, level, margin):
    """VISTA vs ReAct at ``level`` (pressure_episodes.csv): a tie within +-``margin`` points."""
    d, lo, hi, pa, pb, n = _paired(figdir, level, "solved")
    return _res(f"{100 * pa:.1f} vs {100 * pb:.1f} (%), diff {100 * d:+.1f} points "
                f"(n = {n})", f"[{100 * lo:+.1f}, {100 * hi:+.1f}] paired bootstrap",
                tie_verdict(lo, hi, margin), f"tie = interval within +-{100 * margin:g}")


def check_pressure_gap(figdir, level, paper):
    """VISTA - ReAct accuracy at ``level`` against the paper's gap (paired interval)."""
    d, lo, hi, pa, pb, n = _paired(figdir, level, "solved")
    return _res(f"{100 * pa:.1f} vs {100 * pb:.1f} (%), diff {100 * d:+.1f} points "
                f"(n = {n})", f"[{100 * lo:+.1f}, {100 * hi:+.1f}] paired bootstrap",
                gap_verdict(paper[0] - paper[1], d, lo, hi),
                "the gap is compared; absolute levels depend on the synthetic agent's "
                "base error rate")


def check_pressure_tokens(figdir, level, paper):
    """VISTA - ReAct total tokens per episode at ``level`` (paired interval)."""
    d, lo, hi, pa, pb, n = _paired(figdir, level, "total_tokens")
    return _res(f"{pa / 1e6:.2f}M vs {pb / 1e6:.2f}M tokens", f"diff [{lo / 1e6:+.2f}M, "
                f"{hi / 1e6:+.2f}M] paired bootstrap",
                gap_verdict(paper[0] - paper[1], d, lo, hi, comparable=False),
                "synthetic tokens: magnitudes not comparable")


def _window(figdir):
    rows = _read(figdir, "window.csv")
    return {(int(r["level"]), r["program"]): r for r in rows}


def _gap_rows(ra, rb, ref="vista"):
    """a - b accuracy with an interval: paired (the CSV's paired columns, when
    present) else Newcombe's unpaired interval."""
    if rb.get(f"acc_diff_vs_{ref}", "") not in ("", None) and ra["program"] == ref:
        d = -_f(rb[f"acc_diff_vs_{ref}"])
        return d, -_f(rb["acc_diff_hi"]), -_f(rb["acc_diff_lo"]), "paired bootstrap"
    d, lo, hi = newcombe(int(ra["solved"]), int(ra["n"]), int(rb["solved"]), int(rb["n"]))
    return d, lo, hi, "Newcombe (unpaired)"


def check_window_gap(figdir, level, paper):
    """VISTA - ReAct accuracy at window ``level`` against the paper's gap."""
    t = _window(figdir)
    ra, rb = t[(level, "vista")], t[(level, "react")]
    d, lo, hi, how = _gap_rows(ra, rb)
    return _res(f"{100 * _f(ra['accuracy']):.0f}% vs {100 * _f(rb['accuracy']):.0f}% "
                f"(n = {ra['n']})", f"diff [{100 * lo:+.0f}, {100 * hi:+.0f}] {how}",
                gap_verdict(paper[0] - paper[1], d, lo, hi),
                "the paper's baseline is its strongest; ours is ReAct")


def check_window_peak(figdir):
    """the VISTA - ReAct gain over windows W has an interior maximum."""
    t = _window(figdir)
    gains = {}
    for (w, prog), ra in t.items():
        if prog == "vista" and (w, "react") in t:
            d, lo, hi, _ = _gap_rows(ra, t[(w, "react")])
            gains[w] = (d, lo, hi)
    best = max(gains, key=lambda w: gains[w][0])
    ends = sorted(gains)
    return _res(f"gain {100 * gains[best][0]:+.0f} points at W = {best // 1000}K; "
                f"{100 * gains[ends[0]][0]:+.0f} at {ends[0] // 1000}K, "
                f"{100 * gains[ends[-1]][0]:+.0f} at {ends[-1] // 1000}K",
                "per-W intervals", peak_verdict(gains))


def _ablations(figdir):
    return {r["program"]: r for r in _read(figdir, "ablations.csv")}


def check_ablation_gap(figdir, program, paper):
    """solved tasks of ablation ``program`` minus full VISTA against the paper's."""
    t = _ablations(figdir)
    ra, rf = t[program], t["vista"]
    n = int(rf["n"])
    if ra.get("solved_diff_vs_vista", "") not in ("", None):
        d, lo, hi = (_f(ra[c]) / n for c in ("solved_diff_vs_vista", "solved_diff_lo",
                                              "solved_diff_hi"))
        how = "paired bootstrap"
    else:
        d, lo, hi = newcombe(int(ra["solved"]), int(ra["n"]), int(rf["solved"]), n)
        how = "Newcombe (unpaired)"
    return _res(f"{ra['solved']} vs {rf['solved']} of {n}",
                f"diff [{n * lo:+.1f}, {n * hi:+.1f}] tasks, {how}",
                gap_verdict((paper[0] - paper[1]) / 75, d, lo, hi))


def check_ablation_ratio(figdir, columns, paper):
    """a ratio of ablation counts (e.g. archive calls without/with dashboard) against the paper's."""
    t = _ablations(figdir)
    col = next(c for c in columns if c in t["vista"])
    a, b = _f(t["vista_no_dashboard"][col]), _f(t["vista"][col])
    ratio = a / b if b else float("inf")
    return _res(f"{a:g} / {b:g} = {ratio:.2f}x ({col})", "none (counts over tasks)",
                ratio_verdict(paper[0] / paper[1], ratio),
                "reproduced: within 1.5x of the paper's ratio")


def check_rank(figdir, column, lowest):
    """VISTA's rank by ``column``: 1 + the programs strictly better (a tie shares
    the place)."""
    rows = _read(figdir, "cost.csv")
    sign = 1 if lowest else -1
    val = {r["program"]: sign * _f(r[column]) for r in rows}
    rank = 1 + sum(v < val["vista"] for v in val.values())
    ties = sorted(p for p, v in val.items() if v == val["vista"] and p != "vista")
    best = min(val, key=val.get)
    tied = f", tied with {', '.join(ties)}" if ties else ""
    return _res(f"vista {rank} of {len(rows)}{tied} ({column} {sign * val['vista']:.4g};"
                f" first: {best} {sign * val[best]:.4g})", "point estimates",
                rank_verdict(rank))


def check_perception_range(figdir, condition, range):
    """median relative total-size error of ``condition`` (perception.csv) against the paper's range."""
    rows = [r for r in _read(figdir, "perception.csv") if r["quantity"] == "total"]
    med = {c: float(np.median([_f(r["rel_error"]) for r in rows if r["condition"] == c]))
           for c in ("-dash", "+dash")}
    other = med["+dash" if condition == "-dash" else "-dash"]
    return _res(f"median {med[condition]:.3f} (other condition {other:.3f}; "
                f"{sum(r['condition'] == condition for r in rows)} snapshots)",
                "none (a small local model)",
                range_verdict(med[condition], *range, other=other,
                              higher=condition == "-dash"))


def check_overhead_slope(figdir, setting, paper_slope, paper_peak):
    """late log-log slope and peak of the dashboard footprint (overhead.csv) against Fig. 10."""
    rows = [r for r in _read(figdir, "overhead.csv") if r["setting"] == setting]
    traj = max({r["trajectory"] for r in rows},
               key=lambda t: sum(r["trajectory"] == t for r in rows))
    pts = sorted((_f(r["registered"]), _f(r["dashboard_tokens"])) for r in rows
                 if r["trajectory"] == traj)
    late = pts[len(pts) // 2:]
    x, y = np.log([p[0] for p in late]), np.log([max(p[1], 1.0) for p in late])
    slope = float(np.polyfit(x, y, 1)[0])
    peak = max(p[1] for p in pts)
    return _res(f"late log-log slope {slope:.2f} on {traj} ({len(pts)} points); peak "
                f"{peak:.0f} tokens", "least-squares fit",
                slope_verdict(slope, paper_slope, peak, paper_peak))


def _row(rows: list[dict], where: dict, name: str) -> dict:
    hit = [r for r in rows if all(r.get(k) == str(v) for k, v in where.items())]
    if len(hit) != 1:
        raise FileNotFoundError(f"{name}: {len(hit)} rows match {where} (expected 1)")
    return hit[0]


def check_ordering(figdir, name, where, column, lo, hi, sign, unit=""):
    """A paired difference with its interval, read from one row of ``name``."""
    r = _row(_read(figdir, name), where, name)
    d, a, b = _f(r[column]), _f(r[lo]), _f(r[hi])
    return _res(f"{column} = {d:+.3f}{unit}", f"[{a:+.3f}, {b:+.3f}] (paired bootstrap)",
                order_verdict(sign, d, a, b),
                "sizes are not comparable with the paper's benchmarks; the ordering is "
                "the claim")


def check_ordering_points(figdir, name, key, a, b, column, sign):
    """The ordering of two rows' point estimates (no paired interval in ``name``):
    at best reproduced in direction only."""
    rows = _read(figdir, name)
    ra, rb = _row(rows, {**key, **a}, name), _row(rows, {**key, **b}, name)
    d = _f(ra[column]) - _f(rb[column])
    return _res(f"{column}: {_f(ra[column]):.3f} vs {_f(rb[column]):.3f} ({d:+.3f})",
                "point estimates", order_verdict(sign, d),
                f"no paired interval in {name}: direction at most")


CHECKS = {name[6:]: fn for name, fn in globals().items() if name.startswith("check_")}


def evaluate(figdir: Path, claims: list[dict] = CLAIMS) -> list[dict]:
    """One result row per claim: the registry entry plus ``ours``, ``ci``,
    ``verdict`` and ``note``. A claim whose CSV is missing is not testable (says
    which file)."""
    out = []
    for c in claims:
        row = {k: v for k, v in c.items() if k != "args"}
        if c.get("check") is None:
            row.update(_res("-", "-", NOT_TESTABLE, c.get("why", "")))
        else:
            try:
                row.update(CHECKS[c["check"]](Path(figdir), **c.get("args", {})))
            except FileNotFoundError as exc:
                row.update(_res("-", "-", NOT_TESTABLE, f"no data: {exc}"))
        out.append(row)
    return out


def to_markdown(results: list[dict]) -> str:
    """The scorecard as a Markdown table, with a verdict count."""
    counts: dict[str, int] = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    lines = ["# Claims scorecard", "",
             "Generated by `ctxsim claims` from the CSVs in this directory; verdict "
             "rules in `experiments/claims.py`.", "",
             ", ".join(f"{v}: {counts[v]}" for v in
                       (REPRODUCED, DIRECTION, NOT_REPRODUCED, NOT_TESTABLE) if v in counts),
             "", "| id | paper, where | claim (paper's number) | command / CSV column | "
             "ours | interval | verdict |", "| --- | --- | --- | --- | --- | --- | --- |"]

    def cell(s):
        return str(s).replace("|", "/").replace("\n", " ")

    for r in results:
        verdict = r["verdict"] + (f" ({r['note']})" if r["note"] else "")
        lines.append("| " + " | ".join(cell(x) for x in (
            r["id"], f"{r['paper']} {r['where']}",
            f"{r['statement']} ({r['paper_value']})",
            f"`{r['command']}` {r['csv']}: {r['column']}", r["ours"], r["ci"],
            verdict)) + " |")
    return "\n".join(lines) + "\n"


#: the committed figures of this checkout (the default ``--figures``), found from the
#: package so the command works from any working directory
SHIPPED_FIGURES = Path(__file__).resolve().parents[1] / "figures"


def add_arguments(parser) -> None:
    """``--figures DIR`` (where the CSVs are) and ``--out DIR``."""
    parser.add_argument("--figures", default=None,
                        help="directory holding the experiments' CSVs (default: "
                             "./figures if it exists, else this checkout's committed "
                             "figures)")
    parser.add_argument("--out", default=None,
                        help="where to write claims.md/claims.json (default: --figures)")


def main(args) -> int:
    """Evaluate every claim, write ``claims.md`` and ``claims.json``, print a
    one-line summary per claim."""
    if args.figures is not None:
        figdir = Path(args.figures)
    else:
        figdir = Path("figures") if Path("figures").is_dir() else SHIPPED_FIGURES
    if not figdir.is_dir():
        raise FileNotFoundError(f"--figures {figdir} is not a directory (pass the "
                                "directory an experiment's --out wrote)")
    if args.out is not None and not str(args.out).strip():
        raise ValueError("--out is empty; give a directory for claims.md/claims.json")
    out = Path(args.out) if args.out else figdir
    out.mkdir(parents=True, exist_ok=True)
    results = evaluate(figdir)
    (out / "claims.md").write_text(to_markdown(results))
    (out / "claims.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    for r in results:
        print(f"{r['id']:<20} {r['verdict']:<30} {r['ours']}")
    print(out / "claims.md")
    print(out / "claims.json")
    return 0
