"""SkillHarness against a plain model (hypothesis stateful): caps never exceeded, MERGE
unites feedback task sets, a failed operation changes nothing, |Select| <= b, reopen
equals live; and the harness file: lock and revision check (two processes lose no
update), the caller's caps, strict types, duplicate keys, leftover temp files."""

from __future__ import annotations

import json
import tempfile

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from sim.evolve.evoharness.curate import Curator
from sim.evolve.evoharness.propose import ENHANCE, NEW, NONE, Proposal
from sim.evolve.evoharness.select import select
from sim.evolve.evoharness.skill_harness import (UNBOUNDED, HarnessCapError, HarnessCaps,
                                                 HarnessFileError, SkillHarness,
                                                 StaleRevisionError)
from sim.evolve.evoharness.skills import Skill, count_tokens, render

CAPS = HarnessCaps(max_skills=3, max_total_tokens=140, max_skill_tokens=55)
NAMES = ["a", "b", "c", "d", "e", "f"]
TOPICS = ["canvas_grades", "crm_dedupe", "lab_results"]
TASKS = [f"task{i}" for i in range(8)]
WORDS = st.sampled_from(["recover", "archived", "values", "verify", "record", "keep",
                         "notes", "answer", "exact", "workflow", "results", "tool"])
LINES = st.lists(WORDS, min_size=1, max_size=6).map(lambda w: "- " + " ".join(w))


@st.composite
def skills(draw):
    level = draw(st.sampled_from(["general", "topic"]))
    topic = draw(st.sampled_from(TOPICS))
    lines = draw(st.lists(LINES, min_size=1, max_size=5))
    body = "do: " + draw(st.sampled_from(["verify", "recover", "keep"])) + "\n" + \
        "\n".join(lines) + "\n"
    return Skill(draw(st.sampled_from(NAMES)), level, topic if level == "topic" else "",
                 " ".join(draw(st.lists(WORDS, min_size=1, max_size=5))), body,
                 (f"t{draw(st.integers(0, 9))}",), (topic,),
                 tuple(draw(st.lists(st.sampled_from(TASKS), max_size=3))),
                 tuple(draw(st.lists(st.sampled_from(TASKS), max_size=3))))


def model_tokens(name, level, topic, trigger, lines) -> int:
    return count_tokens(render(name, level, topic, trigger, "\n".join(lines) + "\n"))


