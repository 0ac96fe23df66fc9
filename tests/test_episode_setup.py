"""One episode set-up and one budget rule (issue 36): :class:`sim.episode.EpisodeSetup`
decides the workspace of a (program, budget) episode once, for the harness and the
sweep's budget pre-check; every program is held to B, by the workspace's guard and
its request assembly where it shows payload handles, by its request assembly alone
where it does not (DESIGN.md "The budget rule")."""

import pytest

import sim.workspace.memory as memory
from sim.agents import SyntheticAgent
from sim.episode import EXEMPT, GUARDED, PLAIN_PROMPT, EpisodeSetup
from sim.harness import run_episode
from sim.policies import PROGRAMS, make_program
from sim.tasks.loca import loca_task
from sim.workspace import ConfigError, ImpossibleBudgetError, Workspace
from sim.workspace.assembly import default_system_prompt

#: which enforcer holds each registered program to B, written out by hand (the
#: independent route): "guard" = the workspace is given B as well as the program's
#: request assembly; "program" = the request assembly alone
ENFORCER = {
    "vista": "guard", "vista_no_dashboard": "guard", "vista_fixed_archive": "guard",
    "vista_reworded": "guard", "vista_status_board": "guard",
    "vista_bounded_ledger": "guard", "auto_archive": "guard",
    # no handle shown: the agent could not read an offloaded result back
    "vista_no_recover": "program", "vista_no_archive": "program",
    "react": "program", "clearing": "program", "clearing_loca": "program",
    "masking": "program", "masking_openhands": "program", "summarization": "program",
    "active_compression": "program", "skeleton": "program", "folding": "program",
}


def test_every_registered_program_has_a_stated_enforcer():
    assert set(ENFORCER) == set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_setup_states_the_enforcer_and_its_reason(name):
    program = make_program(name)
    setup = EpisodeSetup.of(program, 30_000)
    guarded = ENFORCER[name] == "guard"
    assert setup.guard is guarded
    assert setup.reason == (GUARDED if guarded else EXEMPT)
    assert setup.workspace_budget == (30_000 if guarded else None)
    options = setup.workspace_options("char")
    assert (options.budget, options.strict, options.sync, options.tokenizer) == (
        setup.workspace_budget, False, False, "char")
    assert options.dashboard == program.dashboard
    assert options.context_tools is bool(program.agent_tools)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_no_request_exceeds_the_budget_under_either_enforcer(name, monkeypatch):
    """A stream four times the budget: every request the agent is shown is within B,
    and the workspace the episode played on had B exactly when guarded."""
    budget = 16_000
    made = []
    scratch = memory.scratch_workspace
    monkeypatch.setattr(memory, "scratch_workspace",
                        lambda *a, **k: made.append(scratch(*a, **k)) or made[-1])
    r = run_episode(loca_task(1, 2, 64_000), make_program(name), SyntheticAgent("medium"),
                    budget=budget, seed=4, fast=True)
    assert len(made) == 1
    assert made[0].budget == (budget if ENFORCER[name] == "guard" else None)
    assert r.requests > 10 and max(r.active_tokens) <= budget
    # the stream did not fit: something held it to B
    assert r.offloaded + r.deletes + r.program_edits + r.agent_archives > 0
    if ENFORCER[name] == "program":
        assert r.offloaded == 0  # no guard: nothing was offloaded on entry


def test_a_setup_is_a_picklable_value():
    """A job carries its set-up to a Dask worker: it pickles to an equal value and
    is frozen."""
    import dataclasses
    import pickle

    setup = EpisodeSetup.of(make_program("vista_bounded_ledger"), 20_000)
    assert pickle.loads(pickle.dumps(setup)) == setup
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.guard = False


def test_system_prompt_by_protocol():
    assert EpisodeSetup.of(make_program("react"), 9000).system_prompt == PLAIN_PROMPT
    assert EpisodeSetup.of(make_program("vista"), 9000).system_prompt == \
        default_system_prompt(9000)
    reworded = EpisodeSetup.of(make_program("vista_reworded"), 9000).system_prompt
    assert reworded.endswith("<budget:token_budget>9000</budget:token_budget>")


@pytest.mark.parametrize("bad", [None, 0, -5, 2.5, True, "9000"])
def test_a_bad_episode_budget_is_refused(bad):
    with pytest.raises(ConfigError, match="budget"):
        EpisodeSetup.of(make_program("vista"), bad)


@pytest.mark.parametrize("name", ["vista", "react", "vista_status_board"])
def test_overhead_check_refuses_exactly_below_the_least_budget(name, tmp_path):
    """Both sides of the boundary, the least budget found independently: a durable
    workspace built by hand with the set-up's prompt and dashboard refuses it."""
    program = make_program(name)
    setup = EpisodeSetup.of(program, 1)
    with pytest.raises(ImpossibleBudgetError) as info:
        setup.check_overhead()
    least = info.value.least
    with pytest.raises(ImpossibleBudgetError):
        EpisodeSetup.of(program, least - 1).check_overhead()
    EpisodeSetup.of(program, least).check_overhead()
    ok = EpisodeSetup.of(program, least)
    Workspace(tmp_path / "a", budget=least, strict=False, sync=False,
              dashboard=ok.dashboard, system_prompt=ok.system_prompt,
              context_tools=ok.context_tools).close()
    low = EpisodeSetup.of(program, least - 1)
    with pytest.raises(ImpossibleBudgetError):
        Workspace(tmp_path / "b", budget=least - 1, strict=False, sync=False,
                  dashboard=low.dashboard, system_prompt=low.system_prompt,
                  context_tools=low.context_tools)


def test_check_budgets_names_the_program():
    """The sweep's pre-check reads only a job's programs, budget and dashboard
    knob (a stand-in job keeps this test off JobSpec's layout)."""
    from types import SimpleNamespace

    from experiments.sweep import check_budgets

    least = {}
    for name in ("react", "vista"):
        with pytest.raises(ImpossibleBudgetError) as info:
            EpisodeSetup.of(make_program(name), 1).check_overhead()
        least[name] = info.value.least
    job = SimpleNamespace(programs=("react", "vista"), dashboard_tokens=None)
    check_budgets([SimpleNamespace(**vars(job), budget=max(least.values()))])
    worst = max(least, key=least.get)
    with pytest.raises(ConfigError, match=rf"^budget for program '{worst}': "
                       rf"{least[worst] - 1:,} tokens is impossible"):
        check_budgets([SimpleNamespace(**vars(job), budget=least[worst] - 1)])
