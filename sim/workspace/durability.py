"""The durable side of a workspace: commit (journal, then apply), checkpoints, the
writer lock's checks, close, and marking an item whose payload failed as corrupt.

A mixin of :class:`~sim.workspace.workspace.Workspace`: the same ``_apply`` serves
live operations and replay, so a reopened workspace is the one that crashed.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from .errors import PlantedLinkError, ReadOnlyError, WorkspaceIOError
from .ops import apply_op
from .reserve import RESERVE

#: journal lines between checkpoints (at least; more for a large state)
CHECKPOINT_EVERY = 10_000


class Durable:
    """Commit, checkpoint, lock checks and close for a workspace (see module doc)."""

    def close(self) -> None:
        """Write a checkpoint, close the journal and release the writer lock
        (everything is already durable); a temporary workspace (``directory=None``)
        is removed. The lock is released even if the checkpoint fails or an
        interrupt lands meanwhile (which then propagates); a checkpoint that cannot
        be written is skipped (it is an accelerator: the journal holds every
        operation) and named in ``checkpoint_error``. A writer that opened an
        older checkpoint format writes the current one here even with no new
        line (``checkpoint_stale``: the migration)."""
        try:
            if self._lock is not None and self._lock.owner is self._lock_token and \
                    self._lock.pid == os.getpid() and (self.journal_lines >
                    self.checkpointed_lines or getattr(self, "checkpoint_stale", False)
                    ) and not self.journal.failed:
                self._checkpoint()
        finally:
            try:
                if self._lock is not None:
                    self._lock.release(self._lock_token)
            finally:
                self.journal.close()
                self.store.close()
                if self._temporary is not None:
                    tmp, self._temporary = self._temporary, None
                    shutil.rmtree(tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_writer(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"workspace {str(self.directory)!r} is open read-only")
        self._lock.check(self._lock_token)

    def _checkpoint(self) -> None:
        from . import checkpoint

        if self.corrupt:  # marked blocks carry marker sizes: keep the old checkpoint
            return
        from .columns import Unwritable

        try:
            checkpoint.write(self, self.head)
        except (OSError, PlantedLinkError, Unwritable) as exc:  # disk full, a planted
            # link, a hand-made id: the journal has it all (a checkpoint only
            # speeds an open up)
            self.checkpoint_error = str(exc)
            self.checkpointed_lines = self.journal_lines
            return
        self.checkpoint_error = ""
        self.checkpointed_lines = self.journal_lines
        self.checkpoint_stale = False

    def mark_corrupt(self, ident: str, why: str) -> None:
        """Mark block or group ``ident`` corrupt (its payload failed at open): it
        shows as corrupt in the dashboard, renders as a marker and raises
        :class:`CorruptPayloadError` when read or recovered."""
        self.corrupt[ident] = why
        b = self.blocks.get(ident)
        if b is not None:
            b.data = (f"[{ident} is corrupt: {why}; run `ctxsim workspace repair`]"
                      ).encode()
            b.tokens = self.assembler.native_tokens(b.type, b.data, b.message,
                                                    b.recovered_from, ident)

    def _commit(self, op: dict[str, Any], data: bytes | None = None) -> None:
        """Journal ``op`` (payloads are already durable), then apply it; checkpoint
        once the tail since the last one is as long as the state (amortised O(1))."""
        self._check_writer()
        if op["op"] == "register" and int(op["id"][1:]) >= self._reserved:
            self._reserve(int(op["id"][1:]) + RESERVE)
        self.journal.append(op)  # fails: nothing of ``op`` is applied (named error)
        self.journal_lines += 1
        after = None
        try:
            self._apply(op, data=data)
        except WorkspaceIOError as exc:  # applied: only a file's removal failed
            after = exc
        self.bound.committed(op)
        if self.journal_lines - self.checkpointed_lines >= max(CHECKPOINT_EVERY,
                                                          len(self.blocks)):
            self._checkpoint()
        if after is not None:
            raise after

    def _reserve(self, bound: int) -> None:
        """Record durably that no id at or above ``bound`` was issued
        (:mod:`sim.workspace.reserve`) before issuing one below it."""
        from . import reserve

        reserve.write(self.directory, bound, self.store.sync)
        self._reserved = bound

    def _apply(self, op: dict[str, Any], data: bytes | None = None,
               replay: bool = False) -> None:
        apply_op(self, op, data=data, replay=replay)
