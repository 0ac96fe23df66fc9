"""Program lessons: ``do: program ...`` lines that edit the context program through
ContextEvo's spec grammar (issue 32: "a lesson is an edit in a grammar the simulation
plays: agent behaviour or context program, the same surfaces ContextEvo edits";
Evo-Harness §3.1; ContextEvo §3.2, App. B.1 Table 11).

Grammar (the instruction of one ``do:`` line)::

    program-line := "program" point "." knob "=" value    # a knob of the point's mechanism
                  | "program" point "=" mechanism         # swap the point's mechanism
    point        := one of PROGRAM_POINTS                 # the intervention points
    knob, mechanism := as :data:`sim.evolve.contextevo.spec.MECHANISMS` lists them
    value        := a JSON literal (3, 0.8, true) or a bare word (a marker string)

Examples: ``do: program representation_update.keep = 8`` (keep more recent results
when archiving), ``do: program representation_update = archive_oldest`` (archive,
recoverably, instead of clearing), ``do: program maintenance_planning.at = 0.6``.

**Refused** (:func:`parse_program`, :class:`ProgramLessonError` naming the part):
a point the grammar does not know, an interface surface (dashboard, agent tools,
handles, protocol) or ``observation_entry`` (it is tied to handles being shown):
an episode's interface is fixed when its workspace is set up, before the agent reads
any skill, so no lesson read during an episode can change it; a knob no mechanism
of the point has; a mechanism the point does not have; a value of the wrong type or
outside the knob's range (:data:`sim.evolve.contextevo.spec.KNOB_TYPES`).
The reading agent (:func:`sim.evolve.evoharness.lessons.edits_of`) treats a refused
line as **inert**, like a line naming no verb: read, its tokens paid, ignored.

**Played** (:func:`apply_program`): on the spec of the program playing the episode,
in block order; an edit that does not apply to that program (a knob its current
mechanism lacks, or a result :class:`~sim.evolve.contextevo.spec.ProgramSpec`
refuses) changes nothing. Whether the edited program helps is whatever the episode
gives (:mod:`sim.evolve.evoharness.lesson_program`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sim.evolve.contextevo.spec import (MECHANISMS, POINTS, Mechanism, ProgramSpec,
                                        SpecError)

#: the points a lesson may edit: every intervention point but observation_entry (its
#: offload is tied to the interface's handles, fixed at set-up; module docstring)
PROGRAM_POINTS = tuple(p for p in POINTS if p != "observation_entry")
_LINE = re.compile(r"^program\s+(?P<point>[A-Za-z_]+)(?:\.(?P<knob>[A-Za-z_]+))?"
                   r"\s*=\s*(?P<value>\S.*?)\s*$")


class ProgramLessonError(ValueError):
    """A ``program`` lesson line the grammar refuses (the message names the part)."""


@dataclass(frozen=True)
class ProgramEdit:
    """One parsed program lesson: set ``knob`` of ``point``'s mechanism to ``value``,
    or (``knob`` ``""``) swap ``point``'s mechanism to ``value`` (default knobs)."""

    point: str
    knob: str
    value: Any

    def text(self) -> str:
        """The lesson line's instruction (what :func:`parse_program` reads back)."""
        target = f"{self.point}.{self.knob}" if self.knob else self.point
        value = self.value if isinstance(self.value, str) else json.dumps(self.value)
        return f"program {target} = {value}"


def is_program_line(text: str) -> bool:
    """Whether an instruction is a program lesson (its first word is ``program``)."""
    return text.strip().split(" ", 1)[0] == "program"


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw          # a bare word: a string knob (a mask's marker) or a name


def parse_program(text: str) -> ProgramEdit:
    """The :class:`ProgramEdit` of one instruction (module docstring's grammar).

    Raises:
        ProgramLessonError: naming the bad point, knob, mechanism or value.
    """
    m = _LINE.match(text.strip())
    if not m:
        raise ProgramLessonError(f"not a program lesson {text!r}: expected 'program "
                                 f"POINT.KNOB = VALUE' or 'program POINT = MECHANISM'")
    point, knob, value = m.group("point"), m.group("knob") or "", _value(m.group("value"))
    if point not in PROGRAM_POINTS:
        raise ProgramLessonError(f"program lesson {text!r}: {point!r} is not a point a "
                                 f"lesson edits; known: {list(PROGRAM_POINTS)}")
    table = MECHANISMS[point]
    if not knob:
        if value not in table:
            raise ProgramLessonError(f"program lesson {text!r}: no mechanism {value!r} "
                                     f"at {point}; known: {list(table)}")
        return ProgramEdit(point, "", value)
    owners = [mech for mech, knobs in table.items() if knob in knobs]
    if not owners:
        raise ProgramLessonError(f"program lesson {text!r}: no mechanism at {point} has "
                                 f"a knob {knob!r}")
    try:    # the spec grammar's own type and range check
        Mechanism.make(point, owners[0], **{knob: value})
    except SpecError as exc:
        raise ProgramLessonError(f"program lesson {text!r}: {exc}") from None
    return ProgramEdit(point, knob, value)


def _applied(spec: ProgramSpec, e: ProgramEdit) -> ProgramSpec:
    d = spec.to_dict()
    current = dict(d[e.point])
    if e.knob:
        if e.knob not in MECHANISMS[e.point][current["mechanism"]]:
            return spec     # this program's mechanism has no such knob: inert here
        current[e.knob] = e.value
        d[e.point] = current
    else:
        d[e.point] = {"mechanism": e.value}
    try:
        return ProgramSpec.from_dict(d)
    except SpecError:
        return spec         # a combination the grammar refuses: inert


def apply_program(spec: ProgramSpec, edits) -> ProgramSpec:
    """``spec`` after ``edits`` (:class:`ProgramEdit` s, in order; each that does not
    apply to it is skipped, module docstring). The interface never changes."""
    for e in edits:
        spec = _applied(spec, e)
    return spec
