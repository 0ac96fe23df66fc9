"""Recovery as a mechanism (issue 31): a read goes to the archived item the view
names with probability ``p_find_target`` (else to another archived item), and after
a read that missed the agent reads again with probability ``p_retry``. Both are
common random numbers of their own purpose: no other draw of the episode moves."""

import dataclasses

import pytest

from sim.agents import SyntheticAgent, get_profile
from sim.agents.protocol import ANSWER, RECOVER, Entry, View
from sim.harness import run_episode
from sim.policies import make_program
from sim.tasks.loca import loca_task

TASK = loca_task(0, 0, 8_000)  # one value, needed by a write and the answer
KEY = next(iter(TASK.facts))
FINAL = len(TASK.steps) - 1


def _archived(named: bool, n_other: int = 3) -> tuple[Entry, ...]:
    """A stream with the statement, one archived item whose index names ``KEY`` (when
    ``named``) and ``n_other`` archived items whose indexes name nothing."""
    out = [Entry("B1", "user_message", "pinned", TASK.statement, 100)]
    ids = [f"B{5 + 2 * i}" for i in range(n_other + 1)]
    for i, bid in enumerate(ids):
        has = f" has {KEY}" if named and i == 0 else ""
        out.append(Entry(f"G{i + 1}", "summary", "archived",
                         f"archived results: {bid} fetch_page({{\"page\": {i}}}){has}",
                         30, handle=f"payloads/{bid}.txt"))
    return tuple(out)


def _view(entries, notice=None):
    return View(entries, budget=100_000, used_tokens=sum(e.tokens for e in entries) + 200,
                notice=notice, tools=frozenset({"archive", "recover", "task"}))


def _first_read(profile, seed, entries):
    a = SyntheticAgent(profile)
    a.reset(TASK, seed)
    a.pos = FINAL
    return a, a.act(_view(entries))


@pytest.mark.parametrize("p, expect", [(0.4, None), (1.0, True)])
def test_a_read_goes_to_the_named_item_with_p_find_target(p, expect):
    """p_find_target = 1: every read goes to the item whose index names the key;
    below 1 some reads go elsewhere, at the rate p (Monte Carlo over 400 seeds,
    a 4-SE band)."""
    prof = get_profile("medium").with_(p_find_target=p)
    hits = [_first_read(prof, s, _archived(True))[1] for s in range(400)]
    assert all(h.kind == RECOVER for h in hits)
    share = sum(h.handle == "B5" for h in hits) / len(hits)
    if expect:
        assert share == 1.0
    else:
        se = (p * (1 - p) / len(hits)) ** 0.5
        assert abs(share - p) < 4 * se


def test_p_find_target_zero_never_reads_the_right_item_while_another_is_archived():
    prof = get_profile("medium").with_(p_find_target=0.0, max_attempts=6)
    for s in range(50):
        a, act = _first_read(prof, s, _archived(True))
        assert act.kind == RECOVER and act.handle != "B5"
    # with nothing else archived there is nothing to confuse the named item with
    a, act = _first_read(prof, 0, _archived(True, n_other=0))
    assert act.kind == RECOVER and act.handle == "B5"


def test_without_a_named_item_the_search_is_the_same_for_any_p_find_target():
    """p_find_target governs only the choice the view names; an unnamed search
    keeps its own random order."""
    for s in range(30):
        reads = {p: _first_read(get_profile("medium").with_(p_find_target=p), s,
                                _archived(False))[1].handle for p in (0.0, 0.5, 1.0)}
        assert len(set(reads.values())) == 1


def _after_a_miss(p_retry, seed):
    """The agent's action after its first read showed a block without the value."""
    prof = get_profile("medium").with_(p_find_target=0.0, p_retry=p_retry,
                                       max_attempts=6)
    a, first = _first_read(prof, seed, _archived(True))
    back = Entry("B40", "tool_result", "visible", "[recovered] nothing here\n", 20)
    return a.act(_view(_archived(True) + (back,), notice="recovered " + first.handle))


