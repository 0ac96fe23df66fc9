"""The grammar-wide editor (issue 19): a start whose fault is one knob outside any
fixed menu is repaired on that knob (the true fix's held-out score is the
reference); moves cover every surface; evidence-free baselines spend the same
evaluation budget; a candidate that raises is a failed episode, never an abort; NaN
and infinite knobs are refused naming the field; masking + notes runs."""

import math

import numpy as np
import pytest

import sim.evolve.contextevo.loop as loop
from sim.evolve.contextevo.backends import SyntheticBackend
from sim.evolve.contextevo.compile import spec_of
from sim.evolve.contextevo.grammar_moves import grammar_moves, guided_moves, knob_moves
from sim.evolve.contextevo.loop import EvolveConfig, Runner, evolve, loca_taskset
from sim.evolve.contextevo.spec import SURFACES, ProgramSpec, SpecError, diff


def _mod(prog, **changes):
    return ProgramSpec.from_dict({**spec_of(prog).to_dict(), **changes})


def _mask(w):
    return {"maintenance_planning": {"mechanism": "results_over", "window": w},
            "representation_update": {"mechanism": "mask", "window": w,
                                      "marker": "[Old observation omitted]"}}


@pytest.fixture(scope="module")
def tasks16k():
    # budget = growth: react and masking solve about two thirds; each fault below
    # costs about half of that (measured), so the repair has room to show
    return loca_taskset(16_000, 16_000, families=12, seeds=2)


def _held_out(res, solved, ids=None):
    ids = list(res.held_out) if ids is None else ids
    return float(np.mean([solved[t] for t in ids]))


# fault, start, true fix, check that the evolved spec moved the faulty knob the right way
FAULTS = {
    "trigger_too_early": (
        _mod("clearing", name="early", maintenance_planning={"mechanism": "trigger",
                                                            "at": 0.2}),
        spec_of("clearing"),
        lambda s: s.maintenance_planning.name == "never"
        or s.maintenance_planning.get("at") > 0.2),
    "trim_too_hard": (
        _mod("react", name="hard", request_assembly={"mechanism": "trim", "trim_to": 0.3}),
        spec_of("react"),
        lambda s: s.request_assembly.get("trim_to") > 0.3),
    # on these tasks masking's own default window (10) is itself too small (held-in
    # and held-out accuracy rise to about twice as much at 20, measured): the working
    # knob, and so the true fix, is window 20, and the fault shrinks it to 2
    "window_too_small": (
        _mod("masking", name="small", **_mask(2)),
        _mod("masking", name="masking20", **_mask(20)),
        lambda s: s.maintenance_planning.name == "never"
        or s.maintenance_planning.get("window") > 2),
}


#: faults whose repair is known to recover less than half of the cost, and why (issue
#: 32, "a start whose fault is in the knobs is not repaired"): under the empirical
#: tool-result size law (issue 31) the early trigger steps from 0.2 to 0.8 in
#: iteration 1 and stays there through iteration 4 (measured), while the true fix
#: never clears at this budget (clearing's default, at = 1e5): held-out 2/14 -> 4/14
#: against the fix's 8/14
SHORT_REPAIRS = {"trigger_too_early"}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_knob_fault_is_repaired_on_the_faulty_knob(fault, tasks16k):
    start, fix, moved = FAULTS[fault]
    runner = Runner(tasks16k)
    # two candidates per iteration: the editor's budget goes to its top-ranked moves,
    # the localised knob's steps (with three, a reversible-archive swap can win on
    # held-in instead, which is a different repair; the ranking test below checks it)
    res = evolve(start, tasks16k, SyntheticBackend(0, mislabel=0.0),
                 EvolveConfig(candidates=2), runner)
    rows, _ = runner.run(fix, tasks16k.names)
    fix_solved = {r["task_id"]: r["solved"] for r in rows}
    before = _held_out(res, res.solved["start"])
    reference = _held_out(res, fix_solved)
    after = _held_out(res, res.solved["iter2"])
    assert reference - before >= 0.2, "the fault must cost held-out accuracy"
    final = res.specs["iter2"]
    changed = {s for s, _, _ in diff(start, final)}
    faulty = {"trigger_too_early": "maintenance_planning",
              "trim_too_hard": "request_assembly",
              "window_too_small": "maintenance_planning"}[fault]
    assert faulty in changed and moved(final), (fault, diff(start, final))
    # the repair gains on held-out tasks, and recovers at least half of what the fault
    # cost there, measured against the true fix (the knob set back to its working
    # value), except where it is known to stop short (SHORT_REPAIRS, with the reason)
    assert after > before, (before, after, reference)
    half = after - before >= 0.5 * (reference - before) - 1e-9
    assert half != (fault in SHORT_REPAIRS), (fault, before, after, reference)
    # the judge localised the faulty surface in iteration 1
    hyps = res.log[0]["hypotheses"]
    assert any(h["surface"] == faulty and h["accepted"] for h in hyps), hyps


