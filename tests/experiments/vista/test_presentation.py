"""The dashboard-presentation probe with fake models: a position-biased reader and a
size reader, scored against the largest unpinned block."""

from __future__ import annotations

import re

import numpy as np

from experiments.vista import presentation as PR


def listed(dash: str) -> list[tuple[str, int, str]]:
    """(id, tokens, status) in the order a dashboard lists them, any layout."""
    out, section = [], None
    for line in dash.splitlines():
        if line.startswith("### "):
            section = line.split()[1]
        m = re.match(r"^(B\d+) \| ([\d,]+) \|.*\| (\w+)$", line)
        if m:
            out.append((m.group(1), int(m.group(2).replace(",", "")), m.group(3)))
        m = re.match(r"^- (B\d+) \w+ ~([\d,]+) tok", line)
        if m:
            out.append((m.group(1), int(m.group(2).replace(",", "")), section))
    return out


def first_visible(msgs, schema):
    """Archives the first visible block the dashboard lists (pure position bias)."""
    ids = [i for i, _, st in listed(msgs[1]["content"]) if st == "visible"]
    return {"tool": "context_workspace_archive", "arguments": {"block_id": ids[0]}}


def size_reader(msgs, schema):
    """Archives the largest visible block, reading sizes off any layout."""
    rows = [r for r in listed(msgs[1]["content"]) if r[2] == "visible"]
    return {"tool": "context_workspace_archive",
            "arguments": {"block_id": max(rows, key=lambda r: r[1])[0]}}


def test_trials_have_a_unique_largest_unpinned_block(seed):
    rows = PR.trial_rows(np.random.default_rng(seed))
    assert rows[0].status == "pinned" and len(rows) == 9
    sizes = sorted((r.tokens for r in rows if r.status == "visible"), reverse=True)
    assert sizes[0] >= sizes[1]


def test_position_bias_is_fixed_by_sorting_only(seed):
    s = PR.summarize(PR.probe(first_visible, 8, seed))
    assert s["ledger_sorted"]["accuracy"] == s["sorted_unpinned"]["accuracy"] == 1.0
    assert s["ledger"]["accuracy"] < 1.0 and s["ledger"]["first_candidate_share"] == 1.0
    assert s["ledger"]["chance"] == 1 / 8


def test_a_size_reader_is_right_in_every_layout(seed):
    s = PR.summarize(PR.probe(size_reader, 5, seed))
    assert all(s[c]["accuracy"] == 1.0 and s[c]["invalid"] == 0 for c in PR.CONDITIONS)


def test_pinned_unknown_or_missing_answers_are_invalid_and_wrong():
    rows = PR.trial_rows(np.random.default_rng(1))
    pinned = PR.decide(lambda m, s: {"tool": "context_workspace_archive",
                                     "arguments": {"block_id": "B1"}}, rows, "ledger", 9000, 100)
    assert pinned["correct"] == 0 and "cannot archive B1" in pinned["invalid"]
    none = PR.decide(lambda m, s: None, rows, "ledger", 9000, 100)
    assert none["correct"] == 0 and none["invalid"]


def test_plain_schema_drops_the_example_ids():
    rows = PR.trial_rows(np.random.default_rng(2))
    plain = PR.request(rows, "ledger", 9000, 100, plain=True)[0]["content"]
    usual = PR.request(rows, "ledger", 9000, 100)[0]["content"]
    assert '"B3,B4"' in usual and '"B3,B4"' not in plain