def test_after_a_miss_the_agent_reads_again_with_p_retry():
    again = [_after_a_miss(1.0, s) for s in range(40)]
    assert all(x.kind == RECOVER for x in again)
    stop = [_after_a_miss(0.0, s) for s in range(40)]
    # no second read: the answer goes out without the value
    assert all(x.kind == ANSWER and x.values[KEY] != TASK.facts[KEY].value for x in stop)
    p = 0.5
    mid = [_after_a_miss(p, s).kind == RECOVER for s in range(400)]
    assert abs(sum(mid) / 400 - p) < 4 * (p * (1 - p) / 400) ** 0.5


def _episode(task, program, profile, seed, budget=32_000):
    r = run_episode(task, make_program(program), SyntheticAgent(profile),
                    budget=budget, seed=seed)
    return dataclasses.asdict(r)


def test_episodes_find_the_right_item_at_p_find_target_one_and_miss_below():
    """Whole episodes under pressure with a complete index (p_index = 1): every read
    for a value shows it at p_find_target = 1; at 0.4 some reads miss."""
    base = get_profile("medium").with_(p_index=0.95)
    tasks = [loca_task(f, 0, 128_000) for f in (0, 1, 3, 5, 6)]
    res = {p: [_episode(t, "vista", base.with_(p_find_target=p), seed=i)
               for i, t in enumerate(tasks)] for p in (1.0, 0.4)}
    assert sum(r["recovery_targets"] for r in res[1.0]) > 0
    # p_index < 1 can leave a key out of an index: count only named finds
    assert sum(r["failed_reads"] for r in res[0.4]) > sum(r["failed_reads"]
                                                          for r in res[1.0])


class _Log:
    """Records the agent's actions."""

    def __init__(self, agent):
        self.agent, self.name, self.actions = agent, agent.name, []

    def reset(self, task, seed):
        self.agent.reset(task, seed)

    def act(self, view):
        self.actions.append(self.agent.act(view))
        return self.actions[-1]

    def write_notes(self, view, round_):
        return self.agent.write_notes(view, round_)

    @property
    def failed_base(self):
        return self.agent.failed_base


def test_the_new_draws_move_no_other_decision():
    """Common random numbers: the recovery parameters' draws are their own purposes,
    so two agents differing only there act identically up to their first recovery
    read (every archive choice, note and answer draw before it is the same), and a
    program without recovery gives the identical episode."""
    task = loca_task(0, 1, 256_000)
    logs = []
    for p in (1.0, 0.4):
        log = _Log(SyntheticAgent(get_profile("medium").with_(p_find_target=p,
                                                              p_retry=p)))
        run_episode(task, make_program("vista"), log, budget=32_000, seed=4)
        logs.append(log.actions)
    # the first read for a value (a read of an offloaded result names none)
    first = next(i for i, a in enumerate(logs[0]) if a.kind == RECOVER and a.key)
    assert first > 5 and logs[0][:first] == logs[1][:first]
    assert logs[0] != logs[1]  # the recovery parameters do act on this episode
    for program in ("react", "vista_no_recover"):
        a = _episode(task, program, get_profile("medium"), seed=4)
        b = _episode(task, program, get_profile("medium").with_(p_find_target=0.4,
                                                                p_retry=0.3), seed=4)
        assert a == b


def test_the_recovery_parameters_are_rows_of_ctxsim_world(capsys):
    """`ctxsim world --json` lists the three parameters issue 31 added, each with a
    prior range holding its default and a source (a measurement or a guess)."""
    import json

    from experiments.cli import run_command

    assert run_command(["world", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["parameters"]}
    for name in ("agent.p_find_target", "agent.p_retry", "task.p_late_reuse"):
        r = rows[name]
        assert r["low"] < r["default"] < r["high"] and r["unit"] == "probability"
        assert len(r["source"]) > 60
    assert rows["agent.p_retry"]["source"].startswith("guess:")
    assert "calibration.json" in rows["agent.p_find_target"]["source"]
    assert "late_reuse.py" in rows["task.p_late_reuse"]["source"]