def test_guided_moves_follow_the_direction():
    early = FAULTS["trigger_too_early"][0]
    later = knob_moves(early, "maintenance_planning", "trigger_later")
    assert later and all(s.maintenance_planning.get("at") > 0.2 for _, s in later)
    sooner = knob_moves(early, "maintenance_planning", "trigger_earlier")
    assert sooner and all(s.maintenance_planning.get("at") < 0.2 for _, s in sooner)
    # the mask and its results-count trigger share a window and move together
    small = FAULTS["window_too_small"][0]
    for _, s in knob_moves(small, "maintenance_planning", "trigger_later"):
        assert s.maintenance_planning.get("window") == s.representation_update.get("window") > 2
    ranked = guided_moves(early, "budget_overflow", "maintenance_planning", "trigger_later")
    assert ranked[0][0].startswith("maintenance_planning.at=")
    assert guided_moves(early, "agent_error", "", "") == []
    with pytest.raises(ValueError, match="sideways"):
        guided_moves(early, "evidence_removed", "request_assembly", "sideways")


@pytest.mark.parametrize("name", ["react", "masking", "auto_archive", "vista", "folding"])
def test_grammar_moves_reach_every_surface(name):
    spec = spec_of(name)
    moved = set()
    for _, s in grammar_moves(spec):
        assert ProgramSpec.from_json(s.to_json()) == s and s != spec
        moved |= {x for x, _, _ in diff(spec, s)}
    # parent_to_child has a single mechanism and protocol is not an editable move
    assert moved >= set(SURFACES) - {"parent_to_child", "protocol"}


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("point, mech, knob", [
    ("request_assembly", "trim", "trim_to"),
    ("maintenance_planning", "trigger", "at"),
    ("representation_update", "archive_oldest", "to")])
def test_non_finite_knobs_are_refused_naming_the_field(bad, point, mech, knob):
    d = spec_of("react").to_dict()
    d[point] = {"mechanism": mech, knob: bad}
    with pytest.raises(SpecError, match=rf"{point}\.{mech}\.{knob}"):
        ProgramSpec.from_dict(d)


def test_masking_with_notes_runs(tasks16k):
    spec = _mod("masking", memory_update={"mechanism": "notes", "keep_last": 4})
    runner = Runner(tasks16k)
    rows, _ = runner.run(spec, tasks16k.names[:4])
    assert len(rows) == 4 and not runner.errors and all("error" not in r for r in rows)


def test_a_raising_candidate_is_a_failed_episode(tasks16k, monkeypatch):
    bad = _mod("react", name="crashes", dashboard="ledger")
    real = loop.run_traced

    def flaky(task, spec, **kw):
        if spec.dashboard == "ledger":
            raise RuntimeError("boom in the harness")
        return real(task, spec, **kw)

    monkeypatch.setattr(loop, "run_traced", flaky)
    runner = Runner(tasks16k)
    rows, trajs = runner.run(bad, tasks16k.names[:3], trajectories=True)
    assert [r["solved"] for r in rows] == [0, 0, 0]
    assert all("boom in the harness" in r["error"] for r in rows)
    assert len(runner.errors) == 3 and trajs[0].error and trajs[0].calls == []
    # the loop goes on when the start itself raises everywhere
    res = evolve(bad, tasks16k, SyntheticBackend(0), EvolveConfig(iterations=1,
                                                                  candidates=2), runner)
    assert set(res.solved) == {"start", "iter1"}


@pytest.mark.parametrize("mode", ["ef_moves", "ef_steps", "best_of_n"])
def test_evidence_free_modes_spend_the_same_evaluation_budget(mode, tasks16k):
    start = FAULTS["trim_too_hard"][0]
    cfg = EvolveConfig(mode=mode, iterations=2, candidates=3, step_surfaces=3)
    res = evolve(start, tasks16k, None, cfg, Runner(tasks16k))
    evaluated = sum(len(e["candidates"]) for e in res.log)
    assert evaluated == cfg.iterations * cfg.candidates
    for e in res.log:
        assert "hypotheses" not in e  # no trajectory read, no judge
        if mode == "ef_steps":
            assert all(n >= 1 for n in e["changeset_surfaces"])
            assert np.mean(e["changeset_surfaces"]) >= 2
