"""Summarization (SLIM-style; LangChain SummarizationMiddleware): once the request
passes a trigger, everything but the last ``keep_last`` = 20 messages is replaced by a
summary. Lossy by construction: the synthetic summarizer keeps each salient
``key: value`` line exactly with probability ``p_exact``, garbles its value with
probability ``p_approx`` (a paraphrase that is no longer exact), drops it otherwise,
and stops at a length cap. An LLM summarizer can replace it later (same call shape).

Whose numbers these are (issue 31, "Every number in the table"): the summary is
written by the model, so how faithfully it keeps a value is the agent's, not the
program's. ``p_exact`` and ``p_approx`` are therefore read from the agent's profile
(world rows ``agent.summary_p_exact`` and ``agent.summary_p_garble``, through
:meth:`sim.program_context.ProgramContext.summary_fidelity`) and are no knobs: a
program, hand-written or evolved, cannot buy a more faithful summarizer. What the
program does decide stays a knob: when to summarize (``trigger``), what it keeps
verbatim (``keep_last``) and how much room the summary gets (``max_lines``, the
length its prompt asks for).
"""

from __future__ import annotations

import re

import numpy as np

from dataclasses import dataclass

from sim.policies.base import ContextProgram
from sim.policies.fixed import _limit, trigger_knob
from sim.policies.knobs import ProgramKnobs, knob

#: a "salient" line: a short key, a colon, a value (evidence, paths, notes)
SALIENT = re.compile(r"^(?:Noted )?([A-Za-z][^:\n=]{0,80}): (\S[^\n]*)$", re.M)


class SyntheticSummarizer:
    """Keep salient lines with probabilities, within a token cap.

    Args:
        p_exact: P(a line survives verbatim).
        p_approx: P(it survives with an inexact value); the rest are dropped.
        max_lines: length cap (lines of the summary body).

    Raises:
        ValueError: if the probabilities are negative or sum above 1.
    """

    def __init__(self, p_exact: float, p_approx: float, max_lines: int):
        if p_exact < 0 or p_approx < 0 or p_exact + p_approx > 1:
            raise ValueError(f"bad probabilities p_exact={p_exact}, p_approx={p_approx}")
        self.p_exact, self.p_approx, self.max_lines = p_exact, p_approx, max_lines

    def __call__(self, texts: list[str], rng: np.random.Generator) -> str:
        """A summary of ``texts`` (what the model saw, in order). Returns text."""
        out = [f"Summary of {len(texts)} earlier messages:"]
        for text in texts:
            for m in SALIENT.finditer(text):
                if len(out) > self.max_lines:
                    break
                u = rng.random()
                key, value = m.group(1), m.group(2)
                if u < self.p_exact:
                    out.append(f"{key}: {value}")
                elif u < self.p_exact + self.p_approx:
                    # a paraphrase: the magnitude survives, the exact value does not
                    out.append(f"{key}: about {value[: max(1, len(value) // 2)]}...")
        return "\n".join(out) + "\n"


@dataclass(frozen=True)
class SummarizationKnobs(ProgramKnobs):
    """Knobs of :class:`Summarization` (the summarizer's fidelity is the agent's:
    see the module doc)."""

    trigger: float = trigger_knob(0.9, "summarize once the request passes this",
                                  source="SLIM: summarize once the budget is reached")
    keep_last: int = knob(20, "newest messages kept verbatim", low=0, unit="messages",
                          source="LangChain SummarizationMiddleware messages_to_keep=20")
    max_lines: int = knob(120, "length cap of the summary body (the room the "
                          "program's summary prompt gives)", low=1, unit="lines",
                          source="guess")


class Summarization(ContextProgram):
    """Summarize all but the last ``keep_last`` messages once the request exceeds
    ``trigger`` (fraction of B, 0.9: SLIM summarizes once the budget is reached),
    in at most ``max_lines`` lines, at the agent's fidelity
    (:meth:`~sim.program_context.ProgramContext.summary_fidelity`)."""

    name = "summarization"
    Knobs = SummarizationKnobs

    def maintenance_planning(self, ctx) -> bool:
        return ctx.used() > _limit(self.knobs.trigger, ctx.budget)

    def representation_update(self, ctx) -> None:
        items = ctx.stream(statuses=None, unpinned=True)
        old = items[: max(0, len(items) - self.knobs.keep_last)]
        if not old:
            return
        p_exact, p_approx = ctx.summary_fidelity()
        summarizer = SyntheticSummarizer(p_exact, p_approx, self.knobs.max_lines)
        summary = summarizer([i.text for i in old], ctx.rng)
        ctx.archive([i.id for i in old], summary, hidden=True)