class HarnessMachine(RuleBasedStateMachine):
    """The harness beside a plain model: name -> dict of fields with body as lines."""

    def __init__(self):
        super().__init__()
        self.h = SkillHarness(CAPS)
        self.model: dict[str, dict] = {}
        self.curator = Curator(min_topics=2, prune_after=0)

    def _row(self, s: Skill) -> dict:
        return {"level": s.level, "topic": s.topic, "trigger": s.trigger,
                "lines": s.body.rstrip("\n").splitlines(), "support": set(s.support),
                "helped": set(s.helped), "harmed": set(s.harmed)}

    def _fits(self, model) -> bool:
        toks = [model_tokens(n, r["level"], r["topic"], r["trigger"], r["lines"])
                for n, r in model.items()]
        return (len(model) <= CAPS.max_skills and sum(toks) <= CAPS.max_total_tokens
                and all(t <= CAPS.max_skill_tokens for t in toks))

    def _apply(self, op, expected):
        """Run ``op``; it must succeed iff the model's ``expected`` state fits, and a
        failure must leave the harness exactly as it was."""
        before = (self.h.to_dict(), self.h.revision)
        if self._fits(expected):
            event("operation within the caps")
            op()
            self.model = expected
        else:
            event("operation over a cap, refused")
            with pytest.raises(HarnessCapError):
                op()
            assert (self.h.to_dict(), self.h.revision) == before

    @rule(s=skills())
    def add(self, s):
        if s.name in self.model:
            with pytest.raises(ValueError):
                self.h.add(s)
            return
        self._apply(lambda: self.h.add(s), {**self.model, s.name: self._row(s)})

    @precondition(lambda self: len(self.model) >= 2)
    @rule(data=st.data())
    def merge(self, data):
        keep, drop = data.draw(st.permutations(sorted(self.model)))[:2]
        k, d = self.model[keep], self.model[drop]
        every = {x.strip() for x in k["lines"] + d["lines"] if x.strip()}
        do = sorted(x for x in every if x.startswith("do:"))
        trig = min((k, d), key=lambda r: (-len(r["support"]), r["trigger"]))["trigger"]
        row = {**k, "trigger": trig, "lines": do + sorted(every - set(do)),
               "support": k["support"] | d["support"],
               "helped": k["helped"] | d["helped"], "harmed": k["harmed"] | d["harmed"]}
        expected = {n: (row if n == keep else r) for n, r in self.model.items() if n != drop}
        tasks = (set().union(*(r["helped"] for r in self.model.values())),
                 set().union(*(r["harmed"] for r in self.model.values())))
        self._apply(lambda: self.h.merge(keep, drop), expected)
        # MERGE loses no task's feedback and counts none twice
        assert (set().union(*(s.helped for s in self.h.skills)),
                set().union(*(s.harmed for s in self.h.skills))) == tasks

    @precondition(lambda self: len(self.model) >= 1)
    @rule(data=st.data())
    def remove(self, data):
        name = data.draw(st.sampled_from(sorted(self.model)))
        self.h.remove(name)
        del self.model[name]

    @precondition(lambda self: len(self.model) >= 1)
    @rule(data=st.data(), solved=st.booleans(), task=st.sampled_from(TASKS))
    def record(self, data, solved, task):
        names = data.draw(st.lists(st.sampled_from(sorted(self.model)), max_size=3))
        self.h.record(names, solved, task)
        for n in set(names):
            self.model[n]["helped" if solved else "harmed"].add(task)

    @rule(s=skills(), op=st.sampled_from([NEW, ENHANCE, NONE]))
    def curate(self, s, op):
        """Curation of a proposal: whatever it decides, caps hold (checked by the
        invariant); the model is resynchronised from the harness."""
        p = Proposal(op, s.name, s.level, s.topic or TOPICS[0], s.trigger, s.body,
                     s.directives[0].split()[0], s.support[0])
        self.curator.curate(self.h, [p])
        self.model = {x.name: self._row(x) for x in self.h.skills}

    @rule(text=st.text(max_size=60), b=st.integers(0, 5))
    def selects(self, text, b):
        got = select(text + " workflow record values", self.h.skills, b)
        assert len(got) <= b
        assert len({s.name for s in got}) == len(got)

    @invariant()
    def caps_hold(self):
        assert len(self.h) <= CAPS.max_skills
        assert self.h.total_tokens <= CAPS.max_total_tokens
        assert all(s.tokens <= CAPS.max_skill_tokens for s in self.h.skills)

    @invariant()
    def matches_model(self):
        assert {s.name: self._row(s) for s in self.h.skills} == self.model

    @invariant()
    def reopen_equals_live(self):
        with tempfile.TemporaryDirectory() as d:
            path = self.h.save(f"{d}/h.json")
            assert SkillHarness.load(path, CAPS) == self.h


TestHarnessMachine = HarnessMachine.TestCase
TestHarnessMachine.settings = settings(max_examples=40, stateful_step_count=25,
                                       deadline=None,
                                       suppress_health_check=[HealthCheck.too_slow])


def _skill(name="g-verify", body="do: verify\n- re-read each value\n", **kw):
    return Skill(name, kw.pop("level", "general"), kw.pop("topic", ""),
                 kw.pop("trigger", "before the final answer"), body, **kw)


