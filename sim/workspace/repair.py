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

from .blocks import BlockStatus, GroupStatus, Handle
from .errors import HandleError, JournalError, WorkspaceError
from . import checkpoint
from .presence import JOURNAL, head_problem, workspace_marks
from .quarantine import FOLDER, listing
from .reopen import reopen
from .options import WorkspaceOptions
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
        live = set(ws.state.refs)
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
    lost = False  # whether journal lines no record covers may be gone
    if workspace_marks(directory):
        actions, lost = _from_checkpoint(directory)
    if not actions and workspace_marks(directory) and head_problem(directory):
        actions = _restart_journal(directory)
        lost = bool(actions)
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
        known = {sha for sha in ws.state.by_sha}
        if lost or any(sha not in known for sha in found) or any(
                rel[3:] not in known for rel in ws.store.packed()):
            actions += _above_issued(ws, directory)
        for sha, f in sorted(found.items()):
            if sha in known:
                continue  # a deleted item's bytes, or a spare copy: left in quarantine
            data = f.read_bytes()
            _put_back(ws, ws.store.handle_for(data), f)
            b = ws.reattach(data)
            actions.append(f"re-attached orphan payload {sha[:12]}... as {b.id} "
                           "(offloaded note; its journal line was lost)")
        for rel in ws.store.packed():
            sha = rel[3:]
            if sha in ws.state.by_sha:
                continue  # referenced, or a deleted item's bytes: left as they are
            try:
                data = ws.store.read_path(rel)
            except HandleError as exc:
                actions.append(f"UNREPAIRED orphan packed payload {sha[:12]}...: {exc}")
                continue
            b = ws.reattach(data)
            actions.append(f"re-attached orphan packed payload {sha[:12]}... as {b.id} "
                           "(offloaded note; its journal line was lost)")
    finally:
        ws.close()
    return actions


#: the state fields a ``restore`` journal line carries (the checkpoint's, less the
#: pack index and inline bytes: payloads are read from the store)
_RESTORED = ("blocks", "groups", "group_of", "turn", "next", "call_owner", "results",
             "refs", "top")


def _from_checkpoint(directory: Path) -> tuple[list[str], bool]:
    """Rebuild the journal lines a verified checkpoint covers when the journal lost
    or damaged some of them (issue 34: ids keep their meaning through repair).

    Applies when ``checkpoint.bin`` passes its own sha256 and the journal no longer
    holds its covered prefix intact: it is missing, empty, shorter than the prefix,
    its last 64 KiB before the prefix's end differ, or a complete line inside the
    prefix fails its checksum. Every line inside the prefix that still decodes must
    agree with the checkpoint's block table (id, type, sha256, length, turn), else
    the checkpoint is not trusted and nothing changes here (the caller goes on as
    before). The new journal is the init line the checkpoint recorded, one
    ``restore`` line holding its state (ids, types, turns, handles, call links,
    groups, statuses), then the old journal's lines after the prefix, verbatim
    (they are replayed on top; a damaged one is then set aside as any other). The
    old journal and the checkpoint go to quarantine first. Returns the actions
    ([] when it does not apply) and whether lines after the prefix are lost."""
    from .journal import VERSION, decode_line, encode_line
    from .lock import WriterLock
    from .quarantine import Quarantine
    from .safefs import create_file, open_fd, rename

    state = checkpoint.verified(directory)
    if state is None:
        return [], False
    try:
        state = checkpoint.v2_state(state, directory)  # the restore line's shape
        covered, head, table = state["journal_bytes"], state["head"], state["blocks"]
        restored = {k: state[k] for k in _RESTORED}
        # no inline copies: every payload is read from the store (and verified)
        restored["blocks"] = [row[:-1] + [-1] for row in table]
        ok = isinstance(head, dict) and head.get("op") == "init" and \
            isinstance(covered, int) and covered >= 0
    except (ValueError, KeyError, TypeError, HandleError, OSError):
        return [], False  # a copy that fails and no good payload: not trusted
    if not ok:
        return [], False
    lock, token = WriterLock.acquire(directory)
    try:
        path = directory / JOURNAL
        try:
            with os.fdopen(open_fd(path, os.O_RDONLY), "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            raw = b""
        prefix = raw[:covered]
        whole = len(raw) >= covered and (covered == 0 or raw[covered - 1] == 10)
        lines = prefix.split(b"\n")
        if whole:
            lines.pop()  # b"" after the prefix's last newline
        damaged = not whole
        if not damaged:
            _, why = checkpoint.load(directory)
            damaged = why.startswith(checkpoint.MISMATCH)
        rows = {row[0]: row for row in table}
        for i, line in enumerate(lines):
            last = i == len(lines) - 1 and not whole
            try:
                entry = decode_line(line)
            except ValueError:
                damaged = True
                continue
            if last or entry.get("op") != "register":
                continue
            ident = entry.get("id")
            row = rows.get(ident) if isinstance(ident, str) else None
            h = entry.get("handle")
            h = h if isinstance(h, dict) else {}
            if row is None or (row[1], row[3], row[7], row[8]) != (
                    entry.get("type"), entry.get("turn"), h.get("sha256"),
                    h.get("length")):
                return [], False  # the checkpoint is not this journal's: no authority
        if not damaged:
            return [], False
        q = Quarantine(directory)
        if raw:
            q.keep("journal-before-repair", raw, "the journal as it was before repair "
                   "rebuilt the lines the checkpoint covers")
        tail = raw[covered:] if whole else b""
        body = encode_line(dict(head, version=VERSION)) + encode_line(
            {"op": "restore", "state": restored}) + tail
        tmp = directory / ".journal.jsonl.repair"
        create_file(tmp, body, True, f"journal {str(tmp)!r}")
        rename(tmp, path, True)
        q.move(directory / checkpoint.NAME, "checkpoint whose state repair wrote into "
               "the journal's restore line (it covered lines the journal had lost or "
               "damaged)")
        kept = tail.count(b"\n")
        return [f"quarantined {src or '(bytes)'} -> {dst}: {reason}"
                for src, dst, reason in q.moved] + [
            f"rebuilt the {state['lines']} journal lines the checkpoint covers from its "
            f"block table ({len(table)} blocks, {len(state['groups'])} groups keep "
            f"their ids); {kept} later line(s) replayed on top"
            + ("" if whole else "; the lines after them were lost with the journal's "
               "tail")], not whole
    finally:
        lock.release(token)


def _above_issued(ws: Workspace, directory: Path) -> list[str]:
    """Move ``ws``'s next block id above every id ever issued (the writer's
    reservation, :mod:`sim.workspace.reserve`), so a re-attached payload never takes
    an id a lost journal line gave other bytes; say which ids are lost."""
    from . import reserve

    bound = reserve.read(directory)
    if bound == 0:
        return [f"no id reservation recorded ({reserve.NAME} missing or damaged: a "
                "workspace written before issue 34): re-attached payloads take ids from "
                f"B{ws.state.next_block}, which lost journal lines may have issued"]
    if bound <= ws.state.next_block:
        return []
    lost = f"B{ws.state.next_block}-B{bound - 1}"
    ws.skip_ids(bound)
    return [f"ids {lost} may have been issued in journal lines that are lost (no "
            "surviving line or checkpoint names them): reported lost, never reused "
            f"(the next id is B{bound})"]


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
        scratch = Workspace.for_replay(directory, WorkspaceOptions(
            tokenizer=head.get("tokenizer", "cl100k_base"), sync=False), (lock, token))
        for number, off, entry, _ in kept[1:]:
            try:
                check_entry(scratch, entry)
                scratch.replay(entry)
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
