"""Evolver-side curation (Evo-Harness §3.2 "Harness evolution", App. E.2-E.3).

:class:`Curator` decides ACCEPT, MERGE or SKIP for each proposal of a batch under the
harness budget: it prefers merging over duplication (a proposal as similar as
``merge_threshold`` to a held skill of the same level and topic, or an ENHANCE of a
named skill, is merged into it), respects every cap (when a new skill does not fit,
the two most similar held skills are consolidated by a real MERGE, else the proposal
is skipped), and applies E.3's generalizability test: a general skill is created only
once its pattern has been proposed from tasks of at least ``min_topics`` topics.
Skills whose feedback counts show them harmful are pruned (``prune_after``).

:class:`AddOnlyCurator` is the baseline public users report for another playbook
system: every proposal is appended as a new skill, nothing is merged, no budget.
Similarity is rapidfuzz's ``token_set_ratio`` (:func:`sim.evolve.evoharness.select.similarity`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.evolve.evoharness.propose import NONE, Proposal
from sim.evolve.evoharness.select import similarity
from sim.evolve.evoharness.skill_harness import HarnessCapError, SkillHarness
from sim.evolve.evoharness.skills import Skill

ACCEPT, MERGE, SKIP = "ACCEPT", "MERGE", "SKIP"


@dataclass(frozen=True)
class Decision:
    """One curation decision: ``action`` on proposal ``proposal`` (``target``: the
    skill merged into or created; ``reason``: why, for SKIP)."""

    action: str
    proposal: Proposal
    target: str = ""
    reason: str = ""


def _skill(p: Proposal, topics=()) -> Skill:
    return Skill(p.name, p.level, p.topic if p.level == "topic" else "", p.trigger,
                 p.body, (p.task_id,), tuple(topics) or (p.topic,))


@dataclass
class Curator:
    """The budgeted curator (E.2/E.3).

    Attributes:
        levels: skill levels it may keep (``("general",)`` / ``("topic",)`` give the
            general-only / topic-only ablations).
        min_topics: topics a general pattern must be seen in.
        merge_threshold: similarity (0-100) at which a proposal merges into a skill.
        consolidate_threshold: similarity at which two held skills may be merged to
            make room.
        prune_after: prune a skill once harmful >= this and harmful > 2 * helpful
            (0: never).
    """

    levels: tuple[str, ...] = ("general", "topic")
    min_topics: int = 2
    merge_threshold: float = 80.0
    consolidate_threshold: float = 60.0
    prune_after: int = 4
    seen: dict = field(default_factory=dict)

    def curate(self, harness: SkillHarness, proposals) -> list[Decision]:
        """Apply ACCEPT/MERGE/SKIP to ``proposals`` (one batch) on ``harness``; returns
        the decisions in order. A failed operation leaves ``harness`` unchanged."""
        out = []
        for p in proposals:
            out.append(self._one(harness, p))
        self._prune(harness)
        return out

    def _one(self, h: SkillHarness, p: Proposal) -> Decision:
        if p.op == NONE:
            return Decision(SKIP, p, reason=p.reason or "no proposal")
        if p.level not in self.levels:
            return Decision(SKIP, p, reason=f"{p.level} skills are off in this arm")
        topics = ()
        if p.level == "general":
            seen = self.seen.setdefault(p.directive, set())
            seen.add(p.topic)
            if len(seen) < self.min_topics:
                return Decision(SKIP, p, reason=f"general pattern {p.directive!r} seen in "
                                f"{len(seen)} topic(s), needs {self.min_topics}")
            topics = tuple(sorted(seen))
        cand = _skill(p, topics)
        target = self._similar(h, cand)
        if target:
            try:
                h.absorb(target, cand)
                return Decision(MERGE, p, target)
            except HarnessCapError:
                # keep the evidence (support, counts) without the extra bullets
                try:
                    h.absorb(target, cand.with_(body=h[target].body))
                    return Decision(MERGE, p, target, "content at its token cap")
                except HarnessCapError as exc:
                    return Decision(SKIP, p, target, str(exc))
        try:
            h.add(cand)
            return Decision(ACCEPT, p, cand.name)
        except HarnessCapError as exc:
            if self._consolidate(h):
                try:
                    h.add(cand)
                    return Decision(ACCEPT, p, cand.name, "after consolidating two skills")
                except HarnessCapError as exc2:
                    exc = exc2
            return Decision(SKIP, p, reason=f"budget: {exc}")

    def _similar(self, h: SkillHarness, cand: Skill) -> str:
        """The held skill ``cand`` should merge into ("" if none): same name (ENHANCE),
        else the most similar of the same level and topic above the threshold."""
        if cand.name in h:
            return cand.name
        best, score = "", self.merge_threshold
        for s in h.skills:
            if s.level != cand.level or s.topic != cand.topic:
                continue
            sim = similarity(f"{cand.trigger} {cand.body}", f"{s.trigger} {s.body}")
            if sim >= score and (sim > score or not best):
                best, score = s.name, sim
        return best

    def _consolidate(self, h: SkillHarness) -> bool:
        """MERGE the most similar pair of held skills (same level and topic) when
        similar enough and the result fits; True if one merge was applied."""
        pairs = []
        skills = h.skills
        for i, a in enumerate(skills):
            for b in skills[i + 1:]:
                if a.level == b.level and a.topic == b.topic:
                    sim = similarity(f"{a.trigger} {a.body}", f"{b.trigger} {b.body}")
                    if sim >= self.consolidate_threshold:
                        pairs.append((-sim, a.name, b.name))
        for _, keep, drop in sorted(pairs):
            try:
                h.merge(keep, drop)
                return True
            except HarnessCapError:
                continue
        return False

    def _prune(self, h: SkillHarness) -> None:
        if not self.prune_after:
            return
        for s in h.skills:
            if s.harmful >= self.prune_after and s.harmful > 2 * s.helpful:
                h.remove(s.name)


@dataclass
class AddOnlyCurator:
    """ADD-only, unbounded: every proposal becomes a new skill (a fresh name when taken),
    never merged, never pruned; use with :data:`sim.evolve.evoharness.skill_harness.UNBOUNDED`."""

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
                out.append(Decision(SKIP, p, reason=f"budget: {exc}"))
        return out
