"""The synthetic agent's parameters belong to the agent, never to a program (issue 13):
a difference between two programs must come from what the agent observes.

* no agent parameter is keyed by a program, variant, dashboard or interface name;
* the agent's code never reads a program's identity or interface settings;
* relabelling a program leaves every episode identical;
* the agent's decisions are a function of the views it was shown: replaying the
  recorded views into a fresh agent gives the same actions;
* perception is per block (notes/INTERFACES.md): exact for ledger rows shown,
  the content channel for the rest.
"""

import ast
import dataclasses
import inspect

import numpy as np
import pytest

import sim.agents.synthetic as synthetic
from sim.agents import SyntheticAgent, get_profile
from sim.agents.profiles import PROFILES, Profile
from sim.agents.protocol import ARCHIVE, Entry, LedgerRow, View
from sim.harness import run_episode
from sim.policies import PROGRAMS, make_program
from sim.policies.vista import Vista
from sim.tasks.browse import browse_task
from sim.tasks.loca import loca_task
from sim.world import TABLE, world_at

#: points of the world table away from the defaults (issue 17): the honesty checks
#: hold anywhere in it, not only at the default profile
WORLD_POINTS = {
    "default": {},
    "low": {n: p.low for n, p in TABLE.items()},
    "high": {n: p.high for n, p in TABLE.items()},
    "mixed": {"agent.p_index": 0.2, "agent.ctx_drop_max": 0.8, "agent.p_row_read": 0.9,
              "agent.p_confabulate": 0.9, "agent.sigma": 1.3, "task.size_sd": 2.2,
              "task.p_superseded": 0.5},
}

INTERFACE_WORDS = ("ledger", "stream", "dashboard", "board", "vista", "handle",
                   "interface", "program", "variant")


def test_no_profile_field_is_keyed_by_an_interface():
    fields = [f.name for f in dataclasses.fields(Profile)]
    for name in fields:
        for word in INTERFACE_WORDS + tuple(PROGRAMS):
            assert word not in name.lower(), f"Profile.{name} is keyed by {word!r}"
    for prof in PROFILES.values():
        for f in fields:
            assert not isinstance(getattr(prof, f), dict), f"{prof.name}.{f} is a table"


