"""EH-curator-budget (issue 32): the budgeted curator's harness ended larger than the
ADD-only one. One cause was a defect: a topic procedure's every bullet restated its
topic ("in inventory audit tasks: ..."), so each merge repeated the topic once more;
the rest is content (both arms fill the same skill-count cap; the budgeted one keeps
merging lessons into its skills, the ADD-only one skips once full)."""

from __future__ import annotations

from sim.evolve.evoharness.propose import Evolver, Execution, draft
from sim.evolve.evoharness.skills import Skill, combine


def _ex(task_id: str, topic: str = "inventory_audit") -> Execution:
    return Execution(task_id=task_id, topic=topic, statement="audit", solved=False,
                     believes_solved=False, answer={}, expected={}, signals={})


def _topic_skill(task_id: str) -> Skill:
    p = next(p for p in draft(_ex(task_id), "verify", Evolver(replay_rate=0.0))
             if p.level == "topic")
    return Skill(p.name, p.level, p.topic, p.trigger, p.body, (task_id,))


def test_merging_topic_procedures_does_not_repeat_the_topic():
    """Merging k drafts of one topic's procedure names the topic as often as one
    draft does (heading and trigger): no bullet restates it."""
    drafts = [_topic_skill(f"t{i}") for i in range(12)]
    merged = drafts[0]
    for d in drafts[1:]:
        merged = combine(merged, d)
    bullets = [x for x in merged.body.splitlines() if x.startswith("- ")]
    assert len(bullets) >= 2                       # the merge did combine content
    for s in (drafts[0], merged):
        assert "inventory audit" not in s.body and "inventory_audit" not in s.body
    assert merged.text().count("inventory") == drafts[0].text().count("inventory")
