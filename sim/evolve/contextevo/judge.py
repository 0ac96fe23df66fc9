"""Stage 2, the judge: cross-case aggregation, the fixed screens, optional replay
(ContextEvo §4.2, App. B.2 "Evidence record and screening").

Candidate hypotheses are the ``(pathology, surface, direction)`` triples the case
reports give for failed cases (:data:`CONTEXT_CAUSES`: ``evidence_removed``,
``budget_overflow``, ``context_degradation``; ``agent_error`` is not a context
attribution). Rewards are graded (the share of
needed values written exactly, :attr:`CaseCard.score`): the low-reward group is the
cases below the corpus median score, the high group the rest (when the median is
the lowest score, the cases at it are low and those above it high; when every case
has the same score there is no contrast and every screen rejects). A hypothesis is
screened with the paper's fixed screens (exactly as stated there), any one of which
suffices:

* raw: the low- and high-reward groups' medians of the pathology's case metric differ
  by more than 25% of the high-group value (:func:`raw_screen`);
* annotation: the share of cases annotated with the pathology is higher in the low
  group and passes the same relative check (:func:`annotation_screen`); solved cases
  are annotated too, so a pathology as common in solved cases as in failed ones
  is rejected;
* stratified: high-work cases have at least the median number of model calls; split
  them at their median final-context size; the high-context half's failure rate
  must exceed the low half's by at least 0.4; needs >= 8 cases and >= 6 high-work
  cases (:func:`stratified_screen`; a case at the median goes to the low half, so
  the high half is strictly above it).

Support threshold: :data:`MIN_SUPPORT` = 2 failed cases reporting the hypothesis. The
paper states no such count (its screens are contrasts); this one is ours, so that a
single report cannot move the policy.

With replay on, a screened hypothesis is replayed at up to three anchor cases (their
first wrong decision). The treatment is derived from the hypothesis
(:func:`sim.evolve.contextevo.decision_replay.hypothesis_view`): for a removal or an
overflow the blocks the blamed point took away come back as the request showed them
earlier; for ``context_degradation`` the request is shortened as the blamed point
would shorten it (older content cut to its evidence lines, or, a trim blamed, only
the newest results kept). A wrong surface restores the wrong blocks (or none), or
shortens the request by dropping what the step needed, and the step still fails. It is kept when most replays
support it; replay compares success rates over samples (the agent's copies may write
different wrong values), and a replay whose original request succeeds in any sample
is never support (variation under unchanged context). Each hypothesis records the stage that rejected it
(``rejected_by``: support, screens, replay). Without aggregation (ablation) the
first failed case's report is taken as the hypothesis, unscreened (still replayed
when replay is on).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.evolve.contextevo.decision_replay import hypothesis_view, replay
from sim.evolve.contextevo.trace import CAUSES

CONTEXT_CAUSES = ("evidence_removed", "budget_overflow", "context_degradation")
#: the card metric each pathology's raw screen compares (a long request: the last
#: request's tokens, the one the final answer was written on)
METRIC = {"evidence_removed": "removed_blocks", "budget_overflow": "notices",
          "context_degradation": "final_context_tokens"}
REL = 0.25
STRAT_GAP, STRAT_MIN_CASES, STRAT_MIN_HIGH_WORK = 0.4, 8, 6
#: failed cases that must report a hypothesis (ours; the paper gives no count)
MIN_SUPPORT = 2
ANCHORS = 3
#: the stage a hypothesis rejected at ``rejected_by`` had passed (:attr:`Hypothesis.evidence`)
_STAGE_REACHED = {"replay": 2, "screens": 1, "support": 0}


def raw_screen(low, high) -> bool:
    """Medians of ``low`` and ``high`` differ by more than 25% of the high median
    (both groups non-empty)."""
    if len(low) == 0 or len(high) == 0:
        return False
    ml, mh = float(np.median(low)), float(np.median(high))
    return abs(ml - mh) > REL * abs(mh)


def annotation_screen(rate_low: float, rate_high: float) -> bool:
    """The annotated failure rate is higher in the low group, by more than 25% of
    the high group's rate."""
    return rate_low > rate_high and rate_low - rate_high > REL * rate_high


