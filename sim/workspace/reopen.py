"""Reopening a workspace: replay its journal into memory, then load payload bytes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .blocks import BlockStatus, Handle
from .errors import WorkspaceError
from .journal import Journal

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

JOURNAL_VERSION = 1


def reopen(cls: type, directory: str | Path, tokenizer: Any, kwargs: dict[str, Any],
           ) -> "Workspace":
    """Reopen a workspace from its journal (after a clean exit or a crash).

    Restores every block, status, group and handle; drops a torn last journal line;
    removes temp files and payloads no live block references (a crash between a
    payload write and its journal line, or between a delete and its unlink).
    ``kwargs`` are as for the constructor (budget defaults to the journaled one).
    Raises :class:`JournalError` on a corrupt journal, :class:`WorkspaceError` if
    there is none, :class:`CorruptPayloadError` if a live payload is damaged.
    """
    journal = Journal(Path(directory) / "journal.jsonl")
    entries = journal.read()
    if not entries or entries[0].get("op") != "init":
        raise WorkspaceError(f"no workspace journal in {str(directory)!r}")
    head = entries[0]
    if head.get("version") != JOURNAL_VERSION:
        raise WorkspaceError(f"journal version {head.get('version')!r} is not "
                             f"{JOURNAL_VERSION}")
    kwargs.setdefault("budget", head.get("budget"))
    ws = cls(directory, tokenizer=tokenizer or head["tokenizer"], _replay=True,
             **kwargs)
    for entry in entries[1:]:
        ws._apply(entry, replay=True)
    for b in ws.blocks.values():  # bytes last: a later delete removed some files
        if b.status is not BlockStatus.DELETED:
            b.data = ws.store.read(b.handle)
    ws.store.sweep_temps()
    live = set(ws._refs)
    for rel in list(ws.store.files()):
        if rel.rsplit("/", 1)[-1] not in live:
            ws.store.remove(Handle(rel, 0, rel.rsplit("/", 1)[-1]))
    return ws

