"""The reference table's simulated paper numbers (issue 30, item 3;
:mod:`experiments.claims.robustness.stats`): each against the sweeps' own aggregate
of the same rows, every covered cell a registry cell, every cell of the reduced
sweeps' CSVs either simulated or left out with a reason, and no paper value read."""

import ast
import inspect

import numpy as np
import pytest

from experiments.claims.registry import REGISTRY
from experiments.claims.robustness import stats
from experiments.claims.robustness.model import SWEEP_OF, Design
from experiments.claims.robustness.stats import LEFT_OUT, STATS, SUITE, point_stats
from experiments.sweep import aggregate


def _rows(rng, design):
    rows = []
    progs = {design.low_growth: ("react", "vista"),
             design.growth: ("react", "vista", "vista_no_archive", "vista_no_dashboard",
                             "active_compression")}
    for level, ps in progs.items():
        for p in ps:
            for t in range(9):
                rows.append({"program": p, "level": level, "task_id": f"loca/f/s{t}/{level}",
                             "solved": int(rng.random() < 0.5),
                             "total_tokens": float(rng.integers(1e5, 4e6)),
                             "cost_usd": float(rng.random()),
                             "agent_archives": float(rng.integers(0, 5)),
                             "recoveries": float(rng.integers(0, 3)),
                             "requests": float(rng.integers(10, 60))})
    for p in ("react", "vista"):
        for q in range(6):
            rows.append({"program": p, "level": 12_000, "task_id": f"browse/q{q}",
                         "solved": int(rng.random() < 0.5), "total_tokens": 1.0,
                         "cost_usd": 0.0, "agent_archives": 0.0, "recoveries": 0.0,
                         "requests": 5.0})
    return rows


def _agg(rows, program, level, column):
    full = [{**{c: 0.0 for c in ("mean_active", "mean_dashboard", "input_tokens",
                                 "cached_tokens", "output_tokens", "agent_archived_blocks",
                                 "program_edits", "program_edited_blocks",
                                 "recovery_targets", "failed_reads", "offload_reads",
                                 "deletes")}, **r}
            for r in rows if r["program"] == program and r["level"] == level]
    (a,) = aggregate(full)
    return a["accuracy"] if column == "solved" else a[column]


def test_each_stat_is_the_sweeps_aggregate_in_the_papers_unit():
    design = Design(tasks=9, queries=6, windows=(4_000, 12_000, 64_000), seed=0)
    rows = _rows(np.random.default_rng(0), design)
    got = point_stats(design, rows)
    for cid, s in STATS.items():
        lvl = stats.level_of(s, design)
        want = _agg(rows, s.program, lvl, s.column)
        scale = {"percent": 100.0, "mean": 1.0, "suite": SUITE}[s.kind]
        assert got[cid] == pytest.approx(scale * want, rel=1e-12), cid


def test_a_program_or_level_not_played_is_none():
    design = Design(tasks=9, queries=6, windows=(4_000, 12_000, 64_000), seed=0)
    rows = [r for r in _rows(np.random.default_rng(1), design)
            if r["program"] != "vista_no_dashboard" and r["level"] != 12_000]
    got = point_stats(design, rows)
    assert got["FIG8:no_dashboard"] is None and got["FIG6:vista"] is None
    assert got["FIG4:vista_8k"] is not None


def test_every_cell_of_the_reduced_sweeps_is_simulated_or_left_out_with_a_reason():
    ids = {c.id for c in REGISTRY.cells()}
    assert set(STATS) <= ids and set(LEFT_OUT) <= ids
    assert not set(STATS) & set(LEFT_OUT)
    covered = {x.id for c in REGISTRY if c.csv in SWEEP_OF
               for x in c.number.cells.values()}
    assert covered <= set(STATS) | set(LEFT_OUT), covered - set(STATS) - set(LEFT_OUT)
    assert all(len(why) > 20 for why in LEFT_OUT.values())


def test_the_module_reads_no_paper_number():
    """It simulates; the posterior and the predictive check read the cells' values
    (fit and predict apart): no registry import, no ``.value`` attribute read."""
    tree = ast.parse(inspect.getsource(stats))
    names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m and "registry" in m for m in names)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                and n.attr == "value"]
