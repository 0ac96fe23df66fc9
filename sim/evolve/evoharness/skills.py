"""Skills of an Evo-Harness skill harness (Evo-Harness §3.1, §3.3, App. E).

A :class:`Skill` is one unit of harness guidance: a level (``general`` for a cross-task
pattern, ``topic`` for a task-type procedure), the topic it belongs to, a trigger-style
description (when to use it; what :func:`sim.evolve.evoharness.select.select` retrieves by), a
short bullet body, the supporting task ids it was compiled from, and helpful/harmful
counts from the feedback of the tasks it was shown in. Its size is the cl100k_base
token count of its rendered text (:func:`render`), the same tokenizer the workspace
charges the pinned skill block with, so the harness caps and the context budget are
in the same unit.

The body's first line is ``"do: <directive>"``: the operational procedure the skill
encodes. Synthetic agents act on the directive word (:mod:`sim.evolve.evoharness.skill_effects`);
a real model reads the whole text.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

LEVELS = ("general", "topic")
#: skill names: lowercase words joined by "-" or "_" (they appear in the pinned block)
_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-:.]{0,79}$")


class SkillError(ValueError):
    """A malformed skill (bad level, name, empty trigger/body, negative count)."""


@functools.lru_cache(maxsize=1)
def _tokenizer():
    from sim.workspace.tokenizer import get_tokenizer

    return get_tokenizer("cl100k_base")


def render(name: str, level: str, topic: str, trigger: str, body: str) -> str:
    """The text a skill occupies in the pinned skill block (and in a prompt)."""
    where = "general" if level == "general" else f"topic {topic}"
    return f"## skill {name} ({where})\nwhen: {trigger}\n{body.rstrip()}\n"


@functools.lru_cache(maxsize=65536)
def count_tokens(text: str) -> int:
    """cl100k_base tokens of ``text`` (the workspace tokenizer)."""
    return _tokenizer().count(text)


@dataclass(frozen=True)
class Skill:
    """One harness skill (immutable; the harness replaces skills, never edits them).

    Attributes:
        name: unique name within a harness.
        level: ``"general"`` (cross-task pattern) or ``"topic"`` (task-type procedure).
        topic: the topic (task type) it was compiled for; ``""`` allowed for general.
        trigger: trigger-style description: when the skill applies.
        body: short bullet content, first line ``"do: <directive>"``.
        support: task ids it was compiled from (sorted, distinct).
        topics_seen: topics of those tasks (a general skill needs >= 2).
        helpful: tasks it was shown in that the feedback judged solved.
        harmful: tasks it was shown in that the feedback judged failed.
        tokens: cl100k_base tokens of :meth:`text` (computed, never given).

    Raises:
        SkillError: naming the bad field and value.
    """

    name: str
    level: str
    topic: str
    trigger: str
    body: str
    support: tuple[str, ...] = ()
    topics_seen: tuple[str, ...] = ()
    helpful: int = 0
    harmful: int = 0
    tokens: int = field(default=0, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise SkillError(f"skill name must match {_NAME.pattern}, got {self.name!r}")
        if self.level not in LEVELS:
            raise SkillError(f"skill {self.name}: level must be one of {LEVELS}, "
                             f"got {self.level!r}")
        for f in ("topic", "trigger", "body"):
            if not isinstance(getattr(self, f), str):
                raise SkillError(f"skill {self.name}: {f} must be a string, got "
                                 f"{getattr(self, f)!r:.60}")
        if self.level == "topic" and not self.topic:
            raise SkillError(f"skill {self.name}: a topic skill needs a topic")
        if not self.trigger.strip():
            raise SkillError(f"skill {self.name}: empty trigger (curation requires one)")
        if not self.body.strip():
            raise SkillError(f"skill {self.name}: empty body")
        for f in ("helpful", "harmful"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise SkillError(f"skill {self.name}: {f} must be an int >= 0, got {v!r}")
        object.__setattr__(self, "support", tuple(sorted(set(map(str, self.support)))))
        object.__setattr__(self, "topics_seen",
                           tuple(sorted(set(map(str, self.topics_seen)))))
        object.__setattr__(self, "tokens", count_tokens(self.text()))

    def text(self) -> str:
        """The rendered skill (what enters the context window)."""
        return render(self.name, self.level, self.topic, self.trigger, self.body)

    @property
    def directive(self) -> str:
        """The directive word of the body's ``do:`` line (``""`` without one)."""
        return directive_of(self.body)

    def with_(self, **changes) -> "Skill":
        """A copy with ``changes`` (tokens recomputed)."""
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """JSON-ready fields (``tokens`` included for readers; recomputed on load)."""
        return {"name": self.name, "level": self.level, "topic": self.topic,
                "trigger": self.trigger, "body": self.body, "support": list(self.support),
                "topics_seen": list(self.topics_seen), "helpful": self.helpful,
                "harmful": self.harmful, "tokens": self.tokens}

    @classmethod
    def from_dict(cls, d: dict) -> "Skill":
        """The skill ``d`` describes (``tokens`` is recomputed and must agree).

        Raises:
            SkillError: for a missing/extra field, a bad value, or a stored token count
                that disagrees with the text.
        """
        if not isinstance(d, dict):
            raise SkillError(f"a skill must be a JSON object, got {d!r:.60}")
        want = {"name", "level", "topic", "trigger", "body", "support", "topics_seen",
                "helpful", "harmful", "tokens"}
        if set(d) != want:
            raise SkillError(f"skill fields must be {sorted(want)}, got {sorted(d)}")
        for f in ("support", "topics_seen"):
            if not isinstance(d[f], list):
                raise SkillError(f"skill {d.get('name')!r}: {f} must be a list, "
                                 f"got {d[f]!r:.60}")
        s = cls(d["name"], d["level"], d["topic"], d["trigger"], d["body"],
                tuple(d["support"]), tuple(d["topics_seen"]), d["helpful"], d["harmful"])
        if d["tokens"] != s.tokens:
            raise SkillError(f"skill {s.name}: stored tokens {d['tokens']!r} != "
                             f"{s.tokens} counted from its text")
        return s


def directive_of(body: str) -> str:
    """The directive word of a body's first ``do:`` line, or ``""``."""
    for line in body.splitlines():
        line = line.strip().lstrip("-* ").strip()
        if line.startswith("do:"):
            word = line[3:].strip().split()
            return word[0] if word else ""
    return ""
