"""Pack files: small payloads appended to a few shared files instead of one file each
(DESIGN.md invariants 3, 6 and 7; issue 9's disk-space goal).

A file per payload costs at least one filesystem block (4 KiB on ext4) however small
the payload: 100k tool results of ~140 bytes took 30x their bytes on disk. Payloads
shorter than :data:`PACK_BELOW` bytes are instead appended to
``<store>/packs/pack-<6 digits>``, each as one record::

    b"CXP1" | sha256 (32 raw bytes) | length (u32, big-endian) | crc32 of those 40 bytes | payload

The logical name stays the content address (``ab/ab12...``): handles, journal lines,
placeholders and confinement checks do not change, and the store finds a packed
payload through an index sha256 -> records built by scanning the packs' headers
(lazily, on the first lookup a file does not answer). Packs are append-only: a record
is written and fsynced before the journal line that references it; nothing ever
rewrites or truncates a pack. A torn last record (a crash mid-append) fails its
length or header checksum and is left in place, unindexed, and the writer appends to
a new pack from then on; a header damaged in the middle is skipped by searching for
the next header whose checksum holds. A record's bytes are verified against its
sha256 on every read, so damage is never misread: the payload is reported corrupt.
An explicit delete leaves a packed payload's bytes in its pack (reads refuse it:
:func:`sim.workspace.handles.read_named`); packs are never compacted.
"""

from __future__ import annotations

import os
import re
import stat
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from .errors import CorruptPayloadError

#: payloads shorter than this many bytes are packed (one ext4 block: a file of at
#: least this size wastes under half of its allocation)
PACK_BELOW = 4096
#: a pack is closed once it would grow past this many bytes
PACK_MAX = 64 << 20
FOLDER = "packs"
MAGIC = b"CXP1"
_HEAD = struct.Struct(">4s32sI")
_CRC = struct.Struct(">I")
HEADER = _HEAD.size + _CRC.size  # 44 bytes
_ALL = struct.Struct(">4s32sII")  # the header with its checksum
_NAME = re.compile(r"^pack-[0-9]{6}$")
#: one record of the index a checkpoint stores (:meth:`Packs.export`)
_REC_ROW = [("number", ">u4"), ("offset", ">u4"), ("length", ">u4"), ("sha", "S32")]


@dataclass(frozen=True)
class Unindexed:
    """Bytes of a pack no intact record header covers: ``torn`` (the pack's tail,
    an interrupted append) or a damaged header in the middle."""

    pack: str
    offset: int
    size: int
    torn: bool

    def describe(self) -> str:
        """One line for ``ctxsim workspace check``."""
        what = ("torn tail record (an interrupted append)" if self.torn
                else "damaged record header")
        return (f"{FOLDER}/{self.pack}: {self.size} bytes at offset {self.offset}: "
                f"{what}; kept in place")


def record(sha_raw: bytes, data: bytes) -> bytes:
    """One pack record (header and payload)."""
    head = _HEAD.pack(MAGIC, sha_raw, len(data))
    return head + _CRC.pack(zlib.crc32(head)) + data


def _header_at(buf: bytes, pos: int) -> tuple[bytes, int] | None:
    """(sha256 raw, length) of an intact header at ``pos``, else None."""
    if len(buf) - pos < HEADER:
        return None
    magic, sha, length = _HEAD.unpack_from(buf, pos)
    if magic != MAGIC or _CRC.unpack_from(buf, pos + _HEAD.size)[0] != zlib.crc32(
            buf[pos:pos + _HEAD.size]):
        return None
    return sha, length


