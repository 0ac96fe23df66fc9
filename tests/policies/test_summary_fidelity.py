"""The summarizer's fidelity is the agent's (issue 31, "Every number in the table"):
world rows ``agent.summary_p_exact`` / ``agent.summary_p_garble``, read by the
summarization program through ``ProgramContext.summary_fidelity``, never a program
knob; at the defaults the summary is the one the fixed 0.5 / 0.2 constants gave."""

from types import SimpleNamespace

import numpy as np
import pytest

from sim.agents.profiles import Profile
from sim.policies import make_program
from sim.policies.summarize import SyntheticSummarizer
from sim.program_context import Item, ProgramContext
from sim.world import TABLE, world_at

N_LINES = 4000


def _texts(n=N_LINES):
    """``n`` salient lines, 40 to a message, values with a digit each."""
    lines = [f"record R{i} total: {1000 + i}.{i % 97:02d}" for i in range(n)]
    return ["\n".join(lines[j:j + 40]) for j in range(0, n, 40)]


def _counts(summary: str, n=N_LINES):
    body = summary.splitlines()[1:]
    exact = sum(1 for ln in body if " about " not in ln)
    approx = sum(1 for ln in body if " about " in ln)
    return exact / n, approx / n


class _Ctx:
    """The part of a ProgramContext the summarization program uses: a stream of
    plain messages, ``archive`` recording the summary, ``rng`` and the agent."""

    def __init__(self, agent, texts, seed=3):
        self.agent, self.rng, self.archived = agent, np.random.default_rng(seed), []
        self.items = [Item(f"B{i}", "tool_result", "visible", t, 10, i)
                      for i, t in enumerate(texts)]
        self.summary_fidelity = lambda: ProgramContext.summary_fidelity(self)

    def stream(self, **_):
        return list(self.items)

    def archive(self, ids, replacement, hidden):
        self.archived.append((ids, replacement, hidden))


def _summary(profile, texts, seed=3, **knobs):
    prog = make_program("summarization", keep_last=0, max_lines=100_000, **knobs)
    ctx = _Ctx(SimpleNamespace(profile=profile), texts, seed)
    prog.representation_update(ctx)
    (_, text, hidden), = ctx.archived
    assert hidden
    return text


def test_no_program_can_set_the_fidelity():
    for knob in ("p_exact", "p_approx"):
        with pytest.raises(TypeError, match=knob):
            make_program("summarization", **{knob: 0.9})


def test_defaults_are_the_former_constants_bit_for_bit():
    p = Profile()
    assert (p.summary_p_exact, p.summary_p_approx) == (0.5, 0.2)
    texts = _texts(400)
    # the summary the program wrote before: SyntheticSummarizer(0.5, 0.2, 120)
    before = SyntheticSummarizer(0.5, 0.2, 120)(texts, np.random.default_rng(3))
    prog = make_program("summarization", keep_last=0)
    ctx = _Ctx(SimpleNamespace(profile=p), texts)
    prog.representation_update(ctx)
    assert ctx.archived[0][1] == before
    # an agent without a profile (an LLM or plugin agent) gets the table's defaults
    assert ProgramContext.summary_fidelity(SimpleNamespace(agent=object())) == (0.5, 0.2)


@pytest.mark.parametrize("p_exact, p_garble", [(0.1, 0.0), (0.9, 0.8), (0.5, 0.4),
                                              (0.3, 0.8)])
def test_the_summary_keeps_what_the_agent_profile_says(p_exact, p_garble):
    """Monte Carlo shares of verbatim and paraphrased lines against
    ``p_exact`` and ``p_garble (1 - p_exact)``, within 4 binomial SEs."""
    prof = Profile(summary_p_exact=p_exact, summary_p_garble=p_garble)
    exact, approx = _counts(_summary(prof, _texts()))
    want_approx = p_garble * (1 - p_exact)
    for got, want in ((exact, p_exact), (approx, want_approx)):
        se = max(np.sqrt(want * (1 - want) / N_LINES), 1e-12)
        assert abs(got - want) <= 4 * se, (got, want)


def test_every_point_of_the_prior_is_a_valid_summarizer():
    e, g = TABLE["agent.summary_p_exact"], TABLE["agent.summary_p_garble"]
    assert "guess" in e.source and "guess" in g.source
    for pe in (e.low, e.default, e.high):
        for pg in (g.low, g.default, g.high):
            prof = world_at({e.name: pe, g.name: pg}).profile
            assert prof.summary_p_exact == pe and prof.summary_p_garble == pg
            SyntheticSummarizer(prof.summary_p_exact, prof.summary_p_approx, 1)
            assert prof.summary_p_exact + prof.summary_p_approx <= 1.0
