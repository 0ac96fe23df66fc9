"""Priors of the synthetic world re-derived from their sources (issue 31).

Each module here turns published numbers into the prior range that a world-table
row declares (:mod:`sim.world`, ``ctxsim world``). The rows' sources are plain
strings on the dataclass fields (layer 0 of ``sim``), so the arithmetic lives here
and ``tests/experiments/priors`` check that the declared range is the one this code
computes from the cited numbers:

* :mod:`.sigma`: ``agent.sigma`` from VISTA Table 5's median relative size errors
  through the lognormal model;
* :mod:`.degradation`: ``agent.ctx_drop_max``, ``agent.ctx_half_tokens``,
  ``agent.ctx_shape`` fitted per model to RULER's and NoLiMa's tables;
* :mod:`.confabulation`: ``agent.p_confabulate`` from SimpleQA's answer and
  abstention rates;
* :mod:`.sizes`: the size law of real tool results (``task.size_sd``) with its
  goodness-of-fit tests.

The published tables ship as CSV files in ``data/`` (a ``#`` header names the
paper, the table and where the numbers were transcribed from); :func:`read_table`
reads them.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def read_table(name: str) -> list[dict[str, str]]:
    """The rows of ``data/<name>.csv`` (lines starting with ``#`` are its source
    header), as dicts of strings keyed by the column names.

    Raises:
        FileNotFoundError: naming the file, for an unknown table.
    """
    path = DATA / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no prior table {name!r} ({path}); known: "
                                f"{sorted(p.stem for p in DATA.glob('*.csv'))}")
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def table_header(name: str) -> str:
    """The ``#`` source header of ``data/<name>.csv`` (each line without its leading ``#`` and space)."""
    with (DATA / f"{name}.csv").open(encoding="utf-8") as f:
        return "\n".join(line[2:].rstrip() for line in f if line.startswith("#"))


def outward(low: float, high: float, digits: int = 2) -> tuple[float, float]:
    """``[low, high]`` rounded outward to ``digits`` significant figures (the range a
    table row declares: it contains every computed value).

    Raises:
        ValueError: unless ``0 < low <= high`` are finite and ``digits >= 1``.
    """
    if not (0 < low <= high and math.isfinite(high)) or digits < 1:
        raise ValueError(f"outward needs 0 < low <= high finite and digits >= 1, got "
                         f"{low!r}, {high!r}, {digits!r}")

    def step(v):
        return 10.0 ** (math.floor(math.log10(v)) - digits + 1)

    lo_step, hi_step = step(low), step(high)
    # round() first so a value already on the grid is not pushed a step outward
    lo = math.floor(round(low / lo_step, 9)) * lo_step
    hi = math.ceil(round(high / hi_step, 9)) * hi_step
    return float(f"{lo:.{digits + 3}g}"), float(f"{hi:.{digits + 3}g}")
