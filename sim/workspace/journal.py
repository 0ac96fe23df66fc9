"""The workspace journal: an append-only log of operations (DESIGN.md invariant 6).

Version 2 lines are ``<crc32 as 8 hex digits> <compact JSON>\\n``: each is appended and
fsynced, and its checksum catches a damaged byte anywhere in it. Version 1 lines
(bare JSON, no checksum) are still read. A torn last line (bytes after the last
newline: a crash mid-append) is tolerated: a writer moves its bytes to the quarantine folder and truncates it, a
reader ignores it. Any other bad line is a :class:`JournalError` naming its line
number and byte offset, and so is a line whose JSON is valid but whose contents are
not (:func:`check_entry`): an unknown op or id, or a string where a count belongs.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .errors import JournalError, WriteFailedError
from .safefs import call, open_fd, owned, raise_failed, replace_file, write_all

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

#: the version written by new workspaces; 1 (no checksums) is still read
VERSION = 2
_SHA = re.compile(r"^[0-9a-f]{64}$")


def encode_line(entry: dict[str, Any]) -> bytes:
    """One checksummed journal line (newline included)."""
    body = json.dumps(entry, separators=(",", ":"), ensure_ascii=True).encode()
    return b"%08x %s\n" % (zlib.crc32(body), body)


def decode_line(line: bytes) -> dict[str, Any]:
    """The entry of one line (without its newline); ValueError if damaged."""
    if line[:1] == b"{":  # version 1: bare JSON
        body = line
    else:
        if len(line) < 10 or line[8:9] != b" ":
            raise ValueError("no checksum")
        body = line[9:]
        if int(line[:8], 16) != zlib.crc32(body):
            raise ValueError("checksum mismatch")
    entry = json.loads(body)
    if not isinstance(entry, dict):
        raise ValueError("not a JSON object")
    return entry


@dataclass
class Line:
    """A journal entry with its 1-based ``number`` and byte ``offset``."""

    entry: dict[str, Any]
    number: int
    offset: int


class Journal:
    """Append-only log of workspace operations at ``path``. ``read_only``: never
    truncate or write (a reader beside a live writer)."""

    def __init__(self, path: Path | str, sync: bool = True, read_only: bool = False):
        self.path = Path(path)
        self.sync = sync
        self.read_only = read_only
        self._fh: int | None = None  # the append descriptor (unbuffered)
        self._end = 0                 # bytes of the journal known good
        #: why this journal refuses appends (a failed write it could not cut back)
        self.failed = ""
        #: (offset, bytes) of a torn last line seen by the last :meth:`lines` call
        self.torn: tuple[int, bytes] | None = None

    def lines(self, start: int = 0, number: int = 1,
              keep_torn: Callable[[int, bytes], None] | None = None) -> list[Line]:
        """Every complete line from byte ``start`` (line ``number``). A torn last
        line (bytes after the last newline: an append cut short) is left out; a
        writer passes it to ``keep_torn`` (which must keep its bytes) and then
        truncates it away. A complete line that fails its checksum, the last one
        included, is damage (an acknowledged operation), never torn: it raises :class:`JournalError` naming the line and byte offset."""
        self.torn = None
        try:
            fd = open_fd(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return []
        with os.fdopen(fd, "rb") as fh:
            fh.seek(start)
            raw = fh.read()
        out: list[Line] = []
        offset = start
        parts = raw.split(b"\n")
        for i, line in enumerate(parts):
            last = i == len(parts) - 1
            if last and not line:
                break
            try:
                if last:
                    raise ValueError("no newline")
                out.append(Line(decode_line(line), number + i, offset))
            except ValueError as exc:
                # only bytes after the last newline are torn (an append cut short);
                # a complete line that fails is damage, wherever it is
                if last:
                    self.torn = (offset, raw[offset - start:])
                    if not self.read_only:
                        if keep_torn is not None:
                            keep_torn(offset, self.torn[1])
                        self._truncate(offset)
                    break
                raise JournalError(f"journal {str(self.path)!r} is corrupt at line "
                                   f"{number + i} (byte {offset}): {exc}: "
                                   f"{line[:60]!r}") from None
            offset += len(line) + 1
        return out

    def read(self) -> list[dict[str, Any]]:
        """Every complete entry (see :meth:`lines`)."""
        return [ln.entry for ln in self.lines()]

    def _truncate(self, offset: int) -> None:
        fd = open_fd(self.path, os.O_WRONLY)
        try:
            call(os.ftruncate, "ftruncate", self.path, fd, offset)
            if self.sync:
                call(os.fsync, "fsync", self.path, fd)
        finally:
            os.close(fd)

    def append(self, entry: dict[str, Any]) -> None:
        """Append one checksummed entry and (with ``sync``) fsync it; the first entry
        of a journal that does not exist yet creates it whole (temp file, rename). A
        failed write is cut back off (:class:`WriteFailedError` says whether that worked; if not,
        every later append is refused until the journal is reopened)."""
        if self.failed:
            raise WriteFailedError(self.failed, truncated=False)
        if self._fh is None and not os.path.lexists(self.path):
            # a new journal appears whole with its first (init) line: a crash leaves
            # none or one that opens, so an empty journal is damage, never a
            # workspace that was still being made (sim.workspace.presence)
            replace_file(self.path, encode_line(entry), self.sync,
                         f"journal {str(self.path)!r}")
            return
        if self._fh is None:
            self._fh = open_fd(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            self._file = owned(self._fh)
            self._end = call(os.fstat, "fstat", self.path, self._fh).st_size
        line = encode_line(entry)
        what = f"journal {str(self.path)!r}"
        try:
            write_all(self._fh, line, self._end, what)
            if self.sync:
                try:
                    os.fsync(self._fh)
                except OSError as exc:  # not known durable: cut it off again
                    raise_failed(self._fh, self._end, what, exc)
        except WriteFailedError as exc:
            if not exc.truncated:
                self.failed = str(exc)
            raise
        self._end += len(line)

    def size(self) -> int:
        """Bytes in the journal file now (0 if there is none)."""
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def close(self) -> None:
        """Close the file handle (entries are already durable)."""
        if self._fh is not None:
            self._fh = None
            self._file.close()


# ---------------------------------------------------------------- entry contents
_INT, _STR, _LIST, _DICT = "a count", "a string", "a list", "an object"
_FIELDS: dict[str, dict[str, str]] = {
    "init": {"version": _INT, "tokenizer": _STR},
    "register": {"id": _STR, "type": _STR, "turn": _INT, "tokens": _INT,
                 "status": _STR, "message": _DICT, "handle": _DICT},
    "turn": {"turn": _INT},
    "archive": {"items": _LIST, "replacement": _STR, "handle": _DICT},
    "delete": {"blocks": _LIST, "groups": _LIST, "reason": _STR},
    "expand": {"group": _STR},
    "pin": {"ids": _LIST},
    "restore": {"state": _DICT},
    "ids": {"next": _INT},
    "unpin": {"ids": _LIST},
}
_TYPES = {_INT: int, _STR: str, _LIST: list, _DICT: dict}


def _kind_ok(value: Any, kind: str) -> bool:
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return isinstance(value, _TYPES[kind])


def check_entry(ws: "Workspace", entry: dict[str, Any]) -> None:
    """Raise ValueError naming what is wrong unless ``entry`` is an operation that
    applies to ``ws``'s state: a known op, every field of the right type, every id
    it names known (and a registered id the next one), a well-formed handle."""
    from .blocks import BlockStatus, BlockType

    kind = entry.get("op")
    fields = _FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise ValueError(f"unknown op {kind!r}")
    for name, what in fields.items():
        if not _kind_ok(entry.get(name), what):
            raise ValueError(f"{kind} field {name!r} should be {what}, got "
                             f"{entry.get(name)!r:.40}")
    if "handle" in fields:
        h = entry["handle"]
        sha = h.get("sha256")
        if not (isinstance(sha, str) and _SHA.match(sha) and h.get("path") ==
                f"{sha[:2]}/{sha}" and _kind_ok(h.get("length"), _INT)):
            raise ValueError(f"{kind} handle {h!r:.80} is malformed")
    if kind == "restore":
        if ws.blocks or ws.groups:
            raise ValueError("a restore line after blocks were registered (it follows "
                             "the init line only)")
    if kind == "register":
        if entry["id"] != f"B{ws.state.next_block}":
            raise ValueError(f"register id {entry['id']!r} is not the next id "
                             f"B{ws.state.next_block}")
        BlockType(entry["type"]), BlockStatus(entry["status"])
        cb = entry.get("call_block")
        cid = entry["message"].get("tool_call_id")
        if cb is not None and (cb not in ws.results or ws.state.call_owner.get(cid) != cb):
            raise ValueError(f"register {entry['id']} answers unknown call {cid!r}")
        for call in entry["message"].get("tool_calls", []):
            if not (isinstance(call, dict) and isinstance(call.get("id"), str)):
                raise ValueError(f"register {entry['id']} has a malformed tool call")
    names = {"archive": entry.get("items"), "delete": (entry.get("blocks") or []) +
             (entry.get("groups") or []), "expand": [entry.get("group")],
             "pin": entry.get("ids"), "unpin": entry.get("ids")}.get(kind, [])
    for ident in names:
        if not (isinstance(ident, str) and (ident in ws.blocks or ident in ws.groups)):
            raise ValueError(f"{kind} names unknown block or group {ident!r:.40}")
    if kind == "archive":
        gid = entry.get("group")
        if gid is not None and gid != f"G{ws.state.next_group}":
            raise ValueError(f"archive group {gid!r:.40} is not the next id "
                             f"G{ws.state.next_group}")
        if gid is None and (len(entry["items"]) != 1 or entry["items"][0][0] != "B"):
            raise ValueError("a single archive names one block")
