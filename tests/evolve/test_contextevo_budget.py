"""The evaluation budget (issue 32, "Budget and ranking"): every arm scores exactly
``iterations x candidates`` candidate specs on held-in, none twice, whatever the
judge accepts; what the accepted hypotheses leave goes to the next-ranked
hypotheses' moves, then to untried grammar moves; the seed rows record the count,
equal across arms for every seed."""

import numpy as np
import pytest

import sim.evolve.contextevo.loop as loop
from sim.evolve.contextevo.backends import SyntheticBackend
from sim.evolve.contextevo.budget import (NO_EVIDENCE, candidate_stream, rank_hypotheses,
                                          take_fresh, unnamed)
from sim.evolve.contextevo.compile import spec_of
from sim.evolve.contextevo.editor import moves
from sim.evolve.contextevo.judge import Hypothesis, Judgement
from sim.evolve.contextevo.loop import MODES, EvolveConfig, Runner, evolve, loca_taskset
from sim.evolve.contextevo.spec import SURFACES


@pytest.fixture(scope="module")
def taskset():
    # the loop tests' set: on it the judge accepts one hypothesis in iteration 1 and
    # none in iteration 2 (replay rejects it), so ContextEvo evaluated 2 of 4 before
    return loca_taskset(40_000, 20_000, families=12, seeds=2)


def _candidates(res):
    """Every candidate spec an arm evaluated, as (iteration, unnamed spec)."""
    return [(e["iteration"], name) for e in res.log for name in e["candidates"]]


def _nothing_accepted(*args, **kwargs):
    return Judgement([], {})


@pytest.mark.parametrize("mode, accepts_nothing",
                         [(m, False) for m in MODES] + [("contextevo", True)])
def test_every_arm_spends_exactly_the_budget(mode, accepts_nothing, taskset, monkeypatch):
    if accepts_nothing:  # only ContextEvo reads a judge
        monkeypatch.setattr(loop, "judge", _nothing_accepted)
    cfg = EvolveConfig(mode=mode, iterations=2, candidates=3, step_surfaces=2)
    backend = SyntheticBackend(0) if mode in ("contextevo", "random_edits") else None
    runner = Runner(taskset)
    specs = []
    real = loop.select_rows

    def spy(r, spec, held_in):
        specs.append(unnamed(spec))
        return real(r, spec, held_in)

    monkeypatch.setattr(loop, "select_rows", spy)
    res = evolve(spec_of("react"), taskset, backend, cfg, runner)
    assert res.evaluations == cfg.iterations * cfg.candidates == len(specs)
    assert sum(e["evaluated"] for e in res.log) == res.evaluations
    # each evaluation is a spec the arm had not evaluated: not the start, no repeat
    assert len(set(specs)) == len(specs) and unnamed(spec_of("react")) not in specs
    if accepts_nothing:
        assert {s for e in res.log for s in e["sources"].values()} == {"grammar"}


def _hyp(path, surface, direction, accepted, rejected_by="", support=2, bases=(),
         replays=()):
    return Hypothesis(path, surface, tuple(f"t{i}" for i in range(support)), tuple(bases),
                      list(replays), accepted, direction, rejected_by)


def test_rank_puts_the_stronger_evidence_first():
    weak = _hyp("evidence_removed", "request_assembly", "trim_less", False, "support", 1)
    screened = _hyp("budget_overflow", "maintenance_planning", "trigger_later", False,
                    "screens", 5)
    replayed = _hyp("evidence_removed", "representation_update", "keep_more", False,
                    "replay", 2, ("raw",), [{"supports": True}, {"supports": False}])
    accepted = _hyp("evidence_removed", "memory_update", "", True, "", 2, ("raw",))
    ranked = rank_hypotheses([weak, screened, replayed, accepted])
    assert ranked == [accepted, replayed, screened, weak]
    assert accepted.evidence == (3, 0, 1, 2) and replayed.evidence == (2, 1, 1, 2)
    assert weak.evidence > NO_EVIDENCE


def test_nothing_accepted_spends_the_budget_on_the_next_ranked_hypotheses():
    spec = spec_of("react")
    first = _hyp("evidence_removed", "request_assembly", "trim_less", False, "replay",
                 3, ("raw",))
    second = _hyp("budget_overflow", "maintenance_planning", "", False, "screens", 4)
    verdict = Judgement([second, first], {})
    rng = np.random.default_rng(0)
    stream = list(candidate_stream(verdict, spec, [], rng, set(), SURFACES))
    menus = [list(moves(spec, h.pathology, h.surface, h.direction)) for h in (first,
                                                                              second)]
    # the rejected hypotheses' menus, interleaved, the stronger first, before any
    # grammar move; every move carries its hypothesis's evidence
    head = [lab for lab, _, _, src in stream if src == "rejected"]
    assert head[:2] == [menus[0][0], menus[1][0]] and stream[0][3] == "rejected"
    assert stream[0][2] == first.evidence
    assert [src for *_, src in stream] == sorted(
        (src for *_, src in stream), key=["rejected", "grammar"].index)
    # no hypothesis at all: untried grammar moves, drawn by the seed
    bare = list(candidate_stream(Judgement([], {}), spec, [], np.random.default_rng(0),
                                 set(), SURFACES))
    assert bare and {src for *_, src in bare} == {"grammar"}
    assert {ev for _, _, ev, _ in bare} == {NO_EVIDENCE}


