"""Durable storage: a content-addressed payload store and an append-only journal
(DESIGN.md invariants 3, 6 and 7; VISTA §2.4 and Appendix F.1's recoverable store).

A payload's name is its content address ``<sha[:2]>/<sha256>``. Payloads of at least
:data:`~sim.workspace.packs.PACK_BELOW` bytes live in a file of that name under
``<root>``; each is written to a temp file, fsynced, renamed into place and its
directory fsynced, so a reader never sees a partial payload and a crash leaves either
nothing or the whole file. Smaller ones are appended to pack files
(:mod:`sim.workspace.packs`) under the same name, so 100k small payloads do not take
a filesystem block each. A file of a name, if present, is read before the packs
(workspaces written before packs existed hold only files). The journal is in
:mod:`sim.workspace.journal`.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path, PurePosixPath
from typing import Callable, Iterator

from .blocks import Handle
from .errors import ConfinementError, CorruptPayloadError, HandleError
from .packs import PACK_BELOW, Packs
from .safefs import create_file, make_dirs, real_dir, rename, unlink

_REL = re.compile(r"^[0-9a-f]{2}/[0-9a-f]{64}$")


class PayloadStore:
    """Content-addressed payload files under ``root``.

    ``sync=False`` skips fsync (benchmarks, throwaway workspaces); atomic rename is kept.
    ``guard`` is called before every write (the writer-lock check); ``read_only``
    creates nothing. ``pack_below``: payloads shorter than this many bytes are
    packed (0: one file per payload, as before packs existed).
    """

    def __init__(self, root: Path | str, sync: bool = True,
                 guard: Callable[[], None] | None = None, read_only: bool = False,
                 pack_below: int = PACK_BELOW):
        self.root = Path(root)
        self.sync = sync
        self.guard = guard
        self.pack_below = pack_below
        self.packs = Packs(self.root, sync=sync, read_only=read_only)
        if not read_only:
            make_dirs(self.root.parent, sync)
            real_dir(self.root, sync=sync)

    @staticmethod
    def handle_for(data: bytes) -> Handle:
        """The handle ``data`` gets in any store (path from its sha256)."""
        digest = hashlib.sha256(data).hexdigest()
        return Handle(f"{digest[:2]}/{digest}", len(data), digest)

    def put(self, data: bytes) -> Handle:
        """Store ``data`` durably and return its handle; idempotent (an intact file
        with the same digest is kept, a damaged one is rewritten)."""
        if self.guard is not None:
            self.guard()
        handle = self.handle_for(data)
        target = self.root / handle.path
        if target.is_file() and not target.is_symlink():
            try:
                if hashlib.sha256(target.read_bytes()).hexdigest() == handle.sha256:
                    return handle
            except OSError:
                pass
        if len(data) < self.pack_below:
            try:
                if self.packs.get(handle.sha256, handle.path) is not None:
                    return handle  # an intact record already holds these bytes
            except CorruptPayloadError:
                pass  # every copy is damaged: append a good one
            self.packs.append(handle.sha256, data)
            return handle
        real_dir(self.root, sync=self.sync)
        real_dir(target.parent, sync=self.sync)  # a new payloads/<xx>/ made durable
        tmp = target.parent / f".tmp-{handle.sha256[:16]}-{os.getpid()}"
        create_file(tmp, data, self.sync, f"payload {handle.path!r}")
        rename(tmp, target, self.sync)
        return handle

    def address(self, path: str | os.PathLike[str]) -> str:
        """The sha256 a payload path names, by lexical checks alone.

        Accepts a handle path (``"ab/ab..."``), the same behind the store's folder name
        (``"payloads/ab/ab..."``, what the agent is shown) or an absolute path that
        lies lexically inside ``root``. Raises
        :class:`ConfinementError` for ``..`` and absolute paths elsewhere,
        :class:`HandleError` for anything not shaped like a payload address.
        """
        try:
            text = os.fspath(path)
        except TypeError:
            raise HandleError(f"payload path {path!r:.60} is not a path") from None
        if not isinstance(text, str) or "\x00" in text:
            raise HandleError(f"payload path {text!r:.60} is not a text path without NUL")
        pure = PurePosixPath(text)
        if ".." in pure.parts:
            raise ConfinementError(f"payload path {text!r} escapes the store ('..')")
        if pure.is_absolute():
            root = PurePosixPath(os.path.abspath(self.root))
            try:
                pure = pure.relative_to(root)
            except ValueError:
                raise ConfinementError(f"payload path {text!r} is outside the store "
                                       f"{str(root)!r}") from None
        elif pure.parts[:1] == (self.root.name,):
            # the workspace-relative form the agent is shown ("payloads/ab/ab...")
            pure = PurePosixPath(*pure.parts[1:])
        if not _REL.match(pure.as_posix()):
            raise HandleError(f"payload path {text!r} is not a payload address "
                              "('<2 hex>/<64 hex sha256>')")
        return pure.name

    def _file(self, sha: str, shown: str) -> Path | None:
        """The payload file of ``sha`` confined to the store, or None if there is
        none: no component may be a symlink (:class:`ConfinementError`) and the
        file must be regular (:class:`HandleError`)."""
        probe = self.root
        mode = 0
        for part in (sha[:2], sha):
            probe = probe / part
            try:
                mode = os.lstat(probe).st_mode
            except FileNotFoundError:
                return None
            if stat.S_ISLNK(mode):
                raise ConfinementError(f"payload path {shown!r} goes through "
                                       f"a symlink ({str(probe)!r})")
        if not stat.S_ISREG(mode):
            raise HandleError(f"payload path {shown!r} is not a regular file")
        return probe

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The absolute file for a payload path, confined to the store: the checks of
        :meth:`address`, then every component must exist and none be a symlink
        (:class:`ConfinementError`) and the file must be regular (:class:`HandleError`).
        A packed payload has no file of its own: :class:`HandleError` (see
        :meth:`check`)."""
        shown = os.fspath(path)
        found = self._file(self.address(path), shown)
        if found is None:
            raise HandleError(f"no payload file at {shown!r}")
        return found

    def check(self, path: str | os.PathLike[str]) -> str:
        """The sha256 of a payload path that is stored here, as a file or packed:
        the checks of :meth:`address` and :meth:`resolve`; :class:`HandleError` if
        neither holds it."""
        sha = self.address(path)
        shown = os.fspath(path)
        if self._file(sha, shown) is None and not self.packs.has(sha):
            raise HandleError(f"no payload at {shown!r}")
        return sha

    def _load(self, sha: str, shown: str, length: int | None = None) -> bytes:
        """Verified bytes of ``sha``: its file if intact, else an intact packed
        record; :class:`CorruptPayloadError` naming the file's damage if neither,
        :class:`HandleError` if nothing holds it."""
        found = self._file(sha, shown)
        if found is not None:
            data = found.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if digest == sha and (length is None or len(data) == length):
                return data
            try:
                packed = self.packs.get(sha, shown)
            except CorruptPayloadError:
                packed = None
            if packed is not None:
                return packed
            raise CorruptPayloadError(
                f"payload {shown!r} is corrupt: {len(data)} bytes with sha256 "
                f"{digest}, expected " + (f"{length} bytes with " if length is not None
                                          else "") + sha)
        data = self.packs.get(sha, shown)
        if data is None:
            raise HandleError(f"no payload at {shown!r}")
        if length is not None and len(data) != length:
            raise CorruptPayloadError(f"payload {shown!r} is corrupt: {len(data)} "
                                      f"bytes, expected {length}")
        return data

    def read_path(self, path: str | os.PathLike[str]) -> bytes:
        """The bytes at a payload path, verified against the sha256 in its name
        (:class:`CorruptPayloadError` on mismatch)."""
        return self._load(self.address(path), os.fspath(path))

    def read(self, handle: Handle) -> bytes:
        """The payload bytes, verified against the handle's length and sha256.
        Raises :class:`CorruptPayloadError` on mismatch, :class:`ConfinementError` /
        :class:`HandleError` as :meth:`resolve` does."""
        if not handle.path.endswith(handle.sha256):
            raise HandleError(f"handle path {handle.path!r} does not match its sha256 "
                              f"{handle.sha256!r}")
        sha = self.address(handle.path)
        return self._load(sha, handle.path, handle.length)

    def exists(self, handle: Handle) -> bool:
        """True if the handle's file or a packed record of it is present (not
        verified)."""
        return (self.root / handle.path).is_file() or self.packs.has(handle.sha256)

    def remove(self, handle: Handle) -> None:
        """Delete the handle's file if present (explicit deletion only). A packed
        payload's bytes stay in its pack (packs are append-only)."""
        unlink(self.root / handle.path, self.sync)

    def close(self) -> None:
        """Close the pack being appended to (everything is already durable)."""
        self.packs.close()

    def packed(self) -> list[str]:
        """Every payload path with an intact packed record header (not verified)."""
        return [f"{sha[:2]}/{sha}" for sha in self.packs.shas()]

    def files(self) -> Iterator[str]:
        """Every payload path stored as its own file (relative), temp files
        excluded; packed payloads are in :meth:`packed`."""
        if not self.root.is_dir():
            return
        for sub in sorted(self.root.iterdir()):
            if sub.is_dir() and not sub.is_symlink():
                for f in sorted(sub.iterdir()):
                    rel = f"{sub.name}/{f.name}"
                    if _REL.match(rel):
                        yield rel



from .journal import Journal  # noqa: E402,F401  (kept importable from here)
