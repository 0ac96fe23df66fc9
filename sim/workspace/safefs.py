"""File operations a writer uses inside a workspace: never through a symlink, and
never leaving a failed write's bytes behind (issue 22).

Every file the writer creates or opens is opened with ``O_NOFOLLOW`` after checking
with ``lstat`` that each directory between the workspace and it is a real directory,
so a link planted at ``lock``, ``journal.jsonl``, ``.checkpoint.bin.tmp``,
``payloads/``, ``payloads/packs/`` or ``quarantine/`` is a
:class:`~sim.workspace.errors.PlantedLinkError` naming it, never a write elsewhere.
:func:`write_all` appends with ``os.write`` (no user-space buffer that a retry could
flush twice) and, when a write fails (``ENOSPC``, ``EFBIG``, ``EIO``), truncates the
file back to its last good offset: the error says whether that worked.

Every system call here that fails raises a named
:class:`~sim.workspace.errors.WorkspaceIOError` (``ReadOnlyFilesystemError`` for
``EROFS``; a missing file also stays a ``FileNotFoundError``), never a raw
``OSError`` (issue 34). Every directory this module creates, and every rename and
unlink it makes, is followed (with ``sync``) by an fsync of the directory that holds
the new name, so the entry is as durable as the bytes behind it: a filesystem that
does not order metadata (ext4 without ``data=ordered``, XFS, a power loss) loses no
acknowledged name.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path

from .errors import (PlantedLinkError, ReadOnlyFilesystemError, WorkspaceError,
                     WorkspaceIOError, WriteFailedError)

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class MissingFileError(WorkspaceIOError, FileNotFoundError):
    """A named :class:`WorkspaceIOError` that is also a ``FileNotFoundError`` (a
    caller that treats a missing file as "none yet" still catches it)."""


def io_error(exc: OSError, call: str, path: object, applied: bool = False,
             after: str = "") -> WorkspaceIOError:
    """The named error for ``exc``, raised by ``call`` on ``path``: its message names
    the call, the path and the OS error and says whether the operation took effect
    (``applied``; ``after`` says what already happened, if so)."""
    if isinstance(exc, WorkspaceError):
        return exc  # already named
    cls = (ReadOnlyFilesystemError if exc.errno == errno.EROFS else
           MissingFileError if isinstance(exc, FileNotFoundError) else WorkspaceIOError)
    why = f"{call} {str(path)!r} failed ({exc.strerror or exc})"
    if applied:
        why += f"; {after or 'the operation took effect'} (it is journaled)"
    elif exc.errno == errno.EROFS:
        why += ("; the filesystem is read-only: nothing was changed (open the "
                "workspace with read_only=True, or `ctxsim workspace check`, to read it)")
    else:
        why += "; the operation was not applied (nothing of it is journaled)"
    return cls(why, exc.errno, applied=applied, call=call)


def call(fn, name: str, path: object, *args):
    """``fn(*args)``, with an ``OSError`` raised as :func:`io_error` names it."""
    try:
        return fn(*args)
    except OSError as exc:
        raise io_error(exc, name, path) from None


def real_dir(path: Path, create: bool = True, sync: bool = True) -> Path:
    """``path`` as a real directory (made if missing and ``create``, and then, with
    ``sync``, its parent fsynced so the new entry is durable): a symlink there is a
    :class:`PlantedLinkError`, a file a :class:`WorkspaceError` naming it."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        if not create:
            raise
        try:
            os.mkdir(path)
        except FileExistsError:
            pass
        except OSError as exc:
            raise io_error(exc, "mkdir", path) from None
        else:
            if sync:
                fsync_dir(Path(path).parent)
        mode = call(os.lstat, "lstat", path, path).st_mode
    except OSError as exc:
        raise io_error(exc, "lstat", path) from None
    if stat.S_ISLNK(mode):
        raise PlantedLinkError(f"{str(path)!r} is a symlink; the workspace writer "
                               "never writes through a link (remove it)")
    if not stat.S_ISDIR(mode):
        raise WorkspaceError(f"{str(path)!r} is not a directory (a "
                             f"{_kind(mode)} is in the way); move it aside")
    return path


def _kind(mode: int) -> str:
    return "regular file" if stat.S_ISREG(mode) else "special file"


def open_fd(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open(path, flags | O_NOFOLLOW | O_CLOEXEC)``; a symlink at ``path`` is a
    :class:`PlantedLinkError`."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | _CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.EEXIST and
                                        os.path.islink(path)):
            raise PlantedLinkError(f"{str(path)!r} is a symlink; the workspace writer "
                                   "never opens a file through a link (remove it)"
                                   ) from None
        if isinstance(exc, FileExistsError):
            raise  # O_EXCL's answer: the caller picks another name
        raise io_error(exc, "open", path) from None


