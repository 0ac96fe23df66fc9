"""A model as Evo-Harness's reflector: lessons written as free text by an
OpenAI-compatible model and parsed into the lesson grammar (Evo-Harness §3.2
"Execution reflection", App. E.1; issue 32 "Lessons are proposed ... by the embedded
model as reflector (an option)").

The rule-based reflector (:func:`sim.evolve.evoharness.propose.propose`) drafts a
lesson per issue it reads from the trajectory. :class:`LLMReflector` instead shows a
model what the same evolver is shown (the verdict at the feedback level, a standard
verifier's failing checks, the compressed trajectory and the task statement) and asks
for one lesson in its own words. The text is parsed like any ``do:`` line
(:func:`sim.evolve.evoharness.lessons.edit_of`): a line naming no verb, a negated
line or a program edit the spec grammar refuses is no lesson (``NONE``, with the
reason); otherwise the model's text itself becomes the skill's ``do:`` line, so what
the agent plays is what the model wrote, parsed again at play time. As the rules do
(:func:`sim.evolve.evoharness.propose.draft`), the lesson is drafted twice, as a
general skill and as its task type's procedure, and the curator decides which
survive (the arms that keep one level see the same drafts as the others). E.1's
filter (generic advice, a replay of one task's values or record ids) applies as to
the rules' drafts. Nothing here knows what a lesson does: its effect is played.

A run judged solved is not shown to the model (nothing to learn, as in the rules).
Model calls are counted against ``max_calls``; past it, or when a call fails, the
execution yields ``NONE`` (reason ``"call budget spent"`` / ``"model call failed"``),
counted in :meth:`LLMReflector.ledger`. Identical prompts are answered from an
:class:`~sim.agents.answer_cache.AnswerCache` (greedy decoding gives the same answer).
"""

from __future__ import annotations

from collections.abc import Iterable

from sim.agents.answer_cache import AnswerCache, ReplayMiss
from sim.evolve.evoharness.lessons import edit_of
from sim.evolve.evoharness.propose import (ENHANCE, GENERAL, NEW, NONE, Evaluation,
                                           Execution, Proposal, filter_reason,
                                           topic_trigger)

#: the instruction the model answers to; the verbs are the grammar's, in words a
#: lesson may use (the parser reads the model's text, not a label it picks)
SYSTEM = (
    "You improve an agent's skill file. The agent works through workflow tasks: it "
    "looks up record values with tools and must report them exactly. Its context "
    "window is limited, so old tool results may be archived or trimmed. Read the "
    "feedback on one failed run and write ONE short instruction that would have "
    "helped, phrased as an action, for example: restate each needed value in notes "
    "when first seen; keep results that show needed values visible; recover archived "
    "results before answering; shorten the request by archiving bulky results "
    "earlier; verify (re-read) each value against its evidence before answering. "
    "Never copy the task's own values or record ids. Answer JSON {\"lesson\": ...}.")
SCHEMA = {"type": "object", "properties": {"lesson": {"type": "string"}},
          "required": ["lesson"]}
#: characters of the task statement and of one lesson kept (the small model's prompt
#: stays short; a lesson is one line)
STATEMENT_CHARS, LESSON_CHARS = 600, 240
#: the general trigger of a model's program edit (the rules draft none under that verb)
PROGRAM_TRIGGER = ("When a workflow task's context is managed by its program: look up "
                   "record values and report them exactly")
#: what :meth:`LLMReflector._ask` returns for a failed call (None: over budget)
_FAILED = object()


def feedback_text(ex: Execution, ev: Evaluation) -> str:
    """What the model is shown of one execution: the task statement, the verdict at
    the feedback level, a standard verifier's failing checks and the compressed
    trajectory (never the simulator's labels)."""
    lines = [f"Task ({ex.topic}): {ex.statement[:STATEMENT_CHARS]}",
             f"Feedback ({ev.feedback}): {'solved' if ev.verdict else 'failed'}"]
    lines += [f"- check {c.key}: answered {c.given!r}, expected {c.expected!r}"
              for c in ev.checks]
    lines.append(f"Trajectory: {ex.compressed()}")
    return "\n".join(lines)


