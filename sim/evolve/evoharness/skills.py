"""Skills of an Evo-Harness skill harness (Evo-Harness §3.1, §3.3, App. E).

A :class:`Skill` is one unit of harness guidance: a level (``general`` for a cross-task
pattern, ``topic`` for a task-type procedure), the topic it belongs to, a trigger-style
description (when to use it; what :func:`sim.evolve.evoharness.select.select` retrieves
by), a short bullet body, the supporting task ids it was compiled from, and the tasks
whose feedback judged it helpful or harmful (task-id sets, so a merge or a re-absorb
never counts one task twice). Its size is the cl100k_base token count of its rendered
text (:func:`render`), the same tokenizer the workspace charges the pinned skill block
with, so the harness caps and the context budget are in the same unit.

Every ``do: <directive>`` line of the body is one operational directive; a merged skill
keeps all of them (:func:`combine`) and a reader acts on every one. Two skills whose
instructions oppose (:func:`opposes`: "restart the service" / "do not restart the
service"), in a ``do:`` line or a bullet (:func:`instruction_lines`), are never combined: :func:`combine` raises :class:`MergeConflictError`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

LEVELS = ("general", "topic")
#: skill names: lowercase words joined by "-" or "_" (they appear in the pinned block)
_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-:.]{0,79}$")
#: negation markers that turn a directive into its opposite (leading words)
NEGATIONS = ("do not", "don't", "dont", "never", "not", "skip", "avoid", "no",
             "stop", "without")


class SkillError(ValueError):
    """A malformed skill (bad level, name, empty trigger/body, bad type)."""


class MergeConflictError(ValueError):
    """Two skills whose directives oppose cannot be merged (names both directives)."""


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


def _str_tuple(owner: str, f: str, v) -> tuple[str, ...]:
    if not isinstance(v, (tuple, list)) or not all(isinstance(x, str) for x in v):
        raise SkillError(f"skill {owner}: {f} must be a list of strings, got {v!r:.80}")
    return tuple(sorted(set(v)))


@dataclass(frozen=True)
class Skill:
    """One harness skill (immutable; the harness replaces skills, never edits them).

    Attributes:
        name: unique name within a harness.
        level: ``"general"`` (cross-task pattern) or ``"topic"`` (task-type procedure).
        topic: the topic (task type) it was compiled for; ``""`` allowed for general.
        trigger: trigger-style description: when the skill applies.
        body: short bullet content with one or more ``"do: <directive>"`` lines.
        support: task ids it was compiled from (sorted, distinct).
        topics_seen: topics of those tasks (a general skill needs >= 2).
        helped: ids of tasks it was shown in that the feedback judged solved.
        harmed: ids of tasks it was shown in that the feedback judged failed.
        tokens: cl100k_base tokens of :meth:`text` (computed, never given).

    Raises:
        SkillError: naming the bad field and value (no coercion: a support entry
            that is not a string is refused, not converted).
    """

    name: str
    level: str
    topic: str
    trigger: str
    body: str
    support: tuple[str, ...] = ()
    topics_seen: tuple[str, ...] = ()
    helped: tuple[str, ...] = ()
    harmed: tuple[str, ...] = ()
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
        for f in ("support", "topics_seen", "helped", "harmed"):
            object.__setattr__(self, f, _str_tuple(self.name, f, getattr(self, f)))
        object.__setattr__(self, "tokens", count_tokens(self.text()))

    def text(self) -> str:
        """The rendered skill (what enters the context window)."""
        return render(self.name, self.level, self.topic, self.trigger, self.body)

    @property
    def helpful(self) -> int:
        """Tasks the skill was shown in that the feedback judged solved."""
        return len(self.helped)

    @property
    def harmful(self) -> int:
        """Tasks the skill was shown in that the feedback judged failed."""
        return len(self.harmed)

    @property
    def directives(self) -> tuple[str, ...]:
        """Every ``do:`` line's directive text, in body order."""
        return directives_of(self.body)

    def with_(self, **changes) -> "Skill":
        """A copy with ``changes`` (tokens recomputed)."""
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """JSON-ready fields (``tokens`` included for readers; recomputed on load)."""
        return {"name": self.name, "level": self.level, "topic": self.topic,
                "trigger": self.trigger, "body": self.body, "support": list(self.support),
                "topics_seen": list(self.topics_seen), "helped": list(self.helped),
                "harmed": list(self.harmed), "tokens": self.tokens}

    @classmethod
    def from_dict(cls, d) -> "Skill":
        """The skill ``d`` describes (``tokens`` is recomputed and must agree).

        Raises:
            SkillError: for a missing/extra field, a value of the wrong type (never
                coerced), or a stored token count that disagrees with the text.
        """
        if not isinstance(d, dict):
            raise SkillError(f"a skill must be a JSON object, got {d!r:.60}")
        want = {"name", "level", "topic", "trigger", "body", "support", "topics_seen",
                "helped", "harmed", "tokens"}
        if set(d) != want:
            raise SkillError(f"skill fields must be {sorted(want)}, got {sorted(d)}")
        for f in ("support", "topics_seen", "helped", "harmed"):
            if not isinstance(d[f], list):
                raise SkillError(f"skill {d.get('name')!r}: {f} must be a list, "
                                 f"got {d[f]!r:.60}")
        s = cls(d["name"], d["level"], d["topic"], d["trigger"], d["body"],
                tuple(d["support"]), tuple(d["topics_seen"]), tuple(d["helped"]),
                tuple(d["harmed"]))
        tok = d["tokens"]
        if isinstance(tok, bool) or not isinstance(tok, int) or tok != s.tokens:
            raise SkillError(f"skill {s.name}: stored tokens {tok!r} != "
                             f"{s.tokens} counted from its text")
        return s


