"""One writer per workspace directory: an OS-level lock (``fcntl.flock``) on the
directory itself and on ``<dir>/lock``, which holds the writer's pid, host and start
time for error messages.

The directory is locked, not only the file: removing ``lock`` does not let a second
writer in (issue 22). The kernel drops the locks when the writer closes them or its
process dies (SIGKILL included), so a crash never leaves a stale lock. A lock is
released only by an explicit :meth:`Workspace.close` (or leaving its ``with``
block), never by a finalizer: a Ctrl-C that lands while a lock is released must
propagate, not be printed as "Exception ignored". A forked child never holds its
parent's lock: its inherited descriptors are closed at the fork (the parent keeps
the lock) and its copy of the writer refuses every change; the descriptors are
close-on-exec. A second process that tries to write gets
:class:`WorkspaceLockedError` naming the holder. Within one process the lock is
shared: a later writer on the same directory takes it over and the earlier
``Workspace`` object is fenced (its changes raise :class:`ReadOnlyError`), so two
objects never interleave journal lines either.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path

from .errors import ReadOnlyError, WorkspaceLockedError

#: realpath of a directory -> (pid, the lock) held by this process
_HELD: dict[str, tuple[int, "WriterLock"]] = {}


class WriterLock:
    """The writer lock of ``directory``; :meth:`acquire` returns a token that the
    owner passes to :meth:`check` before each change."""

    def __init__(self, directory: str | Path):
        self.path = Path(directory) / "lock"
        self.key = os.path.realpath(directory)
        self._fd: int | None = None
        self._dir_fd: int | None = None
        self.pid = os.getpid()
        self.owner: object | None = None

    @classmethod
    def acquire(cls, directory: str | Path) -> tuple["WriterLock", object]:
        """Take the lock (or this process's lock on it) and return (lock, token).
        Raises :class:`WorkspaceLockedError` naming the holder if another process
        holds it, :class:`PlantedLinkError` if ``lock`` is a symlink."""
        key = os.path.realpath(directory)
        held = _HELD.get(key)
        lock = held[1] if held is not None and held[0] == os.getpid() else None
        if lock is None or lock._fd is None:
            lock = cls(directory)
            lock._take()
            _HELD[key] = (os.getpid(), lock)
        token = object()
        lock.owner = token
        return lock, token

    def _take(self) -> None:
        from .safefs import call, open_fd

        directory = self.path.parent
        dfd = call(os.open, "open", directory, directory,
                   os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        fd = None
        try:
            try:
                fcntl.flock(dfd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fd = open_fd(self.path, os.O_RDWR | os.O_CREAT)
                # an older writer locks only the file: respect it too
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(self.path)
                raise WorkspaceLockedError(
                    f"workspace {str(directory)!r} is locked by another writer "
                    f"({holder or 'holder unknown'}); open it with read_only=True to "
                    "look at it, or wait for that process to close it", holder) from None
            info = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                               "since": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                      time.gmtime())})
            call(os.ftruncate, "ftruncate", self.path, fd, 0)
            call(os.pwrite, "write", self.path, fd, info.encode() + b"\n", 0)
        except BaseException:
            if fd is not None:
                os.close(fd)
            os.close(dfd)
            raise
        self._fd, self._dir_fd, self.pid = fd, dfd, os.getpid()

    def check(self, token: object) -> None:
        """Raise :class:`ReadOnlyError` unless ``token`` still owns the lock in this
        process (not in a forked child)."""
        if self.pid != os.getpid():
            raise ReadOnlyError(f"this Workspace's writer lock of "
                                f"{str(self.path.parent)!r} belongs to process "
                                f"{self.pid}; a forked child never writes (open the "
                                "workspace in the child after the parent closes it)")
        if self._fd is None or self.owner is not token:
            raise ReadOnlyError(f"this Workspace no longer holds the writer lock of "
                                f"{str(self.path.parent)!r} (closed, or a later open in "
                                "this process took it over)")

    def release(self, token: object) -> None:
        """Give the lock up if ``token`` owns it (closing the files unlocks them);
        the descriptors are forgotten before they are closed, so an interrupt in
        between leaves nothing to close twice."""
        if self.owner is not token or self._fd is None or self.pid != os.getpid():
            return
        fd, dfd, self._fd, self._dir_fd, self.owner = self._fd, self._dir_fd, None, \
            None, None
        held = _HELD.get(self.key)
        if held is not None and held[1] is self:
            del _HELD[self.key]
        try:
            os.close(fd)
        finally:
            os.close(dfd)

    def _forget(self) -> None:
        """In a forked child: close the inherited descriptors without unlocking (the
        lock stays the parent's) and refuse every change."""
        for fd in (self._fd, self._dir_fd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._fd = self._dir_fd = None
        self.owner = None


def _after_fork_in_child() -> None:
    for _, lock in list(_HELD.values()):
        lock._forget()
    _HELD.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)


def _holder(path: Path) -> str:
    """The holder as written in the lock file ("pid 123 on host h since t")."""
    from .safefs import open_fd

    try:
        fd = open_fd(path, os.O_RDONLY)
        try:
            info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        finally:
            os.close(fd)
        return f"pid {info['pid']} on host {info['host']} since {info['since']}"
    except (OSError, ValueError, KeyError, TypeError):
        return ""
