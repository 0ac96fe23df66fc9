"""The block table of a format-3 checkpoint (:mod:`sim.workspace.checkpoint`):
one fixed-width row per block, read in place as a numpy structured array, so an
open builds no per-block Python object (issue 35); a block is made from its row on
first access (:class:`~sim.workspace.lazy.LazyBlocks`).

A row holds the block's number, type, status, role, level, tokens, turn, payload
length and sha256, the ids it links to (``parent``, ``call_block``,
``recovered_from``: ``n`` for ``B<n>``, ``-n`` for ``G<n>``, 0 for none) and where
its inline copy and its extras lie. Extras are a small JSON object per block, only
for what a row cannot hold: the message fields beyond its role (``m``; a tool
call's ``tool_calls`` are not stored when its bytes give them back exactly, flag
1), the replacement text (``r``), the delete reason (``x``), a whole message or an
id in no canonical form (``M``, ``p``, ``c``, ``f``). Maps derivable from the table
(``refs``, ``by_sha``, ``results``) are rebuilt on first use; ``group_of`` from a
flag per group (its members map to it), checked when written.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import orjson

from .blocks import Block, BlockStatus, BlockType, GroupStatus, Handle
from .lazy import LazyDict, ShaOverlay, hexes, sorted_find

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

ROW = np.dtype([("num", "<i8"), ("tokens", "<i8"), ("turn", "<i8"), ("length", "<i8"),
                ("inline", "<i8"), ("extra", "<i8"), ("extra_len", "<i8"),
                ("level", "<i8"), ("parent", "<i8"), ("call", "<i8"), ("rfrom", "<i8"),
                ("type", "u1"), ("status", "u1"), ("role", "u1"), ("flags", "u1"),
                ("sha", "S32")])
TYPES = list(BlockType)
STATUSES = list(BlockStatus)
_TYPE_CODE = {t: i for i, t in enumerate(TYPES)}
_STATUS_CODE = {s: i for i, s in enumerate(STATUSES)}
ROLES = ["system", "user", "assistant", "tool"]
_ROLE_CODE = {r: i for i, r in enumerate(ROLES)}
WHOLE = 255  # role code: the whole message is in the extras (``M``)
#: flag: a tool call's ``tool_calls`` are given back by its bytes
CALLS_FROM_DATA = 1
#: flag: the message has ``tool_calls`` (the block has an entry in ``results``)
HAS_CALLS = 2
#: a link id in no canonical form: the id itself is in the extras
ODD = -(1 << 62)
_DELETED = BlockStatus.DELETED


def link(ident: str | None) -> int:
    """The row code of ``ident`` (see module doc); :data:`ODD` if it has none."""
    if ident is None:
        return 0
    if isinstance(ident, str) and len(ident) > 1 and ident[0] in "BG" and \
            ident[1:].isdigit() and ident[1] != "0" and ident[1:].isascii():
        n = int(ident[1:])
        if n < (1 << 61):
            return n if ident[0] == "B" else -n
    return ODD


def unlink(code: int) -> str | None:
    """Inverse of :func:`link` (not for :data:`ODD`)."""
    if code == 0:
        return None
    return f"B{code}" if code > 0 else f"G{-code}"


def calls_from(data: bytes) -> list[dict[str, Any]] | None:
    """A tool call's ``tool_calls`` as registering stored them, from its bytes
    (:func:`~sim.workspace.messages.decode_call_message`), or None."""
    from .messages import decode_call_message

    try:
        calls = decode_call_message(data)["tool_calls"]
        return [{"id": c["id"], "type": c["type"],
                 "function": {"name": c["function"]["name"],
                              "arguments": c["function"]["arguments"]}}
                for c in calls]
    except (KeyError, TypeError, UnicodeDecodeError, AttributeError):
        return None


def dumps(obj: Any) -> bytes:
    """Compact JSON bytes of ``obj``: orjson's, or json's (ASCII, escapes) for
    text orjson refuses (a lone surrogate, which a message may carry)."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, separators=(",", ":")).encode()


def loads(buf: Any) -> Any:
    """Inverse of :func:`dumps` (orjson, or json for an escaped lone surrogate)."""
    try:
        return orjson.loads(buf)
    except orjson.JSONDecodeError:
        return json.loads(bytes(buf))


def _same(a: Any, b: Any) -> bool:
    """Equal, key order included (a message renders in its own order)."""
    return dumps(a) == dumps(b)


class Unwritable(ValueError):
    """A state the table cannot hold (a block id not of the form ``B<n>``, which
    only a hand-made journal has): the checkpoint is skipped (an accelerator)."""