class Packs:
    """The pack files under ``root/packs`` and their index (see module doc).
    ``read_only``: create nothing (a reader beside a live writer rescans on a miss)."""

    def __init__(self, root: Path, sync: bool = True, read_only: bool = False):
        self.dir = root / FOLDER
        self.sync = sync
        self.read_only = read_only
        #: sha256 hex -> [(pack name, payload offset, length)], in append order
        self.index: dict[str, list[tuple[str, int, int]]] = {}
        self._end: dict[str, int] = {}  # pack -> bytes covered by intact records
        self._damage: dict[tuple[str, int], Unindexed] = {}
        self._fh: int | None = None     # descriptor of the pack being appended to
        #: why appends are refused (a failed write that could not be cut back)
        self.failed = ""
        self._fh_name = ""
        self._scanned = False
        self._adopted = False  # the index came from a checkpoint (see adopt)

    # ---------------------------------------------------------------- scanning
    def names(self) -> list[str]:
        """Pack file names in order; a symlink or non-regular entry is never a pack
        (confinement), nor is a symlinked packs folder."""
        try:
            if not stat.S_ISDIR(os.lstat(self.dir).st_mode):
                return []
            entries = sorted(os.listdir(self.dir))
        except FileNotFoundError:
            return []
        out = []
        for name in entries:
            if _NAME.match(name) and stat.S_ISREG(os.lstat(self.dir / name).st_mode):
                out.append(name)
        return out

    def scan(self) -> None:
        """Index every intact record not yet indexed (from where the last scan of
        each pack stopped); a torn tail is noted and scanned again next time."""
        self._scanned = True
        for name in self.names():
            start = self._end.get(name, 0)
            self._damage.pop((name, start), None)  # a tail seen torn may be whole now
            with open(self.dir / name, "rb") as fh:
                fh.seek(start)
                buf = fh.read()
            pos, n, covered = 0, len(buf), 0  # covered: bytes up to an intact record
            view, unpack, crc, index = memoryview(buf), _ALL.unpack_from, zlib.crc32, \
                self.index
            while pos < n:
                if n - pos >= HEADER:  # the common case inline: 100k records at open
                    magic, sha, length, check = unpack(buf, pos)
                    end = pos + HEADER + length
                    if magic == MAGIC and end <= n and \
                            check == crc(view[pos:pos + _HEAD.size]):
                        key = sha.hex()
                        found = index.get(key)
                        if found is None:
                            index[key] = [(name, start + pos + HEADER, length)]
                        else:
                            found.append((name, start + pos + HEADER, length))
                        pos = covered = end
                        continue
                # no intact record here: the next intact header, if any, resumes
                nxt = buf.find(MAGIC, pos + 1)
                while nxt != -1 and not (_header_at(buf, nxt) is not None and
                                         nxt + HEADER + _header_at(buf, nxt)[1]
                                         <= len(buf)):
                    nxt = buf.find(MAGIC, nxt + 1)
                size = (len(buf) if nxt == -1 else nxt) - pos
                self._damage[(name, start + pos)] = Unindexed(name, start + pos, size,
                                                              torn=nxt == -1)
                if nxt == -1:
                    break
                pos = covered = nxt
            self._end[name] = start + covered

    # ---------------------------------------------------------------- checkpoint
    _REC = struct.Struct(">III32s")  # pack number, payload offset, length, sha256

    def export(self) -> tuple[dict[str, int], bytes]:
        """(pack -> bytes covered, the index as packed records sorted by sha256,
        each sha256's records in append order): what a checkpoint stores so that
        an open need not scan every header again (issue 22)."""
        self._ensure()
        base = getattr(self.index, "table", None)
        if base is not None:  # adopted: the checkpoint's records, with the changes
            return dict(self._end), self._export_over(base)
        rec = self._REC.pack
        out = bytearray()
        for sha in sorted(self.index):
            raw = bytes.fromhex(sha)
            for name, offset, length in self.index[sha]:
                out += rec(int(name[5:]), offset, length, raw)
        return dict(self._end), bytes(out)

    def _export_over(self, base):
        """:meth:`export`'s records over an adopted index ``base`` (sorted): those
        of every sha256 looked up or appended since replace its old ones."""
        import numpy as np

        changed = {k: v for k, v in self.index.changed.items() if v}
        if not changed:
            return base.tobytes()
        raws = np.array([bytes.fromhex(k) for k in changed], "S32")
        kept = base[~np.isin(base["sha"], raws)]
        new = np.array([(int(name[5:]), offset, length, bytes.fromhex(sha))
                        for sha, places in changed.items()
                        for name, offset, length in places], _REC_ROW)
        both = np.concatenate([kept, new])
        return both[np.argsort(both["sha"], kind="stable")].tobytes()

    def adopt(self, ends: dict[str, int], records: bytes | memoryview) -> None:
        """Take a checkpoint's index (see :meth:`export`) without decoding it: a
        lookup is a binary search over its records (sorted here if they are not);
        the next lookup a record does not answer scans only what the packs gained
        since. Never an authority: a pack shorter than its recorded end, or a read
        whose bytes fail their sha256, rescans every pack from its start."""
        import numpy as np

        from .lazy import ShaOverlay, hexes, sorted_find

        sizes = {}
        for name in ends:
            try:
                sizes[name] = os.lstat(self.dir / name).st_size
            except OSError:
                sizes[name] = -1
        if any(sizes[n] < end for n, end in ends.items()):
            return  # the packs changed under the checkpoint: scan them all
        table = np.frombuffer(records, _REC_ROW)
        col = table["sha"]
        if len(col) > 1 and not bool(np.all(col[1:] >= col[:-1])):
            table = table[np.argsort(col, kind="stable")]
            col = table["sha"]

        def lookup(key: str) -> list[tuple[str, int, int]] | None:
            lo, hi = sorted_find(col, key)
            if lo == hi:
                return None
            return [(f"pack-{number:06d}", offset, length)
                    for number, offset, length, _ in table[lo:hi].tolist()]

        def base_has(shas: list[str]) -> list[bool]:
            try:
                raws = np.array([bytes.fromhex(sha) for sha in shas], "S32")
            except ValueError:
                return [False] * len(shas)
            if not len(col):
                return [False] * len(shas)
            at = np.minimum(col.searchsorted(raws), len(col) - 1)
            return (col[at] == raws).tolist()

        self.index = ShaOverlay(lookup, lambda: hexes(col))  # type: ignore[assignment]
        self.index.base_has = base_has  # type: ignore[attr-defined]
        self.index.table = table  # type: ignore[attr-defined]
        self._end = dict(ends)
        self._adopted = True

    def _rescan_all(self) -> None:
        self.index, self._end, self._damage = {}, {}, {}
        self._adopted = False
        self.scan()

    def _ensure(self) -> None:
        if not self._scanned:
            self.scan()

    def unindexed(self) -> list[Unindexed]:
        """Bytes of the packs no intact record covers (after a full scan)."""
        self.scan()
        return sorted(self._damage.values(), key=lambda u: (u.pack, u.offset))

    def shas(self) -> list[str]:
        """Every sha256 with at least one intact record header."""
        self._ensure()
        return sorted(self.index)

    def has(self, sha: str) -> bool:
        """True if a record for ``sha`` is indexed. A reader rescans once on a miss
        (a live writer may have appended since); a writer holds the lock, so its
        index is complete."""
        self._ensure()
        if sha not in self.index and self.read_only:
            self.scan()
        return sha in self.index

    def absent(self, shas: list[str]) -> set[str]:
        """The sha256s in ``shas`` no record is indexed for (:meth:`has` for each,
        one binary search over a checkpoint's index for all of them)."""
        base = getattr(self.index, "base_has", None)
        found = base(shas) if base is not None and shas else [False] * len(shas)
        return {sha for sha, ok in zip(shas, found) if not ok and not self.has(sha)}

    # ---------------------------------------------------------------- reading
    def _read_at(self, name: str, offset: int, length: int) -> bytes:
        fd = os.open(self.dir / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            return os.pread(fd, length, offset)
        finally:
            os.close(fd)

    def get(self, sha: str, shown: str) -> bytes | None:
        """The verified bytes of ``sha``: None if no record names it,
        :class:`CorruptPayloadError` if every record that does fails its sha256."""
        import hashlib

        if not self.has(sha):
            return None
        why = ""
        for name, offset, length in self.index[sha]:
            try:
                data = self._read_at(name, offset, length)
            except OSError as exc:
                why = f"{FOLDER}/{name} unreadable ({exc.strerror})"
                continue
            if len(data) == length and hashlib.sha256(data).hexdigest() == sha:
                return data
            why = (f"its record in {FOLDER}/{name} at byte {offset} ({len(data)} "
                   "bytes) no longer matches its sha256")
        if self._adopted:  # the checkpoint's index may be wrong: the packs decide
            self._rescan_all()
            return self.get(sha, shown)
        raise CorruptPayloadError(f"payload {shown!r} is corrupt: {why}")

    # ---------------------------------------------------------------- writing
    def append(self, sha: str, data: bytes) -> None:
        """Append one record for ``data`` (sha256 ``sha``) and, with ``sync``, fsync
        it. A pack whose tail is not an intact record, or that another handle
        has grown, is never appended to: a new pack is started. A failed write is
        cut back off the pack (:class:`WriteFailedError` says whether that worked;
        if not, every later append is refused until the workspace is reopened)."""
        from .errors import WriteFailedError
        from .safefs import call, raise_failed, write_all

        if self.failed:
            raise WriteFailedError(self.failed, truncated=False)
        self._ensure()
        rec = record(bytes.fromhex(sha), data)
        fd = self._fh
        if fd is not None:
            size = call(os.fstat, "fstat", self._fh_name, fd).st_size
            if size != self._end.get(self._fh_name, 0) or size + len(rec) > PACK_MAX:
                self.close()
                fd = None
        if fd is None:
            fd = self._open_for_append(len(rec))
        offset = self._end.get(self._fh_name, 0)
        what = f"{FOLDER}/{self._fh_name}"
        try:
            write_all(fd, rec, offset, what)
            if self.sync:
                try:
                    os.fsync(fd)
                except OSError as exc:
                    raise_failed(fd, offset, what, exc)
        except WriteFailedError as exc:
            if not exc.truncated:
                self.failed = str(exc)
            self.close()  # the next append reopens (and checks the size) afresh
            raise
        self._end[self._fh_name] = offset + len(rec)
        self.index.setdefault(sha, []).append((self._fh_name, offset + HEADER, len(data)))

    def _open_for_append(self, need: int) -> int:
        from .errors import PlantedLinkError
        from .safefs import call, fsync_dir, open_fd, owned, real_dir

        real_dir(self.dir.parent, sync=self.sync)
        real_dir(self.dir, sync=self.sync)
        names = self.names()
        if names:
            last = names[-1]
            size = call(os.lstat, "lstat", self.dir / last, self.dir / last).st_size
            if size == self._end.get(last, 0) and size + need <= PACK_MAX and \
                    not any(d.pack == last for d in self._damage.values()):
                self._fh = open_fd(self.dir / last, os.O_WRONLY | os.O_APPEND)
                self._file, self._fh_name = owned(self._fh), last
                return self._fh
        number = int(names[-1][5:]) + 1 if names else 1
        while True:
            name = f"pack-{number:06d}"
            try:
                fd = open_fd(self.dir / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT
                             | os.O_EXCL)
                break
            except (FileExistsError, PlantedLinkError):  # not a regular file (a
                number += 1                            # link): never ours to append to
        if self.sync:
            fsync_dir(self.dir)
            fsync_dir(self.dir.parent)
        self._end[name] = 0
        self._fh, self._fh_name, self._file = fd, name, owned(fd)
        return fd

    def close(self) -> None:
        """Close the pack being appended to (its records are already durable)."""
        if self._fh is not None:
            self._fh = None
            self._file.close()
