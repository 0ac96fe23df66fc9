"""One writer per workspace directory: an OS-level lock (``fcntl.flock``) on
``<dir>/lock``, holding the writer's pid, host and start time for error messages.

The kernel drops the lock when its file is closed or the process dies (SIGKILL
included), so a crash never leaves a stale lock; a workspace dropped without
``close()`` releases it when garbage-collected. A second process that tries to
write gets :class:`WorkspaceLockedError` naming the holder. Within one process the
lock is shared: a later writer on the same directory takes it over and the earlier
``Workspace`` object is fenced (its changes raise :class:`ReadOnlyError`), so two
objects never interleave journal lines either.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
import weakref
from pathlib import Path

from .errors import ReadOnlyError, WorkspaceLockedError

#: realpath of a directory -> (pid, weak reference to the lock) held by this process
_HELD: dict[str, tuple[int, "weakref.ref[WriterLock]"]] = {}


class WriterLock:
    """The writer lock of ``directory``; :meth:`acquire` returns a token that the
    owner passes to :meth:`check` before each change."""

    def __init__(self, directory: str | Path):
        self.path = Path(directory) / "lock"
        self.key = os.path.realpath(directory)
        self._fd: int | None = None
        self.owner: object | None = None

    @classmethod
    def acquire(cls, directory: str | Path) -> tuple["WriterLock", object]:
        """Take the lock (or this process's lock on it) and return (lock, token).
        Raises :class:`WorkspaceLockedError` naming the holder if another process
        holds it."""
        key = os.path.realpath(directory)
        held = _HELD.get(key)
        lock = held[1]() if held is not None and held[0] == os.getpid() else None
        if lock is None or lock._fd is None:
            # none here (or inherited through fork: the parent's, not ours)
            lock = cls(directory)
            lock._take()
            _HELD[key] = (os.getpid(), weakref.ref(lock))
        token = object()
        lock.owner = token
        return lock, token

    def _take(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise WorkspaceLockedError(
                f"workspace {str(self.path.parent)!r} is locked by another writer "
                f"({holder or 'holder unknown'}); open it with read_only=True to look "
                "at it, or wait for that process to close it", holder) from None
        info = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                           "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        os.ftruncate(fd, 0)
        os.pwrite(fd, info.encode() + b"\n", 0)
        self._fd = fd

    def check(self, token: object) -> None:
        """Raise :class:`ReadOnlyError` unless ``token`` still owns the lock."""
        if self._fd is None or self.owner is not token:
            raise ReadOnlyError(f"this Workspace no longer holds the writer lock of "
                                f"{str(self.path.parent)!r} (closed, or a later open in "
                                "this process took it over)")

    def release(self, token: object) -> None:
        """Give the lock up if ``token`` owns it (closing the file unlocks it)."""
        if self.owner is not token or self._fd is None:
            return
        os.close(self._fd)
        self._fd = None
        self.owner = None
        held = _HELD.get(self.key)
        if held is not None and held[1]() is self:
            del _HELD[self.key]

    def __del__(self) -> None:
        # a workspace dropped without close(): its lock goes with it (no fd leak)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _holder(fd: int) -> str:
    """The holder as written in the lock file ("pid 123 on host h since t")."""
    try:
        info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return f"pid {info['pid']} on host {info['host']} since {info['since']}"
    except (OSError, ValueError, KeyError, TypeError):
        return ""
