"""Long requests as a context pathology (issue 32, "Causes" and "Replay"): a start
whose only fault is long-context degradation is diagnosed as ``context_degradation``
by the reviewer and the judge, and replay's shortening treatment supports the fix;
with degradation turned off the pathology is not named. The treatment shortens the
request honestly (the token count the agent's degradation reads is recomputed from
what remains), the reviewer reads pages, never the simulator's cause, and the editor's
moves for the pathology shorten requests."""

from dataclasses import replace

import pytest

import sim.evolve.contextevo.loop as loop
from sim.agents.profiles import get_profile
from sim.agents.protocol import Entry, View
from sim.evolve.contextevo.backends import LONG_REQUEST_TOKENS, SyntheticBackend
from sim.evolve.contextevo.cards import make_card, make_cards
from sim.evolve.contextevo.compile import spec_of
from sim.evolve.contextevo.decision_replay import (FOLD_KEEP, TREATMENTS, hypothesis_view,
                                                   replay, treat)
from sim.evolve.contextevo.editor import moves
from sim.evolve.contextevo.judge import attribution_scores, judge
from sim.evolve.contextevo.loop import Runner, TaskSet
from sim.evolve.contextevo.review import review, review_case
from sim.evolve.contextevo.trace import Call, Trajectory, Truth
from sim.tasks.loca import loca_task

#: a model whose use of what it reads collapses with length: every value is at the
#: top of the world's prior ranges (drop 1.0, Hill exponent 4.3) and the half-point
#: (16K) inside NoLiMa's fitted 4.2K-28K (sim.agents.profiles.LONG_CONTEXT_SOURCE), so
#: a failure on a long request reproduces in every replay sample and a short request
#: is read correctly
DEGRADING = dict(ctx_drop_max=1.0, ctx_half_tokens=16_000.0, ctx_shape=4.3)
#: ten LOCA-like families at a short (8K) and a long (128K) growth: both reward groups
FAMILIES, GROWTHS = 10, (8_000, 128_000)
#: far above any request these tasks make: nothing is ever trimmed or archived
BUDGET = 1_000_000


def _taskset(drop: float) -> TaskSet:
    prof = get_profile("medium").with_(**{**DEGRADING, "ctx_drop_max": drop})
    tasks, seeds = {}, {}
    for g in GROWTHS:
        for f in range(FAMILIES):
            t = loca_task(f, 0, g)
            tasks[t.task_id], seeds[t.task_id] = t, 1_000 + f + g
    return TaskSet("degrading", tasks, seeds, BUDGET, prof)


def _diagnose(drop: float, run=None):
    """The start (react) played, carded, reviewed (synthetic reviewer, its default
    20% mislabel rate) and judged with replay, as one loop iteration does."""
    ts = _taskset(drop)
    runner, spec = Runner(ts), spec_of("react")
    _, trajs = runner.run(spec, ts.names, trajectories=True)
    cards = make_cards(trajs)
    reports = review(trajs, cards, SyntheticBackend(0))
    return {"trajs": trajs, "cards": cards, "reports": reports,
            "truths": runner.truths_of(spec, ts.names),
            "judgement": judge(cards, reports, trajs)}


@pytest.fixture(scope="module")
def degrading():
    return _diagnose(DEGRADING["ctx_drop_max"])


@pytest.fixture(scope="module")
def intact():
    return _diagnose(0.0)


def _failed(d):
    return [c.task_id for c in d["cards"] if not c.reward]