def test_agent_code_never_reads_program_identity():
    tree = ast.parse(inspect.getsource(synthetic))
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for forbidden in ("program", "dashboard", "protocol", "show_handles", "agent_tools"):
        assert forbidden not in attrs, f"the agent reads .{forbidden}"
    strings = {n.value for n in ast.walk(tree)
               if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert not strings & set(PROGRAMS), strings & set(PROGRAMS)
    assert "status_board" not in strings


class Renamed(Vista):
    """VISTA under another class and registry name: the agent must not notice."""

    name = "renamed"


def _episode(program, task, seed=5, profile="medium"):
    r = run_episode(task, program, SyntheticAgent(profile), budget=128_000, seed=seed)
    d = dataclasses.asdict(r)
    d.pop("program")
    return d


@pytest.mark.parametrize("point", sorted(WORLD_POINTS))
@pytest.mark.parametrize("variant", ["vista", "vista_no_dashboard"])
def test_relabelling_a_program_leaves_the_episode_identical(variant, point):
    """A program that shows the same view gives the identical episode, anywhere in
    the world table (agent profile and task parameters)."""
    knobs = PROGRAMS[variant][1]
    world = world_at(WORLD_POINTS[point])
    task = loca_task(3, 0, 256_000, params=world.tasks)
    base = _episode(make_program(variant), task, profile=world.profile)
    other = Renamed(**knobs)
    other.name = "xyz_" + variant
    assert _episode(other, task, profile=world.profile) == base
    assert base["agent_archives"] > 0  # the episode does exercise the context rule


class Recorder:
    """Wraps an agent and records every view and action."""

    def __init__(self, agent):
        self.agent, self.name, self.log = agent, agent.name, []

    def reset(self, task, seed):
        self.agent.reset(task, seed)

    def act(self, view):
        action = self.agent.act(view)
        self.log.append((view, action))
        return action

    def write_notes(self, view, round_):
        return self.agent.write_notes(view, round_)

    @property
    def failed_base(self):
        return self.agent.failed_base


@pytest.mark.parametrize("point", ["default", "mixed"])
@pytest.mark.parametrize("variant", ["vista", "vista_no_dashboard", "auto_archive"])
def test_decisions_are_a_function_of_the_views(variant, point):
    world = world_at(WORLD_POINTS[point])
    task = loca_task(5, 1, 256_000, params=world.tasks)
    rec = Recorder(SyntheticAgent(world.profile))
    run_episode(task, make_program(variant), rec, budget=128_000, seed=11)
    fresh = SyntheticAgent(world.profile)
    fresh.reset(task, 11)
    assert len(rec.log) > 10
    for view, action in rec.log:
        assert fresh.act(view) == action


def _entries(sizes):
    return tuple(Entry(f"B{i + 2}", "tool_result", "visible", "x", s, turn=i)
                 for i, s in enumerate(sizes))


def test_perception_is_per_block():
    """A ledger row gives the exact size; a block without a row is perceived through
    its content (a bounded ledger: exact for the rows shown only)."""
    a = SyntheticAgent(get_profile("medium").with_(sigma=1.0))
    a.reset(loca_task(0, 0, 8_000), seed=3)
    entries = _entries([1000, 2000, 3000])
    rows = {"B2": 1000}
    assert a.estimate(entries[0], rows) == (1000.0, 0.0)
    est, sd = a.estimate(entries[1], rows)
    assert sd == 1.0 and est == pytest.approx(2000 * np.exp(a._eps[3]))
    # the total: the budget bar when shown, else the sum of the estimates
    view = View(entries, budget=10_000, ledger=(LedgerRow("B2", 1000, 0, "tool_result",
                                                          0, "-", "visible"),))
    assert a.total(view) == pytest.approx(sum(a.estimate(e, rows)[0] for e in entries))
    assert a.total(dataclasses.replace(view, used_tokens=6500)) == 6500


def _over_view(ledger: bool):
    sizes = [3000] * 6
    entries = _entries(sizes)
    rows = tuple(LedgerRow(e.id, e.tokens, 0, e.type, 0, "-", "visible") for e in entries)
    return View(entries, budget=20_000, ledger=rows if ledger else None,
                used_tokens=sum(sizes) + 500 if ledger else None,
                tools=frozenset({"archive", "recover", "task"}))


def test_batch_size_follows_from_uncertainty():
    """Exact sizes: one call frees the excess. Uncertain sizes: the same agent puts
    fewer blocks in a call (it guards against over-freeing), and with no caution
    (free_z = 0) it trusts its estimates like exact ones."""
    task = loca_task(0, 0, 8_000)
    exact = SyntheticAgent("medium")
    exact.reset(task, seed=2)
    act = exact.act(_over_view(ledger=True))
    # used 18,500 > 0.85 B; to 0.6 B = 12,000 needs 6,500 freed: three 3,000 blocks
    # (each leaves a ~40-token placeholder), the newest two kept
    assert act.kind == ARCHIVE and act.block_ids == "B2,B3,B4"
    sizes_per_call = []
    for z in (0.0, 1.0):
        prof = get_profile("medium").with_(sigma=0.5, free_z=z, archive_at=0.5,
                                           archive_to=0.3)
        agent = SyntheticAgent(prof)
        agent.reset(task, seed=2)
        act = agent.act(_over_view(ledger=False))
        assert act.kind == ARCHIVE
        sizes_per_call.append(len(act.block_ids.split(",")))
    assert sizes_per_call[1] < sizes_per_call[0]


def test_recovery_search_is_a_measured_cost():
    """Without knowing which archived document holds a value (BrowseComp-like: the
    gold document is unknown), the agent searches, and the harness counts each read
    that did not show the value. On LOCA-like tasks no call names the record either:
    with a complete archive index (p_index = 1) the agent reads the one indexed
    handle (it finds the item its index names: p_find_target = 1); with a poor one
    (p_index = 0.1) it searches and some reads fail."""
    failed = targets = reads = 0
    for q in range(6):
        task = browse_task(q, 0)
        r = run_episode(task, make_program("vista"), SyntheticAgent("medium"),
                        budget=8_000, seed=q)
        failed, targets, reads = (failed + r.failed_reads, targets + r.recovery_targets,
                                  reads + r.recoveries)
        assert r.failed_reads <= r.recoveries and r.recovery_targets <= r.recoveries
    assert reads > 0 and failed > 0 and targets > 0
    by_index = {}
    for p_index in (1.0, 0.1):
        prof = get_profile("medium").with_(p_index=p_index, p_find_target=1.0)
        by_index[p_index] = [run_episode(loca_task(f, 0, 128_000), make_program("vista"),
                                         SyntheticAgent(prof), budget=32_000, seed=f)
                             for f in range(5)]
    complete, poor = by_index[1.0], by_index[0.1]
    assert sum(r.recoveries for r in complete) > 0
    assert sum(r.failed_reads for r in complete) == 0
    assert sum(r.failed_reads for r in poor) > 0