def test_take_fresh_redraws_repeats_and_stops():
    a, b, c = spec_of("react"), spec_of("masking"), spec_of("vista")
    assert take_fresh([a, a, b, a, c], {unnamed(b)}, 2) == [a, c]
    assert take_fresh(iter([a, a, a]), set(), 2) == [a]            # dry source
    assert take_fresh([a, b, c], set(), 3, max_draws=2) == [a, b]   # draw cap


def test_seed_rows_record_equal_evaluations_for_every_arm():
    from experiments.contextevo.evidence_free import BASELINES, run_seeds

    def make_sets(seed):
        return [loca_taskset(40_000, 20_000, families=12, seeds=2, base_seed=seed)]

    kw = {"iterations": 2, "candidates": 2}
    rows, _ = run_seeds(make_sets, spec_of("react"), [0, 1], SyntheticBackend, kw,
                        progress=lambda line: None)
    per_seed: dict = {}
    for r in rows:
        per_seed.setdefault((r["seed"], r["setting"]), {})[r["baseline"] or "full"] = \
            r["candidates_evaluated"]
    assert len(per_seed) == 2
    for key, arms in per_seed.items():
        assert set(arms) == {"full", *BASELINES}, key
        assert set(arms.values()) == {4}, (key, arms)


def test_a_tie_goes_to_evidence_then_graded_score_then_order():
    from sim.evolve.contextevo.budget import tie_key, tie_record
    from sim.evolve.contextevo.loop import select_candidate

    cur = ("keep", spec_of("react"))
    a, b, c = spec_of("vista"), spec_of("masking"), spec_of("folding")
    scored = [("a", a, 0.5), ("b", b, 0.5), ("c", c, 0.4)]
    rows = [{"solved": 1, "score": 1.0}, {"solved": 0, "score": 0.5}]
    weak, strong = (3, 0, 1, 4), (3, 1, 1, 2)
    keys = {"a": tie_key(weak, rows), "b": tie_key(strong, rows), "c": tie_key(strong, rows)}
    # b ties a on held-in and is listed second; its hypothesis has a supporting replay
    assert select_candidate(cur, scored, 0.4, keys)[0] == "b"
    assert tie_record(scored, keys, "b") == {"tied": ["a", "b"], "tie_broken_by": "evidence"}
    # equal evidence: the higher graded score; all equal: the first listed
    more = [{"solved": 1, "score": 1.0}, {"solved": 0, "score": 0.75}]
    keys = {"a": tie_key(weak, rows), "b": tie_key(weak, more)}
    assert select_candidate(cur, scored[:2], 0.4, keys)[0] == "b"
    assert tie_record(scored[:2], keys, "b")["tie_broken_by"] == "graded"
    keys = {"a": tie_key(weak, rows), "b": tie_key(weak, rows)}
    assert select_candidate(cur, scored[:2], 0.4, keys)[0] == "a"
    assert tie_record(scored[:2], keys, "a")["tie_broken_by"] == "order"
    # the current spec still wins a tie with the best candidate, whatever the evidence
    assert select_candidate(cur, scored, 0.5, keys)[0] == "keep"


def test_the_loop_breaks_a_constructed_tie_by_the_stronger_hypothesis(taskset,
                                                                      monkeypatch):
    # the judge lists the larger support first (a); b passed two screens to a's one,
    # so b's evidence is stronger although the back-end proposes a's move first
    a = _hyp("evidence_removed", "request_assembly", "trim_less", True, "", 4, ("raw",))
    b = _hyp("budget_overflow", "maintenance_planning", "", True, "", 2,
             ("raw", "annotation"))
    assert b.evidence > a.evidence
    monkeypatch.setattr(loop, "judge", lambda *args, **kw: Judgement([a, b], {}))

    def every_candidate_solves_all(runner, spec, held_in):   # a tie above the start
        return [{"task_id": t, "solved": 1, "score": 1.0} for t in held_in]

    monkeypatch.setattr(loop, "select_rows", every_candidate_solves_all)
    res = evolve(spec_of("react"), taskset, SyntheticBackend(0),
                 EvolveConfig(iterations=1, candidates=3))
    entry = res.log[0]
    first_a = next(iter(moves(spec_of("react"), a.pathology, a.surface, a.direction)))
    first_b = next(iter(moves(spec_of("react"), b.pathology, b.surface, b.direction)))
    assert list(entry["candidates"])[0] == first_a          # a's move came first
    assert entry["selected"] == first_b and entry["tie_broken_by"] == "evidence"


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "3"])
def test_hypotheses_tried_is_a_validated_setting(bad):
    assert EvolveConfig().hypotheses == 3
    with pytest.raises(ValueError, match=rf"hypotheses .*got {bad!r}"):
        EvolveConfig(hypotheses=bad)