def test_a_degradation_fault_is_named_and_replay_supports_shortening(degrading):
    trajs, truths, judgement = degrading["trajs"], degrading["truths"], degrading["judgement"]
    # the premise: no request ever lost a block, and the simulator's own causes (read
    # here for scoring only) are the degradation draw's
    assert not any(c.removed for t in trajs for c in t.calls)
    failed = _failed(degrading)
    assert len(failed) >= 8
    assert {t.cause for t in truths if t.cause} == {"context_degradation"}
    # the judge names it for most failed cases (measured: 9 of 12)
    named = [t for t in failed if judgement.attributions.get(t) == "context_degradation"]
    assert len(named) * 2 > len(failed), (len(named), len(failed))
    (h,) = [h for h in judgement.accepted if h.pathology == "context_degradation"]
    assert h.surface == "child_to_parent" and h.bases
    # replay supports the fix: most anchors' recorded failure is stable (no original
    # sample succeeds) and most shortened samples succeed (measured: 2 of 3, 0.0 -> 1.0)
    assert len(h.replays) == 3 and sum(r["supports"] for r in h.replays) >= 2
    for r in h.replays:
        assert r["consistent"] and r["success_rates"][0] == 0.0
        if r["supports"]:
            assert r["success_rates"][1] > 0.5
    # the treatment shortened what the agent read
    by_id = {t.task_id: t for t in trajs}
    for r in h.replays:
        d = by_id[r["task_id"]].decision
        short = hypothesis_view(d, h.pathology, h.surface)
        assert sum(e.tokens for e in short.entries) < sum(e.tokens for e in d.view.entries) / 4
    # scored against the simulator's causes: every attribution is right
    score = attribution_scores(judgement.attributions, truths)["context_degradation"]
    assert score["precision"] == 1.0 and score["correct"] == len(named)
    # the editor's first move for it is the fold the issue found to be the true fix
    assert next(iter(moves(spec_of("react"), h.pathology, h.surface, h.direction))) == \
        "child_to_parent->fold"


def test_without_degradation_the_pathology_is_not_named(intact):
    """The same tasks with degradation off (``ctx_drop_max`` 0) fail only by the base
    error, on the final answer. Its pages look like degradation (a value in view
    written wrong on a long request), so the reviewer may report it; replay's
    shortened request still fails, and the judge names nothing."""
    judgement, truths = intact["judgement"], intact["truths"]
    assert "context_degradation" not in {t.cause for t in truths}
    assert "context_degradation" not in judgement.attributions.values()
    for h in judgement.hypotheses:
        if h.pathology == "context_degradation":
            assert not h.accepted
            assert not any(r["supports"] for r in h.replays)


def test_reviewer_reads_pages_not_the_simulator(degrading, monkeypatch):
    """The reports are the same when every true cause is relabelled, and when the
    recorded agent state (which holds the base-error draw) is dropped: the reviewer
    reads the pages only."""
    base = [r.to_dict() for r in degrading["reports"]]
    real = loop.run_traced

    def relabelled(*a, **k):
        row, traj, truth = real(*a, **k)
        return row, replace(traj, decision=None), Truth(truth.task_id, "agent_error")

    monkeypatch.setattr(loop, "run_traced", relabelled)
    ts = _taskset(DEGRADING["ctx_drop_max"])
    _, trajs = Runner(ts).run(spec_of("react"), ts.names, trajectories=True)
    cards = make_cards(trajs)
    assert [r.to_dict() for r in review(trajs, cards, SyntheticBackend(0))] == base