class LLMReflector:
    """The model as reflector (module docstring); called like the rules:
    ``reflector(ex, ev, names)`` -> list of :class:`Proposal`.

    Args:
        client: an object with ``ask_json(messages, schema, check=None,
            max_tokens=None)`` (a :class:`sim.agents.llm.ChatClient`).
        max_calls: model-call budget of the whole stream (>= 1).
        max_tokens: the answer's token cap.

    Raises:
        ValueError: for ``max_calls`` < 1 or ``max_tokens`` < 16 (named).
    """

    name = "llm"

    def __init__(self, client, max_calls: int = 200, max_tokens: int = 96):
        for field, v, lo in (("max_calls", max_calls, 1), ("max_tokens", max_tokens, 16)):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ValueError(f"{field} must be an int >= {lo}, got {v!r}")
        self.client, self.max_calls, self.max_tokens = client, max_calls, max_tokens
        self._answers = AnswerCache()
        self.calls = self.cache_hits = self.failures = self.skipped = 0
        self.last_error = ""
        #: every lesson the model wrote: task, text, parsed verb ("" inert)
        self.lessons: list[dict] = []

    def _ask(self, user: str):
        key = (SYSTEM, user, SCHEMA, self.max_tokens)
        hit, ans = self._answers.lookup(key)
        if hit:
            self.cache_hits += 1
            return ans
        if self.calls >= self.max_calls:
            self.skipped += 1
            return None
        self.calls += 1
        try:
            ans = self.client.ask_json([{"role": "system", "content": SYSTEM},
                                        {"role": "user", "content": user}], SCHEMA,
                                       max_tokens=self.max_tokens)
        except ReplayMiss:
            raise   # a replay that lacks the answer stops: it is no failed call
        except Exception as exc:  # noqa: BLE001 - a failed call is no lesson, counted
            self.failures += 1
            self.last_error = f"{type(exc).__name__}: {exc}"
            return _FAILED
        self._answers.store(key, ans)
        return ans

    def __call__(self, ex: Execution, ev: Evaluation, names: Iterable[str]) -> list[Proposal]:
        """The model's lesson for one execution as proposals (module docstring)."""
        if ev.verdict:
            return [Proposal(NONE, task_id=ex.task_id, reason="judged solved")]
        ans = self._ask(feedback_text(ex, ev))
        if ans is None or ans is _FAILED:
            why = "call budget spent" if ans is None else "model call failed"
            return [Proposal(NONE, task_id=ex.task_id, reason=why)]
        text = " ".join(str(ans.get("lesson", "")).split())[:LESSON_CHARS] \
            if isinstance(ans, dict) else ""
        edit = edit_of(text) if text else None
        self.lessons.append({"task_id": ex.task_id, "lesson": text,
                             "verb": edit.verb if edit else ""})
        if edit is None:
            return [Proposal(NONE, task_id=ex.task_id,
                             reason="no instruction the lesson grammar plays")]
        t, names = ex.topic, set(names)
        general = GENERAL.get(edit.verb, (PROGRAM_TRIGGER,))[0]
        out = []
        for level, name, trigger in (("general", f"g-{edit.verb}", general),
                                     ("topic", f"t-{t}", topic_trigger(t))):
            p = Proposal(ENHANCE if name in names else NEW, name, level, t, trigger,
                         f"do: {text}\n", edit.verb, ex.task_id)
            why = filter_reason(p, ex)
            out.append(Proposal(NONE, task_id=ex.task_id, reason=why) if why else p)
        return out

    def ledger(self) -> dict:
        """Calls made, answered from the cache, skipped over budget and failed, the
        last error, and every lesson the model wrote (for a run's sidecar)."""
        return {"reflector": self.name, "model_calls": self.calls,
                "call_budget": self.max_calls, "repeated_questions": self.cache_hits,
                "skipped_over_budget": self.skipped, "failed_calls": self.failures,
                "last_error": self.last_error, "lessons": list(self.lessons)}
