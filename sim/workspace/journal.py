"""The workspace journal: an append-only JSON-lines log of operations (DESIGN.md
invariant 6). Each entry is appended and fsynced; a torn last line (a crash
mid-append) is dropped on open."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .errors import JournalError


class Journal:
    """Append-only JSON-lines log of workspace operations."""

    def __init__(self, path: Path | str, sync: bool = True):
        self.path = Path(path)
        self.sync = sync
        self._fh = None

    def read(self) -> list[dict[str, Any]]:
        """Every complete entry. A torn or unparsable *last* line is truncated away
        (a crash mid-append); a bad line before it raises :class:`JournalError`."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        entries: list[dict[str, Any]] = []
        offset = 0
        lines = raw.split(b"\n")
        for i, line in enumerate(lines):
            last = i == len(lines) - 1
            if last and not line:
                break
            try:
                if last:
                    raise ValueError("no newline")
                entries.append(json.loads(line))
            except ValueError:
                if last or all(not rest for rest in lines[i + 1:]):
                    with open(self.path, "r+b") as fh:
                        fh.truncate(offset)
                        if self.sync:
                            os.fsync(fh.fileno())
                    break
                raise JournalError(f"journal {str(self.path)!r} is corrupt at line "
                                   f"{i + 1} (byte {offset}): {line[:60]!r}") from None
            offset += len(line) + 1
        return entries

    def append(self, entry: dict[str, Any]) -> None:
        """Append one entry and (with ``sync``) fsync it before returning."""
        if self._fh is None:
            self._fh = open(self.path, "ab")
        self._fh.write(json.dumps(entry, separators=(",", ":"),
                                  ensure_ascii=True).encode() + b"\n")
        self._fh.flush()
        if self.sync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        """Close the file handle (entries are already durable)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
