"""The synthetic world's parameter table (sim/world.py, ``ctxsim world``): every
parameter has a non-degenerate prior with a source, the defaults are the default
world, and ``world_at`` builds exactly the point it is given."""

import dataclasses
import json
import math

import pytest

from experiments.cli import run_command
from sim.agents.profiles import PROFILES, Profile
from sim.tasks.browse import BrowseParams, browse_task
from sim.tasks.families import TaskParams
from sim.world import TABLE, table, world_at


def test_every_parameter_has_a_prior_and_a_source():
    assert len(TABLE) >= 20
    for p in TABLE.values():
        assert p.low < p.high, p.name
        assert p.low <= p.default <= p.high, p.name
        assert p.source.strip() and p.unit.strip() and p.doc.strip(), p.name
        if p.integer:
            assert float(p.default).is_integer() and p.high - p.low >= 1, p.name
        if p.unit == "probability":
            assert 0.0 <= p.low and p.high <= 1.0, p.name


def test_the_table_covers_every_field_of_the_profile_and_the_task_parameters():
    agent = {f.name for f in dataclasses.fields(Profile)} - {"name"}
    tasks = {f.name for f in dataclasses.fields(TaskParams)}
    # every number of the browse generator (source_named is a switch, not a number)
    browse = {f.name for f in dataclasses.fields(BrowseParams)} - {"source_named"}
    assert {n[6:] for n in TABLE if n.startswith("agent.")} == agent
    assert {n[5:] for n in TABLE if n.startswith("task.")} == tasks
    assert {n[7:] for n in TABLE if n.startswith("browse.")} == browse
    assert {n.split(".")[0] for n in TABLE} == {"agent", "task", "browse"}


def test_default_world_is_the_medium_profile_and_default_tasks():
    w = world_at()
    assert w.profile == PROFILES["medium"].with_(name="world")
    assert w.tasks == TaskParams()
    assert w.browse == BrowseParams()
    for name in ("depth_median", "size_sd", "p_superseded", "doc_median"):
        assert TABLE[f"browse.{name}"].default == getattr(BrowseParams(), name)


def test_no_default_probability_is_certain():
    """No probability of the default profile is exactly 0 or 1 (issue 17)."""
    for p in TABLE.values():
        if p.unit == "probability":
            assert 0.0 < p.default < 1.0, p.name


def test_named_profiles_lie_inside_the_prior():
    for prof in PROFILES.values():
        for name, p in TABLE.items():
            if name.startswith("agent."):
                v = getattr(prof, name[6:])
                assert p.low <= v <= p.high, (prof.name, name, v)


def test_world_at_builds_the_point_it_is_given():
    values = {n: (p.low + p.high) / 2 for n, p in TABLE.items()}
    w = world_at(values)
    for n, p in TABLE.items():
        group, field = n.split(".", 1)
        got = getattr({"agent": w.profile, "task": w.tasks, "browse": w.browse}[group],
                      field)
        want = round(values[n]) if p.integer else values[n]
        assert got == want and (isinstance(got, int) == p.integer), n


def test_world_at_rejects_bad_points():
    with pytest.raises(KeyError, match="agent.p_psychic"):
        world_at({"agent.p_psychic": 0.5})
    with pytest.raises(ValueError, match=r"agent.p_index=1.5 is outside"):
        world_at({"agent.p_index": 1.5})
    with pytest.raises(ValueError, match="must be a number"):
        world_at({"task.size_sd": "wide"})


def test_p_use_curve_against_its_closed_form():
    """p_use(n) = 1 - d x^k / (1 + x^k): 1 at 0, 1 - d/2 at the half point, falling;
    evaluated here through the logistic in ln n, an independent form."""
    prof = PROFILES["medium"]
    d, h, k = prof.ctx_drop_max, prof.ctx_half_tokens, prof.ctx_shape
    assert prof.p_use(0) == 1.0
    assert prof.p_use(h) == pytest.approx(1 - d / 2)
    prev = 1.0
    for n in (1_000, 8_000, 32_000, 128_000, 256_000, 1_000_000):
        logistic = 1 / (1 + math.exp(-k * (math.log(n) - math.log(h))))
        assert prof.p_use(n) == pytest.approx(1 - d * logistic, rel=1e-12)
        assert prof.p_use(n) < prev
        prev = prof.p_use(n)


