"""Which world parameters the ``fit`` numbers can inform (issue 30, item 3): a Morris
screen of each ``fit`` number over the robustness analysis's reference table
(``figures/robustness_points.csv``, its ``stat:<cell>`` columns at the Morris
points), with a null that the table itself supplies.

Each Morris step changes one parameter and draws a new design seed, so every
elementary effect holds the sampling noise of two studies; a parameter the episodes
never read still shows a ``mu*`` of that size. The null is such parameters: the
BrowseComp-like ones (``browse.*``) for a number played on LOCA-like tasks, the
LOCA-like ones (``task.*``) for a number played on BrowseComp-like queries. A
parameter is *fitted* when its ``mu*`` for some ``fit`` number is above the largest
``mu*`` any null parameter reaches for that number; the others are integrated out
(drawn from their prior inside each simulation, which leaves the fitted parameters'
marginal posterior exact) and keep their prior.

Why: ABC-SMC over all 41 parameters with five numbers to fit did not run (the first
default run spent 44 min redrawing proposals outside the bounds; in the logit space
the next one's 41-dimensional transition densities underflowed to 0 and its weights
became NaN), and most of the 41 cannot move a baseline's accuracy, tokens or cost.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Sequence

import numpy as np

#: the reference table ``ctxsim claims --robustness`` writes
DEFAULT_POINTS = Path(__file__).resolve().parents[3] / "figures" / "robustness_points.csv"


def null_prefix(cell: str) -> str:
    """The parameter family the episodes of ``cell`` never read: ``"task."`` for a
    number played on BrowseComp-like queries (a window level), else ``"browse."``."""
    from experiments.claims.robustness.stats import STATS

    return "task." if isinstance(STATS[cell].level, int) else "browse."


def screen_table(factors: Sequence, cells: Sequence[str],
                 path: str | Path | None = None, seed: int = 0) -> dict[str, dict]:
    """Per ``fit`` cell: each parameter's Morris ``mu*`` over the table's Morris
    points, divided by the cell's spread over those points, and the null's largest.

    Returns:
        per cell a dict with ``mu_star`` (parameter name -> normalised mu*),
        ``null`` (the null's largest), ``null_prefix`` and ``fitted`` (names).

    Raises:
        FileNotFoundError: with no reference table at ``path``.
        ValueError: naming the file, when it lacks a parameter, a ``stat:<cell>``
            column, or Morris points.
    """
    from experiments.claims.robustness.analysis import morris_indices

    p = Path(path) if path else DEFAULT_POINTS
    if not p.is_file():
        raise FileNotFoundError(f"no reference table at {p}; run `ctxsim claims "
                                "--robustness` first (it writes robustness_points.csv)")
    with open(p, newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("stage") == "morris"]
    if not rows:
        raise ValueError(f"{p}: no Morris points (stage 'morris')")
    rows.sort(key=lambda r: int(r["point"]))
    missing = [f.name for f in factors if f.name not in rows[0]] + \
        [f"stat:{c}" for c in cells if f"stat:{c}" not in rows[0]]
    if missing:
        raise ValueError(f"{p}: no column {', '.join(missing)}")
    X = np.array([[f.to_sampling(float(r[f.name])) for f in factors] for r in rows])
    out = {}
    for c in cells:
        y = np.array([float(r[f"stat:{c}"]) for r in rows])
        sd = float(np.std(y))
        ix = morris_indices(factors, X, y, seed)
        mu = {n: (row.mu_star / sd if sd > 0 else 0.0) for n, row in ix.items()}
        prefix = null_prefix(c)
        null = max((v for n, v in mu.items() if n.startswith(prefix)), default=0.0)
        out[c] = {"mu_star": {n: round(v, 4) for n, v in mu.items()},
                  "null": round(null, 4), "null_prefix": prefix,
                  "fitted": [n for n, v in mu.items()
                             if not n.startswith(prefix) and v > null]}
    return out


def fitted_names(factors: Sequence, table: dict[str, dict]) -> list[str]:
    """The parameters some ``fit`` number informs (:func:`screen_table`), in factor
    order."""
    hit = {n for e in table.values() for n in e["fitted"]}
    return [f.name for f in factors if f.name in hit]
