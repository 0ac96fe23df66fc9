"""Every view the agent is shown (entries, dashboard text, ledger rows, remainder,
notice) and every request's messages are the same on the fast path (scratch
workspace, incremental assembly, memoised views) as on the plain reference route
(durable workspace, a fresh assembly per read), request by request: the episode
rows alone could hide a difference the agent happened not to act on, and a
real-model run caches answers by prompt."""

import pytest

from experiments.sweep import build_task, dashboard_knobs, episode_seed, loca_specs
from experiments.vista import pressure
from sim.agents import SyntheticAgent
from sim.harness import run_episode
from sim.token_cache import KnownCountTokenizer
from sim.policies import make_program
from sim.workspace.tokenizer import get_tokenizer


class _Recording(SyntheticAgent):
    """The synthetic agent, keeping every view it is shown."""

    def __init__(self, profile):
        super().__init__(profile)
        self.views = []

    def act(self, view):
        self.views.append(view)
        return super().act(view)


def _views(spec, name, fast, requests):
    import sim.harness as harness

    task = build_task(spec)
    tok = KnownCountTokenizer(get_tokenizer("cl100k_base"),
                              {s.content: s.tokens for s in task.steps if s.content})
    agent = _Recording(spec.setup.profile)
    record = harness.record_request

    def keep(result, req, prev, text):  # the request the agent's view came from
        requests.append((req.messages, req.total, req.dashboard_text))
        return record(result, req, prev, text)

    harness.record_request = keep
    try:
        program = make_program(name, **dashboard_knobs(name, spec.setup.dashboard_tokens))
        run_episode(task, program, agent, budget=spec.setup.budget,
                    seed=episode_seed(spec), tokenizer=tok, fast=fast)
    finally:
        harness.record_request = record
    return agent.views


@pytest.mark.parametrize("level", [8_000, 256_000])
def test_every_view_and_request_is_identical(level):
    programs = pressure.SETTINGS.table()["programs"]
    (spec,) = loca_specs(pressure.SETTINGS(levels=(level,), families=1, seeds=1, seed=3,
                                           dashboard_tokens=None))
    hidden_rows = 0
    for name in programs:
        ref_requests, fast_requests = [], []
        reference = _views(spec, name, False, ref_requests)
        fast = _views(spec, name, True, fast_requests)
        assert len(fast) == len(reference) > 0, name
        for i, (a, b) in enumerate(zip(reference, fast)):
            assert a == b, f"{name}: view {i} differs"
        assert fast_requests == ref_requests, name
        hidden_rows += sum(1 for v in fast if v.ledger_remainder and v.ledger_remainder[0])
    if level == 256_000:  # a bounded ledger that hides rows (its view lists a subset)
        assert hidden_rows > 0
