"""Each world point's simulated value of the paper numbers its reduced sweeps cover
(issue 30, item 3: the robustness simulations reused as a simulation-based-inference
reference table).

A :class:`Stat` says how one registry cell (:class:`~experiments.claims.records.Cell`,
``fit`` or ``predict``) is simulated from a point's episode rows: which program, at the
low or high growth level or at a window, which column, in the paper's unit. Only the
simulation is computed here, never compared with the paper's value: the posterior
reads the ``fit`` cells' values, the predictive check the ``predict`` ones
(:meth:`~experiments.claims.registry.Registry.fit_cells`).

Cells a point does not simulate the way the paper measured them are left out, and
:data:`LEFT_OUT` says why.
"""

from __future__ import annotations

from dataclasses import dataclass

#: LOCA-Bench's suite size: Fig. 8's counts are over 75 tasks
SUITE = 75


@dataclass(frozen=True)
class Stat:
    """How one cell is simulated.

    Attributes:
        program: the program whose episodes it reads.
        level: ``"low"`` or ``"high"`` (the design's LOCA-like growth levels) or a
            window in tokens (the BrowseComp-like queries).
        column: a column of the episode rows (``solved``, ``total_tokens``, ...).
        kind: ``"percent"`` (100 x the mean), ``"mean"`` or ``"suite"`` (the mean x
            :data:`SUITE`: a count over LOCA-Bench's 75 tasks).
    """

    program: str
    level: str | int
    column: str
    kind: str


def _pct(program, level):
    return Stat(program, level, "solved", "percent")


#: cell id -> how a point simulates it
STATS = {
    "FIG4:react_8k": _pct("react", "low"), "FIG4:vista_8k": _pct("vista", "low"),
    "FIG4:react_128k": _pct("react", "high"), "FIG4:vista_128k": _pct("vista", "high"),
    "FIG4:react_tokens": Stat("react", "high", "total_tokens", "mean"),
    "FIG4:vista_tokens": Stat("vista", "high", "total_tokens", "mean"),
    "FIG6:vista": _pct("vista", 12_000),
    "FIG8:vista": Stat("vista", "high", "solved", "suite"),
    "FIG8:no_archive": Stat("vista_no_archive", "high", "solved", "suite"),
    "FIG8:no_dashboard": Stat("vista_no_dashboard", "high", "solved", "suite"),
    "FIG8:vista_archives": Stat("vista", "high", "agent_archives", "suite"),
    "FIG8:no_dashboard_archives": Stat("vista_no_dashboard", "high", "agent_archives",
                                       "suite"),
    "FIG8:vista_recoveries": Stat("vista", "high", "recoveries", "suite"),
    "FIG8:no_dashboard_recoveries": Stat("vista_no_dashboard", "high", "recoveries",
                                         "suite"),
    "TABLE2:react": Stat("react", "high", "cost_usd", "mean"),
    "TABLE2:vista": Stat("vista", "high", "cost_usd", "mean"),
    "TABLE2:active_compression": Stat("active_compression", "high", "cost_usd", "mean"),
    "TABLE7:vista_steps": Stat("vista", "high", "requests", "mean"),
}

#: cell id -> why a point does not simulate it
LEFT_OUT = {
    "FIG6:baseline": "the paper's strongest baseline at W = 12K; a point plays ReAct "
                     "and VISTA only in the window sweep",
    "TABLE2:claude_code": "Claude Code is not one of the simulated programs",
    "FIG9:rescue_recovered": "a rescue count needs the whole 75-task suite's pairing "
                             "of VISTA with ReAct; a point plays 45 tasks",
    "FIG9:rescue_archived": "as FIG9:rescue_recovered",
}


def level_of(stat: Stat, design) -> int:
    """The growth level or window (tokens) a stat reads, under ``design``."""
    if stat.level == "low":
        return design.low_growth
    if stat.level == "high":
        return design.growth
    return int(stat.level)


def point_stats(design, rows: list[dict]) -> dict[str, float | None]:
    """Every :data:`STATS` cell's simulated value from one point's episode rows
    (``None`` where the point played no such episode: a design without that sweep
    or level).

    Args:
        design: the point's :class:`~experiments.claims.robustness.model.Design`.
        rows: the point's episode rows (:data:`experiments.sweep.ROW_COLUMNS`).
    """
    out: dict[str, float | None] = {}
    for cid, s in STATS.items():
        lvl = level_of(s, design)
        # a LOCA-like level and a window can share a number: the generator decides
        loca = s.level in ("low", "high")
        vals = [float(r[s.column]) for r in rows
                if r["program"] == s.program and int(r["level"]) == lvl
                and r["task_id"].startswith("loca") == loca]
        if not vals:
            out[cid] = None
            continue
        mean = sum(vals) / len(vals)
        out[cid] = {"percent": 100.0 * mean, "mean": mean, "suite": SUITE * mean}[s.kind]
    return out
