"""A checkpoint of a workspace's state beside its journal, so that reopening replays
only the journal's tail (as a database with a write-ahead log does).

``checkpoint.bin`` holds one header line ``ctxsim-checkpoint 2 <sha256> <meta bytes>``,
then the state as compact JSON (every block and group field, counters, the top-level
items, the journal length it covers and the sha256 of the last 64 KiB of that
journal prefix), then the pack index (:meth:`sim.workspace.packs.Packs.export`: one
header scan less at an open), then the bytes of every
live block up to :data:`INLINE` bytes, so a reopen reads one file instead of one per
block. The sha256 covers everything after the header; a checkpoint that fails it is
ignored (full replay). It is an accelerator, never an authority (issue 22): every
inline copy it restores is checked against its block's own sha256 and length (a
copy that fails: full replay), and a checkpoint that passes its sha256 but covers
more journal than there is, or whose journal prefix no longer ends as it did, is
damage (:data:`MISMATCH`: an open refuses, ``check`` reports it, ``repair`` sets
it aside); ``check`` also compares it block by block with a full replay
(:func:`compare`). It is written
to a temp file and renamed into place, so a crash leaves the old or the new one.
The payload files stay the source of truth: ``ctxsim workspace check`` reads them.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .blocks import Block, BlockStatus, BlockType, Group, GroupStatus, Handle
from .safefs import create_file, rename

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

NAME = "checkpoint.bin"
MAGIC = b"ctxsim-checkpoint 2"
#: live blocks up to this many bytes are copied into the checkpoint
INLINE = 16_384
#: the start of every reason a checkpoint that passes its own sha256 is refused
MISMATCH = "checkpoint does not match the journal"
#: journal bytes before the tail whose sha256 ties a checkpoint to its journal
WITNESS = 65_536


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
    """Write ``ws``'s state (journal ``head`` = its init entry) atomically."""
    journal = ws.journal.path
    length = ws.journal.size()
    ends, index = ws.store.packs.export()
    blob = bytearray()
    blocks = []
    for b in ws.blocks.values():
        inline = -1
        if b.status is not BlockStatus.DELETED and b.id not in ws.corrupt \
                and len(b.data) <= INLINE:
            inline = len(b.data)
            blob += b.data
        h = b.handle
        blocks.append([b.id, b.type.value, b.tokens, b.turn, b.parent, b.level,
                       b.status.value, h.sha256, h.length, b.message,
                       b.recovered_from, b.call_block, b.replacement, b.reason, inline])
    groups = [[g.id, g.members, g.handle.sha256, g.handle.length, g.replacement,
               g.turn, g.level, g.parent, g.status, g.tokens, g.first]
              for g in ws.groups.values()]
    meta = json.dumps({
        "head": head, "journal_bytes": length,
        "journal_sha256": _prefix_sha(journal, length), "lines": ws.journal_lines,
        "blocks": blocks, "groups": groups, "group_of": ws.group_of, "turn": ws.turn,
        "next": [ws.state.next_block, ws.state.next_group],
        "call_owner": ws.state.call_owner, "results": ws.results,
        "refs": ws.state.refs, "top": list(ws.top),
        "pack_ends": ends, "pack_index_bytes": len(index),
    }, separators=(",", ":")).encode()
    digest = hashlib.sha256(meta)
    digest.update(index)
    digest.update(blob)
    target = ws.directory / NAME
    tmp = ws.directory / f".{NAME}.tmp"
    head_line = b"%s %s %d\n" % (MAGIC, digest.hexdigest().encode(), len(meta))
    create_file(tmp, b"".join((head_line, meta, index, blob)), ws.store.sync,
                f"checkpoint {str(tmp)!r}")
    rename(tmp, target, ws.store.sync)


def _read(directory: Path) -> tuple[tuple[bytes, int] | None, str]:
    """The bytes after the header line of a checkpoint that passes its own sha256
    and the length of its state JSON, or (None, why not)."""
    try:
        raw = (directory / NAME).read_bytes()
    except FileNotFoundError:
        return None, "no checkpoint"
    except OSError as exc:
        return None, f"checkpoint unreadable ({exc.strerror})"
    head, _, rest = raw.partition(b"\n")
    parts = head.split(b" ")
    if len(parts) != 4 or b" ".join(parts[:2]) != MAGIC or not parts[3].isdigit():
        return None, "checkpoint header damaged"
    if hashlib.sha256(rest).hexdigest().encode() != parts[2]:
        return None, "checkpoint fails its sha256"
    return (rest, int(parts[3])), "ok"


def recorded_head(directory: Path) -> dict[str, Any] | None:
    """The journal's init entry as a checkpoint that passes its own sha256 recorded
    it (tokenizer, budget), whatever the journal holds now; else None. What
    ``repair`` writes back into a journal left without its first line."""
    got, _ = _read(directory)
    if got is None:
        return None
    rest, n = got
    try:
        head = json.loads(rest[:n])["head"]
    except (ValueError, KeyError, TypeError):
        return None
    ok = isinstance(head, dict) and head.get("op") == "init" and \
        isinstance(head.get("tokenizer"), str)
    return head if ok else None


