"""What a trajectory reader returns: the chat messages, plus what a file records
beside them (tool schemas, notes, records that carry no context).

A message may carry private keys that :func:`~sim.workspace.importers.import_trajectory`
acts on and removes before registering it:

* ``_where``: its position in the file's own terms (``line 7``, ``messages[3]``),
  named by every error and note about it;
* ``_demo``: a demonstration (never pinned as the task);
* ``_not_task``: text the tool injects before the task (never pinned as the task);
* ``_aside``: a reason: the record is kept whole (registered as a note block and
  archived at once, so its bytes are in the payload store and its row in the
  ledger) but is not in the model's context: a record kind the reader does not
  know, a subagent's sidechain, an abandoned branch;
* ``_forget``: ``{"reason": str, "before": int | None, "indexes": list[int] | None,
  "fresh": bool}``: the producing tool dropped earlier messages from the context
  here (a compaction or condensation): the visible blocks of the messages listed
  (``indexes``), or of every message before index ``before`` (None: all earlier
  messages), are archived as one group. ``fresh``: a new task starts here (an
  evaluation record): the earlier pinned blocks are unpinned and archived too, and
  the new task is pinned.
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import fields


class RenamedCall(NamedTuple):
    """A tool call whose recorded id another call already used, imported under a
    new id (``<id>~<n>``): ``where`` in the file, the ``block`` holding the call,
    the ``recorded`` and the ``renamed`` id, and the block (or "this message")
    already using the recorded id."""

    where: str
    block: str
    recorded: str
    renamed: str
    used_by: str


@dataclass
class Trajectory:
    """A read trajectory: OpenAI chat ``messages`` (with the private keys above),
    the recorded ``tools`` (OpenAI function schemas: they count as fixed overhead of
    every request), ``notes`` (one line each, naming a position in the file),
    ``skipped`` (records that carry no context, counted by kind: headers, settings
    changes, UI events), and the ``format`` chosen with the ``reason``; after
    an import, ``renamed`` lists every call id made unique (:class:`RenamedCall`)."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: collections.Counter = field(default_factory=collections.Counter)
    format: str = ""
    reason: str = ""
    source: str = ""
    renamed: list[RenamedCall] = field(default_factory=list)

    def aside(self, record: Any, where: str, why: str) -> None:
        """Keep ``record`` whole, out of the context (see ``_aside``)."""
        self.messages.append({"role": "user", "content": opaque_text(record, where),
                              "_where": where, "_aside": why})


def opaque_text(record: Any, where: str) -> str:
    """A record's exact JSON text (non-ASCII kept). Raises
    :class:`TrajectoryFormatError` for a value JSON cannot hold (nested too deeply)."""
    try:
        return json.dumps(record, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        raise fields.fail(where, "record cannot be kept as JSON text (nested too "
                                 "deeply or not JSON)") from None
