"""ContextEvo program grammar: specs round-trip through JSON, every registered program
is a spec whose compiled program gives byte-identical episode records, bad specs get
one clear error naming the value."""

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.evolve.contextevo.compile import compile_spec, spec_of
from sim.evolve.contextevo.spec import (KNOB_TYPES, MECHANISMS, POINTS, SURFACES, Mechanism, ProgramSpec,
                             SpecError, diff, load_spec)
from sim.policies import PROGRAMS, make_program


@pytest.fixture(scope="module")
def tasks():
    from sim.tasks.browse import browse_task
    from sim.tasks.loca import loca_task

    # budgets under the growth so every mechanism fires (trim, mask, triggers, folds)
    return [(loca_task(4, 0, 64_000), 32_000), (loca_task(7, 1, 48_000), 24_000),
            (browse_task(3, 0), 12_000)]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_registered_program_round_trips_byte_for_byte(name, tasks):
    from sim.agents import SyntheticAgent
    from sim.harness import run_episode

    spec = spec_of(name)
    assert ProgramSpec.from_json(spec.to_json()) == spec
    for task, budget in tasks:
        a = run_episode(task, make_program(name), SyntheticAgent("medium"), budget=budget,
                        seed=11)
        b = run_episode(task, compile_spec(spec), SyntheticAgent("medium"), budget=budget,
                        seed=11)
        assert json.dumps(dataclasses.asdict(a)) == json.dumps(dataclasses.asdict(b))


def test_round_trip_exercises_the_mechanisms(tasks):
    """The byte equality above is not vacuous: the mechanisms act on these tasks."""
    from sim.agents import SyntheticAgent
    from sim.harness import run_episode

    task, budget = tasks[0]
    edits = {n: run_episode(task, compile_spec(spec_of(n)), SyntheticAgent("medium"),
                            budget=budget, seed=11) for n in ("react", "masking", "vista")}
    assert edits["react"].deletes > 0
    assert edits["masking"].program_edits > 0
    assert edits["vista"].agent_archives > 0


def _mechanisms(point):
    def build(name):
        knobs = {}
        for k, v in MECHANISMS[point][name].items():
            if isinstance(v, bool):
                knobs[k] = st.booleans()
            elif isinstance(v, int):
                knobs[k] = st.integers(int(KNOB_TYPES[k][1]), 50)
            elif isinstance(v, float) and k != "at":
                knobs[k] = st.floats(0.05, 1.0, allow_nan=False)
            elif k == "at":
                knobs[k] = st.floats(0.05, 200_000, allow_nan=False)
            elif k == "fraction":
                knobs[k] = st.one_of(st.none(), st.floats(0.01, 1.0))
            else:
                knobs[k] = st.text(max_size=20)
        return st.fixed_dictionaries(knobs).map(lambda kw: Mechanism.make(point, name, **kw))
    return st.sampled_from(sorted(MECHANISMS[point])).flatmap(build)


specs = st.builds(
    lambda pts, dash, tools, handles, proto, name: ProgramSpec(
        name=name, dashboard=dash, agent_tools=tuple(sorted(tools)), show_handles=handles,
        protocol=proto, **{**pts, "observation_entry": Mechanism.make(
            "observation_entry", "offload" if handles else "keep")}),
    st.fixed_dictionaries({p: _mechanisms(p) for p in POINTS if p != "observation_entry"}),
    st.sampled_from(["none", "ledger", "status_board"]),
    st.sets(st.sampled_from(["archive", "delete", "recover"])), st.booleans(),
    st.sampled_from(["plain", "vista", "reworded"]),
    st.text(min_size=1, max_size=12))


@given(specs)
def test_specs_round_trip_through_json(spec):
    text = spec.to_json()
    again = ProgramSpec.from_json(text)
    assert again == spec and hash(again) == hash(spec)
    assert again.to_json() == text
    assert diff(spec, again) == []


def test_diff_names_changed_surfaces():
    a, b = spec_of("react"), spec_of("vista")
    changed = {s for s, _, _ in diff(a, b)}
    assert {"dashboard", "agent_tools", "show_handles", "protocol", "recovery",
            "observation_entry", "representation_update"} == changed
    assert changed <= set(SURFACES)


@pytest.mark.parametrize("text, needle", [
    ("{not json", "malformed spec JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"dashboard": "neon"}', "'neon'"),
    ('{"dashboard": "bounded_ledger:0"}', "bounded_ledger:0"),
    ('{"dashboard": "bounded_ledger:x"}', "bounded_ledger:x"),
    ('{"frobnicate": 1}', "frobnicate"),
    ('{"representation_update": {"mechanism": "shred"}}', "'shred'"),
    ('{"representation_update": {"mechanism": "mask", "window": -3}}', "-3"),
    ('{"representation_update": {"mechanism": "mask", "windw": 3}}', "windw"),
    ('{"agent_tools": ["teleport"]}', "teleport"),
    ('{"show_handles": true}', "offload"),
])
def test_malformed_specs_name_the_bad_value(text, needle):
    with pytest.raises(SpecError, match=None) as exc:
        ProgramSpec.from_json(text)
    msg = str(exc.value)
    assert needle in msg and "\n" not in msg


def test_spec_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"dashboard": 3}')
    with pytest.raises(SpecError, match="bad.json"):
        load_spec(str(bad))
    with pytest.raises(SpecError, match="missing.json"):
        load_spec(str(tmp_path / "missing.json"))
    good = tmp_path / "good.json"
    good.write_text(spec_of("auto_archive").to_json())
    assert load_spec(str(good)) == spec_of("auto_archive")
    # a file naming no surface is refused, not read as the all-default program
    for text in ("{}", '{"name": "x"}', "[]"):
        empty = tmp_path / "empty.json"
        empty.write_text(text)
        with pytest.raises(SpecError, match=r"empty\.json.*names no surface.*request_assembly"):
            load_spec(str(empty))
    # one named surface is enough
    one = tmp_path / "one.json"
    one.write_text('{"request_assembly": {"mechanism": "trim", "trim_to": 0.5}}')
    assert load_spec(str(one)).request_assembly.get("trim_to") == 0.5


def test_unknown_program_names_it():
    with pytest.raises(KeyError, match="'nope'"):
        spec_of("nope")