def stratified_screen(calls, final_tokens, failed) -> bool:
    """The stratified screen over cases (equal-length sequences: model calls, final
    context tokens, failed 0/1); see the module docstring."""
    calls, final, failed = (np.asarray(x, dtype=float) for x in (calls, final_tokens, failed))
    if calls.size < STRAT_MIN_CASES:
        return False
    hw = calls >= np.median(calls)
    if hw.sum() < STRAT_MIN_HIGH_WORK:
        return False
    f, y = final[hw], failed[hw]
    med = np.median(f)
    hi, lo = f > med, f <= med
    if not hi.any() or not lo.any():
        return False
    return float(y[hi].mean() - y[lo].mean()) >= STRAT_GAP


@dataclass
class Hypothesis:
    """An attribution hypothesis: ``pathology``, ``surface`` (intervention point),
    ``support`` (task ids of the cases reporting it), the screens it passed
    (``bases``), replay verdicts, and whether the judge ``accepted`` it."""

    pathology: str
    surface: str
    support: tuple[str, ...]
    bases: tuple[str, ...] = ()
    replays: list[dict] = field(default_factory=list)
    accepted: bool = False
    direction: str = ""
    #: "" (accepted) or the first stage that rejected it: support, screens, replay
    rejected_by: str = ""

    @property
    def evidence(self) -> tuple[int, int, int, int]:
        """How far the hypothesis got and on what, compared in order (larger is
        stronger): the stage it reached (3 accepted, 2 rejected by replay, 1 by the
        screens, 0 by the support count), its supporting replays, the screens it
        passed, and the failed cases reporting it. Read from held-in evidence only."""
        stage = 3 if self.accepted else _STAGE_REACHED.get(self.rejected_by, 0)
        return (stage, sum(bool(r.get("supports")) for r in self.replays),
                len(self.bases), len(self.support))

    def to_dict(self) -> dict:
        return {"pathology": self.pathology, "surface": self.surface,
                "direction": self.direction, "support": len(self.support),
                "bases": list(self.bases), "replays": self.replays,
                "accepted": self.accepted, "rejected_by": self.rejected_by}


@dataclass
class Judgement:
    """The judge's report: every hypothesis considered (accepted or not) and the
    per-case attribution it implies (task id -> pathology, for failed cases in an
    accepted hypothesis's support)."""

    hypotheses: list[Hypothesis]
    attributions: dict[str, str]

    @property
    def accepted(self) -> list[Hypothesis]:
        return [h for h in self.hypotheses if h.accepted]


def judge(cards, reports, trajectories=None, *, aggregate: bool = True,
          use_replay: bool = True) -> Judgement:
    """Stage 2 over the held-in ``cards`` and ``reports`` (same order); replay reads
    the ``trajectories``' recorded decision points."""
    by_id = {c.task_id: c for c in cards}
    failed = [r for r in reports if by_id[r.task_id].reward == 0
              and r.label in CONTEXT_CAUSES]
    trajs = {t.task_id: t for t in (trajectories or [])}
    if not aggregate:
        hyps = [Hypothesis(failed[0].label, failed[0].surface, (failed[0].task_id,),
                           ("single_case",), accepted=True,
                           direction=failed[0].direction)] if failed else []
        for h in hyps:
            if use_replay:
                _replay_check(h, trajs)
                h.rejected_by = "" if h.accepted else "replay"
        return _finish(hyps)
    groups: dict[tuple[str, str, str], list[str]] = {}
    for r in failed:
        groups.setdefault((r.label, r.surface, r.direction), []).append(r.task_id)
    scores = [_score(c) for c in cards]
    med = float(np.median(scores)) if scores else 0.0
    low = [c for c in cards if _score(c) < med]
    high = [c for c in cards if _score(c) >= med]
    if not low:
        # the median is the lowest score (ties): the cases above it are the high group
        low = [c for c in cards if _score(c) <= med]
        high = [c for c in cards if _score(c) > med]
    labels = {r.task_id: r.label for r in reports}
    strat = stratified_screen([c.model_calls for c in cards],
                              [c.final_context_tokens for c in cards],
                              [1 - c.reward for c in cards])
    hyps = []
    for (path, surface, direction), support in sorted(groups.items(),
                                                      key=lambda kv: -len(kv[1])):
        h = Hypothesis(path, surface, tuple(support), direction=direction)
        bases = []
        m = METRIC[path]
        if raw_screen([getattr(c, m) for c in low], [getattr(c, m) for c in high]):
            bases.append("raw")

        def rate(group):
            return sum(labels[c.task_id] == path for c in group) / len(group) if group else 0.0
        if low and annotation_screen(rate(low), rate(high)):
            bases.append("annotation")
        if strat:
            bases.append("stratified")
        h.bases = tuple(bases)
        h.accepted = bool(bases) and len(support) >= MIN_SUPPORT
        h.rejected_by = ("support" if len(support) < MIN_SUPPORT
                         else "screens" if not bases else "")
        if h.accepted and use_replay:
            _replay_check(h, trajs)
            if not h.accepted:
                h.rejected_by = "replay"
        hyps.append(h)
    return _finish(hyps)


