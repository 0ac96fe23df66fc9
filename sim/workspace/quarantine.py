"""The quarantine folder: where a writer's open moves files it cannot account for
(DESIGN.md: opening never deletes a payload byte).

``<dir>/quarantine/`` receives payload files no live block or group references (a
crash between a payload write and its journal line, a journal cut short, a delete
whose unlink was interrupted), temp files of interrupted writes and the bytes of a
torn last journal line. Every move is logged in ``quarantine/log.jsonl`` with its
reason; ``ctxsim workspace repair`` re-attaches what it can.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from .errors import WorkspaceError
from .safefs import call, create_file, open_fd, real_dir, rename, write_all

FOLDER = "quarantine"
LOG = "log.jsonl"


class Quarantine:
    """Moves files of ``directory`` into its quarantine folder; ``moved`` lists
    (original path relative to the workspace, quarantined path, reason)."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.root = self.directory / FOLDER
        self.moved: list[tuple[str, str, str]] = []

    def _target(self, name: str) -> Path:
        try:
            real_dir(self.root)
        except WorkspaceError as exc:
            raise type(exc)(f"cannot quarantine {name!r}: {exc}") from None
        target = self.root / name
        n = 1
        while os.path.lexists(target):
            target = self.root / f"{name}.{n}"
            n += 1
        return target

    def move(self, path: Path, reason: str) -> Path:
        """Move ``path`` (inside the workspace) into quarantine; never copies or
        deletes, so its bytes are intact at every moment."""
        target = self._target(path.name.lstrip("."))
        rename(path, target, True)  # both directories fsynced: never two names, none
        self._log(path, target, reason)
        return target

    def keep(self, name: str, data: bytes, reason: str) -> Path:
        """Write ``data`` (bytes about to be cut from a file) into quarantine, durably."""
        target = self._target(name)
        tmp = target.with_name(target.name + ".partial")
        create_file(tmp, data, True, f"quarantine file {str(tmp)!r}")
        rename(tmp, target, True)
        self._log(None, target, reason)
        return target

    def _log(self, source: Path | None, target: Path, reason: str) -> None:
        rel = str(source.relative_to(self.directory)) if source is not None else ""
        record = {"from": rel, "to": target.name, "reason": reason,
                  "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        fd = open_fd(self.root / LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            write_all(fd, json.dumps(record).encode() + b"\n",
                      call(os.fstat, "fstat", self.root / LOG, fd).st_size,
                      f"quarantine log {str(self.root / LOG)!r}")
            call(os.fsync, "fsync", self.root / LOG, fd)
        finally:
            os.close(fd)
        self.moved.append((rel, str(target.relative_to(self.directory)), reason))


def listing(directory: str | Path) -> list[dict[str, Any]]:
    """Every file in ``directory``'s quarantine (``name``, ``bytes``, ``reason`` from
    the log where known), the log itself excluded."""
    root = Path(directory) / FOLDER
    if not root.is_dir():
        return []
    reasons: dict[str, str] = {}
    try:
        for line in (root / LOG).read_bytes().splitlines():
            try:
                rec = json.loads(line)
                reasons[rec["to"]] = rec["reason"]
            except (ValueError, KeyError, TypeError):
                continue
    except OSError:
        pass
    return [{"name": f.name, "bytes": f.stat().st_size, "reason": reasons.get(f.name, "")}
            for f in sorted(root.iterdir()) if f.is_file() and f.name != LOG]
