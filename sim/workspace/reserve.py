"""The id reservation: a durable upper bound on every block id a writer has issued
(issue 34: repair re-attaches orphaned payloads under ids above every id ever
issued, so no acknowledged id is given other bytes, even when the journal lost
lines that no checkpoint covers).

``<dir>/ids`` holds one line ``ctxsim-ids 1 <n> <crc32>``: no block id ``B<m>`` with
``m >= n`` has been issued. Before a writer issues an id at or above the bound it
raises the bound by :data:`RESERVE` (written whole: temp file, fsync, rename,
directory fsync), so the file is rewritten once per :data:`RESERVE` registers.
A missing or damaged file reads as 0 (no bound known: repair falls back to the
ids its surviving records name and says so).
"""

from __future__ import annotations

import zlib
from pathlib import Path

from .safefs import replace_file

NAME = "ids"
#: ids reserved at a time (one small atomic file write per this many registers)
RESERVE = 1024
_MAGIC = b"ctxsim-ids 1"


def write(directory: Path, bound: int, sync: bool) -> None:
    """Record durably that no id ``B<m>`` with ``m >= bound`` has been issued."""
    body = b"%s %d" % (_MAGIC, bound)
    replace_file(Path(directory) / NAME, b"%s %08x\n" % (body, zlib.crc32(body)), sync,
                 f"id reservation {str(Path(directory) / NAME)!r}")


def read(directory: Path) -> int:
    """The recorded bound (0 if none is recorded or the file fails its crc32)."""
    try:
        raw = (Path(directory) / NAME).read_bytes()
    except OSError:
        return 0
    body, _, crc = raw.rstrip(b"\n").rpartition(b" ")
    parts = body.split(b" ")
    try:
        if len(parts) != 3 or b" ".join(parts[:2]) != _MAGIC or \
                int(crc, 16) != zlib.crc32(body):
            return 0
        return int(parts[2])
    except ValueError:
        return 0