def directives_of(body: str) -> tuple[str, ...]:
    """The directive text of every ``do:`` line of ``body`` (``()`` without one)."""
    out = []
    for line in body.splitlines():
        line = line.strip().lstrip("-* ").strip()
        if line.startswith("do:") and line[3:].strip():
            out.append(line[3:].strip())
    return tuple(out)


def instruction_lines(body: str) -> tuple[str, ...]:
    """Every instruction of ``body``: each ``do:`` line's directive and each bullet
    (``- ...``/``* ...``) line's text, in body order. A bullet is an instruction too
    (issue 32): "never answer unknown" in one skill's bullets opposes "answer unknown"
    in another's."""
    out = []
    for line in body.splitlines():
        line = line.strip()
        if line[:1] in "-*" and line[1:].strip():
            line = line[1:].strip()
            if not line.startswith("do:"):
                out.append(line)
                continue
        if line.startswith("do:") and line[3:].strip():
            out.append(line[3:].strip())
    return tuple(out)


def _normal(directive: str) -> str:
    text = re.sub(r"[^a-z0-9' ]+", " ", directive.lower().replace("-", " "))
    return " ".join(text.split())


def polarity(directive: str) -> tuple[bool, str]:
    """``(negated, core)``: whether ``directive`` starts with a negation marker
    (:data:`NEGATIONS`, repeated markers cancel) and the action it negates."""
    text, neg = _normal(directive), False
    changed = True
    while changed:
        changed = False
        for m in sorted(NEGATIONS, key=len, reverse=True):
            if text == m or text.startswith(m + " "):
                text, neg, changed = text[len(m):].strip(), not neg, True
                break
    return neg, text


#: a program lesson's setting: ``program TARGET = VALUE``
#: (:mod:`sim.evolve.evoharness.program_lessons`)
_SETTING = re.compile(r"^program\s+(\S+?)\s*=\s*(\S.*?)\s*$")


def opposes(a: str, b: str) -> bool:
    """Whether directives ``a`` and ``b`` prescribe opposite actions: the same action
    with opposite polarity ("recover" / "skip-recover", "restart the service" / "do not
    restart the service"), or two program lessons setting one target to different
    values ("program request_assembly.trim_to = 0.6" / "... = 0.9")."""
    sa, sb = _SETTING.match(a.strip()), _SETTING.match(b.strip())
    if sa and sb:
        return sa.group(1) == sb.group(1) and sa.group(2) != sb.group(2)
    na, ca = polarity(a)
    nb, cb = polarity(b)
    return bool(ca) and ca == cb and na != nb


def conflict(a: Skill, b: Skill) -> tuple[str, str] | None:
    """The first pair of opposing instructions of ``a`` and ``b`` (every ``do:`` line
    and every bullet, :func:`instruction_lines`), or None."""
    for x in instruction_lines(a.body):
        for y in instruction_lines(b.body):
            if opposes(x, y):
                return x, y
    return None


def _canonical_body(*bodies: str) -> str:
    """Directive lines then the other lines, each set sorted and distinct: the same
    text whatever order the bodies come in."""
    lines = {line.strip() for b in bodies for line in b.splitlines() if line.strip()}
    do = sorted(x for x in lines if x.lstrip("-* ").startswith("do:"))
    rest = sorted(lines - set(do))
    return "\n".join(do + rest) + "\n"


def combine(keep: Skill, other: Skill) -> Skill:
    """``other`` merged into ``keep`` (MERGE): every directive and bullet of both kept
    (:func:`_canonical_body`), support, topics and feedback task sets united (a task
    counted once however often it is absorbed); the trigger of the better-supported
    skill (ties: the lexically first). Name, level and topic are ``keep``'s; all other
    fields do not depend on the order, so merging is commutative up to the name.

    Raises:
        MergeConflictError: when an instruction (``do:`` line or bullet) of one opposes
            one of the other.
    """
    bad = conflict(keep, other)
    if bad:
        raise MergeConflictError(f"cannot merge {other.name!r} into {keep.name!r}: "
                                 f"instruction {bad[0]!r} opposes {bad[1]!r}")
    trig = min((keep, other), key=lambda s: (-len(s.support), s.trigger)).trigger
    return keep.with_(trigger=trig, body=_canonical_body(keep.body, other.body),
                      support=keep.support + other.support,
                      topics_seen=keep.topics_seen + other.topics_seen,
                      helped=keep.helped + other.helped,
                      harmed=keep.harmed + other.harmed)
