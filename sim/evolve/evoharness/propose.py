"""Feedback and solver-side proposal (Evo-Harness §3.2 "Execution reflection", App. E.1,
§4.6 feedback levels).

After a task the evolver reads (i) the evaluation result at the chosen feedback level
(:func:`evaluate`), (ii) the compressed trajectory (:meth:`Execution.compressed`, one
line of counts, parsed back by :func:`read_trace`) and (iii) the answer's shape, and
proposes, per distinct issue, NEW, ENHANCE (of a named skill) or NONE
(:func:`propose`). Drafts that are generic advice or a replay of one task (they carry
the task's exact values or record ids) are filtered to NONE (E.1 "filter
aggressively").

The feedback level decides only what the evaluation says, never which lesson is
written (a test reads this module's source to hold that):

* ``self``: the solver's own verdict: it judges a run solved when it found a value
  for everything it answered (:attr:`Execution.believes_solved`), and that judgement
  is flipped at rate :attr:`Evolver.self_error` (the self-judge's errors); no
  diagnostics;
* ``minimal``: the environment's solved bit only; no diagnostics;
* ``standard``: the solved bit and the verifier's diagnosis (:func:`true_causes`).

The proposal rules are the same for every level (:func:`issues`): nothing is learned
from a run the evaluation calls solved; for a run it calls failed, the diagnosed
causes when the evaluation has them, else the cause the trace shows. An answer alone
never names its cause: a value the agent could not use is answered "unknown" or
one digit off, whether it was out of view, missed in a long request or spoiled by a
context-free failure. What a trace does show is whether each answered value's
evidence line was in the final request: values answered without it are lost
evidence, and where (after recovery reads that missed, after the agent archived, or
never noted); a failure with every value's evidence in view is a verification or
rule slip, which the trace cannot tell apart, so a keyed draw at
:attr:`Evolver.rule_guess`; nothing readable at all: generic advice, which the
filter drops. Self feedback can
therefore only differ from minimal through the self-judge: it misses failures whose
values look complete (no lesson) and reads a misjudged success as a failure (a lesson
drawn from a run that needed none).

``reflect=False`` is the No-Propose ablation (Table 3): no solver-side proposal, the
evolver compiles from the verdict and the compressed trajectory alone (no diagnostics,
no E.1 filter).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numpy as np

FEEDBACK_LEVELS = ("self", "minimal", "standard")
NEW, ENHANCE, NONE = "NEW", "ENHANCE", "NONE"

#: cause -> (trigger, bullet variants) of the general lesson that addresses it. Bullets
#: vary by task so merging two proposals really combines content.
GENERAL = {
    "verify": ("Before the final answer of a workflow task: look up record values, "
               "later steps write them, report them exactly",
               ["re-read each value from its evidence line, not from memory",
                "compare every reported value character by character with the source",
                "drop stray punctuation or suffixes from copied values"]),
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
}
TOPIC_BULLETS = ["check the {t} field conventions before writing a value",
                 "{t}: the value to report is the record's own field, not a derived one",
                 "{t}: confirm the record id matches the one the task names"]
_GENERIC = re.compile(r"\b(be careful|think step by step|double-check your work|"
                      r"do your best|pay attention)\b", re.I)
_TRACE = re.compile(r"^(?P<task>\S+): (?P<requests>\d+) requests, (?P<archives>\d+) "
                    r"archives, (?P<recoveries>\d+) recoveries \((?P<failed>\d+) failed\), "
                    r"(?P<given>\d+) values given, (?P<unknown>\d+) values unknown, "
                    r"(?P<unseen>\d+) not in view$")


# keyword-only: thirteen fields, several of one type, are too many to pass by position
@dataclass(frozen=True, kw_only=True)
class Execution:
    """The execution context c_ij of one task (what reflection reads).

    Attributes:
        task_id, topic, statement: the task (topic = task family).
        solved: the environment's outcome (the truth).
        believes_solved: the solver's own judgement.
        slip: simulator diagnosis of a context-free failure (``""``/``verify``/``rule``).
        answer: final values given (key -> value; ``"unknown"`` when not found).
        values: the task's exact values (for the replay filter).
        signals: trajectory signals (counts: archives, recoveries, failed_reads, ...).
        skills_shown: names of the skills in its pinned block.
        seed: episode seed (keys the evolver's draws).
        unseen: answered keys whose evidence line was not in the final request (what
            the trajectory shows: the answer's own context).
        wrong: answered keys the environment's checker marks wrong (per value; the
            standard verifier reads them).
    """

    task_id: str
    topic: str
    statement: str
    solved: bool
    believes_solved: bool
    slip: str
    answer: dict
    values: tuple[str, ...]
    signals: dict
    skills_shown: tuple[str, ...] = ()
    seed: int = 0
    unseen: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()

    def compressed(self) -> str:
        """The compressed trajectory E.1 gives the proposer: one line of counts
        (requests, archives, recoveries and how many missed, values given, answered
        unknown, and answered without their evidence line in the final request)."""
        s = self.signals
        unknown = sum(v == "unknown" for v in self.answer.values())
        return (f"{self.task_id}: {s.get('requests', 0)} requests, "
                f"{s.get('archives', 0)} archives, {s.get('recoveries', 0)} recoveries "
                f"({s.get('failed_reads', 0)} failed), "
                f"{len(self.answer) - unknown} values given, {unknown} values unknown, "
                f"{len(set(self.unseen) & set(self.answer))} not in view")


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


def read_trace(line: str) -> Trace:
    """Parse :meth:`Execution.compressed`'s line. Raises ValueError naming the line."""
    m = _TRACE.match(line)
    if not m:
        raise ValueError(f"not a compressed trajectory: {line!r}")
    return Trace(*(int(m.group(k)) for k in ("requests", "archives", "recoveries",
                                             "failed", "given", "unknown", "unseen")))


@dataclass(frozen=True)
class Evaluation:
    """What the evolver is told: the feedback level, a verdict and diagnostics."""

    feedback: str
    verdict: bool
    causes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Proposal:
    """One reflection output (E.1): op NEW/ENHANCE/NONE, the skill draft and provenance.

    ``name`` is the skill a NEW proposal would create or the one ENHANCE targets;
    ``directive`` its ``do:`` word; ``reason`` why NONE when filtered."""

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
    # our assumption: a drafting model pastes task specifics into a fraction of drafts
    "replay_rate": (0.1, 0.4),
    # our assumption: with nothing readable, a drafting model often writes platitudes
    "generic_rate": (0.1, 0.5),
    # a wrong exact value reads the same whether a check or a task-type rule was
    # missed: an uninformed guess (symmetric prior)
    "rule_guess": (0.3, 0.7),
}