def test_merge_combines_contents_and_removes_the_merged_away_skill():
    h = SkillHarness()
    h.add(_skill("a", "do: verify\n- one\n", support=("t1",), helped=("x", "y"),
                 harmed=("z",)))
    h.add(_skill("b", "do: verify\n- one\n- two\n", support=("t2",), helped=("y", "w"),
                 harmed=("v",)))
    m = h.merge("a", "b")
    assert "b" not in h and [s.name for s in h.skills] == ["a"]
    assert m.body == "do: verify\n- one\n- two\n"
    assert (m.helpful, m.harmful, m.support) == (3, 2, ("t1", "t2"))


def test_skill_over_its_token_cap_is_refused_naming_the_value():
    h = SkillHarness(HarnessCaps(max_skill_tokens=20))
    big = _skill(body="do: verify\n" + "- re-read each value again\n" * 10)
    with pytest.raises(HarnessCapError, match=rf"{big.tokens} tokens, over the per-skill "
                                              r"cap of 20"):
        h.add(big)
    assert len(h) == 0 and h.revision == 0


@pytest.mark.parametrize("text, match", [
    ("{not json", "not a JSON harness file"),
    ('{"format": "other", "version": 1}', "format 'other'"),
    ('{"format": "ctxsim-skill-harness", "version": 9}', "unsupported version 9"),
])
def test_malformed_harness_file_is_one_line_naming_the_value(tmp_path, text, match):
    p = tmp_path / "h.json"
    p.write_text(text)
    with pytest.raises(HarnessFileError, match=match) as exc:
        SkillHarness.load(p, HarnessCaps())
    assert "\n" not in str(exc.value) and str(p) in str(exc.value)


def test_tampered_token_count_and_over_cap_file_are_refused(tmp_path):
    h = SkillHarness()
    h.add(_skill())
    doc = h.to_dict()
    doc["skills"][0]["tokens"] += 1
    p = tmp_path / "h.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(HarnessFileError, match="stored tokens"):
        SkillHarness.load(p, HarnessCaps())
    # the caller's caps apply, whatever the file says
    p.write_text(json.dumps(h.to_dict()))
    with pytest.raises(HarnessFileError, match="over the per-skill cap of 5"):
        SkillHarness.load(p, HarnessCaps(max_skill_tokens=5))


def test_negative_b_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"b \(skills per task\) must be an int >= 0, "
                                         r"got -1"):
        select("task", [], -1)


def test_save_is_atomic_leaving_no_temp_files(tmp_path):
    h = SkillHarness()
    h.add(_skill())
    h.save(tmp_path / "h.json")
    h.add(_skill("t-x", "do: rule lab_results\n- x\n", level="topic", topic="lab_results"))
    h.save(tmp_path / "h.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.json"]
    assert SkillHarness.load(tmp_path / "h.json", HarnessCaps()) == h


def test_a_stale_save_is_refused_naming_both_revisions(tmp_path):
    p = tmp_path / "h.json"
    h = SkillHarness()
    h.add(_skill())
    h.save(p)
    a, b = SkillHarness.load(p, HarnessCaps()), SkillHarness.load(p, HarnessCaps())
    a.add(_skill("g-a"))
    b.add(_skill("g-b"))
    a.save(p)
    with pytest.raises(StaleRevisionError, match=r"file is at revision 2 but this "
                                                 r"harness is based on revision 1"):
        b.save(p)
    assert [s.name for s in SkillHarness.load(p, HarnessCaps()).skills] == \
        ["g-verify", "g-a"]
    # a new harness may not overwrite an existing file unless asked to
    with pytest.raises(StaleRevisionError, match="based on revision none"):
        SkillHarness().save(p)
    SkillHarness().save(p, replace=True)
    assert len(SkillHarness.load(p, HarnessCaps())) == 0


def _add_one(args):
    path, name = args
    SkillHarness.update(path, HarnessCaps(max_skills=None), lambda h: h.add(_skill(name)))
    return 0


