"""Feedback and solver-side proposal (Evo-Harness §3.2 "Execution reflection", App. E.1,
§4.6 feedback levels).

After a task the evolver reads (i) the evaluation result at the chosen feedback level
(:func:`evaluate`), (ii) the compressed trajectory (:meth:`Execution.compressed`, one
line of counts, parsed back by :func:`read_trace`) and (iii) the answer's shape, and
proposes, per distinct issue, NEW, ENHANCE (of a named skill) or NONE
(:func:`propose`). Each issue is drafted twice (:func:`draft`): as a general lesson
and as its topic's procedure (the same edit confined to the task's type); the curator
decides which survive. Drafts that are generic advice or a replay of one task (they
carry the task's exact values or record ids) are filtered to NONE (E.1 "filter
aggressively"). A lesson is a line of the lesson grammar
(:mod:`sim.evolve.evoharness.lessons`); what it does is played, never looked up.

The feedback levels are what a real verifier shows (issue 32), never the simulator's
own labels (a test reads this module's source to hold that the rules do not branch
on the level):

* ``self``: the solver's own verdict: it judges a run solved when it found a value
  for everything it answered (:attr:`Execution.believes_solved`), and that judgement
  is flipped at rate :attr:`Evolver.self_error` (the self-judge's errors); no checks;
* ``minimal``: the environment's solved bit only;
* ``standard``: the solved bit and each failing check's own output: which answered
  value was wrong, what it was and what was expected (:class:`Check`).

The proposal rules are the same for every level (:func:`issues`) and read only
trajectory features and check output: nothing is learned from a run judged solved;
for a run judged failed, a value checked wrong whose evidence line was not in the
final request is lost evidence (``recover`` after recovery reads, ``keep`` after the
agent archived, else ``notes`` and the program lesson ``archive``, ``do: program
maintenance_planning = trigger``: with no archive and no recovery the harness's trim
is what removed it, so the program should archive, recoverably, first); a value checked wrong
with its evidence in view was read wrong (``verify``: re-read it); a failed answer
given on a long request (at least
:data:`sim.evolve.contextevo.backends.LONG_REQUEST_TOKENS`) adds ``shorten``. Without
checks (minimal, self) the trace alone decides: values answered without their
evidence in view are lost evidence; otherwise every value was in view and one was
read wrong (``verify``), unless the drafting model writes platitudes (rate
:attr:`Evolver.generic_rate`), which the filter drops. Self feedback can therefore
only differ from minimal through the self-judge: it misses failures whose values
look complete (no lesson) and reads a misjudged success as a failure (a lesson drawn
from a run that needed none).

``reflect=False`` is the No-Propose ablation (Table 3): no solver-side proposal, the
evolver compiles from the verdict and the compressed trajectory alone (no checks, no
E.1 filter).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numpy as np

from sim.evolve.contextevo.backends import LONG_REQUEST_TOKENS

FEEDBACK_LEVELS = ("self", "minimal", "standard")
NEW, ENHANCE, NONE = "NEW", "ENHANCE", "NONE"

#: verb -> (trigger, bullet variants) of the general lesson drafted for it. The first
#: line of a draft is ``do: <verb>`` (the grammar); bullets are prose that vary by task
#: so merging two proposals really combines content.
GENERAL = {
    "verify": ("Before the final answer of a workflow task: look up record values, "
               "later steps write them, report them exactly",
               ["re-read each value from its evidence line, not from memory",
                "compare every reported value character by character with the source",
                "re-read a value again where the request is long"]),
    "recover": ("When a workflow task must report looked up record values "
                "exactly but a value is no longer visible",
                ["recover archived results named in your archive index before answering",
                 "search further archived results when the first recovery misses",
                 "never answer unknown while archived results remain unread"]),
    "keep": ("While working through a workflow task: look up record values the "
             "final answer must report exactly",
             ["keep tool results that show a needed record value visible",
              "archive bulky results without evidence first"]),
    "notes": ("While reading tool results in a workflow task: look up record values "
              "and report them exactly",
              ["restate each needed record value in your reasoning when you see it",
               "write found values into your notes before they scroll away"]),
    "shorten": ("While a workflow task's requests grow long: look up record values "
                "and report them exactly",
                ["archive bulky results early so the request stays short",
                 "free context before the request passes half the budget"]),
    "archive": ("When a workflow task's record values drop out of view though nothing "
                "was archived: look up record values and report them exactly",
                ["let the program archive old results before the request must be trimmed",
                 "prefer a recoverable archive to results dropped by the trim"]),
}
#: cause -> its ``do:`` instruction where that is not the cause's own verb: a program
#: lesson (:mod:`sim.evolve.evoharness.program_lessons`). ``archive``: maintenance
#: fires at the spec grammar's default trigger, so the program's representation
#: update (archiving, recoverably, in the archive programs) acts before the
#: harness's last-resort trim drops results irreversibly
PROGRAM_LESSONS = {"archive": "program maintenance_planning = trigger"}


def do_line(cause: str) -> str:
    """The ``do:`` line of a lesson drafted for ``cause`` (a verb or a program edit)."""
    return f"do: {PROGRAM_LESSONS.get(cause, cause)}"
#: A topic procedure's bullets carry no "in <topic> tasks:" prefix: its heading
#: ("## skill t-x (topic x)") and its trigger already scope it, and a prefix on every
#: draft is repeated once per absorbed bullet when drafts merge (issue 32,
#: EH-curator-budget: a merged procedure named its topic in every line).
_GENERIC = re.compile(r"\b(be careful|think step by step|double-check your work|"
                      r"do your best|pay attention)\b", re.I)
_TRACE = re.compile(r"^(?P<task>\S+): (?P<requests>\d+) requests, (?P<archives>\d+) "
                    r"archives, (?P<recoveries>\d+) recoveries \((?P<failed>\d+) failed\), "
                    r"(?P<given>\d+) values given, (?P<unknown>\d+) values unknown, "
                    r"(?P<unseen>\d+) not in view, answered at (?P<tokens>\d+) tokens$")


# keyword-only: thirteen fields, several of one type, are too many to pass by position
@dataclass(frozen=True, kw_only=True)
class Execution:
    """The execution context c_ij of one task (what reflection reads).

    Attributes:
        task_id, topic, statement: the task (topic = task family).
        solved: the environment's outcome (the truth).
        believes_solved: the solver's own judgement.
        answer: final values given (key -> value; ``"unknown"`` when not found).
        expected: the task's exact values by key (what the verifier checks against;
            only :func:`evaluate` at the standard level reads it, and the replay
            filter).
        signals: trajectory signals (counts: archives, recoveries, failed_reads, ...).
        skills_shown: names of the skills in its pinned block.
        seed: episode seed (keys the evolver's draws).
        unseen: answered keys whose evidence line was not in the final request (what
            the trajectory shows: the answer's own context).
        answer_tokens: tokens of the request the final answer was given on.
    """

    task_id: str
    topic: str
    statement: str
    solved: bool
    believes_solved: bool
    answer: dict
    expected: dict
    signals: dict
    skills_shown: tuple[str, ...] = ()
    seed: int = 0
    unseen: tuple[str, ...] = ()
    answer_tokens: int = 0

    @property
    def values(self) -> tuple[str, ...]:
        """The task's exact values (for the replay filter)."""
        return tuple(self.expected.values())

    def compressed(self) -> str:
        """The compressed trajectory E.1 gives the proposer: one line of counts
        (requests, archives, recoveries and how many missed, values given, answered
        unknown, answered without their evidence line in the final request, and the
        final request's tokens)."""
        s = self.signals
        unknown = sum(v == "unknown" for v in self.answer.values())
        return (f"{self.task_id}: {s.get('requests', 0)} requests, "
                f"{s.get('archives', 0)} archives, {s.get('recoveries', 0)} recoveries "
                f"({s.get('failed_reads', 0)} failed), "
                f"{len(self.answer) - unknown} values given, {unknown} values unknown, "
                f"{len(set(self.unseen) & set(self.answer))} not in view, "
                f"answered at {self.answer_tokens} tokens")


@dataclass(frozen=True)
class Trace:
    """What the compressed trajectory says (counts; see :meth:`Execution.compressed`)."""

    requests: int
    archives: int
    recoveries: int
    failed: int
    given: int
    unknown: int
    unseen: int
    tokens: int


def read_trace(line: str) -> Trace:
    """Parse :meth:`Execution.compressed`'s line. Raises ValueError naming the line."""
    m = _TRACE.match(line)
    if not m:
        raise ValueError(f"not a compressed trajectory: {line!r}")
    return Trace(*(int(m.group(k)) for k in ("requests", "archives", "recoveries",
                                             "failed", "given", "unknown", "unseen",
                                             "tokens")))


@dataclass(frozen=True)
class Check:
    """One failing check's own output: the answered ``key``, the value ``given`` and
    the value ``expected`` (what a real verifier prints)."""

    key: str
    given: str
    expected: str


@dataclass(frozen=True)
class Evaluation:
    """What the evolver is told: the feedback level, a verdict and the failing checks
    (standard feedback only)."""

    feedback: str
    verdict: bool
    checks: tuple[Check, ...] = ()


@dataclass(frozen=True)
class Proposal:
    """One reflection output (E.1): op NEW/ENHANCE/NONE, the skill draft and provenance.

    ``name`` is the skill a NEW proposal would create or the one ENHANCE targets;
    ``directive`` its ``do:`` verb; ``reason`` why NONE when filtered."""

    op: str
    name: str = ""
    level: str = "general"
    topic: str = ""
    trigger: str = ""
    body: str = ""
    directive: str = ""
    task_id: str = ""
    reason: str = ""


#: prior ranges and sources of the :class:`Evolver` fields
EVOLVER_PRIOR = {
    # LLM judges agree with human verdicts about 80% of the time (Zheng et al. 2023,
    # MT-Bench), and self-verification without external feedback is unreliable
    # (Huang et al. 2024, "LLMs cannot self-correct reasoning yet")
    "self_error": (0.1, 0.35),
    # guess: a drafting model pastes task specifics into a fraction of drafts
    "replay_rate": (0.1, 0.4),
    # guess: with nothing readable, a drafting model often writes platitudes
    "generic_rate": (0.1, 0.5),
}


@dataclass(frozen=True)
class Evolver:
    """The evolver's own parameters (the reflecting model, not the solver); prior
    ranges and sources in :data:`EVOLVER_PRIOR`.

    Attributes:
        self_error: P(the self-generated verdict is wrong).
        replay_rate: P(a topic lesson is drafted with the task's exact values, a
            replay the filter drops).
        generic_rate: P(a failure the trace does not explain is drafted as generic
            advice rather than a re-check).
    """

    self_error: float = 0.2
    replay_rate: float = 0.25
    generic_rate: float = 0.3

    def __post_init__(self):
        for f in ("self_error", "replay_rate", "generic_rate"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                raise ValueError(f"Evolver.{f} must be in [0, 1], got {v!r}")


def check_level(level) -> str:
    """``level`` if it is a feedback level. Raises ValueError naming it."""
    if level not in FEEDBACK_LEVELS:
        raise ValueError(f"unknown feedback level {level!r}; expected one of "
                         f"{list(FEEDBACK_LEVELS)}")
    return level


def _u(seed: int, *items) -> float:
    key = [int(seed) & 0xFFFFFFFF] + [zlib.crc32(str(x).encode()) for x in items]
    return float(np.random.default_rng(key).random())


def _lost(t: Trace) -> tuple[str, ...]:
    """Where lost evidence went, from the trace: recovery reads that missed, results
    the agent archived, or, with neither, values it never noted and the trim (the
    only remover left) dropped: a program lesson to archive before trimming."""
    return ("recover",) if t.recoveries else ("keep",) if t.archives else \
        ("notes", "archive")


def failing_checks(ex: Execution) -> tuple[Check, ...]:
    """The verifier's output: one :class:`Check` per answered value that is not the
    expected one (a real checker's diff; it knows nothing of why)."""
    return tuple(Check(k, v, ex.expected[k]) for k, v in ex.answer.items()
                 if v != ex.expected[k])


def evaluate(ex: Execution, level: str, evolver: Evolver = Evolver()) -> Evaluation:
    """The evaluation result at feedback ``level`` (module docstring).

    Raises:
        ValueError: for an unknown level (names it).
    """
    check_level(level)
    if level == "self":
        wrong = _u(ex.seed, "self-verdict", ex.task_id) < evolver.self_error
        return Evaluation(level, ex.believes_solved != wrong)
    if level == "minimal":
        return Evaluation(level, ex.solved)
    return Evaluation(level, ex.solved, () if ex.solved else failing_checks(ex))


def issues(ex: Execution, ev: Evaluation, evolver: Evolver = Evolver(),
           diagnostics: bool = True) -> tuple[str, ...]:
    """The distinct issues (grammar verbs) to learn from (module docstring): ``()``
    for a run judged solved; else from the failing checks (when the evaluation has
    them and ``diagnostics``) or the compressed trajectory alone."""
    if ev.verdict:
        return ()
    t = read_trace(ex.compressed())
    long = ("shorten",) if t.tokens >= LONG_REQUEST_TOKENS else ()
    if diagnostics and ev.checks:
        wrong = {c.key for c in ev.checks}
        lost = _lost(t) if wrong & set(ex.unseen) else ()
        misread = ("verify",) if wrong - set(ex.unseen) else ()
        return lost + misread + (long if misread else ())
    if t.unseen:
        return _lost(t)
    if (t.given or t.unknown) and _u(ex.seed, "generic", ex.task_id) >= evolver.generic_rate:
        return ("verify",) + long
    return ("generic",)


def draft(ex: Execution, cause: str, evolver: Evolver = Evolver()) -> list[Proposal]:
    """The lesson drafts for one issue: the general lesson and the task type's
    procedure (the same verb confined to the topic), or platitudes for ``generic``."""
    j = zlib.crc32(ex.task_id.encode())
    if cause == "generic":
        return [Proposal(NEW, "g-advice", "general", ex.topic, "For any task",
                         "do: advice\n- be careful and double-check your work\n",
                         "advice", ex.task_id)]
    trigger, bullets = GENERAL[cause]
    bullet = bullets[j % len(bullets)]
    t = ex.topic
    topic_bullet = bullet
    if _u(ex.seed, "replay", ex.task_id, cause) < evolver.replay_rate and ex.values:
        topic_bullet = f"the answer here was {ex.values[0]}"
    return [Proposal(NEW, f"g-{cause}", "general", t, trigger,
                     f"{do_line(cause)}\n- {bullet}\n", cause, ex.task_id),
            Proposal(NEW, f"t-{t}", "topic", t, topic_trigger(t),
                     f"{do_line(cause)}\n- {topic_bullet}\n", cause, ex.task_id)]


def topic_trigger(topic: str) -> str:
    """The trigger of task type ``topic``'s procedure (a topic skill)."""
    return (f"Task ({topic}): work through the {topic.replace('_', ' ')} workflow; "
            f"look up its record values and report them exactly")


def filter_reason(p: Proposal, ex: Execution) -> str:
    """Why E.1's filter drops draft ``p`` (``""``: keep it): generic advice, no
    actionable instruction, or a replay of one task (its exact values or record ids)."""
    text = f"{p.trigger}\n{p.body}"
    # a model reflector's program edit (sim.evolve.evoharness.reflector) is actionable
    # though no rule drafts it under that name
    if _GENERIC.search(text) or (p.directive not in GENERAL and p.directive != "program"):
        return "generic advice"
    ids = re.findall(r"\b[A-Z]{3}-\d{4,5}\b", ex.statement)
    if any(v and v in text for v in ex.values) or any(i in text for i in ids):
        return "replay of one task"
    return ""


def propose(ex: Execution, ev: Evaluation, names, evolver: Evolver = Evolver(),
            reflect: bool = True) -> list[Proposal]:
    """Proposals for one execution given its evaluation (one per distinct issue).

    Args:
        ex: the execution context.
        ev: :func:`evaluate`'s result.
        names: skill names in the current harness (NEW vs ENHANCE).
        evolver: the evolver's parameters.
        reflect: solver-side proposal (False: the No-Propose ablation, module
            docstring).

    Returns:
        a list of :class:`Proposal`; ``[Proposal(NONE)]`` when nothing is to be learned.
    """
    names = set(names)
    found = issues(ex, ev, evolver, diagnostics=reflect)
    if not found:
        return [Proposal(NONE, task_id=ex.task_id, reason="judged solved")]
    out = []
    for p in (d for cause in found for d in draft(ex, cause, evolver)):
        why = filter_reason(p, ex) if reflect else ""
        if why:
            out.append(Proposal(NONE, task_id=ex.task_id, reason=why))
            continue
        op = ENHANCE if p.name in names else NEW
        out.append(Proposal(op, p.name, p.level, p.topic, p.trigger, p.body,
                            p.directive, p.task_id))
    return out