@dataclass(frozen=True)
class Evolver:
    """The evolver's own parameters (the reflecting model, not the solver); prior
    ranges and sources in :data:`EVOLVER_PRIOR`.

    Attributes:
        self_error: P(the self-generated verdict is wrong).
        replay_rate: P(a rule lesson is drafted with the task's exact values, a replay
            the filter drops).
        generic_rate: P(a failure the trace does not explain is drafted as generic
            advice rather than a guessed slip).
        rule_guess: P(a wrong value without diagnostics is read as a rule slip rather
            than a verification slip).
    """

    self_error: float = 0.2
    replay_rate: float = 0.25
    generic_rate: float = 0.3
    rule_guess: float = 0.5

    def __post_init__(self):
        for f in ("self_error", "replay_rate", "generic_rate", "rule_guess"):
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


def _lost(t: Trace) -> str:
    """Where lost evidence went, from the trace: recovery reads that missed, results
    the agent archived, or values it never noted."""
    return "recover" if t.recoveries else "keep" if t.archives else "notes"


def true_causes(ex: Execution) -> tuple[str, ...]:
    """The verifier's diagnosis of a failure: the directives that address it. A value
    checked wrong whose evidence was not in the final request is lost evidence
    (``recover``/``keep``/``notes``, where from the trace); the verifier's slip
    diagnosis (``verify``/``rule``) when it has one; else a value checked wrong with
    its evidence in view is a verification failure. Never the form of the answer
    ("unknown" or a wrong value: any cause gives either)."""
    if ex.solved:
        return ()
    causes = []
    wrong = set(ex.wrong)
    if wrong & set(ex.unseen):
        causes.append(_lost(read_trace(ex.compressed())))
    if ex.slip:
        causes.append(ex.slip)
    elif wrong - set(ex.unseen):
        causes.append("verify")
    return tuple(causes)


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
    return Evaluation(level, ex.solved, true_causes(ex))


def issues(ex: Execution, ev: Evaluation, evolver: Evolver = Evolver(),
           diagnostics: bool = True) -> tuple[str, ...]:
    """The distinct issues to learn from (module docstring): ``()`` for a run judged
    solved; the evaluation's causes when it has some (and ``diagnostics``); else the
    cause the compressed trajectory shows."""
    if ev.verdict:
        return ()
    if diagnostics and ev.causes:
        return tuple(dict.fromkeys(ev.causes))
    t = read_trace(ex.compressed())
    if t.unseen:
        return (_lost(t),)
    if (t.given or t.unknown) and _u(ex.seed, "generic", ex.task_id) >= evolver.generic_rate:
        return ("rule" if _u(ex.seed, "guess", ex.task_id) < evolver.rule_guess
                else "verify",)
    return ("generic",)


def draft(ex: Execution, cause: str, evolver: Evolver = Evolver()) -> Proposal:
    """The lesson draft for one issue: the general lesson for a general cause, the
    task type's rule for a rule slip, platitudes for ``generic``."""
    j = zlib.crc32(ex.task_id.encode())
    if cause == "generic":
        return Proposal(NEW, "g-advice", "general", ex.topic,
                        "For any task", "do: advice\n- be careful and double-check your "
                        "work\n", "advice", ex.task_id)
    if cause == "rule":
        t = ex.topic
        bullet = TOPIC_BULLETS[j % len(TOPIC_BULLETS)].format(t=t.replace("_", " "))
        if _u(ex.seed, "replay", ex.task_id) < evolver.replay_rate and ex.values:
            bullet = f"the answer here was {ex.values[0]}"
        return Proposal(NEW, f"t-{t}", "topic", t,
                        f"Task ({t}): work through the {t.replace('_', ' ')} workflow; "
                        f"look up its record values and report them exactly",
                        f"do: rule {t}\n- {bullet}\n", "rule", ex.task_id)
    trigger, bullets = GENERAL[cause]
    return Proposal(NEW, f"g-{cause}", "general", ex.topic, trigger,
                    f"do: {cause}\n- {bullets[j % len(bullets)]}\n", cause, ex.task_id)


def filter_reason(p: Proposal, ex: Execution) -> str:
    """Why E.1's filter drops draft ``p`` (``""``: keep it): generic advice, no
    actionable directive, or a replay of one task (its exact values or record ids)."""
    text = f"{p.trigger}\n{p.body}"
    if _GENERIC.search(text) or p.directive not in GENERAL and p.directive != "rule":
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
    for cause in found:
        p = draft(ex, cause, evolver)
        why = filter_reason(p, ex) if reflect else ""
        if why:
            out.append(Proposal(NONE, task_id=ex.task_id, reason=why))
            continue
        op = ENHANCE if p.name in names else NEW
        out.append(Proposal(op, p.name, p.level, p.topic, p.trigger, p.body,
                            p.directive, p.task_id))
    return out