def _replay_check(h: Hypothesis, trajs: dict) -> None:
    """Replay ``h`` at up to :data:`ANCHORS` of its cases' recorded decision points
    (treatment: what the hypothesis says would have changed the decision, restored
    blocks or a shorter request,
    :func:`~sim.evolve.contextevo.decision_replay.hypothesis_view`); keep it only if
    most replays support it. No recorded decision point: the verdict stands."""
    anchors = [trajs[t] for t in h.support if t in trajs
               and trajs[t].decision is not None][:ANCHORS]
    for tr in anchors:
        d = tr.decision
        res = replay(d, hypothesis_view(d, h.pathology, h.surface))
        h.replays.append({"task_id": tr.task_id, "consistent": res.consistent,
                          "changed": res.changed, "supports": res.supports,
                          "samples": len(res.original),
                          "success_rates": [round(x, 3) for x in res.rates]})
    if h.replays:
        h.accepted = sum(r["supports"] for r in h.replays) * 2 > len(h.replays)


def _score(card) -> float:
    # a card built without a graded score (0.0 default) still counts as solved
    return max(float(getattr(card, "score", 0.0)), float(card.reward))


def rejection_counts(hypotheses) -> dict:
    """Hypotheses considered and how many each stage rejected (``support``,
    ``screens``, ``replay``) over hypothesis dicts (:meth:`Hypothesis.to_dict`)."""
    out = {"considered": 0, "accepted": 0, "support": 0, "screens": 0, "replay": 0}
    for h in hypotheses:
        out["considered"] += 1
        out["accepted"] += bool(h["accepted"])
        if h.get("rejected_by"):
            out[h["rejected_by"]] += 1
    return out


def _finish(hyps: list[Hypothesis]) -> Judgement:
    att: dict[str, str] = {}
    for h in hyps:
        if h.accepted:
            for t in h.support:
                att.setdefault(t, h.pathology)
    return Judgement(hyps, att)


def attribution_scores(attributions: dict[str, str], truths) -> dict:
    """Precision and recall of context attributions against the simulator's true
    causes (``truths``: :class:`~sim.evolve.contextevo.trace.Truth` of the same cases).

    precision = correct / attributed; recall = correct / failed cases whose true
    cause is a context cause; None where the denominator is 0. Also per cause."""
    truth = {t.task_id: t.cause for t in truths}
    out = {}
    for name, causes in [("all", CONTEXT_CAUSES)] + [(c, (c,)) for c in CONTEXT_CAUSES]:
        pred = {t: a for t, a in attributions.items() if a in causes}
        correct = sum(truth.get(t) == a for t, a in pred.items())
        actual = sum(c in causes for c in truth.values())
        out[name] = {"precision": correct / len(pred) if pred else None,
                     "recall": correct / actual if actual else None,
                     "attributed": len(pred), "true": actual, "correct": correct}
    out["true_causes"] = {c: sum(v == c for v in truth.values()) for c in CAUSES}
    return out
