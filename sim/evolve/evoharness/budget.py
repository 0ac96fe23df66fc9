"""Harness caps in proportion to the skill volume (Evo-Harness App. E.2 "respect the
budget").

The paper's curator works under a budget but the text we have does not give its
numbers (Appendix F is not in it), so the caps are set relative to the volume of
guidance the proposal rules can produce for a stream: the *lesson catalogue*
(:func:`lesson_catalogue`), one fully grown skill per general cause and per topic of
the stream (every bullet variant merged in). :func:`proportional_caps` holds a
fraction of it: ``ceil(fraction * n)`` skills, ``ceil(fraction * tokens)`` total
tokens, and a per-skill cap of ``ceil((1 + fraction) * largest)`` tokens (room for a
consolidated skill). ``fraction`` is a named parameter with prior range
:data:`FRACTION_PRIOR` (our assumption). A stream of about a hundred tasks proposes only
3-5 distinct lessons per arm (failures are 10-25% of tasks and most share a cause), so
the default 0.25 (3 skills, 199 tokens for the full harness; 1 skill, 63 tokens
general-only; 2 skills, 137 tokens topic-only) with the default streams of 240 tasks
(about 105 held-in, 135 held-out) is what makes the caps bind in the evolving arms; at
0.5 they bound in none but ADD-only (101-task streams, medium profile). Whatever the budget decides is therefore an input of this
assumption, not a finding.
"""

from __future__ import annotations

import math

from sim.evolve.evoharness.propose import GENERAL, TOPIC_BULLETS
from sim.evolve.evoharness.skill_harness import HarnessCaps
from sim.evolve.evoharness.skills import Skill

#: default share of the lesson catalogue the caps hold, and its prior range
FRACTION = 0.25
FRACTION_PRIOR = (0.15, 0.6)


def lesson_catalogue(topics, levels=("general", "topic")) -> list[Skill]:
    """One fully grown skill per general cause (``general`` in ``levels``) and per
    topic of ``topics`` (``topic`` in ``levels``), as the proposal rules draft them."""
    out = []
    if "general" in levels:
        for cause, (trigger, bullets) in GENERAL.items():
            out.append(Skill(f"g-{cause}", "general", "", trigger,
                             f"do: {cause}\n" + "".join(f"- {b}\n" for b in bullets)))
    if "topic" in levels:
        for t in sorted(set(topics)):
            h = t.replace("_", " ")
            out.append(Skill(f"t-{t}", "topic", t,
                             f"Task ({t}): work through the {h} workflow; look up its "
                             f"record values and report them exactly",
                             f"do: rule {t}\n" + "".join(
                                 f"- {b.format(t=h)}\n" for b in TOPIC_BULLETS)))
    return out


def proportional_caps(topics, levels=("general", "topic"),
                      fraction: float = FRACTION) -> HarnessCaps:
    """Caps holding ``fraction`` of :func:`lesson_catalogue` (module docstring).

    Raises:
        ValueError: for ``fraction`` outside (0, 1] or an empty catalogue.
    """
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) \
            or not 0 < fraction <= 1:
        raise ValueError(f"cap fraction must be in (0, 1], got {fraction!r}")
    cat = lesson_catalogue(topics, levels)
    if not cat:
        raise ValueError(f"no lessons for topics {sorted(set(topics))} at levels "
                         f"{list(levels)}")
    return HarnessCaps(max_skills=max(1, math.ceil(fraction * len(cat))),
                       max_total_tokens=math.ceil(fraction * sum(s.tokens for s in cat)),
                       max_skill_tokens=math.ceil((1 + fraction)
                                                  * max(s.tokens for s in cat)))