def make_dirs(path: Path, sync: bool = True) -> None:
    """``mkdir -p path``, each directory it creates made durable in its parent (with
    ``sync``); raises :class:`WorkspaceIOError` naming the failed call."""
    path = Path(path)
    missing = []
    probe = path
    while not os.path.lexists(probe):
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for d in reversed(missing):
        try:
            os.mkdir(d)
        except FileExistsError:
            continue
        except OSError as exc:
            raise io_error(exc, "mkdir", d) from None
        if sync:
            fsync_dir(d.parent)
    if not os.path.isdir(path):
        raise io_error(OSError(errno.EEXIST, "File exists (not a directory)"), "mkdir",
                       path)


def owned(fd: int) -> io.FileIO:
    """A file object owning ``fd`` (closed with it): a writer dropped without
    ``close()`` leaks no descriptor, and the C-level finalizer runs no Python code
    that a Ctrl-C could interrupt."""
    return io.FileIO(fd, "w", closefd=True)


def write_all(fd: int, data: bytes | memoryview, good: int, what: str) -> None:
    """Write all of ``data`` at the end of ``fd`` (which holds ``good`` bytes). On an
    OS error the file is truncated back to ``good`` bytes and
    :class:`WriteFailedError` (``truncated=True``) is raised; if the truncation fails
    too, ``truncated=False`` (the caller must refuse further writes)."""
    view = memoryview(data)
    try:
        while view:
            n = os.write(fd, view)
            view = view[n:]
    except OSError as exc:
        raise_failed(fd, good, what, exc)


def raise_failed(fd: int, good: int, what: str, exc: OSError) -> None:
    """Truncate ``fd`` back to ``good`` bytes after ``exc`` and raise
    :class:`WriteFailedError` saying whether that worked."""
    why = f"{what}: write failed ({exc.strerror or exc})"
    try:
        os.ftruncate(fd, good)
    except OSError as again:
        raise WriteFailedError(
            f"{why}, and truncating back to byte {good} failed too "
            f"({again.strerror or again}); this writer refuses further writes "
            "until the workspace is reopened (the next open cuts the torn tail)",
            exc.errno, truncated=False) from None
    raise WriteFailedError(f"{why}; truncated back to byte {good}, the operation "
                           "was not applied (retry once space is available)",
                           exc.errno, truncated=True) from None


def create_file(path: Path, data: bytes | memoryview, sync: bool, what: str) -> None:
    """Write a new file ``path`` (a temp file: any old one of the name is replaced,
    a link there is refused) with ``data``, fsynced with ``sync``; on a failed write
    the partial file is removed (the bytes are still the caller's) and
    :class:`WriteFailedError` raised."""
    fd = open_fd(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        write_all(fd, data, 0, what)
        if sync:
            call(os.fsync, "fsync", path, fd)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(path)
        except OSError:
            pass
        raise
    os.close(fd)


def fsync_dir(path: Path) -> None:
    """fsync the directory ``path`` (makes a rename or a new name in it durable);
    :class:`WorkspaceIOError` (call ``"directory fsync"``) if that fails."""
    fd = call(os.open, "directory open", path, path, os.O_RDONLY | _CLOEXEC)
    try:
        call(os.fsync, "directory fsync", path, fd)
    finally:
        os.close(fd)


def rename(src: Path, dst: Path, sync: bool) -> None:
    """``os.replace(src, dst)``, then (with ``sync``) the directory holding ``dst``
    fsynced, and ``src``'s too if it is another one (the old name's removal);
    :class:`WorkspaceIOError` naming the failed call."""
    call(os.replace, "replace", dst, src, dst)
    if sync:
        fsync_dir(Path(dst).parent)
        if Path(src).parent != Path(dst).parent:
            fsync_dir(Path(src).parent)


def unlink(path: Path, sync: bool) -> bool:
    """Remove ``path`` (False if it was not there), its directory fsynced (with
    ``sync``); :class:`WorkspaceIOError` naming the failed call."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise io_error(exc, "unlink", path) from None
    if sync:
        fsync_dir(Path(path).parent)
    return True


def replace_file(path: Path, data: bytes | memoryview, sync: bool, what: str) -> None:
    """Put ``data`` at ``path`` whole: a temp file beside it (``.<name>.new``),
    fsynced and renamed over ``path``, then the directory fsynced (with ``sync``),
    so a crash leaves the old file (or none) or the new one, never a part of it.
    Raises as :func:`create_file`."""
    tmp = path.with_name(f".{path.name}.new")
    create_file(tmp, data, sync, what)
    rename(tmp, path, sync)