def _misuse_case(request_tokens: int, written: str = "v9", reward: int = 0):
    """call 1 shows ``k: v1``; call 2 writes ``k=written`` on a request of
    ``request_tokens`` with call 1's result still in it."""
    calls = [Call(1, "task", "read({})", result="noise\nrecord A total: v1\n",
                  request_tokens=request_tokens // 2),
             Call(2, "answer", f"answer(record A total={written})",
                  request_tokens=request_tokens, writes=True)]
    traj = Trajectory("loca/x/s0/1", "do it", reward, calls, request_tokens,
                      budget=10 * request_tokens, score=float(reward))
    return review_case(traj, make_card(traj), SyntheticBackend(0, mislabel=0.0))


def test_reviewer_names_a_value_misused_on_a_long_request():
    long_, short = LONG_REQUEST_TOKENS, LONG_REQUEST_TOKENS - 1
    for written in ("v9", "unknown"):
        rep = _misuse_case(long_, written)
        assert (rep.label, rep.surface, rep.direction) == ("context_degradation",
                                                           "child_to_parent", "")
        # the same misuse on a shorter request is the agent's own error
        assert _misuse_case(short, written).label == "agent_error"
    # the value as its evidence showed it: nothing misused
    assert _misuse_case(long_, "v1", reward=1).label == "none"


def _view():
    """pinned task, four results (B2 an older record, B6 its update), a placeholder
    with a handle, and calls between them."""
    es = [Entry("B0", "user_message", "pinned", "task: find record A total", 6)]
    for i, body in enumerate(["record A total: v1", "filler", "record A total: v2",
                              "latest result"]):
        es.append(Entry(f"B{2 * i + 1}", "tool_call", "visible", f"read({i})", 3))
        es.append(Entry(f"B{2 * i + 2}", "tool_result", "visible",
                        "row 1 a=2\n" * 200 + body + "\n", 1_000))
    es.insert(3, Entry("B9", "tool_result", "archived", "[archived B9]", 5, handle="p/9"))
    return View(tuple(es), 10_000, used_tokens=sum(e.tokens for e in es))


def test_fold_shortens_and_keeps_what_the_request_said():
    from sim.agents.synthetic import find_value
    from sim.tasks.base import Fact

    v = _view()
    out = treat(v, "fold", k=1)
    # three of the four 1,000-token results fold to a line or nothing
    assert out.used_tokens == sum(e.tokens for e in out.entries) < v.used_tokens / 3
    ids = [e.id for e in out.entries]
    # pinned, the placeholder (its handle) and the newest call and result stay whole
    assert ids[0] == "B0" and "B9" in ids and ids[-2:] == ["B7", "B8"]
    assert out.entries[-1] == v.entries[-1] and out.entries[ids.index("B9")].handle == "p/9"
    # older results are cut to their evidence lines, in place: the update still
    # supersedes the stale record, and a result with none leaves
    assert [e.text for e in out.entries if e.id in ("B2", "B6")] == [
        "record A total: v1\n", "record A total: v2\n"]
    assert "B4" not in ids
    fact = Fact("record A total", "v2", 6)
    assert find_value(out.entries, fact) == find_value(v.entries, fact) == "v2"
    # k results or fewer: nothing to fold; a view without a budget bar keeps None
    assert treat(v, "fold", k=4).entries == v.entries
    assert treat(replace(v, used_tokens=None), "fold").used_tokens is None
    assert "fold" in TREATMENTS
    with pytest.raises(ValueError, match="'squeeze'"):
        treat(v, "squeeze")


def test_hypothesis_view_follows_the_blamed_point():
    from sim.evolve.contextevo.trace import DecisionPoint

    v = _view()
    d = DecisionPoint(9, v, None, None, {"B4": "old text"})
    folded = hypothesis_view(d, "context_degradation", "child_to_parent")
    assert folded == treat(v, "fold", k=FOLD_KEEP)
    # a trim blamed keeps only the newest results: the older evidence goes with it
    trimmed = hypothesis_view(d, "context_degradation", "request_assembly")
    assert trimmed == treat(v, "keep_recent", k=FOLD_KEEP)
    assert "record A total: " not in "".join(e.text for e in trimmed.entries)
    # a removal is still tested by restoring what the blamed point took away
    assert hypothesis_view(d, "evidence_removed", "request_assembly") == treat(
        v, "restore", earlier=d.earlier, kinds=("gone",))


def test_replay_of_a_degradation_failure_shortens_only(degrading):
    """At a recorded degradation failure the original request fails in every sample;
    keeping the length and changing nothing else (remove an empty category) does not
    help, and the fold does."""
    (h,) = degrading["judgement"].accepted
    anchor = next(r["task_id"] for r in h.replays if r["supports"])
    d = next(t.decision for t in degrading["trajs"] if t.task_id == anchor)
    same = replay(d, treat(d.view, "remove_category", category="no_such_type"))
    assert same.consistent and not same.changed
    assert replay(d, hypothesis_view(d, "context_degradation", "child_to_parent")).supports


def test_moves_for_a_long_request_shorten_it():
    from sim.evolve.contextevo.grammar_moves import guided_moves, knob_moves

    react, folding = spec_of("react"), spec_of("folding")
    ranked = [label for label, _ in guided_moves(react, "context_degradation",
                                                 "child_to_parent", "")]
    assert ranked[0] == "child_to_parent->fold" and ranked[-1] == "make_recoverable"
    assert "memory_update->notes" in ranked and "representation_update->mask" in ranked
    # with folds already on, nothing swaps them off (a swap to all lengthens requests)
    labels = [label for label, _ in guided_moves(folding, "context_degradation",
                                                 "representation_update", "keep_fewer")]
    assert "child_to_parent->all" not in labels and labels
    assert not any(label.endswith("->none") for label in labels)
    # trim_more moves the trim down only, the last resort of the ranking
    trims = knob_moves(react, "request_assembly", "trim_more")
    now = react.request_assembly.get("trim_to")
    assert trims and all(s.request_assembly.get("trim_to") < now for _, s in trims)
    assert labels[-3:-1] == [label for label, _ in trims]