def test_two_processes_saving_one_harness_lose_no_update(tmp_path):
    """20 trials: two processes each add a skill to the same file at once (update():
    read-modify-write under the lock); both skills are there every time."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    with ctx.Pool(2) as pool:
        for trial in range(20):
            p = tmp_path / f"h{trial}.json"
            SkillHarness().save(p)
            assert pool.map(_add_one, [(p, "g-a"), (p, "g-b")]) == [0, 0]
            got = SkillHarness.load(p, HarnessCaps(max_skills=None))
            assert sorted(s.name for s in got.skills) == ["g-a", "g-b"]
            assert got.revision == 2


def test_the_caller_caps_apply_and_missing_caps_are_an_error(tmp_path):
    p = tmp_path / "h.json"
    h = SkillHarness(UNBOUNDED, [_skill(f"g-{i}") for i in range(5)])
    h.save(p)
    # the file says unbounded; the caller's caps refuse its 5 skills
    with pytest.raises(HarnessFileError, match="5 skills would exceed the cap of 3"):
        SkillHarness.load(p, HarnessCaps(max_skills=3))
    with pytest.raises(ValueError, match="caps are required"):
        SkillHarness.load(p, None)
    doc = json.loads(p.read_text())
    for bad in ({}, {"max_skills": 3}, None):
        doc["caps"] = bad
        p.write_text(json.dumps(doc))
        with pytest.raises(HarnessFileError, match="'caps' must be an object with "
                                                   "exactly"):
            SkillHarness.load(p, UNBOUNDED)
    with pytest.raises(AttributeError):
        h.caps = HarnessCaps(max_skills=1)             # caps are fixed for its life


@pytest.mark.parametrize("field, value", [
    ("support", [None]), ("support", [{"a": 1}]), ("support", [3]), ("helped", [1.5]),
    ("name", 7), ("trigger", None), ("tokens", True), ("harmed", "task1"),
])
def test_strict_types_nothing_is_coerced(tmp_path, field, value):
    p = tmp_path / "h.json"
    SkillHarness(skills=[_skill()]).save(p)
    doc = json.loads(p.read_text())
    doc["skills"][0][field] = value
    p.write_text(json.dumps(doc))
    with pytest.raises(HarnessFileError) as exc:
        SkillHarness.load(p, HarnessCaps())
    assert str(p) in str(exc.value) and "\n" not in str(exc.value)


def test_duplicate_json_keys_are_refused(tmp_path):
    p = tmp_path / "h.json"
    SkillHarness(skills=[_skill()]).save(p)
    text = p.read_text().replace('"revision": 0', '"revision": 0, "revision": 5', 1)
    p.write_text(text)
    with pytest.raises(HarnessFileError, match="duplicate JSON key 'revision'"):
        SkillHarness.load(p, HarnessCaps())


def test_leftover_temp_files_are_cleaned_on_the_next_open(tmp_path):
    p = tmp_path / "h.json"
    SkillHarness(skills=[_skill()]).save(p)
    for i in range(3):                         # what killed saves leave behind
        (tmp_path / f".h.json.tmp-dead{i}").write_text("{partial")
    (tmp_path / "other.txt").write_text("kept")
    SkillHarness.load(p, HarnessCaps())
    assert sorted(x.name for x in tmp_path.iterdir()) == ["h.json", "other.txt"]


def test_save_never_writes_what_load_refuses(tmp_path, monkeypatch):
    """The writer validates its document with the reader first: a state the reader
    would refuse (here: a skill over the caps, forced in behind the API) is not
    written and the file keeps its old content."""
    p = tmp_path / "h.json"
    h = SkillHarness(HarnessCaps(max_skills=1), [_skill()])
    h.save(p)
    before = p.read_text()
    h._skills["g-2"] = _skill("g-2")
    with pytest.raises(HarnessFileError, match="2 skills would exceed the cap of 1"):
        h.save(p)
    assert p.read_text() == before
    assert [x.name for x in tmp_path.iterdir()] == ["h.json"]
