"""Evolver-side curation (Evo-Harness §3.2 "Harness evolution", App. E.2-E.3).

:class:`Curator` decides ACCEPT, MERGE or SKIP for each proposal of a batch under the
harness budget: it prefers merging over duplication (an ENHANCE of a named skill, or a
proposal at least ``merge_threshold`` similar to a held skill of the same level and
topic that already holds its directive, is merged into it: a skill with another
directive is another lesson, not a duplicate), never merges skills whose directives oppose
(:func:`sim.evolve.evoharness.skills.conflict`), respects every cap (when a new skill
does not fit, the two most similar non-opposing held skills are consolidated by a real
MERGE that keeps every directive, else the proposal is skipped), and applies E.3's
generalizability test: a general skill is created only once its pattern has been
proposed from tasks of at least ``min_topics`` topics. Skills whose feedback shows
them harmful are pruned (``prune_after``).

Every decision the budget forced is marked ``budget=True``: a SKIP because a cap is
full, an ACCEPT that needed a consolidation first, the consolidating MERGE itself, and
a MERGE that kept only the evidence because the merged text was over the per-skill
cap. Similarity is :func:`sim.evolve.evoharness.similarity.pair_similarity` (the
measured winner for merging).

:class:`AddOnlyCurator` is the baseline public users report for another playbook
system: every proposal is appended as a new skill and nothing is merged; under the
harness's caps it can only skip once full (the experiment gives it the same caps as
every other arm).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.evolve.evoharness.propose import NONE, Proposal
from sim.evolve.evoharness.similarity import MERGE_AT, pair_similarity
from sim.evolve.evoharness.skill_harness import HarnessCapError, SkillHarness
from sim.evolve.evoharness.skills import Skill, conflict

ACCEPT, MERGE, SKIP = "ACCEPT", "MERGE", "SKIP"
ACTIONS = (ACCEPT, MERGE, SKIP)


@dataclass(frozen=True)
class Decision:
    """One curation decision: ``action`` on ``proposal`` (``target``: the skill merged
    into or created; ``reason``: why; ``budget``: a cap forced it)."""

    action: str
    proposal: Proposal
    target: str = ""
    reason: str = ""
    budget: bool = False


def _skill(p: Proposal, topics=()) -> Skill:
    return Skill(p.name, p.level, p.topic if p.level == "topic" else "", p.trigger,
                 p.body, (p.task_id,), tuple(topics) or (p.topic,))


def _text(s: Skill) -> str:
    return f"{s.trigger} {s.body}"


def budget_counts(decisions) -> dict[str, int]:
    """ACCEPT / MERGE / SKIP counts of the budget-forced decisions in ``decisions``
    (:class:`Decision` s or ``(task_ids, Decision)`` pairs)."""
    out = dict.fromkeys(ACTIONS, 0)
    for d in decisions:
        d = d[1] if isinstance(d, tuple) else d
        if d.budget:
            out[d.action] += 1
    return out


@dataclass
class Curator:
    """The budgeted curator (E.2/E.3).

    Attributes:
        levels: skill levels it may keep (``("general",)`` / ``("topic",)`` give the
            general-only / topic-only ablations).
        min_topics: topics a general pattern must be seen in.
        merge_threshold: pair similarity (0..1) at which a proposal merges into a skill.
        consolidate_threshold: pair similarity at which two held skills may be merged
            to make room (lower: a budget merge keeps both directives).
        prune_after: prune a skill once harmful >= this and harmful > 2 * helpful
            (0: never).
    """

    levels: tuple[str, ...] = ("general", "topic")
    min_topics: int = 2
    merge_threshold: float = MERGE_AT
    consolidate_threshold: float = 0.5
    prune_after: int = 4
    seen: dict = field(default_factory=dict)

    def curate(self, harness: SkillHarness, proposals) -> list[Decision]:
        """Apply ACCEPT/MERGE/SKIP to ``proposals`` (one batch) on ``harness``; returns
        the decisions in order (a consolidation is its own MERGE decision). A failed
        operation leaves ``harness`` unchanged."""
        out: list[Decision] = []
        for p in proposals:
            out += self._one(harness, p)
        self._prune(harness)
        return out

    def _one(self, h: SkillHarness, p: Proposal) -> list[Decision]:
        if p.op == NONE:
            return [Decision(SKIP, p, reason=p.reason or "no proposal")]
        if p.level not in self.levels:
            return [Decision(SKIP, p, reason=f"{p.level} skills are off in this arm")]
        topics = ()
        if p.level == "general":
            seen = self.seen.setdefault(p.directive, set())
            seen.add(p.topic)
            if len(seen) < self.min_topics:
                return [Decision(SKIP, p, reason=f"general pattern {p.directive!r} seen "
                                 f"in {len(seen)} topic(s), needs {self.min_topics}")]
            topics = tuple(sorted(seen))
        cand = _skill(p, topics)
        target = self._similar(h, cand)
        if target:
            try:
                h.absorb(target, cand)
                return [Decision(MERGE, p, target)]
            except HarnessCapError:
                # keep the evidence (support, feedback) without the extra bullets
                try:
                    h.absorb(target, cand.with_(body=h[target].body))
                    return [Decision(MERGE, p, target, "content at its token cap",
                                     budget=True)]
                except HarnessCapError as exc:
                    return [Decision(SKIP, p, target, f"budget: {exc}", budget=True)]
        if cand.name in h:          # same name, opposing content: never merged
            return [Decision(SKIP, p, cand.name, "name taken by an opposing skill")]
        try:
            h.add(cand)
            return [Decision(ACCEPT, p, cand.name)]
        except HarnessCapError as exc:
            first = exc
        done = self._consolidate(h, p)
        if done:
            try:
                h.add(cand)
                return [done, Decision(ACCEPT, p, cand.name,
                                       "after consolidating two skills", budget=True)]
            except HarnessCapError as exc2:
                first = exc2
        return ([done] if done else []) + [Decision(SKIP, p, reason=f"budget: {first}",
                                                    budget=True)]

    def _similar(self, h: SkillHarness, cand: Skill) -> str:
        """The held skill ``cand`` should merge into ("" if none): same name (ENHANCE),
        else the most similar of the same level and topic holding one of its
        directives, at the threshold; never one whose directives oppose ``cand``'s."""
        if cand.name in h:
            return "" if conflict(h[cand.name], cand) else cand.name
        corpus = [_text(s) for s in h.skills]
        best, score = "", self.merge_threshold
        for s in h.skills:
            if s.level != cand.level or s.topic != cand.topic or conflict(s, cand) \
                    or not set(s.directives) & set(cand.directives):
                continue
            sim = pair_similarity(_text(cand), _text(s), corpus)
            if sim >= score and (sim > score or not best):
                best, score = s.name, sim
        return best

    def _consolidate(self, h: SkillHarness, p: Proposal) -> Decision | None:
        """MERGE the most similar non-opposing pair of held skills (same level and
        topic) when similar enough and the result fits; the decision, or None."""
        pairs = []
        skills = h.skills
        corpus = [_text(s) for s in skills]
        for i, a in enumerate(skills):
            for b in skills[i + 1:]:
                if a.level == b.level and a.topic == b.topic and not conflict(a, b):
                    sim = pair_similarity(_text(a), _text(b), corpus)
                    if sim >= self.consolidate_threshold:
                        pairs.append((-sim, a.name, b.name))
        for _, keep, drop in sorted(pairs):
            try:
                h.merge(keep, drop)
                return Decision(MERGE, p, keep, f"budget: consolidated {drop!r} into "
                                f"{keep!r} to make room", budget=True)
            except HarnessCapError:
                continue
        return None

    def _prune(self, h: SkillHarness) -> None:
        if not self.prune_after:
            return
        for s in h.skills:
            if s.harmful >= self.prune_after and s.harmful > 2 * s.helpful:
                h.remove(s.name)


@dataclass
class AddOnlyCurator:
    """ADD-only: every proposal becomes a new skill (a fresh name when taken), never
    merged, never pruned; a proposal the harness's caps refuse is skipped (a budget
    SKIP). Unbounded with :data:`sim.evolve.evoharness.skill_harness.UNBOUNDED`."""

    levels: tuple[str, ...] = ("general", "topic")

    def curate(self, harness: SkillHarness, proposals) -> list[Decision]:
        out = []
        for p in proposals:
            if p.op == NONE or p.level not in self.levels:
                out.append(Decision(SKIP, p, reason=p.reason or "level off"))
                continue
            name, k = p.name, 1
            while name in harness:
                k += 1
                name = f"{p.name}.{k}"
            cand = _skill(p).with_(name=name)
            try:
                harness.add(cand)
                out.append(Decision(ACCEPT, p, name))
            except HarnessCapError as exc:
                out.append(Decision(SKIP, p, reason=f"budget: {exc}", budget=True))
        return out
