"""SkillHarness against a plain model (hypothesis stateful): caps never exceeded, MERGE
conserves counts, a failed operation changes nothing, |Select| <= b, reopen equals live."""

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
from sim.evolve.evoharness.skill_harness import (HarnessCapError, HarnessCaps, HarnessFileError,
                                      SkillHarness)
from sim.evolve.evoharness.skills import Skill, count_tokens, render

CAPS = HarnessCaps(max_skills=3, max_total_tokens=140, max_skill_tokens=55)
NAMES = ["a", "b", "c", "d", "e", "f"]
TOPICS = ["canvas_grades", "crm_dedupe", "lab_results"]
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
                 draw(st.integers(0, 5)), draw(st.integers(0, 5)))


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
                "helpful": s.helpful, "harmful": s.harmful}

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
        lines, seen = list(k["lines"]), {y.strip() for y in k["lines"]}
        for x in d["lines"]:          # each new line once, in order
            if x.strip() and x.strip() not in seen:
                lines.append(x)
                seen.add(x.strip())
        row = {**k, "lines": lines,
               "support": k["support"] | d["support"],
               "helpful": k["helpful"] + d["helpful"], "harmful": k["harmful"] + d["harmful"]}
        expected = {n: (row if n == keep else r) for n, r in self.model.items() if n != drop}
        total = (sum(r["helpful"] for r in self.model.values()),
                 sum(r["harmful"] for r in self.model.values()))
        self._apply(lambda: self.h.merge(keep, drop), expected)
        # MERGE conserves helpful/harmful counts over the harness
        assert (sum(s.helpful for s in self.h.skills),
                sum(s.harmful for s in self.h.skills)) == total

    @precondition(lambda self: len(self.model) >= 1)
    @rule(data=st.data())
    def remove(self, data):
        name = data.draw(st.sampled_from(sorted(self.model)))
        self.h.remove(name)
        del self.model[name]

    @precondition(lambda self: len(self.model) >= 1)
    @rule(data=st.data(), solved=st.booleans())
    def record(self, data, solved):
        names = data.draw(st.lists(st.sampled_from(sorted(self.model)), max_size=3))
        self.h.record(names, solved)
        for n in set(names):
            self.model[n]["helpful" if solved else "harmful"] += 1

    @rule(s=skills(), op=st.sampled_from([NEW, ENHANCE, NONE]))
    def curate(self, s, op):
        """Curation of a proposal: whatever it decides, caps hold (checked by the
        invariant); the model is resynchronised from the harness."""
        p = Proposal(op, s.name, s.level, s.topic or TOPICS[0], s.trigger, s.body,
                     s.directive, s.support[0])
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
            assert SkillHarness.load(path) == self.h


TestHarnessMachine = HarnessMachine.TestCase
TestHarnessMachine.settings = settings(max_examples=40, stateful_step_count=25,
                                       deadline=None,
                                       suppress_health_check=[HealthCheck.too_slow])


def _skill(name="g-verify", body="do: verify\n- re-read each value\n", **kw):
    return Skill(name, kw.pop("level", "general"), kw.pop("topic", ""),
                 kw.pop("trigger", "before the final answer"), body, **kw)


def test_merge_combines_contents_and_removes_the_merged_away_skill():
    h = SkillHarness()
    h.add(_skill("a", "do: verify\n- one\n", support=("t1",), helpful=2, harmful=1))
    h.add(_skill("b", "do: verify\n- one\n- two\n", support=("t2",), helpful=3, harmful=4))
    m = h.merge("a", "b")
    assert "b" not in h and [s.name for s in h.skills] == ["a"]
    assert m.body == "do: verify\n- one\n- two\n"
    assert (m.helpful, m.harmful, m.support) == (5, 5, ("t1", "t2"))


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
        SkillHarness.load(p)
    assert "\n" not in str(exc.value) and str(p) in str(exc.value)


def test_tampered_token_count_and_over_cap_file_are_refused(tmp_path):
    h = SkillHarness()
    h.add(_skill())
    doc = h.to_dict()
    doc["skills"][0]["tokens"] += 1
    p = tmp_path / "h.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(HarnessFileError, match="stored tokens"):
        SkillHarness.load(p)
    doc = h.to_dict()
    doc["caps"]["max_skill_tokens"] = 5
    p.write_text(json.dumps(doc))
    with pytest.raises(HarnessFileError, match="over the per-skill cap of 5"):
        SkillHarness.load(p)


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
    assert SkillHarness.load(tmp_path / "h.json") == h
