"""The bounded-ledger condition of the presentation probe (issue 14): the same
unpinned rows, sorted by size, in the compact format, and a model reading either
layout is scored the same."""

from __future__ import annotations

import re

import numpy as np

from experiments.vista import presentation as PR

_ROW = re.compile(r"^(B\d+) (\d+) \d+r \w+", re.M)


def test_bounded_condition_lists_the_unpinned_rows_by_size(seed):
    rows = PR.trial_rows(np.random.default_rng(seed))
    text = PR.render(rows, "bounded_ledger", 20_000, 450)
    listed = [(i, int(t)) for i, t in _ROW.findall(text)]
    unpinned = sorted(((r.id, r.tokens) for r in rows if r.status != "pinned"),
                      key=lambda x: -x[1])
    assert listed == unpinned
    assert "+1 more" in text  # the pinned task block, in the remainder


def test_bounded_condition_scores_a_size_reader_and_a_first_row_reader():
    def first_row(msgs, schema):
        return {"tool": "context_workspace_archive",
                "arguments": {"block_id": re.findall(r"^(B\d+)\b", msgs[1]["content"],
                                                     re.M)[0]}}

    rows = PR.probe(first_row, 6, 3, conditions=("sorted_unpinned", "bounded_ledger"))
    s = PR.summarize(rows, ("sorted_unpinned", "bounded_ledger"))
    assert set(s) == {"sorted_unpinned", "bounded_ledger"}
    # both layouts put the largest unpinned block first
    assert s["bounded_ledger"]["accuracy"] == s["sorted_unpinned"]["accuracy"] == 1.0
    assert s["bounded_ledger"]["n"] == 6