def test_hypotheses_setting_reaches_the_loop_from_the_command_line():
    import argparse

    from experiments.contextevo import experiment as ce
    from experiments.contextevo.setup import evolve_config, settings_of

    def parse(argv):
        p = argparse.ArgumentParser()
        ce.add_arguments(p)
        return settings_of(p.parse_args(argv))

    assert evolve_config(parse(["--quick"])).hypotheses == 3
    assert evolve_config(parse(["--quick", "--hypotheses", "1"])).hypotheses == 1
    with pytest.raises(SystemExit):
        parse(["--quick", "--hypotheses", "0"])


@pytest.mark.parametrize("k", [1, 2])
def test_candidates_come_from_the_k_strongest_hypotheses(k, taskset, monkeypatch):
    a = _hyp("evidence_removed", "request_assembly", "trim_less", True, "", 4, ("raw",))
    b = _hyp("budget_overflow", "maintenance_planning", "", True, "", 2,
             ("raw", "annotation"))
    monkeypatch.setattr(loop, "judge", lambda *args, **kw: Judgement([a, b], {}))
    monkeypatch.setattr(loop, "select_rows", lambda runner, spec, held_in: [
        {"task_id": t, "solved": 0, "score": 0.0} for t in held_in])
    res = evolve(spec_of("react"), taskset, SyntheticBackend(0),
                 EvolveConfig(iterations=1, candidates=4, hypotheses=k))
    react = spec_of("react")
    only_a = (set(moves(react, a.pathology, a.surface, a.direction))
              - set(moves(react, b.pathology, b.surface, b.direction)))
    entry = res.log[0]
    assert entry["hypotheses_tried"] == k and res.evaluations == 4
    # b's menu holds 3 moves: with one hypothesis tried the 4th is a grammar draw
    from_a = [lab for lab, src in entry["sources"].items()
              if lab in only_a and src != "grammar"]
    # one hypothesis tried: the stronger (b) alone, though the judge lists a first
    assert bool(from_a) == (k == 2), (k, entry["sources"])
    assert ("grammar" in entry["sources"].values()) == (k == 1)


def test_single_moves_cover_the_surfaces_then_fill_the_budget():
    from sim.evolve.contextevo.budget import single_moves
    from sim.evolve.contextevo.grammar_moves import grammar_moves
    from sim.evolve.contextevo.spec import diff

    react = spec_of("react")
    every = grammar_moves(react)
    groups = {tuple(sorted(x for x, _, _ in diff(react, s))) for _, s in every}
    n = len(groups) - 1
    assert len(every) > len(groups) > n > 2   # more moves than budget, several surfaces
    picked = single_moves(react, SURFACES, n, np.random.default_rng(3))
    assert len(picked) == n and all(m in every for m in picked)
    # a subset spread over the surfaces: no two from one group while groups are left
    got = [tuple(sorted(x for x, _, _ in diff(react, s))) for _, s in picked]
    assert len(set(got)) == n
    assert picked == single_moves(react, SURFACES, n, np.random.default_rng(3))
    assert picked != single_moves(react, SURFACES, n, np.random.default_rng(4))
    # fewer moves than the budget: every move, then random steps, none repeated
    few = single_moves(react, ("dashboard",), 6, np.random.default_rng(0))
    moves_ = grammar_moves(react, ("dashboard",))
    assert few[:len(moves_)] == moves_ and len(few) == 6
    assert len({unnamed(s) for _, s in few}) == 6


def test_best_single_move_keeps_the_best_move_from_the_start(taskset):
    from sim.evolve.contextevo.grammar_moves import grammar_moves

    react = spec_of("react")
    runner = Runner(taskset)
    res = evolve(react, taskset, None, EvolveConfig(mode="single_move", iterations=2,
                                                    candidates=3), runner)
    (entry,) = res.log
    every = {unnamed(s) for _, s in grammar_moves(react)}
    assert res.evaluations == 6 and "hypotheses" not in entry
    assert unnamed(res.specs["iter1"]) == unnamed(res.specs["iter2"])
    best = max(entry["candidates"].values())
    start = np.mean([r["solved"] for r in runner.run(react, list(res.held_in))[0]])
    if best > start:
        assert entry["candidates"][entry["selected"]] == best
        assert unnamed(res.specs["iter2"]) in every       # one move from the start
    else:
        assert entry["selected"] == "start"
