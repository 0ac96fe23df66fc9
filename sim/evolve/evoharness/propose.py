"""Feedback and solver-side proposal (Evo-Harness §3.2 "Execution reflection", App. E.1,
§4.6 feedback levels).

After a task the evolver reads (i) the evaluation result at the chosen feedback level,
(ii) trajectory signals and (iii) a compressed trajectory (:class:`Execution`), and
proposes, per distinct issue, NEW, ENHANCE (of a named skill) or NONE
(:func:`propose`). Drafts that are generic advice or a replay of one task (they carry
the task's exact values or record ids) are filtered to NONE (E.1 "filter
aggressively").

Feedback levels (:data:`FEEDBACK_LEVELS`):

* ``self``: the solver's own verdict (:attr:`Execution.believes_solved`: it found a
  value for everything it answered), wrong at rate :attr:`Evolver.self_error`; no
  diagnostics. A run it judges successful is reflected on as "what worked": with
  probability :attr:`Evolver.confirm_rate` its own habits are codified as a lesson
  (no recovery reads -> ``skip-recover``), ungrounded self-confirmation;
* ``minimal``: the environment's solved bit only; the cause of a failure is guessed
  from the trajectory signals (an ``unknown`` answer points at lost evidence; a
  wrong exact value cannot tell a verification slip from a task-type rule, so the
  guess is a keyed coin);
* ``standard``: the simulator's diagnostics (verifier output): the failure's cause
  (verification slip, rule slip, or evidence lost after a failed recovery / archived
  by the agent / evicted by the program), or nothing to learn for a success.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

import numpy as np

FEEDBACK_LEVELS = ("self", "minimal", "standard")
NEW, ENHANCE, NONE = "NEW", "ENHANCE", "NONE"

#: general directive -> (trigger, bullet variants). Bullets vary by task so merging
#: two proposals really combines content.
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
    "skip-recover": ("Work through a workflow task and report the record values "
                     "exactly",
                     ["answer from the values in view; recovery reads waste calls",
                      "finish quickly instead of reopening archived results"]),
}
TOPIC_BULLETS = ["check the {t} field conventions before writing a value",
                 "{t}: the value to report is the record's own field, not a derived one",
                 "{t}: confirm the record id matches the one the task names"]
_GENERIC = re.compile(r"\b(be careful|think step by step|double-check your work|"
                      r"do your best|pay attention)\b", re.I)


@dataclass(frozen=True)
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

    def compressed(self) -> str:
        """The compressed trajectory (one line of counts and the answer's shape)."""
        s = self.signals
        unknown = sum(v == "unknown" for v in self.answer.values())
        return (f"{self.task_id}: {s.get('requests', 0)} requests, "
                f"{s.get('archives', 0)} archives, {s.get('recoveries', 0)} recoveries "
                f"({s.get('failed_reads', 0)} failed), {unknown} values unknown")


@dataclass(frozen=True)
class Evaluation:
    """What the evolver is told at its feedback level: a verdict and diagnostics."""

    level: str
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


@dataclass(frozen=True)
class Evolver:
    """The evolver's own parameters (the reflecting model, not the solver).

    Attributes:
        self_error: P(the self-generated verdict is wrong).
        confirm_rate: P(a self-judged success is codified as a lesson).
        replay_rate: P(a diagnosed rule slip is drafted with the task's exact values,
            a replay the filter drops).
        generic_rate: P(an unexplained failure is drafted as generic advice).
    """

    self_error: float = 0.3
    confirm_rate: float = 0.5
    replay_rate: float = 0.25
    generic_rate: float = 0.3

    def __post_init__(self):
        for f in ("self_error", "confirm_rate", "replay_rate", "generic_rate"):
            v = getattr(self, f)
            if not 0.0 <= v <= 1.0:
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


def true_causes(ex: Execution) -> tuple[str, ...]:
    """The simulator's diagnosis of a failure: the directives that address it
    (``verify``/``rule`` for slips; ``recover``/``keep``/``notes`` for lost evidence:
    recovery reads that failed, evidence the agent archived, evidence evicted)."""
    if ex.solved:
        return ()
    causes = []
    if any(v == "unknown" for v in ex.answer.values()):
        s = ex.signals
        causes.append("recover" if s.get("recoveries", 0) else
                      "keep" if s.get("archives", 0) else "notes")
    if ex.slip:
        causes.append(ex.slip)
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


def _guess(ex: Execution, evolver: Evolver) -> str:
    """A cause read from the trajectory alone (minimal / self feedback)."""
    if any(v == "unknown" for v in ex.answer.values()):
        s = ex.signals
        return "recover" if s.get("recoveries", 0) else \
            "keep" if s.get("archives", 0) else "notes"
    if _u(ex.seed, "generic", ex.task_id) < evolver.generic_rate:
        return "generic"
    return "verify" if _u(ex.seed, "guess", ex.task_id) < 0.5 else "rule"


def _draft(ex: Execution, cause: str, evolver: Evolver) -> Proposal:
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
                        f"Task ({t}): work through the {t.replace('_', ' ')} workflow; look up "
                        f"its record values and report them exactly",
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


def propose(ex: Execution, ev: Evaluation, names, evolver: Evolver = Evolver()
            ) -> list[Proposal]:
    """Proposals for one execution given its evaluation (one per distinct issue).

    Args:
        ex: the execution context.
        ev: :func:`evaluate`'s result at the chosen level.
        names: skill names in the current harness (NEW vs ENHANCE).
        evolver: the evolver's parameters.

    Returns:
        a list of :class:`Proposal`; ``[Proposal(NONE)]`` when nothing is to be learned.
    """
    names = set(names)
    if ev.verdict:
        if ev.level == "self" and _u(ex.seed, "confirm", ex.task_id) < evolver.confirm_rate:
            lesson = "recover" if ex.signals.get("recoveries", 0) else "skip-recover"
            causes = (lesson,)
        else:
            return [Proposal(NONE, task_id=ex.task_id, reason="judged solved")]
    elif ev.level == "standard":
        causes = ev.causes or ("generic",)
    else:
        causes = (_guess(ex, evolver),)
    out = []
    for cause in dict.fromkeys(causes):
        p = _draft(ex, cause, evolver)
        why = filter_reason(p, ex)
        if why:
            out.append(Proposal(NONE, task_id=ex.task_id, reason=why))
            continue
        op = ENHANCE if p.name in names else NEW
        out.append(Proposal(op, p.name, p.level, p.topic, p.trigger, p.body,
                            p.directive, p.task_id))
    return out
