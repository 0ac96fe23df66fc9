"""The LOCA-like families (issue 17): difficulty from structure, never a hint.

Walks every task of the default suite (15 families x 5 seeds x the six growth levels)
and checks that no call or question names where a value is, that superseded values
and distractors are there, and that evidence sizes follow the size law."""

import numpy as np
import pytest

import sim.tasks.loca as loca
from sim.evolve.split import split_tasks
from sim.tasks.families import ARCHETYPES, FAMILIES, TaskParams, family_spec
from sim.tasks.loca import GROWTH_LEVELS, SEEDS_PER_FAMILY, loca_task


def names_source(task) -> list[str]:
    """Where the task's text names the call or record holding a value: the record id
    in any call's arguments or tool name, or a call's arguments in the statement."""
    found = []
    records = {k.split()[1] for k in task.facts}
    for i, s in enumerate(task.steps):
        for rec in records:
            if rec in s.args or rec in s.tool:
                found.append(f"step {i} call {s.tool}({s.args}) names {rec}")
        if s.kind == "observe" and s.args in task.statement:
            found.append(f"statement names call {s.args}")
    return found


@pytest.fixture(scope="module")
def suite():
    return [loca_task(f, s, g) for g in GROWTH_LEVELS for f in range(len(FAMILIES))
            for s in range(SEEDS_PER_FAMILY)]


def test_no_task_names_the_call_that_holds_an_answer(suite):
    assert len(suite) == 450
    for task in suite:
        task.validate()
        assert not family_spec(FAMILIES.index(task.family)).source_named
        assert names_source(task) == [], task.task_id


def test_the_check_catches_a_family_that_names_its_source(monkeypatch):
    """The walker above can fail: a family whose parameter says the statement names
    the call is flagged."""
    named = family_spec(0).__class__(**{**family_spec(0).__dict__, "source_named": True})
    monkeypatch.setattr(loca, "family_spec", lambda f: named)
    task = loca_task(0, 0, 16_000)
    assert names_source(task) and all(f.source_known for f in task.facts.values())


def _lines(task, key):
    return [(i, s.content) for i, s in enumerate(task.steps) if key + ": " in s.content]


def test_superseded_values_latest_right_and_distractors(suite):
    superseded = distractors = 0
    for task in suite:
        spec = family_spec(FAMILIES.index(task.family))
        for key, fact in task.facts.items():
            occ = _lines(task, key)
            assert occ[-1][0] == fact.source  # the latest record is the answer
            if spec.superseded:
                assert len(occ) == 2
            if len(occ) > 1:
                superseded += 1
                assert fact.extract(occ[0][1]) != fact.value
            field = key.split(" ", 2)[2]
            distractors += sum(s.content.count(f" {field}: ") for s in task.steps) - len(occ)
    assert superseded > 450 // 5 and distractors > len(suite)


def test_evidence_sizes_follow_the_size_law(suite):
    """Evidence results are drawn from the same lognormal as every result: some are
    large, and at 256K growth their ln-size spread is near ``TaskParams.size_sd``
    (clipping narrows it), so size-driven archiving can hit evidence."""
    ratios = []
    for task in suite:
        if task.level != 256_000:
            continue
        spec = family_spec(FAMILIES.index(task.family))
        if spec.evidence == "lookup":
            ratios += [task.steps[f.source].tokens / spec.median_tokens
                       for f in task.facts.values()]
    logs = np.log(ratios)
    assert max(ratios) > 4 and min(ratios) < 0.5
    assert 0.6 * TaskParams().size_sd < logs.std() < 1.2 * TaskParams().size_sd


def test_families_cover_every_archetype_and_change_with_the_parameters():
    assert {family_spec(f).archetype for f in range(15)} == set(ARCHETYPES)
    base = loca_task(2, 0, 64_000)
    other = loca_task(2, 0, 64_000, params=TaskParams(size_sd=1.0))
    assert base != other and base == loca_task(2, 0, 64_000)


def test_a_family_can_be_held_out_whole():
    names = [loca_task(f, s, 8_000).task_id for f in range(15) for s in range(5)]
    held = {"crm_dedupe", "lab_results"}
    sp = split_tasks(names, held_out_families=held)
    fam = [n.split("/")[1] for n in sp.held_in]
    assert not held & set(fam)
    assert sum(n.split("/")[1] in held for n in sp.held_out) == 10
    assert set(sp.held_in) | set(sp.held_out) == set(names)
    with pytest.raises(ValueError, match="match no task"):
        split_tasks(names, held_out_families={"nope"})
