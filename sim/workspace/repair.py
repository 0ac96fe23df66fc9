"""``ctxsim workspace check`` and ``repair``: verify every payload of a workspace
against its sha256 and the journal, and rebuild what the surviving bytes allow.

:func:`check` opens read-only (no lock, no writes) and reads every live block's and
group's payload in full. :func:`repair` opens as the writer and, never deleting a
byte: moves a damaged payload file to the quarantine folder; puts back good bytes
from the quarantine (a file whose sha256 matches the handle), from a group's members
(its transcript is rebuilt and must match the group's sha256) or from the
checkpoint's copy (a small payload's good copy is appended to a pack: the damaged
record stays in place); and re-attaches quarantined payloads and intact packed
records that no journal line references any more (a journal cut short) as new
offloaded note blocks, so their bytes are recoverable through the workspace again.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .blocks import BlockStatus, BlockType, GroupStatus, Handle
from .errors import HandleError, JournalError, WorkspaceError
from . import checkpoint
from .presence import JOURNAL, head_problem, workspace_marks
from .quarantine import FOLDER, listing
from .reopen import reopen
from .workspace import Workspace

_SHA_NAME = re.compile(r"^([0-9a-f]{64})(\.\d+)?$")


@dataclass
class CheckReport:
    """What :func:`check` found: ``journal_error`` (the open failed), ``corrupt``
    (id -> why), ``quarantined`` (files in quarantine), ``strays`` (payload files
    nothing references; a writer's open will quarantine them), ``torn`` (bytes of
    a torn last journal line), ``packed_unreferenced`` (packed records no live item
    references: deleted items' bytes, or written just before a crash; kept in place),
    ``unindexed`` (pack bytes no intact record header covers: torn tails, damaged
    headers; kept in place), block and group counts."""

    directory: str
    journal_error: str | None = None
    corrupt: dict[str, str] = field(default_factory=dict)
    quarantined: list[dict] = field(default_factory=list)
    strays: list[str] = field(default_factory=list)
    torn: int = 0
    packed_unreferenced: int = 0
    unindexed: list[str] = field(default_factory=list)
    checkpoint: str = ""
    #: where an intact checkpoint disagrees with the journal or its blocks' sha256
    checkpoint_damage: list[str] = field(default_factory=list)
    blocks: int = 0
    groups: int = 0

    @property
    def damaged(self) -> bool:
        """True if a payload or the journal is damaged, or the checkpoint disagrees
        with them."""
        return self.journal_error is not None or bool(self.corrupt) or \
            bool(self.checkpoint_damage)

    def lines(self) -> list[str]:
        """The report as printable lines."""
        out = [f"workspace   {self.directory}"]
        if self.journal_error:
            return out + [f"DAMAGED     journal: {self.journal_error}"]
        out.append(f"blocks      {self.blocks}; groups {self.groups}; "
                   f"payloads verified against sha256 and journal")
        out += [f"DAMAGED     {i}: {why}" for i, why in sorted(self.corrupt.items())]
        out += [f"DAMAGED     checkpoint: {why}" for why in self.checkpoint_damage]
        out.append(f"checkpoint  {self.checkpoint} (reopen "
                   + ("replays the journal's tail only)" if self.checkpoint == "ok"
                      else "replays the whole journal)"))
        if self.torn:
            out.append(f"note        torn last journal line ({self.torn} bytes; a "
                       "writer's open moves it to quarantine)")
        out += [f"stray       payloads/{s} (no live item references it)"
                for s in self.strays]
        if self.packed_unreferenced:
            out.append(f"packed      {self.packed_unreferenced} packed payload(s) no live "
                       "item references (deleted, or written before a crash; kept)")
        out += [f"note        payloads/{u}" for u in self.unindexed]
        out += [f"quarantined {q['name']} ({q['bytes']} bytes) {q['reason']}"
                for q in self.quarantined]
        out.append("status      " + ("DAMAGED" if self.damaged else "ok"))
        return out


def _verify(ws: Workspace) -> dict[str, str]:
    bad = dict(ws.corrupt)
    for b in ws.blocks.values():
        if b.status is not BlockStatus.DELETED and b.id not in bad:
            try:
                ws.store.read(b.handle)
            except (HandleError, OSError) as exc:
                bad[b.id] = str(exc)
    for g in ws.groups.values():
        if g.status is not GroupStatus.DELETED and g.id not in bad:
            try:
                ws.store.read(g.handle)
            except (HandleError, OSError) as exc:
                bad[g.id] = str(exc)
    return bad


def check(directory: str | Path) -> CheckReport:
    """Verify ``directory`` without writing (see module doc)."""
    rep = CheckReport(str(directory), quarantined=listing(directory))
    try:  # every journal line replayed and checked, every payload file read
        ws = reopen(Workspace, directory, None, {"sync": False}, read_only=True,
                    use_checkpoint=False)
    except JournalError as exc:
        rep.journal_error = str(exc)
        return rep
    state, rep.checkpoint = checkpoint.load(Path(directory))
    if state is not None:
        rep.checkpoint_damage = checkpoint.compare(state, ws)
    elif rep.checkpoint.startswith(checkpoint.MISMATCH):
        rep.checkpoint_damage = [rep.checkpoint]
    try:
        rep.corrupt = _verify(ws)
        rep.blocks, rep.groups = len(ws.blocks), len(ws.groups)
        rep.torn = len(ws.torn[1]) if ws.torn else 0
        live = set(ws._refs)
        rep.strays = [rel for rel in ws.store.files()
                      if rel.rsplit("/", 1)[-1] not in live]
        rep.packed_unreferenced = sum(rel[3:] not in live for rel in ws.store.packed())
        rep.unindexed = [u.describe() for u in ws.store.packs.unindexed()]
    finally:
        ws.close()
    return rep


def _put_back(ws: Workspace, handle: Handle, source: Path) -> None:
    from .safefs import real_dir, rename

    target = ws.store.root / handle.path
    real_dir(target.parent)
    rename(source, target, True)


def repair(directory: str | Path) -> list[str]:
    """Repair ``directory`` (see module doc); returns one line per action. A journal
    missing, empty or holding only a torn line beside the rest of a workspace is a
    journal cut to nothing: a new one holding only the init line takes its place
    (:func:`_restart_journal`), and the repair goes on as for any journal cut
    short. Raises :class:`WorkspaceError` if ``directory`` holds no workspace,
    :class:`JournalError` if the journal itself cannot be read (nothing to rebuild
    on), :class:`WorkspaceLockedError` if a writer is running."""
    directory = Path(directory)
    actions: list[str] = []
    if workspace_marks(directory) and head_problem(directory):
        actions = _restart_journal(directory)
    try:
        ws = reopen(Workspace, directory, None, {}, set_aside=True)
    except JournalError as exc:
        actions = _set_aside_damaged_lines(Path(directory), exc)
        ws = reopen(Workspace, directory, None, {}, set_aside=True)
    actions += [f"quarantined {src} -> {dst}: {why}"
                for src, dst, why in ws.quarantine.moved]
    qroot = Path(directory) / FOLDER
    found: dict[str, Path] = {}
    for f in sorted(qroot.iterdir()) if qroot.is_dir() else ():
        m = _SHA_NAME.match(f.name)
        if m and f.is_file() and hashlib.sha256(f.read_bytes()).hexdigest() == m[1]:
            found.setdefault(m[1], f)
    try:
        for ident, why in sorted(_verify(ws).items()):
            item = ws.blocks.get(ident) or ws.groups[ident]
            h = item.handle
            target = ws.store.root / h.path
            if target.exists() or target.is_symlink():
                ws.quarantine.move(target, f"damaged payload of {ident}")
            if h.sha256 in found:
                _put_back(ws, h, found.pop(h.sha256))
                actions.append(f"restored {ident} from quarantine")
                continue
            data = _rebuild(ws, ident)
            if data is not None and hashlib.sha256(data).hexdigest() == h.sha256:
                ws.store.put(data)
                actions.append(f"rebuilt {ident} from " + ("its members" if ident[0] == "G"
                                                          else "the checkpoint's copy"))
                continue
            actions.append(f"UNREPAIRED {ident}: {why}")
        known = {sha for sha in ws._by_sha}
        for sha, f in sorted(found.items()):
            if sha in known:
                continue  # a deleted item's bytes, or a spare copy: left in quarantine
            data = f.read_bytes()
            _put_back(ws, ws.store.handle_for(data), f)
            b = ws._admit(BlockType.NOTE, data, {"role": "user"}, ws.turn,
                          BlockStatus.OFFLOADED)
            actions.append(f"re-attached orphan payload {sha[:12]}... as {b.id} "
                           "(offloaded note; its journal line was lost)")
        for rel in ws.store.packed():
            sha = rel[3:]
            if sha in ws._by_sha:
                continue  # referenced, or a deleted item's bytes: left as they are
            try:
                data = ws.store.read_path(rel)
            except HandleError as exc:
                actions.append(f"UNREPAIRED orphan packed payload {sha[:12]}...: {exc}")
                continue
            b = ws._admit(BlockType.NOTE, data, {"role": "user"}, ws.turn,
                          BlockStatus.OFFLOADED)
            actions.append(f"re-attached orphan packed payload {sha[:12]}... as {b.id} "
                           "(offloaded note; its journal line was lost)")
    finally:
        ws.close()
    return actions


def _restart_journal(directory: Path) -> list[str]:
    """Put a journal holding only an init line where there is none with a first
    line (DESIGN.md's damage table: a journal cut to 0% is a journal cut short):
    the init line the checkpoint recorded if it passes its sha256, else a new one
    (cl100k_base, no budget). The old journal's bytes, if any, go to quarantine
    first. The reopen that follows sets the checkpoint aside (it covers lines that
    are gone) and quarantines every payload file; repair re-attaches them all."""
    from .journal import VERSION, encode_line
    from .lock import WriterLock
    from .quarantine import Quarantine
    from .safefs import open_fd, replace_file

    lock, token = WriterLock.acquire(directory)
    try:
        why = head_problem(directory)  # again under the lock: nobody writes now
        if why is None:
            return []
        path = directory / JOURNAL
        q = Quarantine(directory)
        if why != "is missing":
            with os.fdopen(open_fd(path, os.O_RDONLY), "rb") as fh:
                raw = fh.read()
            if raw:
                q.keep("journal-before-repair", raw, f"the journal, which {why}, as it "
                       "was before repair replaced it")
        head = checkpoint.recorded_head(directory)
        source = "the init line the checkpoint recorded"
        if head is None:
            head = {"op": "init", "version": VERSION, "tokenizer": "cl100k_base",
                    "budget": None}
            source = ("a new init line (tokenizer cl100k_base, no budget: no intact "
                      "checkpoint recorded one)")
        # the line is written in the current version's format, whatever the old was
        head = dict(head, version=VERSION)
        replace_file(path, encode_line(head), True, f"journal {str(path)!r}")
        return [f"quarantined {src or '(bytes)'} -> {dst}: {reason}"
                for src, dst, reason in q.moved] + [
            f"journal {why}: wrote a new one holding only {source}"]
    finally:
        lock.release(token)


def _set_aside_damaged_lines(directory: Path, error: JournalError) -> list[str]:
    """Set complete journal lines that fail their checksum aside (their bytes, and
    the whole journal as it was, into quarantine, logged) and write the journal
    without them, if every other line then replays; else raise ``error`` (nothing
    changed). A torn last line is left for the open to cut."""
    from .journal import check_entry, decode_line
    from .lock import WriterLock
    from .quarantine import Quarantine
    from .safefs import create_file, rename

    lock, token = WriterLock.acquire(directory)
    try:
        path = directory / "journal.jsonl"
        raw = path.read_bytes()
        parts = raw.split(b"\n")
        tail = parts.pop()  # b"" or a torn last line
        kept, bad, offset = [], [], 0
        for number, line in enumerate(parts, 1):
            try:
                entry = decode_line(line)
                kept.append((number, offset, entry, line))
            except ValueError:
                bad.append((number, offset, line))
            offset += len(line) + 1
        if not bad or not kept or kept[0][2].get("op") != "init":
            raise error
        head = kept[0][2]
        scratch = Workspace(directory, tokenizer=head.get("tokenizer", "cl100k_base"),
                            sync=False, _replay=True, _lock=(lock, token))
        for number, off, entry, _ in kept[1:]:
            try:
                check_entry(scratch, entry)
                scratch._apply(entry, replay=True)
            except (KeyError, ValueError, TypeError, AttributeError, IndexError) as exc:
                first = bad[0]
                raise JournalError(
                    f"{error}; repair cannot set the damaged line {first[0]} (byte "
                    f"{first[1]}) aside: line {number} (byte {off}) does not follow "
                    f"without it ({exc}); nothing changed") from None
        q = Quarantine(directory)
        q.keep("journal-before-repair", raw, "the journal as it was before repair set "
               f"{len(bad)} damaged line(s) aside")
        actions = []
        for number, off, line in bad:
            q.keep(f"journal-line-{number}-at-{off}", line + b"\n",
                   f"journal line {number} (byte {off}) fails its checksum; set aside by "
                   "repair, the lines after it replayed without it")
            actions.append(f"set aside damaged journal line {number} (byte {off}, "
                           f"{len(line) + 1} bytes) into quarantine")
        tmp = directory / ".journal.jsonl.repair"
        body = b"".join(line + b"\n" for *_, line in kept) + tail
        create_file(tmp, body, True, f"journal {str(tmp)!r}")
        rename(tmp, path, True)
        return actions + [f"quarantined {src or '(bytes)'} -> {dst}: {why}"
                          for src, dst, why in q.moved]
    finally:
        lock.release(token)


def _rebuild(ws: Workspace, ident: str) -> bytes | None:
    """Good bytes for ``ident`` from other surviving copies, or None."""
    if ident[0] == "G":
        try:
            return ws.transcript(ws.groups[ident].members)
        except WorkspaceError:
            return None
    b = ws.blocks[ident]
    if ident not in ws.corrupt and b.data:
        return b.data  # the checkpoint's copy (verified by its sha256 on open)
    return None
