"""Is there a workspace in a directory? One answer for every caller: a new
:class:`~sim.workspace.workspace.Workspace` (and ``ctxsim workspace replay --dir``)
is refused where one is, and ``Workspace.open``, ``check`` and ``repair`` where none
is.

A directory holds a workspace when it holds any durable part of one: the journal
file (even an empty one: a journal never exists without its init line, so an empty
one is damage, not absence), the checkpoint, a file under ``payloads/`` or under
``quarantine/``. A ``lock`` file alone holds no byte of a workspace and does not
count. Deciding on the journal alone let an emptied journal pass for "no workspace",
and a new workspace then wrote over the old checkpoint.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .checkpoint import NAME as CHECKPOINT
from .errors import WorkspaceError
from .quarantine import FOLDER as QUARANTINE
from .safefs import open_fd

JOURNAL = "journal.jsonl"
#: the files and folders whose presence marks a workspace
_FILES = (JOURNAL, CHECKPOINT)
_FOLDERS = ("payloads", QUARANTINE)


def workspace_marks(directory: str | Path) -> list[str]:
    """The durable parts of a workspace found in ``directory``: ``journal.jsonl``,
    ``checkpoint.bin``, ``payloads/``, ``quarantine/`` (a folder only when
    something is in it); empty if there is none or no such directory."""
    d = Path(directory)
    found = [name for name in _FILES if os.path.lexists(d / name)]
    return found + [f"{name}/" for name in _FOLDERS if _holds_anything(d / name)]


def _holds_anything(root: Path) -> bool:
    """True if ``root`` is anything but a real directory (a file or link in the
    folder's place), or has a file or link anywhere under it."""
    try:
        mode = os.lstat(root).st_mode
    except OSError:
        return False
    if not stat.S_ISDIR(mode):
        return True
    for top, dirs, files in os.walk(root):
        if files or any(os.path.islink(os.path.join(top, x)) for x in dirs):
            return True
    return False


def head_problem(directory: str | Path) -> str | None:
    """Why the journal of ``directory`` holds no complete first line (where its init
    line belongs): "is missing", "is empty" or "holds only a torn line (N bytes)";
    None if it has one (whether that line is sound is the replay's to say). Raises
    :class:`WorkspaceError` if something other than a regular file is in its place
    (a symlink: :class:`~sim.workspace.errors.PlantedLinkError`)."""
    path = Path(directory) / JOURNAL
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "is missing"
    if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
        raise WorkspaceError(f"{str(path)!r} is not a regular file; move it aside")
    size = 0
    with os.fdopen(open_fd(path, os.O_RDONLY), "rb") as fh:
        while chunk := fh.read(1 << 16):
            if b"\n" in chunk:
                return None
            size += len(chunk)
    return f"holds only a torn line ({size} bytes)" if size else "is empty"
