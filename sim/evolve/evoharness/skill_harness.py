"""The skill harness H_i of Evo-Harness (§3.1) under an enforced budget.

:class:`SkillHarness` holds named :class:`~sim.evolve.evoharness.skills.Skill` s under three caps
(:class:`HarnessCaps`): the number of skills, their total tokens and the tokens of any
one skill (cl100k_base, the workspace's unit). Every change (add, enhance, absorb,
merge, remove, record) builds the whole next state, validates it against the caps, and
only then replaces the current one: an operation that would exceed a cap raises
:class:`HarnessCapError` naming the cap and the value, and changes nothing.

Persistence is a versioned JSON file (``format``/``version`` header, the caps, the
revision counter and the skills); :meth:`SkillHarness.save` writes a temporary file in
the same directory, fsyncs it and renames it over the target (atomic on POSIX), so a
reader sees the old or the new harness, never a mix; :meth:`SkillHarness.load` checks
every field and raises :class:`HarnessFileError` naming the file and the bad value.
"""

from __future__ import annotations

import json
import os
import pathlib
import tempfile
from dataclasses import asdict, dataclass

from sim.evolve.evoharness.skills import Skill, SkillError

FORMAT = "ctxsim-skill-harness"
VERSION = 1


class HarnessCapError(ValueError):
    """An operation would exceed a harness cap (nothing was changed)."""


class HarnessFileError(ValueError):
    """A harness file that cannot be read as a harness (names the file and value)."""


@dataclass(frozen=True)
class HarnessCaps:
    """The harness budget; ``None`` means unbounded (the ADD-only baseline).

    Attributes:
        max_skills: most skills held.
        max_total_tokens: most tokens of all skills together.
        max_skill_tokens: most tokens of one skill.

    Raises:
        ValueError: for a cap that is not a positive int or None (names it).
    """

    max_skills: int | None = 12
    max_total_tokens: int | None = 2400
    max_skill_tokens: int | None = 260

    def __post_init__(self):
        for f, v in asdict(self).items():
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"harness cap {f} must be a positive int or None, "
                                 f"got {v!r}")


UNBOUNDED = HarnessCaps(None, None, None)


def _union_lines(a: str, b: str) -> str:
    """Body lines of ``a`` then those of ``b`` not already present (order kept)."""
    out = a.rstrip("\n").splitlines()
    seen = {line.strip() for line in out}
    for line in b.splitlines():
        if line.strip() and line.strip() not in seen:
            out.append(line)
            seen.add(line.strip())
    return "\n".join(out) + "\n"


def combine(keep: Skill, other: Skill) -> Skill:
    """``keep`` with ``other`` merged in: bullet lines united (``keep``'s first), support
    and topics united, helpful/harmful counts summed (conserved); name, level, topic
    and trigger are ``keep``'s."""
    return keep.with_(body=_union_lines(keep.body, other.body),
                      support=keep.support + other.support,
                      topics_seen=keep.topics_seen + other.topics_seen,
                      helpful=keep.helpful + other.helpful,
                      harmful=keep.harmful + other.harmful)