def encode(ws: "Workspace", inline_limit: int
           ) -> tuple[bytes, bytes, bytes, bytes, bytes]:
    """(rows, their order by sha256 (int32 each), extras, inline copies, call ids
    JSON) of every block of ``ws``. Over a reopened workspace's
    :class:`~sim.workspace.lazy.LazyBlocks`, the rows of blocks not made since are
    copied from the table it was opened from (with their copies and extras, run by
    run): only blocks made or registered since are encoded one by one."""
    from .lazy import LazyBlocks

    blocks = ws.blocks
    out = _Out(ws.corrupt, inline_limit)
    source = getattr(blocks, "source", None)
    if isinstance(blocks, LazyBlocks) and not blocks.complete and source is not None:
        return _encode_over(blocks, source, out)
    items = list(blocks.values())
    rows = np.zeros(len(items), ROW)
    for i, b in enumerate(items):
        rows[i] = out.row(b)
    return out.result(rows, [out.calls])


class _Out:
    """The extras, copies and call ids being written, and each block's row."""

    def __init__(self, corrupt: dict, limit: int, extras_at: int = 0, blob_at: int = 0):
        self.corrupt, self.limit = corrupt, limit
        self.extras, self.blob = bytearray(), bytearray()
        self.extras_at, self.blob_at = extras_at, blob_at  # bytes written before
        self.calls: list = []

    def row(self, b: Block) -> tuple:
        data, msg = b.data, b.message
        inline = -1
        if b.status is not _DELETED and b.id not in self.corrupt and \
                len(data) <= self.limit:
            inline = self.blob_at + len(self.blob)
            self.blob += data
        extra: dict[str, Any] = {}
        role = msg.get("role")
        role = _ROLE_CODE.get(role, WHOLE) if isinstance(role, str) else WHOLE
        flags = 0
        rest = {k: v for k, v in msg.items() if k != "role"}
        if "tool_calls" in rest:
            self.calls.append([int(b.id[1:]), [c["id"] for c in msg["tool_calls"]]])
            flags = HAS_CALLS
            if inline >= 0:
                got = calls_from(data)
                if got is not None:
                    rest.pop("tool_calls")
                    flags |= CALLS_FROM_DATA
                    rest["tool_calls"] = got
        if role != WHOLE and list(msg)[:1] == ["role"] and _same(
                {"role": msg["role"], **rest}, msg):
            if flags & CALLS_FROM_DATA:
                rest.pop("tool_calls")
            if rest:
                extra["m"] = rest
        else:
            role, flags = WHOLE, flags & HAS_CALLS
            extra["M"] = msg
        if b.replacement:
            extra["r"] = b.replacement
        if b.reason:
            extra["x"] = b.reason
        codes = []
        for key, ident in (("p", b.parent), ("c", b.call_block), ("f", b.recovered_from)):
            code = link(ident)
            if code == ODD:
                extra[key] = ident
            codes.append(code)
        start = len(self.extras)
        if extra:
            self.extras += dumps(extra)
        h = b.handle
        if link(b.id) <= 0:
            raise Unwritable(f"block id {b.id!r} is not of the form B<n>")
        return (int(b.id[1:]), b.tokens, b.turn, h.length, inline,
                self.extras_at + start, len(self.extras) - start, b.level, codes[0],
                codes[1], codes[2], _TYPE_CODE[b.type], _STATUS_CODE[b.status], role,
                flags, bytes.fromhex(h.sha256))

    def result(self, rows: np.ndarray, calls: list, extras_before: bytes = b"",
               blob_before: bytes = b"") -> tuple[bytes, bytes, bytes, bytes, bytes]:
        order = np.argsort(rows["sha"], kind="stable").astype("<i4")
        return (rows.tobytes(), order.tobytes(), extras_before + bytes(self.extras),
                blob_before + bytes(self.blob), dumps(calls[0]) if
                len(calls) == 1 else _join_json_lists(calls))


def _join_json_lists(parts: list) -> bytes:
    """One JSON list of the JSON list bytes and Python lists in ``parts``."""
    inner = [bytes(p)[1:-1] if isinstance(p, (bytes, memoryview)) else
             dumps(p)[1:-1] for p in parts]
    return b"[" + b",".join(x for x in inner if x) + b"]"


