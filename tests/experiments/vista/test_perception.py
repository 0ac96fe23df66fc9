"""The perception probe's pipeline (VISTA Table 5) with fake models: snapshots from
the real trajectories, questions, scoring and summaries; no LLM needed."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from experiments.vista import perception as P


def ledger_reader(msgs, schema):
    """A fake model that reads sizes off the ledger when shown one, else says 100."""
    props = schema["properties"]
    sizes = {}
    for m in msgs:
        if m["content"].startswith("<context_workspace_status>"):
            sizes = {i: int(t.replace(",", "")) for i, t in
                     re.findall(r"^(B\d+) \| ([\d,]+) \|", m["content"], re.M)}
            conv = int(re.search(r"conversation ~([\d,]+)", m["content"]).group(1)
                       .replace(",", ""))
    if "tokens" in props:
        return {"tokens": conv if sizes else 100}
    if "larger" in props:
        a, b = props["larger"]["enum"]
        return {"larger": max((a, b), key=lambda i: sizes.get(i, 0)) if sizes else a}
    return {i: sizes.get(i, 100) for i in props}


@pytest.fixture(scope="module")
def snaps():
    return P.snapshots(900, 3, seed=0)


def test_snapshots_fit_the_cap_and_match_the_workspace_counts(snaps):
    assert len(snaps) == 3 and len({s.name for s in snaps}) == 3
    for s in snaps:
        assert s.conversation <= 900 and len(s.blocks) >= 4
        assert s.conversation >= sum(b[2] for b in s.blocks) - 5 * len(s.blocks)
        assert s.dashboard.startswith("<context_workspace_status>")
        for bid, _, tok, _ in s.blocks:
            assert re.search(rf"^{bid} \| {tok:,} \|", s.dashboard, re.M)


def test_questions_are_pairs_within_2x(snaps, seed):
    qs = P.questions(snaps[0], np.random.default_rng(seed), n_pairs=5)
    assert [q.quantity for q in qs[:2]] == ["total", "block"]
    sizes = {b[0]: b[2] for b in snaps[0].blocks}
    for q in qs[2:]:
        a, b = q.items
        assert max(sizes[a], sizes[b]) <= 2 * min(sizes[a], sizes[b])
        assert q.truth == max((a, b), key=sizes.get)


def test_dashboard_closes_the_gap_for_a_ledger_reader(snaps, seed):
    rows = P.probe(snaps, ledger_reader, seed)
    s = P.summarize(rows)
    assert s["+dash"]["total"]["median_rel_error"] == 0
    assert s["+dash"]["block"]["median_rel_error"] == 0
    assert s["+dash"]["pairwise"]["accuracy"] == 1
    assert s["-dash"]["total"]["median_rel_error"] > 0.3
    assert s["-dash"]["block"]["n"] == s["+dash"]["block"]["n"] == 12


def test_invalid_answers_score_as_misses(snaps):
    rows = P.probe(snaps[:1], lambda m, s: None, 0, n_pairs=1)
    assert all(r["correct"] == 0 for r in rows if r["quantity"] == "pairwise")
    assert all(r["rel_error"] == float("inf") for r in rows if r["quantity"] != "pairwise")


def test_perception_command_against_a_fake_endpoint(tmp_path, monkeypatch):
    import contextlib

    from experiments.cli import main
    from sim.agents.llm import ChatClient, LLMSettings

    @contextlib.contextmanager
    def fake_endpoint(args):
        yield LLMSettings(base_url="http://127.0.0.1:9/v1", model="fake"), {"model": "fake"}

    import experiments.answers as A

    monkeypatch.setattr(A, "_endpoint", fake_endpoint)
    monkeypatch.setattr(ChatClient, "ask_json", lambda self, m, s: ledger_reader(m, s))
    assert main(["run", "perception", "--out", str(tmp_path), "--quick", "--no-cache",
                 "--base-url", "http://127.0.0.1:9/v1"]) == 0
    side = json.loads((tmp_path / "perception.json").read_text())
    assert side["model"] == "fake" and side["summary"]["+dash"]["pairwise"]["accuracy"] == 1
    assert (tmp_path / "perception.png").stat().st_size > 10_000
