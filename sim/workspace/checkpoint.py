"""A checkpoint of a workspace's state beside its journal, so that reopening replays
only the journal's tail (as a database with a write-ahead log does).

Format 3 (issue 35): ``checkpoint.bin`` holds one header line
``ctxsim-checkpoint 3 <sha256> <meta bytes>``, then the small state as JSON (the
journal length it covers and the sha256 of the last 64 KiB of that journal prefix,
counters, the top-level items, every group as a row), then the pack index
(:meth:`sim.workspace.packs.Packs.export`), then the block table
(:mod:`sim.workspace.columns`: one fixed-width row per block, read in place as a
numpy array), the blocks' extras, the bytes of every live block up to
:data:`INLINE` bytes and the tool call ids. An open decodes the small JSON and
nothing per block: blocks are made on first access and the maps derivable from the
table (``refs``, ``by_sha``, ``call_owner``, ``results``, ``group_of``) on first
use (:mod:`sim.workspace.lazy`). The sha256 covers everything after the header; a
checkpoint that fails it is ignored (full replay). It is an accelerator, never an
authority (issue 22): an inline copy is checked against its block's own sha256 and
length when the block is made (a copy that fails: the payload store's bytes are
served and the open's note says so), and a checkpoint that passes its sha256 but
covers more journal than there is, or whose journal prefix no longer ends as it
did, is damage (:data:`MISMATCH`: an open refuses, ``check`` reports it,
``repair`` sets it aside); ``check`` also compares it block by block with a full
replay (:func:`compare`). It is written to a temp file and renamed into place, so
a crash leaves the old or the new one. The payload files stay the source of
truth: ``ctxsim workspace check`` reads them.

Format 2 (the release before) is still read (:mod:`.checkpoint_v2`, eagerly); a
writer that opened one writes format 3 at its close.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import checkpoint_v2 as v2
from .blocks import BlockStatus, Group, GroupStatus, Handle
from .safefs import create_file, rename

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

NAME = "checkpoint.bin"
FORMAT = 3
MAGIC = b"ctxsim-checkpoint 3"
#: live blocks up to this many bytes are copied into the checkpoint
INLINE = 16_384
#: the start of every reason a checkpoint that passes its own sha256 is refused
MISMATCH = "checkpoint does not match the journal"
#: journal bytes before the tail whose sha256 ties a checkpoint to its journal
WITNESS = 65_536
#: the sections after the state JSON and the pack index, in file order
SECTIONS = ("rows", "order", "extras", "inline", "calls")


def _prefix_sha(path: Path, length: int) -> str | None:
    """sha256 of the last :data:`WITNESS` bytes of the journal's first ``length``
    bytes (None if it is shorter): the lines just before the tail, which any
    rewrite or truncation of the journal changes. Earlier damage does not matter
    to a reopen (the checkpoint holds that state); ``ctxsim workspace check``
    replays every line."""
    start = max(0, length - WITNESS)
    with open(path, "rb") as fh:
        fh.seek(start)
        chunk = fh.read(length - start)
    if len(chunk) != length - start:
        return None  # the journal is shorter than the checkpoint says
    return hashlib.sha256(chunk).hexdigest()


def write(ws: "Workspace", head: dict[str, Any]) -> None:
    """Write ``ws``'s state (journal ``head`` = its init entry) atomically in
    format 3."""
    from .columns import dumps, encode

    journal = ws.journal.path
    length = ws.journal.size()
    ends, index = ws.store.packs.export()
    rows, order, extras, blob, calls = encode(ws, INLINE)
    from .lazy import LazyDict

    group_of = ws.group_of
    unfilled = isinstance(group_of, LazyDict) and not group_of.filled
    get = dict.get  # a filled LazyDict's own storage holds every entry
    groups, held = [], 0
    for g in ws.groups.values():
        # untouched since an open (no archive or expand since): as it was read
        holds = g.id in group_of.note if unfilled else \
            all(get(group_of, m) == g.id for m in g.members)
        held += len(g.members) if holds else 0
        groups.append([g.id, g.members, g.handle.sha256, g.handle.length,
                       g.replacement, g.turn, g.level, g.parent, g.status.value,
                       g.tokens, g.first, holds])
    meta: dict[str, Any] = {
        "format": FORMAT, "head": head, "journal_bytes": length,
        "journal_sha256": _prefix_sha(journal, length), "lines": ws.journal_lines,
        "groups": groups, "turn": ws.turn,
        "next": [ws.state.next_block, ws.state.next_group], "top": list(ws.top),
        "pack_ends": ends, "pack_index_bytes": len(index),
        "blocks": len(ws.blocks),
        "sections": [len(rows), len(order), len(extras), len(blob), len(calls)]}
    from .columns import ODD, ROW

    if bool(np.any(np.frombuffer(rows, ROW)["call"] == ODD)):
        meta["results"] = {k: dict(v) for k, v in ws.results.items()}  # not derivable
    if not unfilled and held != len(group_of):  # not derivable: kept whole
        meta["group_of"] = dict(group_of)
    body = dumps(meta)
    digest = hashlib.sha256(body)
    for part in (index, rows, order, extras, blob, calls):
        digest.update(part)
    target = ws.directory / NAME
    tmp = ws.directory / f".{NAME}.tmp"
    head_line = b"%s %s %d\n" % (MAGIC, digest.hexdigest().encode(), len(body))
    create_file(tmp, b"".join((head_line, body, index, rows, order, extras, blob, calls)),
                ws.store.sync, f"checkpoint {str(tmp)!r}")
    rename(tmp, target, ws.store.sync)


def _read(directory: Path) -> tuple[tuple[memoryview, int, int] | None, str]:
    """(the bytes after the header line, the length of its state JSON, the
    format) of a checkpoint that passes its own sha256, or (None, why not)."""
    try:
        raw = (directory / NAME).read_bytes()
    except FileNotFoundError:
        return None, "no checkpoint"
    except OSError as exc:
        return None, f"checkpoint unreadable ({exc.strerror})"
    cut = raw.find(b"\n", 0, 200)
    head, rest = raw[:max(cut, 0)], memoryview(raw)[cut + 1:]  # no copy of the rest
    parts = head.split(b" ") if cut >= 0 else []
    magic = b" ".join(parts[:2])
    if len(parts) != 4 or magic not in (MAGIC, v2.MAGIC) or not parts[3].isdigit():
        return None, "checkpoint header damaged"
    if hashlib.sha256(rest).hexdigest().encode() != parts[2]:
        return None, "checkpoint fails its sha256"
    return (rest, int(parts[3]), FORMAT if magic == MAGIC else 2), "ok"


def _decode(rest: bytes, n: int, fmt: int) -> dict[str, Any]:
    """The state of a verified checkpoint (see :func:`load`); raises ValueError,
    KeyError or TypeError for one that is not a state of its format."""
    if fmt == 2:
        return v2.decode(rest, n)
    from .columns import ROW, loads

    state = loads(rest[:n])  # orjson reads a memoryview in place
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise TypeError("the checkpoint's state is not one of format 3")
    view = rest
    pos = n + state["pack_index_bytes"]
    state["pack_index"] = view[n:pos]
    sizes = state["sections"]
    if len(sizes) != len(SECTIONS) or pos + sum(sizes) != len(rest) or \
            sizes[0] != state["blocks"] * ROW.itemsize or sizes[1] != state["blocks"] * 4:
        raise ValueError("the checkpoint's sections do not add up to its length")
    for name, size in zip(SECTIONS, sizes):
        state[name] = view[pos:pos + size]
        pos += size
    state["rows"] = np.frombuffer(state["rows"], ROW)
    state["order"] = np.frombuffer(state["order"], "<i4")
    _check_rows(state)
    return state


def _check_rows(state: dict[str, Any]) -> None:
    """ValueError unless every row's codes and offsets are in range (whole
    columns at once): a row is then made without an error on first access."""
    from .columns import ROLES, STATUSES, TYPES, WHOLE

    rows = state["rows"]
    nums, inline, length = rows["num"], rows["inline"], rows["length"]
    live = inline >= 0
    bad = [
        len(nums) > 1 and not bool(np.all(nums[1:] > nums[:-1])),
        bool(np.any(nums <= 0)), bool(np.any(length < 0)),
        bool(np.any(rows["type"] >= len(TYPES))),
        bool(np.any(rows["status"] >= len(STATUSES))),
        bool(np.any((rows["role"] >= len(ROLES)) & (rows["role"] != WHOLE))),
        bool(np.any(inline[live] + length[live] > len(state["inline"]))),
        bool(np.any(rows["extra"] < 0)) or bool(np.any(rows["extra_len"] < 0)),
        bool(np.any(rows["extra"] + rows["extra_len"] > len(state["extras"]))),
    ]
    if any(bad):
        raise ValueError("the checkpoint's block table holds a row out of range")


def verified(directory: Path) -> dict[str, Any] | None:
    """The state of a checkpoint that passes its own sha256 and decodes, whether or
    not it matches the journal (``repair``'s rebuild), else None."""
    got, _ = _read(directory)
    if got is None:
        return None
    try:
        return _decode(*got)
    except (ValueError, KeyError, TypeError):
        return None


def recorded_head(directory: Path) -> dict[str, Any] | None:
    """The journal's init entry as a checkpoint that passes its own sha256 recorded
    it (tokenizer, budget), whatever the journal holds now; else None. What
    ``repair`` writes back into a journal left without its first line."""
    got, _ = _read(directory)
    if got is None:
        return None
    try:
        head = _decode(*got)["head"]
    except (ValueError, KeyError, TypeError):
        return None
    ok = isinstance(head, dict) and head.get("op") == "init" and \
        isinstance(head.get("tokenizer"), str)
    return head if ok else None


def load(directory: Path) -> tuple[dict[str, Any] | None, str]:
    """The verified checkpoint of ``directory`` (its state dict: ``format`` 3
    with the block table's sections as views, or format 2's), or (None, why
    not)."""
    got, why = _read(directory)
    if got is None:
        return None, why
    try:
        state = _decode(*got)
        covered = state["journal_bytes"]
        try:
            size = os.stat(directory / "journal.jsonl").st_size
        except FileNotFoundError:
            size = 0
        if size < covered:
            blocks = state["blocks"]
            return None, (f"{MISMATCH}: the journal is {size} bytes, shorter than the "
                          f"{covered} bytes ({state['lines']} lines, "
                          f"{blocks if isinstance(blocks, int) else len(blocks)} "
                          "blocks) the checkpoint covers: acknowledged operations "
                          "are missing from the journal")
        if _prefix_sha(directory / "journal.jsonl", covered) != state["journal_sha256"]:
            return None, (f"{MISMATCH}: the journal's bytes before byte {covered} "
                          "differ from those the checkpoint recorded")
    except (ValueError, KeyError, TypeError, OSError):
        return None, "checkpoint unreadable"
    return state, "ok"


def rows_of(state: dict[str, Any], fallback: Any = None) -> list[list[Any]]:
    """Format 2's block rows (id, type, tokens, turn, parent, level, status,
    sha256, length, message, recovered_from, call_block, replacement, reason,
    inline size or -1) of a loaded checkpoint of either format: what ``repair``
    writes into a ``restore`` line and what :func:`compare` checks.
    ``fallback``: see :class:`~sim.workspace.columns.Table` (None: copies as
    they are)."""
    if state.get("format") != FORMAT:
        return state["blocks"]
    from .columns import Table

    table = Table(state["rows"], state["extras"], state["inline"], state["calls"],
                  fallback, state["order"])
    out = []
    for row in range(len(state["rows"])):
        inline = int(state["rows"]["inline"][row])
        b = table.make(row)
        h = b.handle
        out.append([b.id, b.type.value, b.tokens, b.turn, b.parent, b.level,
                    b.status.value, h.sha256, h.length, b.message, b.recovered_from,
                    b.call_block, b.replacement, b.reason,
                    h.length if inline >= 0 else -1])
    return out


def v2_state(state: dict[str, Any], directory: Path) -> dict[str, Any]:
    """A loaded checkpoint of either format as format 2's state dict (every
    block as a row, the derived maps whole): what a ``restore`` journal line
    carries (``repair``). A block whose copy fails its sha256 gets the bytes of
    ``directory``'s payload store (:class:`HandleError` or
    :class:`CorruptPayloadError` if they fail too)."""
    if state.get("format") != FORMAT:
        return state
    from types import SimpleNamespace

    from .state import WorkspaceState
    from .store import PayloadStore

    store = PayloadStore(directory / "payloads", sync=False, read_only=True)
    ws: Any = SimpleNamespace(state=WorkspaceState(), store=None, open_notes=[],
                              checkpoint_rejected="")
    _fill(ws, state, lambda bid, h: store.read(h))
    st = ws.state
    st.blocks.everything()
    out = {k: state[k] for k in ("head", "journal_bytes", "journal_sha256", "lines",
                                 "turn", "next", "top", "pack_ends",
                                 "pack_index_bytes")}
    out.update(blocks=rows_of(state, lambda bid, h: store.read(h)),
               groups=[r[:11] for r in state["groups"]],
               group_of=dict(st.group_of), call_owner=dict(st.call_owner),
               results={k: dict(v) for k, v in st.results.items()},
               refs=dict(st.refs.items()))
    return out


def bad_copy(state: dict[str, Any]) -> str | None:
    """The first block of a format-3 ``state`` whose inline copy fails its sha256
    or length, else None: what ``repair``'s open checks of every copy (a reopen
    checks each when its block is made)."""
    rows, blob = state["rows"], state["inline"]
    sha256 = hashlib.sha256
    for num, inline, length, sha in zip(rows["num"].tolist(), rows["inline"].tolist(),
                                        rows["length"].tolist(), rows["sha"].tolist()):
        if inline >= 0 and (inline + length > len(blob) or sha256(
                blob[inline:inline + length]).digest() != sha.ljust(32, b"\0")):
            return f"B{num}"
    return None


def compare(state: dict[str, Any], ws: "Workspace") -> list[str]:
    """Where the verified checkpoint ``state`` disagrees with ``ws``, a workspace
    replayed from the whole journal (``ctxsim workspace check``): the checkpoint
    may cover no line the journal lacks, every block it holds must be the journal's
    block of that id (type, sha256, length) and every inline copy must match that
    sha256. Empty if they agree."""
    if state.get("format") != FORMAT:
        return v2.compare(state, ws)
    rows = rows_of(state)
    blob = state["inline"]
    inline = state["rows"]["inline"]
    view = dict(state, blocks=rows, blob=b"".join(
        blob[int(inline[i]):int(inline[i]) + r[8]] for i, r in enumerate(rows)
        if r[-1] >= 0))
    return v2.compare(view, ws)


def restore(ws: "Workspace", state: dict[str, Any]) -> list[str]:
    """Put the checkpointed state into the fresh ``ws``; returns the live blocks
    whose bytes it does not hold. Format 3 makes no block here (see module doc);
    format 2 (and a ``restore`` journal line) is restored eagerly."""
    if state.get("format") != FORMAT:
        return v2.restore(ws, state)
    return _fill(ws, state)


def _fill(ws: Any, state: dict[str, Any], fallback: Any = None) -> list[str]:
    """Format 3's :func:`restore` (``fallback``: see
    :class:`~sim.workspace.columns.Table`; default: the workspace's store, and the
    open's note names the copy)."""
    from .columns import STATUSES, Table
    from .lazy import LazyBlocks, LazyDict, ZeroVersions

    st = ws.state
    rows = state["rows"]

    def bad_copy(bid: str, handle: Handle) -> bytes:
        note = f"checkpoint: the checkpoint's copy of {bid} fails its sha256 (its " \
               "bytes come from the payload store)"
        if ws.open_notes[:1] == ["checkpoint: ok"]:
            ws.open_notes[0] = note
        ws.checkpoint_rejected = ws.checkpoint_rejected or note
        return ws.store.read(handle)

    table = Table(rows, state["extras"], state["inline"], state["calls"],
                  fallback or bad_copy, state["order"])
    st.blocks = LazyBlocks(rows["num"], table.make)
    st.blocks.source = table
    groups = st.groups
    holding = []
    for (gid, members, sha, length, replacement, turn, level, parent, status,
         tokens, first, holds) in state["groups"]:
        g = Group(id=gid, members=members, handle=Handle(f"{sha[:2]}/{sha}", length, sha),
                  replacement=replacement, turn=turn, level=level, parent=parent,
                  status=GroupStatus(status), tokens=tokens, first=first)
        groups[gid] = g
        if holds:
            holding.append(g)
    at_open = list(groups.values())
    st.versions = ZeroVersions()
    st.by_sha = table.by_sha(at_open)
    st.refs = table.refs(at_open)
    st.call_owner = table.call_owner()
    st.results = dict(state["results"]) if "results" in state else table.results()
    if "group_of" in state:
        st.group_of = dict(state["group_of"])
    else:
        def fill(d: dict) -> None:
            for g in holding:
                d.update(dict.fromkeys(g.members, g.id))
        st.group_of = LazyDict(fill, note={g.id for g in holding})
    st.turn = state["turn"]
    st.next_block, st.next_group = state["next"]
    if ws.store is not None:
        ws.store.packs.adopt(state["pack_ends"], state["pack_index"])
    for ident in state["top"]:
        st.top.add(int(ident[1:]) if ident[0] == "B" else groups[ident].first, ident)
    deleted = STATUSES.index(BlockStatus.DELETED)
    return [f"B{n}" for n in rows["num"][(rows["inline"] < 0) &
                                         (rows["status"] != deleted)].tolist()]