def _runs(buf: memoryview, starts: np.ndarray, sizes: np.ndarray
          ) -> tuple[bytes, np.ndarray]:
    """The bytes ``buf[starts[i]:starts[i] + sizes[i]]`` for every i, joined, and
    where each lands: copied run by run (pieces that follow each other in
    ``buf`` are one slice)."""
    if not len(starts):
        return b"", starts
    new = np.cumsum(sizes) - sizes
    ends = starts + sizes
    cut = np.flatnonzero(starts[1:] != ends[:-1]) + 1
    firsts = np.r_[0, cut]
    lasts = np.r_[cut, len(starts)] - 1
    return b"".join(buf[a:z] for a, z in zip(starts[firsts].tolist(),
                                             ends[lasts].tolist())), new


def _encode_over(blocks: Any, source: "Table", out: _Out
                 ) -> tuple[bytes, bytes, bytes, bytes, bytes]:
    base = source.rows
    made = dict(dict.items(blocks))  # made since the open, or registered since
    nums = base["num"]
    made_rows = []
    later = []
    for key, b in made.items():
        n = int(key[1:])
        i = int(nums.searchsorted(n))
        if i < len(nums) and int(nums[i]) == n:
            made_rows.append((i, b))
        else:
            later.append(b)
    keep = np.ones(len(base), bool)
    keep[[i for i, _ in made_rows]] = False
    rows = base.copy()
    copy = keep & (base["inline"] >= 0)
    blob, at = _runs(source.blob, base["inline"][copy], base["length"][copy])
    rows["inline"][copy] = at
    with_extra = keep & (base["extra_len"] > 0)
    extras, at = _runs(source.extras, base["extra"][with_extra],
                       base["extra_len"][with_extra])
    rows["extra"][with_extra] = at
    out.extras_at, out.blob_at = len(extras), len(blob)
    for i, b in made_rows:
        rows[i] = out.row(b)
    out.calls = []  # the table's call ids stand; only later blocks add theirs
    later.sort(key=lambda b: int(b.id[1:]))
    tail = np.zeros(len(later), ROW)
    for k, b in enumerate(later):
        tail[k] = out.row(b)
    return out.result(np.concatenate([rows, tail]), [source.calls, out.calls],
                      extras, blob)


