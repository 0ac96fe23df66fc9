"""The LOCA-like families and the BrowseComp-like queries (issue 17): difficulty from
structure, never a hint.

Walks every task of the default LOCA suite (15 families x 5 seeds x the six growth
levels) and of the window sweep (50 queries; the window does not change a query) and
checks that no call or question names where a value is, that superseded values and
distractors are there, and that evidence sizes follow the size law."""

import numpy as np
import pytest

import sim.tasks.loca as loca
from sim.tasks.browse import BrowseParams, browse_task
from sim.evolve.split import split_tasks
from sim.tasks.families import ARCHETYPES, FAMILIES, TaskParams, family_spec
from sim.tasks.loca import GROWTH_LEVELS, SEEDS_PER_FAMILY, loca_task


def names_source(task) -> list[str]:
    """Where the task's text names the call or record holding a value: the record
    (or entity) id in any call's arguments or tool name, or a call's arguments in the
    statement."""
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
        fam = FAMILIES.index(task.family)
        spec = family_spec(fam)
        # a value in bulk data follows the size-biased law (tests/tasks/test_late_reuse.py)
        bulk = set(loca.bulk_facts(fam, task.seed))
        if spec.evidence == "lookup":
            ratios += [task.steps[f.source].tokens / spec.median_tokens
                       for j, f in enumerate(task.facts.values()) if j not in bulk]
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


@pytest.fixture(scope="module")
def queries():
    from experiments.settings.vista import WindowSettings

    return [browse_task(q, 0) for q in range(WindowSettings().queries)]


def test_no_browse_query_names_the_document_that_holds_an_answer(queries):
    assert len(queries) == 50
    for task in queries:
        task.validate()
        assert names_source(task) == [], task.task_id
        assert not any(f.source_known for f in task.facts.values())


def test_the_check_catches_a_browse_query_that_names_its_source():
    task = browse_task(2, 0, params=BrowseParams(source_named=True))
    task.validate()
    assert names_source(task) and all(f.source_known for f in task.facts.values())


def test_browse_superseded_values_latest_right_and_distractors(queries):
    """A revised value: two answer lines, the later right; distractors: the same
    attribute for another entity of the same kind. Rates against their parameters:
    the revised count is binomial(n facts, p_superseded), the distractor count
    Poisson(n facts x distractors_per_fact), each checked within 4 sd."""
    bp = BrowseParams()
    revised = distractors = n = 0
    for task in queries:
        for key, fact in task.facts.items():
            n += 1
            occ = _lines(task, key)
            assert occ[-1][0] == fact.source and len(occ) in (1, 2)
            if len(occ) == 2:
                revised += 1
                assert fact.extract(occ[0][1]) != fact.value
            subject, _, attr = key.split(" ", 2)
            distractors += sum(1 for s in task.steps for line in s.content.split("\n")
                               if line.startswith(subject + " ")
                               and f" {attr}: " in line and not line.startswith(key))
    assert abs(revised - n * bp.p_superseded) < 4 * np.sqrt(
        n * bp.p_superseded * (1 - bp.p_superseded))
    # the facts of one query have distinct attributes, so each line counts once
    assert abs(distractors - n * bp.distractors_per_fact) < 4 * np.sqrt(
        n * bp.distractors_per_fact)


def test_browse_document_sizes_follow_the_size_law(queries):
    """Every document, gold included, is drawn from the lognormal of the size law:
    the ln-size spread of the gold documents is near ``size_sd`` (the clip narrows
    it) and some gold documents are several times the median."""
    bp = BrowseParams()
    ratios = [task.steps[i].tokens / bp.doc_median for task in queries
              for i, s in enumerate(task.steps) if s.facts]
    logs = np.log(ratios)
    assert max(ratios) > 4 and min(ratios) < 0.5
    assert 0.6 * bp.size_sd < logs.std() < 1.2 * bp.size_sd
    assert browse_task(0, 0, params=bp.with_(size_sd=1.0)) != browse_task(0, 0)
