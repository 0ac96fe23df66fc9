"""One budget rule for every program (issue 31, "Every number in the table"; DESIGN.md
"The budget rule"): every built-in program's request assembly ends with
``ProgramContext.trim_oldest(B)``, so a program exempt from the workspace's guard
(one that shows no payload handle) is held to B by that trim alone, and no request
of its episodes exceeds B. ``tests/test_episode_setup.py`` checks which enforcer
each program has; this file checks that the trim is the one that holds it."""

import pytest

from sim.agents import SyntheticAgent
from sim.episode import EXEMPT, EpisodeSetup
from sim.harness import run_episode
from sim.policies import PROGRAMS, make_program
from sim.program_context import ProgramContext
from sim.tasks.loca import loca_task

BUDGET = 16_000
EXEMPT_PROGRAMS = sorted(n for n in PROGRAMS if not make_program(n).show_handles)
#: the real trim, taken before any test patches it
REAL_TRIM = ProgramContext.trim_oldest


def _episode(name, monkeypatch, trim=True):
    """Play a stream four times B; record, per request assembly, the trims it made
    (their limits) and the request's size when it returned."""
    program = make_program(name)
    log: list[tuple[list[int], int]] = []
    def trim_oldest(ctx, limit):
        log[-1][0].append(limit)
        if trim:
            REAL_TRIM(ctx, limit)

    assemble = program.request_assembly

    def request_assembly(ctx):
        log.append(([], -1))
        assemble(ctx)
        log[-1] = (log[-1][0], ctx.used())

    monkeypatch.setattr(ProgramContext, "trim_oldest", trim_oldest)
    program.request_assembly = request_assembly
    r = run_episode(loca_task(1, 2, 64_000), program, SyntheticAgent("medium"),
                    budget=BUDGET, seed=4, fast=True)
    return r, log


def test_the_exempt_programs_are_those_without_handles_and_have_a_reason():
    assert EXEMPT_PROGRAMS and "react" in EXEMPT_PROGRAMS and "vista" not in EXEMPT_PROGRAMS
    for name in EXEMPT_PROGRAMS:
        setup = EpisodeSetup.of(make_program(name), BUDGET)
        assert not setup.guard and setup.workspace_budget is None
        assert setup.reason == EXEMPT


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_request_assembly_ends_with_the_trim_to_b(name, monkeypatch):
    r, log = _episode(name, monkeypatch)
    # one request assembly per recorded request
    assert len(log) == len(r.active_tokens) > 10
    for limits, used in log:
        assert limits and limits[-1] == BUDGET      # the last word is trim_oldest(B)
        assert all(lim <= BUDGET for lim in limits)
        assert used <= BUDGET
    assert max(r.active_tokens) <= BUDGET


@pytest.mark.parametrize("name", EXEMPT_PROGRAMS)
def test_the_trim_is_what_holds_an_exempt_program(name, monkeypatch):
    """Both sides: on this stream (four times B) every exempt program's own
    maintenance leaves some request over B, so with trim_oldest a no-op a request
    exceeds B, and with it none does; no guard offloads anything either way."""
    loose, _ = _episode(name, monkeypatch, trim=False)
    monkeypatch.undo()
    held, _ = _episode(name, monkeypatch, trim=True)
    assert max(loose.active_tokens) > BUDGET >= max(held.active_tokens)
    assert loose.offloaded == held.offloaded == 0