def test_cli_prints_the_table(capsys):
    assert run_command(["world", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in data["parameters"]] == list(TABLE)
    # the prior rows as the table holds them; a parameter the committed calibration
    # measured also carries its measurement
    assert [{k: v for k, v in r.items() if k != "measured"} for r in data["parameters"]] \
        == table()
    for r in data["parameters"]:
        if "measured" in r:
            m = r["measured"]
            # an estimate the probe could not identify (ctx_*) is null, never a number
            assert m["estimate"] is None or m["low"] <= m["estimate"] <= m["high"]
            assert m["n"] >= 1
    assert len(data["families"]) == 15
    assert run_command(["world"]) == 0
    text = capsys.readouterr().out
    assert all(name in text for name in TABLE)


def test_paper_setting_records_departures():
    import dataclasses

    from experiments.settings.vista import (AblationsSettings, CostSettings,
                                            PressureSettings, WindowSettings)

    paper = AblationsSettings.paper()
    assert paper["growth"] == 128_000  # VISTA's 38/75 is its 128K result
    at = AblationsSettings()
    assert at.paper_setting() == {"paper": paper, "at_paper_setting": True, "differs": {}}
    rec = dataclasses.replace(at, growth=256_000).paper_setting()
    assert not rec["at_paper_setting"] and rec["differs"] == {"growth": [256_000, 128_000]}
    # the paper's setting is the [default] table (declared once, paper=True)
    for cls in (AblationsSettings, CostSettings, PressureSettings, WindowSettings):
        d = cls.table()
        assert {k: v for k, v in cls.paper().items() if k != "source"} == {
            k: d[k] for k in cls.paper() if k != "source"}, cls.NAME


def test_a_sweep_runs_at_a_point_of_the_world():
    import argparse
    import dataclasses

    from experiments.settings.sweeps import world_value
    from experiments.sweep import JobSetup, JobSpec, TaskSpec, run_job

    assert world_value("agent.p_index=0.3") == ("agent.p_index", 0.3)
    for bad in ("agent.p_index=3", "agent.nope=0.5", "agent.p_index", "task.size_sd=x"):
        with pytest.raises(argparse.ArgumentTypeError):
            world_value(bad)
    spec = JobSpec(task=TaskSpec(generator="loca", family=1, seed=0, level=64_000),
                   setup=JobSetup(budget=32_000, programs=("vista",)))
    defaults = world_at({n: p.default for n, p in TABLE.items()})
    assert run_job(dataclasses.replace(spec, world=defaults)) == run_job(spec)
    other = run_job(dataclasses.replace(spec, world=world_at({"task.size_sd": 1.0})))
    assert other[0]["total_tokens"] != run_job(spec)[0]["total_tokens"]


def test_a_browse_job_builds_its_task_at_the_point_of_the_world():
    """``--world browse.<name>=...`` reaches the BrowseComp-like generator; the
    default point builds the default task."""
    import dataclasses

    from experiments.sweep import JobSetup, JobSpec, TaskSpec, build_task

    spec = JobSpec(task=TaskSpec(generator="browse", family=3, seed=0, level=16_000),
                   setup=JobSetup(budget=16_000, programs=("vista",)))
    defaults = world_at({n: p.default for n, p in TABLE.items()})
    assert build_task(dataclasses.replace(spec, world=defaults)) == build_task(spec)
    assert build_task(spec) == browse_task(3, 0)
    other = build_task(dataclasses.replace(spec,
                                           world=world_at({"browse.doc_median": 2_000.0})))
    assert other.observation_tokens != build_task(spec).observation_tokens
    assert other == browse_task(3, 0, params=BrowseParams(doc_median=2_000.0))


@pytest.mark.parametrize("group, cls", [("agent", Profile), ("task", TaskParams),
                                        ("browse", BrowseParams)])
def test_defaults_are_declared_once_on_the_fields(group, cls):
    """The world table's rows of a group are its dataclass fields' own declarations
    (default, range, unit, source): no second copy of a default in sim/world.py, and
    every numeric field has a row (``name`` and the flag ``source_named`` are not
    parameters)."""
    import pathlib

    import sim.world

    rows = [n for n in TABLE if n.startswith(f"{group}.")]
    numeric = [f for f in dataclasses.fields(cls) if f.type in ("float", "int")]
    assert rows == [f"{group}.{f.name}" for f in numeric] and rows
    for f in numeric:
        row = TABLE[f"{group}.{f.name}"]
        assert row.default == f.default == getattr(cls(), f.name)
        assert type(row.default) is type(getattr(cls(), f.name))
        assert row.integer == (f.type == "int")
        assert (row.low, row.high, row.unit, row.source, row.doc) == tuple(
            f.metadata["world"][k] for k in ("low", "high", "unit", "source", "doc"))
    text = pathlib.Path(sim.world.__file__).read_text()
    assert f'Param("{group}.' not in text


def test_a_sweep_builds_its_world_once_and_the_agent_reads_p_index_from_it(monkeypatch):
    """A sweep at a world point: world_at runs once for all its jobs (the job carries
    the typed point, a worker builds none), and the synthetic agent's profile carries
    the point's p_index (and the default of every other field)."""
    import sim.agents
    import sim.world
    from experiments.settings.vista import PressureSettings
    from experiments.sweep import loca_specs, run_job

    calls, profiles = [], []
    real = sim.world.world_at

    def counting(values=None, name="world", beyond_prior=()):
        calls.append(dict(values or {}))
        return real(values, name, beyond_prior)

    class Spy(sim.agents.SyntheticAgent):
        def __init__(self, profile="medium", channel="auto"):
            profiles.append(profile)
            super().__init__(profile, channel)

    monkeypatch.setattr(sim.world, "world_at", counting)
    monkeypatch.setattr(sim.agents, "SyntheticAgent", Spy)
    specs = loca_specs(PressureSettings(levels=(2000,), families=2, seeds=1,
                                        budget=4000, programs=("react", "vista"),
                                        dashboard_tokens=None,
                                        world=(("agent.p_index", 0.3),)))
    assert len(specs) == 2 and calls == [{"agent.p_index": 0.3}]
    rows = run_job(specs[0])
    assert len(rows) == 2 and len(calls) == 1
    assert [p.p_index for p in profiles] == [0.3, 0.3]
    assert profiles[0] == Profile(name="world", p_index=0.3)


def test_a_measurement_may_leave_the_prior_but_not_the_domain():
    # issue 37: beyond_prior admits a named value outside its prior range and
    # inside the values the parameter can take; every other name keeps the prior
    lo = TABLE["agent.p_index"].low
    with pytest.raises(ValueError, match="outside its prior range"):
        world_at({"agent.p_index": lo / 2})
    assert world_at({"agent.p_index": lo / 2},
                    beyond_prior={"agent.p_index"}).profile.p_index == lo / 2
    for v in (0.0, 1.0):   # the domain's ends are values a probability can take
        assert world_at({"agent.p_row_read": v},
                        beyond_prior={"agent.p_row_read"}).profile.p_row_read == v
    for v in (-1e-9, 1 + 1e-9):
        with pytest.raises(ValueError, match=r"outside the values it can take, \[0, 1\]"):
            world_at({"agent.p_row_read": v}, beyond_prior={"agent.p_row_read"})
    # a positive scale: any positive value, not zero for a log-uniform prior
    big = TABLE["agent.ctx_half_tokens"].high * 10
    assert world_at({"agent.ctx_half_tokens": big}, beyond_prior=[
        "agent.ctx_half_tokens"]).profile.ctx_half_tokens == big
    with pytest.raises(ValueError, match="outside the values it can take"):
        world_at({"agent.ctx_half_tokens": 0.0}, beyond_prior=["agent.ctx_half_tokens"])
    assert TABLE["agent.sigma"].domain == (0.0, math.inf)
    # another name outside its prior is still refused
    with pytest.raises(ValueError, match="agent.p_note"):
        world_at({"agent.p_index": 0.0, "agent.p_note": 0.0}, beyond_prior={"agent.p_index"})
    with pytest.raises(KeyError, match="agent.nope"):
        world_at({}, beyond_prior={"agent.nope"})