class SkillHarness:
    """Named skills under :class:`HarnessCaps` (Evo-Harness H_i).

    Args:
        caps: the budget (default :class:`HarnessCaps`).
        skills: initial skills (validated like one :meth:`add` of all of them).

    Raises:
        HarnessCapError: if ``skills`` exceed a cap; ValueError for duplicate names.
    """

    def __init__(self, caps: HarnessCaps | None = None, skills=()):
        self.caps = caps or HarnessCaps()
        self._skills: dict[str, Skill] = {}
        self.revision = 0
        new = {}
        for s in skills:
            if s.name in new:
                raise ValueError(f"duplicate skill name {s.name!r}")
            new[s.name] = s
        self._commit(new, bump=False)

    # -- reading -------------------------------------------------------------------
    @property
    def skills(self) -> tuple[Skill, ...]:
        """The skills in insertion order."""
        return tuple(self._skills.values())

    def __len__(self) -> int:
        return len(self._skills)

    def __contains__(self, name) -> bool:
        return name in self._skills

    def __getitem__(self, name: str) -> Skill:
        try:
            return self._skills[name]
        except KeyError:
            raise KeyError(f"no skill named {name!r}; the harness has "
                           f"{sorted(self._skills)}") from None

    @property
    def total_tokens(self) -> int:
        """Tokens of all skills (cl100k_base)."""
        return sum(s.tokens for s in self._skills.values())

    def __eq__(self, other) -> bool:
        return (isinstance(other, SkillHarness) and self.caps == other.caps
                and self.revision == other.revision
                and list(self._skills.items()) == list(other._skills.items()))

    def check(self, skills: dict[str, Skill]) -> None:
        """Raise :class:`HarnessCapError` if ``skills`` (a candidate state) breaks a cap."""
        c = self.caps
        for s in skills.values():
            if c.max_skill_tokens is not None and s.tokens > c.max_skill_tokens:
                raise HarnessCapError(f"skill {s.name!r} has {s.tokens} tokens, over the "
                                      f"per-skill cap of {c.max_skill_tokens}")
        if c.max_skills is not None and len(skills) > c.max_skills:
            raise HarnessCapError(f"{len(skills)} skills would exceed the cap of "
                                  f"{c.max_skills} skills")
        total = sum(s.tokens for s in skills.values())
        if c.max_total_tokens is not None and total > c.max_total_tokens:
            raise HarnessCapError(f"{total} skill tokens would exceed the total cap of "
                                  f"{c.max_total_tokens}")

    def fits(self, skills: dict[str, Skill]) -> bool:
        """Whether a candidate state is within every cap."""
        try:
            self.check(skills)
        except HarnessCapError:
            return False
        return True

    # -- changing (each: build next state, validate, then commit) --------------------
    def _commit(self, new: dict[str, Skill], bump: bool = True) -> None:
        self.check(new)
        self._skills = new
        if bump:
            self.revision += 1

    def add(self, skill: Skill) -> None:
        """Add a new skill (ACCEPT of a NEW proposal).

        Raises:
            ValueError: if its name is taken; HarnessCapError over a cap.
        """
        if skill.name in self._skills:
            raise ValueError(f"skill name {skill.name!r} is already in the harness")
        self._commit({**self._skills, skill.name: skill})

    def absorb(self, name: str, incoming: Skill) -> Skill:
        """Merge a proposed skill into skill ``name`` (MERGE / ENHANCE); returns the
        merged skill. Raises KeyError for an unknown name, HarnessCapError over a cap."""
        merged = combine(self[name], incoming)
        self._commit({**self._skills, name: merged})
        return merged

    def merge(self, keep: str, drop: str) -> Skill:
        """Merge skill ``drop`` into ``keep`` and remove ``drop`` (MERGE of two held
        skills): contents combined, helpful/harmful counts conserved.

        Raises:
            KeyError: for an unknown name; ValueError when ``keep == drop``;
            HarnessCapError when the merged skill is over the per-skill cap.
        """
        if keep == drop:
            raise ValueError(f"cannot merge skill {keep!r} into itself")
        merged = combine(self[keep], self[drop])
        new = {k: (merged if k == keep else v) for k, v in self._skills.items()
               if k != drop}
        self._commit(new)
        return merged

    def remove(self, name: str) -> Skill:
        """Remove and return skill ``name`` (KeyError if unknown)."""
        gone = self[name]
        self._commit({k: v for k, v in self._skills.items() if k != name})
        return gone

    def record(self, names, solved: bool) -> None:
        """Count one task's feedback for the skills ``names`` it was shown:
        helpful + 1 each if ``solved`` else harmful + 1. Unknown names raise KeyError
        before anything changes."""
        names = list(dict.fromkeys(names))
        for n in names:
            self[n]
        if not names:
            return
        f = "helpful" if solved else "harmful"
        new = dict(self._skills)
        for n in names:
            new[n] = new[n].with_(**{f: getattr(new[n], f) + 1})
        self._commit(new)

    # -- persistence -----------------------------------------------------------------
    def to_dict(self) -> dict:
        """The versioned JSON document."""
        return {"format": FORMAT, "version": VERSION, "revision": self.revision,
                "caps": asdict(self.caps), "skills": [s.to_dict() for s in self.skills]}

    def save(self, path) -> pathlib.Path:
        """Write the harness to ``path`` atomically (temp file, fsync, rename)."""
        path = pathlib.Path(path)
        text = json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
        try:
            os.fchmod(fd, 0o644)  # mkstemp's 0600 would make a shared file unreadable
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            pathlib.Path(tmp).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def from_dict(cls, doc, where: str = "harness") -> "SkillHarness":
        """The harness ``doc`` describes. Raises :class:`HarnessFileError` (one line
        naming ``where`` and the bad value)."""
        if not isinstance(doc, dict):
            raise HarnessFileError(f"{where}: expected a JSON object, got {doc!r:.60}")
        if doc.get("format") != FORMAT:
            raise HarnessFileError(f"{where}: format {doc.get('format')!r} is not "
                                   f"{FORMAT!r}")
        if doc.get("version") != VERSION:
            raise HarnessFileError(f"{where}: unsupported version {doc.get('version')!r};"
                                   f" this reader knows version {VERSION}")
        rev = doc.get("revision")
        if isinstance(rev, bool) or not isinstance(rev, int) or rev < 0:
            raise HarnessFileError(f"{where}: revision must be an int >= 0, got {rev!r}")
        caps, skills = doc.get("caps"), doc.get("skills")
        if not isinstance(caps, dict) or not isinstance(skills, list):
            raise HarnessFileError(f"{where}: 'caps' must be an object and 'skills' a "
                                   f"list, got {caps!r:.40} and {skills!r:.40}")
        try:
            h = cls(HarnessCaps(**caps), [Skill.from_dict(s) for s in skills])
        except (SkillError, HarnessCapError, ValueError, TypeError) as exc:
            raise HarnessFileError(f"{where}: {exc}") from None
        h.revision = rev
        return h

    @classmethod
    def load(cls, path) -> "SkillHarness":
        """Reopen a harness written by :meth:`save`.

        Raises:
            HarnessFileError: for a missing/unreadable file, invalid JSON or any bad
                field, naming the file and the value.
        """
        path = pathlib.Path(path)
        try:
            doc = json.loads(path.read_text())
        except OSError as exc:
            raise HarnessFileError(f"{path}: cannot read harness file ({exc.strerror})") \
                from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise HarnessFileError(f"{path}: not a JSON harness file ({exc})") from None
        return cls.from_dict(doc, str(path))
