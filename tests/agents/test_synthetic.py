"""Synthetic agents: the context rule depends on the observation channel."""

import pytest

from sim.agents import SyntheticAgent, get_profile
from sim.agents.protocol import ARCHIVE, Entry, LedgerRow, View
from sim.tasks.loca import loca_task


def _view(ledger: bool, notice=None):
    sizes = [300, 250, 9000, 280, 320, 200, 260]
    entries = tuple(Entry(f"B{i + 2}", "tool_result", "visible", "x", s, turn=i)
                    for i, s in enumerate(sizes))
    rows = tuple(LedgerRow(e.id, e.tokens, 0, e.type, 0, "-", "visible") for e in entries)
    used = sum(sizes) + 500
    return View(entries, budget=10_000, ledger=rows if ledger else None,
                used_tokens=used if ledger else None, notice=notice,
                tools=frozenset({"archive", "recover", "task"}))


def test_ledger_agent_archives_the_bulky_block_in_one_call():
    a = SyntheticAgent("medium")
    a.reset(loca_task(0, 0, 8_000), seed=1)
    act = a.act(_view(ledger=True))
    assert act.kind == ARCHIVE and act.block_ids == "B4"


def test_blind_agent_waits_for_the_notice_and_picks_at_random():
    a = SyntheticAgent("medium", channel="blind")
    a.reset(loca_task(0, 0, 8_000), seed=1)
    assert a.act(_view(ledger=False)).kind != ARCHIVE
    picks = set()
    for s in range(20):
        a.reset(loca_task(0, 0, 8_000), seed=s)
        picks.add(a.act(_view(ledger=False, notice="over")).block_ids)
    assert len(picks) > 1


def test_content_agent_sometimes_misses_the_bulky_block():
    prof = get_profile("medium").with_(sigma=3.0)
    picks = []
    for s in range(30):
        a = SyntheticAgent(prof, channel="content")
        a.reset(loca_task(0, 0, 8_000), seed=s)
        act = a.act(_view(ledger=False, notice="over"))
        picks.append(act.block_ids)
    assert "B4" in picks and any(p != "B4" for p in picks)


def test_bad_channel():
    with pytest.raises(ValueError):
        SyntheticAgent(channel="psychic")