class Table:
    """The block table of a verified format-3 checkpoint (see module doc):
    ``rows`` (a structured array over the file's bytes), ``extras`` and
    ``blob`` (views), ``calls`` (JSON bytes, decoded on first use).
    ``fallback(bid, handle)``: the bytes of a block whose inline copy fails its
    sha256 (the payload store's, verified); None: the copy is kept as it is
    (``check``'s comparison reports it)."""

    def __init__(self, rows: np.ndarray, extras: memoryview, blob: memoryview,
                 calls: memoryview,
                 fallback: Callable[[str, Handle], bytes] | None,
                 order: np.ndarray | None = None):
        self.rows, self.extras, self.blob, self.calls = rows, extras, blob, calls
        self.fallback = fallback
        self._stored_order = order  # the rows by sha256, as written: checked
        self._order: tuple[np.ndarray, np.ndarray] | None = None
        self._gindex: dict[str, list] | None = None

    def extra(self, start: int, size: int) -> dict[str, Any]:
        return loads(self.extras[start:start + size]) if size else {}

    def make(self, row: int) -> Block:
        """The :class:`Block` of table row ``row`` (its inline copy checked)."""
        (num, tokens, turn, length, inline, start, size, level, parent, call, rfrom,
         btype, status, role, flags, sha) = self.rows[row].item()
        sha = sha.ljust(32, b"\0").hex()
        bid = f"B{num}"
        extra = self.extra(start, size)
        h = object.__new__(Handle)
        h.__dict__.update(path=f"{sha[:2]}/{sha}", length=length, sha256=sha)
        data = b""
        if inline >= 0:
            data = self.blob[inline:inline + length].tobytes()
            if self.fallback is not None and (
                    len(data) != length or hashlib.sha256(data).hexdigest() != sha):
                data = self.fallback(bid, h)
        if role == WHOLE:
            message = extra["M"]
        else:
            message = {"role": ROLES[role]}
            message.update(extra.get("m", ()))
            if flags & CALLS_FROM_DATA:
                message["tool_calls"] = calls_from(data)
        b = object.__new__(Block)
        b.__dict__.update(
            id=bid, type=TYPES[btype], data=data, tokens=tokens, turn=turn,
            parent=extra["p"] if parent == ODD else unlink(parent), level=level,
            status=STATUSES[status], handle=h, message=message,
            recovered_from=extra["f"] if rfrom == ODD else unlink(rfrom),
            call_block=extra["c"] if call == ODD else unlink(call),
            replacement=extra.get("r", ""), reason=extra.get("x", ""))
        return b

    # ------------------------------------------------------------ derived maps
    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        """(row order by sha256, the sha256 column in that order), on first use."""
        if self._order is None:
            col, order = self.rows["sha"], self._stored_order
            ok = order is not None and len(order) == len(col)
            if ok and len(col):  # never an authority: a permutation, and sorted
                ok = bool(order.min() >= 0 and order.max() < len(col) and
                          np.all(np.bincount(order, minlength=len(col)) == 1))
            ranked = col[order] if ok else None
            if ok and len(col) > 1:
                ok = bool(np.all(ranked[1:] >= ranked[:-1]))
            if not ok:
                order = np.argsort(col, kind="stable")
                ranked = col[order]
            self._order = (order, ranked)
        return self._order

    def _every(self, groups: list) -> Callable[[], Any]:
        def every() -> Any:
            yield from hexes(self.rows["sha"])
            for g in groups:
                yield g.handle.sha256
        return every

    def by_sha(self, groups: list) -> ShaOverlay:
        """``by_sha``: every block, then every group, that ever had a payload
        (``groups``: those of the checkpoint; later ones are the overlay's)."""
        rows = self.rows

        def lookup(key: str) -> list[str] | None:
            order, col = self._sorted()
            lo, hi = sorted_find(col, key)
            out = [f"B{n}" for n in rows["num"][np.sort(order[lo:hi])].tolist()]
            out += [g.id for g in self._group_index(groups).get(key, ())]
            return out or None

        return ShaOverlay(lookup, self._every(groups))

    def refs(self, groups: list) -> ShaOverlay:
        """``refs``: live owners per payload (blocks and groups not deleted)."""
        rows = self.rows
        deleted = _STATUS_CODE[_DELETED]

        def lookup(key: str) -> int | None:
            order, col = self._sorted()
            lo, hi = sorted_find(col, key)
            n = int(np.count_nonzero(rows["status"][order[lo:hi]] != deleted))
            n += sum(1 for g in self._group_index(groups).get(key, ())
                     if g.status is not GroupStatus.DELETED)
            return n or None

        return ShaOverlay(lookup, self._every(groups))

    def _group_index(self, groups: list) -> dict[str, list]:
        """sha256 -> the checkpoint's groups with that payload, in order (made on
        first use; groups archived since the open are in the overlays' changes)."""
        if self._gindex is None:
            self._gindex = {}
            for g in groups:
                self._gindex.setdefault(g.handle.sha256, []).append(g)
        return self._gindex

    def call_owner(self) -> LazyDict:
        def fill(d: dict) -> None:
            for num, ids in loads(self.calls):
                owner = f"B{num}"
                for cid in ids:
                    dict.__setitem__(d, cid, owner)
        return LazyDict(fill)

    def results(self) -> ShaOverlay:
        """``results``: every tool call's block -> {call id: result block}; a
        call's entry is made from the rows answering it on first lookup."""
        rows = self.rows
        nums = rows["num"]
        state: dict[str, Any] = {}

        def answers() -> tuple[np.ndarray, np.ndarray]:
            if not state:
                idx = np.flatnonzero(rows["call"] > 0)
                by = idx[np.argsort(rows["call"][idx], kind="stable")]
                state["by"], state["calls"] = by, rows["call"][by]
            return state["by"], state["calls"]

        def lookup(key: str) -> dict[str, str] | None:
            n = _number(key)
            i = int(nums.searchsorted(n)) if n > 0 else len(nums)
            if i == len(nums) or int(nums[i]) != n or \
                    not int(rows["flags"][i]) & HAS_CALLS:
                return None
            by, calls = answers()
            lo, hi = int(calls.searchsorted(n)), int(calls.searchsorted(n, "right"))
            out: dict[str, str] = {}
            for row in np.sort(by[lo:hi]).tolist():
                (num, _, _, _, _, start, size, _, _, _, _, _, _, role, _,
                 _) = rows[row].item()
                extra = self.extra(start, size)
                msg = extra["M"] if role == WHOLE else extra.get("m", {})
                out[msg["tool_call_id"]] = f"B{num}"
            return out

        def every() -> Any:
            for n in nums[(rows["flags"] & HAS_CALLS) != 0].tolist():
                yield f"B{n}"

        return ShaOverlay(lookup, every)


def _number(ident: str) -> int:
    """n of a canonical block id ``B<n>``, else 0."""
    if isinstance(ident, str) and ident[:1] == "B" and ident[1:].isdigit() and \
            ident[1:2] != "0" and ident[1:].isascii():
        return int(ident[1:])
    return 0
