"""The skill harness H_i of Evo-Harness (§3.1) under an enforced budget.

:class:`SkillHarness` holds named :class:`~sim.evolve.evoharness.skills.Skill` s under three caps
(:class:`HarnessCaps`): the number of skills, their total tokens and the tokens of any
one skill (cl100k_base, the workspace's unit). The caps are fixed when the harness is
made (no setter: shrinking them under held skills could leave a state no file can
hold). Every change (add, absorb, merge, remove, record) builds the whole next state,
validates it against the caps, and only then replaces the current one: an operation
that would exceed a cap raises :class:`HarnessCapError` naming the cap and the value,
and changes nothing.

Persistence is a versioned JSON file (``format``/``version`` header, the caps it was
written under, the revision counter and the skills). It loses nothing:

* :meth:`SkillHarness.save` and :meth:`SkillHarness.load` hold an exclusive
  ``flock`` on the file's directory; a save checks the file's revision against the one
  this harness was loaded from (or last saved) and refuses a stale one,
  :class:`StaleRevisionError` naming both revisions; :meth:`SkillHarness.update` is
  the read-modify-write under one lock, so concurrent writers never lose an update;
* the save writes a temporary file in the same directory, fsyncs it and renames it over
  the target (atomic on POSIX); temporary files a killed save left behind are removed
  by the next open (under the lock, so none belongs to a live writer);
* :meth:`SkillHarness.load` takes the caller's caps (required: the file's own caps are
  checked for form but never applied, so a file cannot raise them), refuses duplicate
  JSON keys and any value of the wrong type (no coercion), and raises
  :class:`HarnessFileError` naming the file and the bad value;
* :meth:`SkillHarness.save` validates its document with the same reader before writing,
  so it never writes what :meth:`SkillHarness.load` would refuse.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pathlib
import tempfile
from dataclasses import asdict, dataclass

from sim.evolve.evoharness.skills import MergeConflictError, Skill, SkillError, combine

FORMAT = "ctxsim-skill-harness"
VERSION = 2
_CAP_FIELDS = ("max_skills", "max_total_tokens", "max_skill_tokens")


class HarnessCapError(ValueError):
    """An operation would exceed a harness cap (nothing was changed)."""


class HarnessFileError(ValueError):
    """A harness file that cannot be read as a harness (names the file and value)."""


class StaleRevisionError(HarnessFileError):
    """A save based on an older revision than the file holds (names both)."""


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


def _no_duplicate_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise HarnessFileError(f"duplicate JSON key {k!r}")
        out[k] = v
    return out


def _fsync_dir(directory: pathlib.Path) -> None:
    """fsync ``directory`` so a rename into it survives a power loss."""
    fd = os.open(directory if str(directory) else ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _tmp_prefix(path: pathlib.Path) -> str:
    return f".{path.name}.tmp-"


@contextlib.contextmanager
def _locked(path: pathlib.Path):
    """An exclusive flock on ``path``'s directory; stale temp files of ``path`` (a
    killed save's) are removed once it is held."""
    d = path.parent if str(path.parent) else pathlib.Path(".")
    fd = os.open(d, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        for tmp in d.glob(_tmp_prefix(path) + "*"):
            tmp.unlink(missing_ok=True)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


class SkillHarness:
    """Named skills under :class:`HarnessCaps` (Evo-Harness H_i).

    Args:
        caps: the budget (default :class:`HarnessCaps`); fixed for the harness's life.
        skills: initial skills (validated like one :meth:`add` of all of them).

    Raises:
        HarnessCapError: if ``skills`` exceed a cap.
        ValueError: for duplicate names or caps that are not a :class:`HarnessCaps`.
    """

    def __init__(self, caps: HarnessCaps | None = None, skills=()):
        caps = HarnessCaps() if caps is None else caps
        if not isinstance(caps, HarnessCaps):
            raise ValueError(f"caps must be a HarnessCaps, got {caps!r:.60}")
        self._caps = caps
        self._skills: dict[str, Skill] = {}
        self.revision = 0
        #: the file revision this harness was loaded from or last saved as (None: new)
        self.base_revision: int | None = None
        new = {}
        for s in skills:
            if s.name in new:
                raise ValueError(f"duplicate skill name {s.name!r}")
            new[s.name] = s
        self._commit(new, bump=False)

    # -- reading -------------------------------------------------------------------
    @property
    def caps(self) -> HarnessCaps:
        """The budget (read-only)."""
        return self._caps

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
        merged skill. Raises KeyError for an unknown name, MergeConflictError for
        opposing directives, HarnessCapError over a cap (nothing changed on any)."""
        merged = combine(self[name], incoming)
        self._commit({**self._skills, name: merged})
        return merged

    def merge(self, keep: str, drop: str) -> Skill:
        """Merge skill ``drop`` into ``keep`` and remove ``drop`` (MERGE of two held
        skills): every directive and bullet kept, feedback task sets united.

        Raises:
            KeyError: for an unknown name; ValueError when ``keep == drop``;
            MergeConflictError for opposing directives; HarnessCapError when the
            merged skill is over the per-skill cap.
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

    def record(self, names, solved: bool, task_id: str) -> None:
        """Count task ``task_id``'s feedback for the skills ``names`` it was shown: the
        task joins their ``helped`` set if ``solved`` else their ``harmed`` set (once,
        however often it is recorded). Unknown names raise KeyError before anything
        changes; a non-string ``task_id`` raises ValueError."""
        if not isinstance(task_id, str) or not task_id:
            raise ValueError(f"task_id must be a non-empty string, got {task_id!r}")
        names = list(dict.fromkeys(names))
        for n in names:
            self[n]
        if not names:
            return
        f = "helped" if solved else "harmed"
        new = dict(self._skills)
        for n in names:
            new[n] = new[n].with_(**{f: getattr(new[n], f) + (task_id,)})
        self._commit(new)

    # -- persistence -----------------------------------------------------------------
    def to_dict(self) -> dict:
        """The versioned JSON document."""
        return {"format": FORMAT, "version": VERSION, "revision": self.revision,
                "caps": asdict(self.caps), "skills": [s.to_dict() for s in self.skills]}

    def save(self, path, *, replace: bool = False) -> pathlib.Path:
        """Write the harness to ``path`` atomically, under the directory lock.

        Args:
            path: the harness file.
            replace: overwrite whatever the file holds (default False: a save must be
                based on the file's current revision).

        Raises:
            StaleRevisionError: when the file holds a revision other than the one this
                harness was loaded from or last saved (both named), or a file exists
                and this harness was never loaded from it.
            HarnessFileError: when the file on disk cannot be read to check it.
        """
        path = pathlib.Path(path)
        with _locked(path):
            if not replace:
                self._check_base(path)
            self._write(path)
        return path

    def _check_base(self, path: pathlib.Path) -> None:
        if not path.exists():
            return
        on_disk = _read_doc(path).get("revision")
        if self.base_revision is None or on_disk != self.base_revision:
            base = "none (a new harness)" if self.base_revision is None \
                else self.base_revision
            raise StaleRevisionError(
                f"{path}: the file is at revision {on_disk!r} but this harness is based "
                f"on revision {base}; reload it and reapply the change (or save with "
                f"replace=True to discard the file's content)")

    def _write(self, path: pathlib.Path) -> None:
        doc = self.to_dict()
        text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
        # the reader is the writer's gate: never write what load() would refuse
        type(self).from_dict(json.loads(text, object_pairs_hook=_no_duplicate_keys),
                             self.caps, str(path))
        fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(path), dir=path.parent or ".")
        try:
            os.fchmod(fd, 0o644)  # mkstemp's 0600 would make a shared file unreadable
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
            # the rename is durable only once its directory is (issue 34, defect 4)
            _fsync_dir(path.parent)
        except BaseException:
            pathlib.Path(tmp).unlink(missing_ok=True)
            raise
        self.base_revision = self.revision

    @classmethod
    def from_dict(cls, doc, caps: HarnessCaps, where: str = "harness") -> "SkillHarness":
        """The harness ``doc`` describes, held under the caller's ``caps``.

        Raises:
            HarnessFileError: one line naming ``where`` and the bad value (missing or
                malformed caps in the document, a field of the wrong type, content over
                the caller's caps); ValueError when ``caps`` is not a HarnessCaps.
        """
        if not isinstance(caps, HarnessCaps):
            raise ValueError(f"caps are required (a HarnessCaps), got {caps!r:.60}; a "
                             f"harness file never sets its own budget")
        if not isinstance(doc, dict):
            raise HarnessFileError(f"{where}: expected a JSON object, got {doc!r:.60}")
        if doc.get("format") != FORMAT:
            raise HarnessFileError(f"{where}: format {doc.get('format')!r} is not "
                                   f"{FORMAT!r}")
        if doc.get("version") != VERSION or isinstance(doc.get("version"), bool):
            raise HarnessFileError(f"{where}: unsupported version {doc.get('version')!r};"
                                   f" this reader knows version {VERSION}")
        want = {"format", "version", "revision", "caps", "skills"}
        if set(doc) != want:
            raise HarnessFileError(f"{where}: fields must be {sorted(want)}, got "
                                   f"{sorted(doc)}")
        rev = doc["revision"]
        if isinstance(rev, bool) or not isinstance(rev, int) or rev < 0:
            raise HarnessFileError(f"{where}: revision must be an int >= 0, got {rev!r}")
        fcaps, skills = doc["caps"], doc["skills"]
        if not isinstance(fcaps, dict) or set(fcaps) != set(_CAP_FIELDS):
            raise HarnessFileError(f"{where}: 'caps' must be an object with exactly "
                                   f"{list(_CAP_FIELDS)}, got {fcaps!r:.80}")
        try:
            HarnessCaps(**fcaps)
        except ValueError as exc:
            raise HarnessFileError(f"{where}: {exc}") from None
        if not isinstance(skills, list):
            raise HarnessFileError(f"{where}: 'skills' must be a list, got {skills!r:.40}")
        try:
            h = cls(caps, [Skill.from_dict(s) for s in skills])
        except (SkillError, HarnessCapError, ValueError) as exc:
            raise HarnessFileError(f"{where}: {exc}") from None
        h.revision = h.base_revision = rev
        return h

    @classmethod
    def load(cls, path, caps: HarnessCaps) -> "SkillHarness":
        """Reopen a harness written by :meth:`save`, under the caller's ``caps``.

        Raises:
            HarnessFileError: for a missing/unreadable file, invalid JSON, a duplicate
                key or any bad field, naming the file and the value.
        """
        path = pathlib.Path(path)
        with _locked(path):
            return cls.from_dict(_read_doc(path), caps, str(path))

    @classmethod
    def update(cls, path, caps: HarnessCaps, change) -> "SkillHarness":
        """Read-modify-write under one lock: load ``path`` (a new empty harness when
        it does not exist), apply ``change(harness)``, save; returns the harness.
        Concurrent updates of one file are serialised, so none is lost."""
        path = pathlib.Path(path)
        with _locked(path):
            h = cls.from_dict(_read_doc(path), caps, str(path)) if path.exists() \
                else cls(caps)
            change(h)
            h._write(path)
        return h


def _read_doc(path: pathlib.Path):
    try:
        return json.loads(path.read_text(), object_pairs_hook=_no_duplicate_keys)
    except OSError as exc:
        raise HarnessFileError(f"{path}: cannot read harness file ({exc.strerror})") \
            from None
    except HarnessFileError as exc:
        raise HarnessFileError(f"{path}: {exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HarnessFileError(f"{path}: not a JSON harness file ({exc})") from None