def load(directory: Path) -> tuple[dict[str, Any] | None, str]:
    """The verified checkpoint of ``directory`` (state dict with ``inline`` bytes),
    or (None, why not)."""
    got, why = _read(directory)
    if got is None:
        return None, why
    rest, n = got
    try:
        state = json.loads(rest[:n])
        covered = state["journal_bytes"]
        try:
            size = os.stat(directory / "journal.jsonl").st_size
        except FileNotFoundError:
            size = 0
        if size < covered:
            return None, (f"{MISMATCH}: the journal is {size} bytes, shorter than the "
                          f"{covered} bytes ({state['lines']} lines, "
                          f"{len(state['blocks'])} blocks) the checkpoint covers: "
                          "acknowledged operations are missing from the journal")
        if _prefix_sha(directory / "journal.jsonl", covered) != state["journal_sha256"]:
            return None, (f"{MISMATCH}: the journal's bytes before byte {covered} "
                          "differ from those the checkpoint recorded")
    except (ValueError, KeyError, TypeError, OSError):
        return None, "checkpoint unreadable"
    view = memoryview(rest)
    k = n + state.get("pack_index_bytes", 0)
    state["pack_index"], state["blob"] = view[n:k], view[k:]
    return state, "ok"


def compare(state: dict[str, Any], ws: "Workspace") -> list[str]:
    """Where the verified checkpoint ``state`` disagrees with ``ws``, a workspace
    replayed from the whole journal (``ctxsim workspace check``): the checkpoint
    may cover no line the journal lacks, every block it holds must be the journal's
    block of that id (type, sha256, length) and every inline copy must match that
    sha256. Empty if they agree."""
    out = []
    if state["lines"] > ws.journal_lines:
        out.append(f"the checkpoint covers {state['lines']} journal lines, the journal "
                   f"has {ws.journal_lines}")
    blob, pos = state["blob"], 0
    for (bid, btype, _, _, _, _, _, sha, length, *_, size) in state["blocks"]:
        b = ws.blocks.get(bid)
        if b is None or (b.type.value, b.handle.sha256, b.handle.length) != \
                (btype, sha, length):
            out.append(f"checkpoint block {bid} is not the journal's {bid}")
        if size >= 0:
            data = blob[pos:pos + size]
            pos += size
            if size != length or hashlib.sha256(data).hexdigest() != sha:
                out.append(f"checkpoint copy of {bid} ({size} bytes) fails its sha256")
    journal_blocks = sum(int(b[1:]) < state["next"][0] for b in ws.blocks)
    if journal_blocks != len(state["blocks"]):
        out.append(f"the checkpoint holds {len(state['blocks'])} blocks, the journal's "
                   f"first {state['lines']} lines register {journal_blocks}")
    return out[:20]


def restore(ws: "Workspace", state: dict[str, Any]) -> list[str]:
    """Put the checkpointed state into the fresh ``ws``, bytes of the blocks it
    holds included; returns the live blocks whose bytes it does not hold."""
    from .handles import index_owner

    blob = state["blob"]
    pos = 0
    missing: list[str] = []
    types = {t.value: t for t in BlockType}
    statuses = {s.value: s for s in BlockStatus}
    new = object.__new__  # records built field by field: 100k of them at a reopen
    sha256 = hashlib.sha256  # every inline copy checked: an accelerator, no authority
    blocks, by_sha = ws.blocks, ws.state.by_sha
    for (bid, btype, tokens, turn, parent, level, status, sha, length, message,
         rfrom, cb, replacement, reason, size) in state["blocks"]:
        h = new(Handle)
        h.__dict__.update(path=f"{sha[:2]}/{sha}", length=length, sha256=sha)
        data = b""
        if size >= 0:
            data = blob[pos:pos + size].tobytes()
            pos += size
            if size != length or sha256(data).hexdigest() != sha:
                raise ValueError(f"the checkpoint's copy of {bid} fails its sha256")
        elif status != "deleted":
            missing.append(bid)
        b = new(Block)
        b.__dict__.update(id=bid, type=types[btype], data=data, tokens=tokens, turn=turn,
                          parent=parent, level=level, status=statuses[status],
                          handle=h, message=message, recovered_from=rfrom,
                          call_block=cb, replacement=replacement, reason=reason)
        blocks[bid] = b
        owners = by_sha.get(sha)
        if owners is None:
            by_sha[sha] = [bid]
        else:
            owners.append(bid)
    for (gid, members, sha, length, replacement, turn, level, parent, status,
         tokens, first) in state["groups"]:
        ws.groups[gid] = Group(id=gid, members=members,
                               handle=Handle(f"{sha[:2]}/{sha}", length, sha),
                               replacement=replacement, turn=turn, level=level,
                               parent=parent, status=GroupStatus(status), tokens=tokens,
                               first=first)
        index_owner(ws, gid, sha)
    ws.versions.update(dict.fromkeys(blocks, 0))
    ws.versions.update(dict.fromkeys(ws.groups, 0))
    ws.group_of.update(state["group_of"])
    ws.turn = state["turn"]
    ws.state.next_block, ws.state.next_group = state["next"]
    ws.state.call_owner.update(state["call_owner"])
    ws.results.update(state["results"])
    ws.state.refs.update(state["refs"])
    if "pack_ends" in state:
        ws.store.packs.adopt(state["pack_ends"], state["pack_index"])
    for ident in state["top"]:
        ws.top.add(int(ident[1:]) if ident[0] == "B" else ws.groups[ident].first, ident)
    return missing
