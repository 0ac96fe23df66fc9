"""Reopening a workspace: from its checkpoint plus the journal's tail (or the whole
journal), then the payload bytes; a writer quarantines what nothing references.

Nothing here deletes a byte. A damaged or missing payload marks its block or group
corrupt (``Workspace.corrupt``) and the rest opens; reading or recovering a corrupt
item raises :class:`CorruptPayloadError` naming it. A reader (``read_only``) takes no
lock and writes nothing; if a concurrent writer's delete removes a payload between
the reader's journal read and its payload read, the reader reads both again.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import checkpoint
from .blocks import BlockStatus, GroupStatus
from .errors import HandleError, JournalError, WorkspaceError
from .journal import VERSION, Journal, check_entry
from .lock import WriterLock
from .presence import JOURNAL, head_problem, workspace_marks
from .quarantine import Quarantine
from .store import _REL

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

JOURNAL_VERSION = VERSION
_READ_TRIES = 5


def reopen(cls: type, directory: str | Path, tokenizer: Any, kwargs: dict[str, Any],
           read_only: bool = False, use_checkpoint: bool = True,
           set_aside: bool = False) -> "Workspace":
    """See :meth:`Workspace.open`; ``use_checkpoint=False`` replays (and so checks)
    every journal line and reads every payload file. A checkpoint that passes its
    sha256 but disagrees with the journal (:data:`checkpoint.MISMATCH`) is a
    :class:`JournalError` unless ``set_aside`` (``repair``). A writer moves a
    checkpoint it did not use (damaged, disagreeing, forged copies) to quarantine."""
    directory = Path(directory)
    check_present(directory)
    lock = WriterLock.acquire(directory) if not read_only else None
    collecting = gc.isenabled()
    gc.disable()  # a bulk load of acyclic records: cyclic GC passes only cost time
    try:
        for attempt in range(1, _READ_TRIES + 1):
            ws, missing = _replay(cls, directory, tokenizer, dict(kwargs), lock,
                                  use_checkpoint, set_aside,
                                  check_budget=kwargs.get("budget") is not None)
            if _load_bytes(ws, missing, final=not read_only or attempt == _READ_TRIES):
                break
        if not read_only:
            unused = directory / checkpoint.NAME
            if ws.checkpoint_rejected and os.path.lexists(unused):
                ws.quarantine.move(unused, ws.checkpoint_rejected)
            _quarantine_strays(ws)
        return ws
    except BaseException:
        if lock is not None:
            lock[0].release(lock[1])
        raise
    finally:
        if collecting:
            gc.enable()


def check_present(directory: Path) -> None:
    """Raise unless ``directory`` holds a workspace whose journal has a first line:
    :class:`WorkspaceError` if it holds none (:func:`~.presence.workspace_marks`),
    :class:`JournalError` if it holds one whose journal is missing, empty or only a
    torn line (damage: ``repair`` handles it as a journal cut to nothing). Reads
    only: an open that refuses has changed nothing."""
    marks = workspace_marks(directory)
    if not marks:
        raise WorkspaceError(f"no workspace in {str(directory)!r}: expected its "
                             "journal.jsonl, checkpoint.bin, payloads/ or quarantine/")
    why = head_problem(directory)
    if why is None:
        return
    _, ckpt = checkpoint.load(directory)
    lost = f"; {ckpt}" if ckpt.startswith(checkpoint.MISMATCH) else ""
    raise JournalError(f"journal {str(directory / JOURNAL)!r} {why} (no line 1 at byte "
                       f"0), but {str(directory)!r} holds a workspace ("
                       f"{', '.join(marks)}){lost}; run `ctxsim workspace repair` (it "
                       "writes a new journal, sets the checkpoint aside and "
                       "re-attaches every payload as an offloaded note)")


def _replay(cls: type, directory: Path, tokenizer: Any, kwargs: dict[str, Any],
            lock: Any, use_checkpoint: bool = True, set_aside: bool = False,
            check_budget: bool = False) -> tuple["Workspace", list[str] | None]:
    """Build the workspace from the checkpoint and the journal's tail; returns it
    and the live blocks whose bytes are still to load (None: all).
    ``check_budget``: refuse a budget the caller gave that cannot hold the fixed
    overhead (:func:`~sim.workspace.workspace.check_overhead`); the journaled one
    was accepted when the workspace was made and is kept."""
    from .workspace import check_overhead

    read_only = lock is None
    journal = Journal(directory / JOURNAL, sync=kwargs.get("sync", True),
                      read_only=read_only)
    q = Quarantine(directory) if not read_only else None

    def keep_torn(offset: int, data: bytes) -> None:
        q.keep(f"journal-tail-at-{offset}", data, "torn last journal line (a crash "
               "mid-append), cut from the journal")

    state, why = checkpoint.load(directory) if use_checkpoint else (None, "not used")
    if state is None and why.startswith(checkpoint.MISMATCH) and not set_aside:
        raise JournalError(f"journal {str(journal.path)!r}: {why}; run `ctxsim "
                           "workspace repair` (it sets the checkpoint aside in "
                           "quarantine and re-attaches payloads no line references)")
    if state is not None and set_aside and state.get("format") == checkpoint.FORMAT:
        bad = checkpoint.bad_copy(state)  # repair: every copy now, not on first use
        if bad is not None:
            state, why = None, f"the checkpoint's copy of {bad} fails its sha256"
    if state is not None:
        head = state["head"]
        tail = journal.lines(state["journal_bytes"], state["lines"] + 1, keep_torn)
    else:
        tail = journal.lines(0, 1, keep_torn)
        if not tail or tail[0].entry.get("op") != "init":
            raise JournalError(f"journal {str(journal.path)!r} line 1 (byte 0) is not "
                               "the init line a journal starts with")
        head = tail.pop(0).entry
    if head.get("version") not in (1, VERSION) or not isinstance(head.get("tokenizer"), str):
        raise JournalError(f"journal {str(journal.path)!r} line 1 (byte 0): version "
                           f"{head.get('version')!r} is not 1 or {VERSION}")
    kwargs.setdefault("budget", head.get("budget"))
    from . import reserve
    from .options import WorkspaceOptions

    options = WorkspaceOptions(tokenizer=tokenizer or head["tokenizer"],
                               read_only=read_only, **kwargs)
    ws = cls.for_replay(directory, options, lock,
                        reserved=0 if read_only else reserve.read(directory))
    if check_budget:
        check_overhead(ws)  # still empty: its request is the fixed overhead
    ws.head = head
    ws.open_notes.append(f"checkpoint: {why}")
    if q is not None:
        ws.quarantine = q
    if use_checkpoint and why not in ("ok", "no checkpoint"):
        ws.checkpoint_rejected = f"checkpoint not used: {why}"
    try:
        missing = checkpoint.restore(ws, state) if state is not None else []
    except (KeyError, ValueError, TypeError, IndexError) as exc:  # verified, not ours
        ws, missing = _replay(cls, directory, tokenizer, kwargs, lock,
                              use_checkpoint=False)
        why = str(exc) if isinstance(exc, ValueError) else "its state is malformed"
        ws.open_notes[0] = f"checkpoint: {why} (not used: full replay)"
        ws.checkpoint_rejected = f"checkpoint not used: {why}"
        return ws, missing
    if state is None:
        missing = None  # every live block: nothing came with its bytes
    elif state.get("format") != checkpoint.FORMAT and not read_only:
        ws.checkpoint_stale = True  # the writer's close writes the current format
    ws.journal_lines = state["lines"] if state is not None else 1
    ws.checkpointed_lines = ws.journal_lines if state is not None else 0
    for line in tail:
        op = line.entry.get("op")
        try:
            if op == "init":
                raise ValueError("a second init line")
            check_entry(ws, line.entry)
            ws.replay(line.entry)
        except (KeyError, ValueError, TypeError, AttributeError, IndexError) as exc:
            raise JournalError(f"journal {str(journal.path)!r} is invalid at line "
                               f"{line.number} (byte {line.offset}): {exc}") from None
        ws.journal_lines = line.number
        if missing is not None and line.entry["op"] == "register":
            missing.append(line.entry["id"])
        elif missing is not None and line.entry["op"] == "restore":
            missing.extend(b.id for b in ws.blocks.values()
                           if b.status is not BlockStatus.DELETED)
    ws.torn = journal.torn
    return ws, missing


def _load_bytes(ws: "Workspace", missing: list[str] | None, final: bool) -> bool:
    """Fill the bytes of the live blocks in ``missing`` (None: all); a payload that
    fails marks its block corrupt when ``final``, else returns False (read the
    journal again)."""
    deleted = BlockStatus.DELETED
    for b in (ws.blocks.values() if missing is None else map(ws.blocks.get, missing)):
        if b.status is deleted:
            continue
        try:
            b.data = ws.store.read(b.handle)
        except (HandleError, OSError) as exc:
            if not final:
                return False
            ws.mark_corrupt(b.id, f"{exc}")
    files = _payload_files(ws)
    need = [g for g in ws.groups.values()
            if g.status is not GroupStatus.DELETED and g.handle.path not in files]
    absent = ws.store.packs.absent([g.handle.sha256 for g in need])
    for g in need:
        if g.handle.sha256 in absent:
            if not final:
                return False
            ws.mark_corrupt(g.id, f"payload {g.handle.path!r} is missing")
    return True


def _payload_files(ws: "Workspace") -> set[str]:
    """The paths (``ab/ab12...``) of the payload files in the store (one directory listing per
    ``payloads/<xx>/`` instead of a stat per group: 5,550 groups at 100k blocks);
    as :meth:`~sim.workspace.store.PayloadStore.exists`, a name counts if it is a
    file or a link to one."""
    names: set[str] = set()
    try:
        subs = list(os.scandir(ws.store.root))
    except OSError:
        return names
    for sub in subs:
        if len(sub.name) != 2 or not sub.is_dir():
            continue
        try:
            with os.scandir(sub.path) as it:
                names.update(f"{sub.name}/{e.name}" for e in it if e.is_file())
        except OSError:
            continue
    return names


def _quarantine_strays(ws: "Workspace") -> None:
    """Move temp files and payloads no live block or group references into the
    quarantine folder (the writer holds the lock: nobody else is writing)."""
    live = ws.state.refs  # looked up per file (a reopened one is not a dict)
    root = ws.store.root
    try:
        subs = sorted(e.name for e in os.scandir(root)
                      if e.is_dir(follow_symlinks=False))
    except FileNotFoundError:
        return
    for sub in subs:
        with os.scandir(root / sub) as it:
            names = sorted(e.name for e in it)
        for name in names:
            if name.startswith(".tmp-"):
                ws.quarantine.move(root / sub / name, "temp file of an interrupted "
                                   "payload write")
            elif len(name) == 64 and _REL.match(f"{sub}/{name}") and name not in live:
                f = root / sub / name
                owners = ws.state.by_sha.get(name)
                why = (f"payload of deleted {', '.join(owners)} (the delete's unlink "
                       "was interrupted)" if owners else "payload no journal line "
                       "references (a crash before its line, or a journal cut short)")
                ws.quarantine.move(f, why)
