"""Task streams: the scripted tool interactions a synthetic agent plays through.

A :class:`Task` is a task statement plus a script of :class:`Step` records. An
``observe`` step is a task tool call whose result enters the workspace; a ``use`` step
is an action whose arguments must carry exact evidence values (LOCA-bench scores the
final environment state, so a wrong intermediate write fails the task); the ``final``
step is the answer. Evidence is a :class:`Fact`: a key the question names and the exact
value it needs, rendered ``"key: value"`` wherever it occurs. Every step carries its
exact content token count so programs never re-tokenize task content.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

OBSERVE, USE, FINAL = "observe", "use", "final"


@dataclass(frozen=True)
class Fact:
    """One piece of exact evidence.

    Attributes:
        key: what a question names (unique within a task, never in distractors).
        value: the exact answer string; only an exact match scores.
        source: index of the observe step whose result contains it.
        source_known: whether the agent knows which call produced it: only where a
            family parameter says the task names the call (``source_named``; no
            default family does); otherwise the record id is in the result, never
            in the call or the question.
        pattern: for evidence in real text (replayed trajectories), a regex with one
            group that captures the value where the question points; empty: the
            value is on a ``"key: value"`` line.
    """

    key: str
    value: str
    source: int
    source_known: bool = True
    pattern: str = ""

    @property
    def line(self) -> str:
        """The rendered evidence line ``"key: value\\n"`` (also how an agent restates
        any fact in its notes)."""
        return f"{self.key}: {self.value}\n"

    def _key_values(self, text: str):
        """Each value a ``"key: "`` needle in ``text`` gives, in order: the needle at
        the start of the text or after a newline or a space, the value up to the end
        of its line. The one rule :meth:`extract` and :meth:`answers` share."""
        needle = self.key + ": "
        i = text.find(needle)
        while i >= 0:
            if i == 0 or text[i - 1] in "\n ":
                j = text.find("\n", i)
                yield text[i + len(needle): j if j >= 0 else None].strip()
            i = text.find(needle, i + 1)

    def extract(self, text: str) -> str | None:
        """The value as ``text`` shows it: from a ``"key: value"`` line (evidence, or an
        agent's restatement), else from :attr:`pattern`; None if absent."""
        if self.key + ": " in text:
            for value in self._key_values(text):
                return value
        if self.pattern:
            m = _compiled(self.pattern).search(text)
            if m:
                return m.group(1)
        return None

    def answers(self, texts) -> set[str]:
        """The distinct values the question's answer location has in ``texts`` (an
        unambiguous question has exactly one: its :attr:`value`)."""
        if self.pattern:
            rx = _compiled(self.pattern)
            return {v for t in texts for v in rx.findall(t)}
        # every place extract() would read, not only line starts: a needle after a
        # space elsewhere ("  key: other") would be read as the answer
        return {v for t in texts for v in self._key_values(t)}


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.M)


def call_text(tool: str, args: str) -> str:
    """How a task call is written in the stream and in archive indexes:
    ``tool(args)`` (the harness's call index, the synthetic agent's sources)."""
    return f"{tool}({args})"


@dataclass(frozen=True)
class Step:
    """One scripted agent action.

    Attributes:
        kind: ``"observe"``, ``"use"`` or ``"final"``.
        tool: task tool name (``"answer"`` for the final step).
        args: the call's argument text (for ``use``/``final``, filled by the agent).
        content: the tool result text (observe steps only).
        tokens: exact cl100k tokens of ``content``.
        facts: keys of facts whose line occurs in ``content``.
        needs: keys of facts the action's arguments must carry exactly.
        phase: scope index (context folding branches per phase).
    """

    kind: str
    tool: str
    args: str = ""
    content: str = ""
    tokens: int = 0
    facts: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    phase: int = 0


@dataclass(frozen=True)
class Task:
    """A generated or replayed task.

    Attributes:
        task_id: unique name ``"<generator>/<family>/s<seed>/<level>"``.
        family: task family name.
        seed: instance seed.
        level: the sweep coordinate (growth tokens, window, ...), for bookkeeping.
        statement: the task prompt (pinned user message).
        steps: the script.
        facts: key -> :class:`Fact`.
    """

    task_id: str
    family: str
    seed: int
    level: int
    statement: str
    steps: tuple[Step, ...]
    facts: dict[str, Fact] = field(default_factory=dict)

    @property
    def observation_tokens(self) -> int:
        """Total tokens of all tool results (the task's context growth)."""
        return sum(s.tokens for s in self.steps)

    def validate(self) -> None:
        """Check internal consistency.

        Raises:
            ValueError: if a needed fact is unknown, a fact's line is missing from its
                source step, or the script does not end with exactly one final step.
        """
        kinds = [s.kind for s in self.steps]
        if kinds.count(FINAL) != 1 or kinds[-1] != FINAL:
            raise ValueError(f"{self.task_id}: script must end with one final step")
        for s in self.steps:
            for k in s.needs:
                if k not in self.facts:
                    raise ValueError(f"{self.task_id}: step needs unknown fact {k!r}")
        for f in self.facts.values():
            src = self.steps[f.source]
            here = f.extract(src.content + "\n" + src.args) == f.value if f.pattern \
                else f.line in src.content
            if not here or f.key not in src.facts:
                raise ValueError(f"{self.task_id}: fact {f.key!r} not in step {f.source}")
