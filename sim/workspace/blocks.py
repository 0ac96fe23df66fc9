"""Typed blocks, groups and handles: the records of the block workspace.

Fields follow DESIGN.md ("The block workspace contract") and VISTA §2.2: a block is one
chat message with a stable id ``B<n>``, a type, its exact bytes, a token count in the
workspace tokenizer's units, the root turn it entered, a parent, a compression level and
a status; archived or offloaded blocks carry a :class:`Handle` into the payload store.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class BlockType(str, enum.Enum):
    """What a block is (one OpenAI chat message each)."""

    SYSTEM = "system"
    USER_MESSAGE = "user_message"
    ASSISTANT_MESSAGE = "assistant_message"
    #: an assistant message that carries ``tool_calls`` (its text content included)
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    SUMMARY = "summary"
    NOTE = "note"


class BlockStatus(str, enum.Enum):
    """Where a block's bytes live (VISTA §2.2 and the dashboard format appendix)."""

    VISIBLE = "visible"
    #: visible and protected: never archived, offloaded or deleted
    PINNED = "pinned"
    #: replaced in the stream by a handle/placeholder; bytes in the payload store
    ARCHIVED = "archived"
    #: externalized on entry by the wire-payload guard; bytes in the payload store.
    #: Kept while the block is a member of a group (``Workspace.group_of``), so
    #: ``expand`` gives it back as a placeholder
    OFFLOADED = "offloaded_placeholder"
    #: explicitly deleted; bytes removed from the store
    DELETED = "deleted"


class GroupStatus(str, enum.Enum):
    """Where a group stands (a ``str``: checkpoints keep the same strings)."""

    #: its members are out of the stream behind the group's placeholder
    ARCHIVED = "archived"
    #: dissolved by ``expand``: its members are top-level again; only its
    #: transcript payload is left (deletable)
    EXPANDED = "expanded"
    #: explicitly deleted, members and all
    DELETED = "deleted"

    def __str__(self) -> str:  # messages read "group G1 is deleted" on any Python
        return self.value


#: the statuses whose block shows its own text (a set: read on every render)
IN_STREAM = frozenset((BlockStatus.VISIBLE, BlockStatus.PINNED))


@dataclass(frozen=True)
class Handle:
    """A payload address: ``path`` relative to the payload store root (POSIX form,
    ``"ab/ab12...ef"``, content-addressed by sha256), ``length`` in bytes and the hex
    ``sha256`` of those bytes. Stable until an explicit delete (invariant 2)."""

    path: str
    length: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        """The handle as a JSON object (``path``, ``length``, ``sha256``)."""
        return {"path": self.path, "length": self.length, "sha256": self.sha256}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "Handle":
        """Inverse of :meth:`to_json`."""
        return cls(str(obj["path"]), int(obj["length"]), str(obj["sha256"]))


@dataclass
class Block:
    """One registered message.

    ``data`` holds the exact bytes (UTF-8 of the message text, or the raw bytes of a
    non-UTF-8 tool output; for a ``tool_call`` block the whole assistant message,
    text plus every call's id, name and arguments, as canonical JSON, see
    :func:`sim.workspace.messages.encode_call_message`): what archive, offload,
    transcripts and recovery store and give back. ``content`` is its text view. ``tokens`` is the message's
    token count when rendered raw (content plus chat framing and tool-call arguments)
    in the workspace tokenizer; it is what the block costs while visible and what it
    would cost again if recovered. ``turn`` is the root turn it entered; age is the
    current turn minus ``turn`` (0r newest). ``parent`` is the tool-call block a
    result answers, or the group the block was archived into. ``level`` is 0 raw,
    1 archived, 2 archived inside a coarser group, and so on. ``handle`` is the
    block's own payload (set for every block once stored; exposed to the agent only
    once archived or offloaded). ``message`` keeps the OpenAI fields needed to render
    it (``role``, ``tool_calls``, ``tool_call_id``, ``name``).
    """

    id: str
    type: BlockType
    data: bytes
    tokens: int
    turn: int
    parent: str | None = None
    level: int = 0
    status: BlockStatus = BlockStatus.VISIBLE
    handle: Handle | None = None
    message: dict[str, Any] = field(default_factory=dict)
    #: the block or group this one was recovered from (``recover``), else None
    recovered_from: str | None = None
    #: the tool-call block a tool result answers (kept when ``parent`` becomes a group)
    call_block: str | None = None
    #: agent-written index text shown in place of an archived block
    replacement: str = ""
    #: why a block was deleted (``delete(..., reason)``)
    reason: str = ""

    @property
    def content(self) -> str:
        """The text view of ``data`` (invalid UTF-8 replaced by U+FFFD; the stored
        payload stays byte-exact)."""
        return self.data.decode("utf-8", errors="replace")

    @property
    def number(self) -> int:
        """The integer n of ``B<n>``."""
        return int(self.id[1:])

    @property
    def in_stream(self) -> bool:
        """True while the block's own text is in the visible stream."""
        return self.status in IN_STREAM


@dataclass
class Group:
    """Blocks (and coarser: groups) archived together, ``G<n>``.

    ``members`` are block or group ids in stream order. ``handle`` addresses a readable
    transcript of every member's text; ``level`` is 1 for a group of raw blocks and one
    more than its deepest member group otherwise. ``parent`` is the coarser group this
    one was archived into. ``status`` (:class:`GroupStatus`) is archived, deleted,
    or expanded once recovery walked back down through it.
    """

    id: str
    members: list[str]
    handle: Handle
    replacement: str
    turn: int
    level: int = 1
    parent: str | None = None
    status: GroupStatus = GroupStatus.ARCHIVED
    tokens: int = 0
    #: number of the earliest block inside (the group's place in the stream)
    first: int = 0

    @property
    def number(self) -> int:
        """The integer n of ``G<n>``."""
        return int(self.id[1:])
