"""Harness caps in proportion to the skill volume (Evo-Harness App. E.2 "respect the
budget").

The paper's curator works under a budget but the text we have does not give its
numbers (Appendix F is not in it), so the default is a **guess**: the caps are set
relative to the volume of guidance the proposal rules can produce for a stream, the
*lesson catalogue* (:func:`lesson_catalogue`): one fully grown skill per grammar verb
(general, every bullet variant merged in) and per topic of the stream (its procedure
holding every verb). :func:`proportional_caps` holds a fraction of it:
``ceil(fraction * n)`` skills, ``ceil(fraction * tokens)`` total tokens, and a
per-skill cap of ``ceil((1 + fraction) * largest)`` tokens (room for a consolidated
skill). ``fraction`` (:data:`FRACTION`, a guess) has the wide prior range
:data:`FRACTION_PRIOR`; it is chosen so that the caps bind in the evolving arms of the
default grid (a stream proposes a few distinct lessons, so a cap near the whole
catalogue would never bind and the budget would decide nothing). Whatever the budget
decides is therefore an input of this guess, not a finding. It is the setting
``cap_fraction`` of ``ctxsim run evoharness`` (``--cap-fraction``, TOML key; recorded in
the sidecar's config); ``python -m experiments.evoharness.caps --out DIR`` reruns the
quick grid at 0.15 / 0.25 / 0.5 and writes which orderings hold at each
(``evoharness_caps.csv``; the README quotes it).
"""

from __future__ import annotations

import math

from sim.evolve.evoharness.propose import GENERAL, do_line
from sim.evolve.evoharness.skill_harness import HarnessCaps
from sim.evolve.evoharness.skills import Skill

#: default share of the lesson catalogue the caps hold (guess: no source gives the
#: paper's caps), and its wide prior range
FRACTION = 0.25
FRACTION_PRIOR = (0.15, 0.6)


def lesson_catalogue(topics, levels=("general", "topic")) -> list[Skill]:
    """One fully grown skill per grammar verb (``general`` in ``levels``) and per
    topic of ``topics`` (``topic`` in ``levels``, every verb), as the proposal rules
    draft them."""
    out = []
    if "general" in levels:
        for cause, (trigger, bullets) in GENERAL.items():
            out.append(Skill(f"g-{cause}", "general", "", trigger,
                             f"{do_line(cause)}\n" + "".join(f"- {b}\n" for b in bullets)))
    if "topic" in levels:
        for t in sorted(set(topics)):
            h = t.replace("_", " ")
            out.append(Skill(f"t-{t}", "topic", t,
                             f"Task ({t}): work through the {h} workflow; look up its "
                             f"record values and report them exactly",
                             "".join(f"{do_line(v)}\n" for v in GENERAL) + "".join(
                                 f"- {bs[0]}\n" for _, bs in GENERAL.values())))
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
