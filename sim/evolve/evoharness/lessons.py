"""The lesson grammar: what a skill's ``do:`` lines tell a synthetic agent to do
(Evo-Harness §3.1 "skills as executable guidance"; issue 32 "Lessons act through the
simulation").

A lesson is an *edit of the agent's behaviour*, written as text. It has no effect of
its own: what it changes is how the agent plays the episode (which parameters of its
:class:`~sim.agents.profiles.Profile` it plays with, which blocks it archives, whether
it re-reads a value before answering), and whether that helps is whatever playing the
episode gives under the world's parameters. No module maps a lesson to an outcome.

Grammar (one instruction per ``do:`` line of a skill body; bullets are prose)::

    do-line  := "do:" instruction
    instruction := verb [words...]     # the first word names the verb, or
                 | free text           # a free-text line whose words name one verb

    verb     edit of the agent's behaviour                            when it acts
    notes    restate every evidence line when first seen              start
             (``p_note`` := 1: "every"; copies keep ``p_note_exact``)
    keep     never archive a tool result that shows one of the        start
             task's evidence lines (the rest is archived as before)
    recover  search the archive longer: ``extra_reads`` more reads    start
             per value and a re-read after every miss (``p_retry`` := 1)
    shorten  free context earlier: the archive trigger and target     start
             scaled by ``shorten_factor`` (fractions of the budget)
    verify   before the final answer, re-read each answered value     final
             against its evidence line where the request shows it
             (a re-read succeeds with the agent's ``p_use`` at the
             request's length; a successful re-read that differs
             replaces the value)
    program  an edit of the context program through ContextEvo's     start
             spec grammar: ``program POINT.KNOB = VALUE`` or
             ``program POINT = MECHANISM`` (the grammar, what it refuses
             and how it is played: :mod:`sim.evolve.evoharness.program_lessons`;
             a refused line is inert)

``extra_reads`` and ``shorten_factor`` are the agent's uptake parameters
(:class:`sim.evolve.evoharness.uptake.SkillUse`: named, with priors). A negated line
("do not keep ...", :func:`sim.evolve.evoharness.skills.polarity`) and a line naming
no verb are inert: read (their tokens paid) and ignored. A topic skill's edits apply
only in tasks of its topic (the agent compares the task's type with the skill
heading's topic); whether an edit helps there or elsewhere is played, never coded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sim.evolve.evoharness.program_lessons import (ProgramEdit, ProgramLessonError,
                                                   is_program_line, parse_program)
from sim.evolve.evoharness.skills import directives_of, polarity

#: verb -> when the agent acts on it: at its first view ("start") or at the answer
VERBS = {"notes": "start", "keep": "start", "recover": "start", "shorten": "start",
         "verify": "final", "program": "start"}
#: free-text cue words of each verb (a line naming exactly one verb's cues is parsed
#: to it; the reflector's free text reaches the grammar this way)
CUES = {"notes": ("restate", "note", "notes", "write"),
        "keep": ("keep", "visible"),
        "recover": ("recover", "recovery", "search", "unread"),
        "shorten": ("shorten", "shorter", "earlier", "trim", "compact"),
        "verify": ("verify", "re-read", "reread", "recheck", "re-check", "compare")}
_HEAD = re.compile(r"^## skill (\S+) \((general|topic (\S+))\)$")


@dataclass(frozen=True)
class Edit:
    """One parsed instruction: ``verb`` (a key of :data:`VERBS`), ``scope``: the
    topic it is confined to (``""``: every task), and for ``program`` the
    :class:`ProgramEdit`."""

    verb: str
    scope: str = ""
    program: ProgramEdit | None = None

    @property
    def key(self) -> str:
        """What names the instruction (the verb, or a program edit's own text)."""
        return self.program.text() if self.program else self.verb

    @property
    def when(self) -> str:
        """``"start"`` or ``"final"`` (:data:`VERBS`)."""
        return VERBS[self.verb]

    def applies(self, topic: str) -> bool:
        """Whether the edit acts in a task of type ``topic``."""
        return not self.scope or self.scope == topic


def parse_instruction(text: str) -> str | None:
    """The verb ``text`` (one ``do:`` line's instruction) names, or None (inert).

    A leading verb word wins; else the verb whose cue words (:data:`CUES`) the text
    holds, when exactly one verb's do; a negated instruction is inert. A program
    lesson names ``program`` (its edit: :func:`edit_of`)."""
    negated, core = polarity(text)
    if negated or not core:
        return None
    if is_program_line(text):
        return "program"
    words = core.split()
    if words[0] in VERBS and words[0] != "program":
        return words[0]
    raw = set(re.findall(r"[a-z][a-z\-]*", text.lower()))
    hits = [v for v, cues in CUES.items() if raw & set(cues)]
    return hits[0] if len(hits) == 1 else None


def edit_of(text: str, topic: str = "") -> Edit | None:
    """The :class:`Edit` one instruction makes, scoped to ``topic``; None when it is
    inert (no verb, negated, or a program line the grammar refuses)."""
    verb = parse_instruction(text)
    if verb != "program":
        return None if verb is None else Edit(verb, topic)
    try:
        return Edit(verb, topic, parse_program(text))
    except ProgramLessonError:
        return None


def edits_of(body: str, topic: str = "") -> tuple[Edit, ...]:
    """The edits of a skill body's ``do:`` lines (inert lines dropped), each scoped
    to ``topic`` (``""`` for a general skill)."""
    edits = (edit_of(t, topic) for t in directives_of(body))
    return tuple(e for e in edits if e is not None)


def parse_block(text: str) -> list[tuple[str, str, tuple[Edit, ...]]]:
    """``(name, topic or "", edits)`` of each skill in a pinned block's text (the
    heading ``## skill NAME (general|topic TOPIC)`` starts a skill)."""
    out: list[list] = []
    for line in text.splitlines():
        m = _HEAD.match(line)
        if m:
            out.append([m.group(1), m.group(3) or "", []])
        elif out:
            out[-1][2].append(line)
    return [(n, t, edits_of("\n".join(lines), t)) for n, t, lines in out]
