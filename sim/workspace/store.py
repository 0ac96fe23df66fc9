"""Durable storage: a content-addressed payload store and an append-only journal
(DESIGN.md invariants 3, 6 and 7; VISTA §2.4 and Appendix F.1's recoverable store).

Payload files live at ``<root>/<sha[:2]>/<sha256>``; each is written to a temp file,
fsynced, renamed into place and its directory fsynced, so a reader never sees a partial
payload and a crash leaves either nothing or the whole file. The journal is in
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

_REL = re.compile(r"^[0-9a-f]{2}/[0-9a-f]{64}$")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class PayloadStore:
    """Content-addressed payload files under ``root``.

    ``sync=False`` skips fsync (benchmarks, throwaway workspaces); atomic rename is kept.
    ``guard`` is called before every write (the writer-lock check); ``read_only``
    creates nothing.
    """

    def __init__(self, root: Path | str, sync: bool = True,
                 guard: Callable[[], None] | None = None, read_only: bool = False):
        self.root = Path(root)
        self.sync = sync
        self.guard = guard
        if not read_only:
            self.root.mkdir(parents=True, exist_ok=True)

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
        target.parent.mkdir(exist_ok=True)
        tmp = target.parent / f".tmp-{handle.sha256[:16]}-{os.getpid()}"
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            if self.sync:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
        if self.sync:
            _fsync_dir(target.parent)
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

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The absolute file for a payload path, confined to the store: the checks of
        :meth:`address`, then every component must exist and none be a symlink
        (:class:`ConfinementError`) and the file must be regular (:class:`HandleError`).
        """
        sha = self.address(path)
        probe = self.root
        mode = 0
        for part in (sha[:2], sha):
            probe = probe / part
            try:
                mode = os.lstat(probe).st_mode
            except FileNotFoundError:
                raise HandleError(f"no payload at {os.fspath(path)!r}") from None
            if stat.S_ISLNK(mode):
                raise ConfinementError(f"payload path {os.fspath(path)!r} goes through "
                                       f"a symlink ({str(probe)!r})")
        if not stat.S_ISREG(mode):
            raise HandleError(f"payload path {os.fspath(path)!r} is not a regular file")
        return probe

    def read_path(self, path: str | os.PathLike[str]) -> bytes:
        """The bytes at a payload path, verified against the sha256 in its name
        (:class:`CorruptPayloadError` on mismatch)."""
        sha = self.address(path)
        data = self.resolve(path).read_bytes()
        if hashlib.sha256(data).hexdigest() != sha:
            raise CorruptPayloadError(f"payload {os.fspath(path)!r} is corrupt: its "
                                      f"sha256 no longer matches its address {sha}")
        return data

    def read(self, handle: Handle) -> bytes:
        """The payload bytes, verified against the handle's length and sha256.
        Raises :class:`CorruptPayloadError` on mismatch, :class:`ConfinementError` /
        :class:`HandleError` as :meth:`resolve` does."""
        if not handle.path.endswith(handle.sha256):
            raise HandleError(f"handle path {handle.path!r} does not match its sha256 "
                              f"{handle.sha256!r}")
        data = self.resolve(handle.path).read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != handle.sha256 or len(data) != handle.length:
            raise CorruptPayloadError(
                f"payload {handle.path!r} is corrupt: {len(data)} bytes with sha256 "
                f"{digest}, expected {handle.length} bytes with {handle.sha256}")
        return data

    def exists(self, handle: Handle) -> bool:
        """True if the handle's file is present (not verified)."""
        return (self.root / handle.path).is_file()

    def remove(self, handle: Handle) -> None:
        """Delete the handle's file if present (explicit deletion only)."""
        target = self.root / handle.path
        try:
            target.unlink()
        except FileNotFoundError:
            return
        if self.sync:
            _fsync_dir(target.parent)

    def files(self) -> Iterator[str]:
        """Every stored payload path (relative), temp files excluded."""
        if not self.root.is_dir():
            return
        for sub in sorted(self.root.iterdir()):
            if sub.is_dir() and not sub.is_symlink():
                for f in sorted(sub.iterdir()):
                    rel = f"{sub.name}/{f.name}"
                    if _REL.match(rel):
                        yield rel



from .journal import Journal  # noqa: E402,F401  (kept importable from here)
