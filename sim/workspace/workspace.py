"""The block workspace: VISTA's context layer (§2.1-2.4; DESIGN.md "The block
workspace contract").

Every mutation is validated in full, turned into one JSON operation, made durable
(payload files first, then the journal line) and only then applied to memory by the
same ``_apply`` that :meth:`Workspace.open` uses to replay the journal. Hence an error
leaves nothing changed (invariant 5) and a crash at any point loses no byte (6).

Over 500 lines: this is the one class whose public methods are the workspace
contract (register, archive, delete, recover, expand, pin, assemble: each validates in
full, then commits one operation), and its wire-payload guard must see the
registration it decides; what stands alone is already its own module (settings:
``options``; rules: ``rules``; applying operations: ``ops``; durability: ``durability``
and ``reopen``; rendering: ``assembly``, ``views``; bounds: ``accounting``).
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path
from typing import Any, Iterable

from .blocks import Block, BlockStatus, BlockType, Group, GroupStatus, Handle
from .errors import (BlockIdError, BlockStateError, BudgetExceededError, BudgetWarning,
                     ConfigError, CorruptPayloadError, DeletedHandleError,
                     ImpossibleBudgetError, PinnedBlockError, ToolCallError,
                     UnknownBlockError, WorkspaceError)
from .ids import is_group_id, parse_spec
from .messages import ROLE_TYPE as _ROLE_TYPE, clean_tool_calls as _clean_tool_calls
from .messages import encode_call_message as _encode_call, message_text, wire_safe
from . import rules as _rules, views as _views
from .rules import check_budget
from .handles import owner_of, read_named
from .journal import Journal
from .durability import CHECKPOINT_EVERY, Durable  # noqa: F401  (re-exported)
from .lock import WriterLock
from .presence import workspace_marks
from .reopen import JOURNAL_VERSION
from .ops import unapply_register
from .state import WorkspaceState
from .store import PayloadStore
from .safefs import fsync_dir, make_dirs
from .tokenizer import Tokenizer, get_tokenizer
from .toplevel import top_group
from .accounting import LOCAL_SLACK, TotalBound
from .assembly import Assembler
from .options import WorkspaceOptions


class Workspace(Durable):
    """Typed blocks over a durable payload store, with archive/delete/recover tools, a
    dashboard and budget-checked request assembly.

    ``Workspace(directory, options)`` creates a workspace: ``directory`` is where the
    payload store (``payloads/``) and ``journal.jsonl`` live (None makes a temporary
    directory, removed on close); ``options`` a :class:`WorkspaceOptions` (budget,
    tokenizer, strict, dashboard, system prompt, tools, guard threshold, sync, ...).
    Keyword settings instead of ``options`` (``Workspace(d, budget=4000)``) are
    shorthand for ``Workspace(d, WorkspaceOptions(budget=4000))``.
    :meth:`open` reopens an existing workspace (its own path: :mod:`.reopen`).
    A writer holds the directory's lock (:mod:`sim.workspace.lock`) until
    :meth:`close` (or the end of a ``with`` block) or its process ends.
    Raises :class:`ConfigError` for a bad ``budget`` (not None or an int >= 1), a
    directory that cannot be made or both ``options`` and keyword settings,
    :class:`ImpossibleBudgetError` (a :class:`ConfigError`) for a budget below the
    fixed overhead (:func:`check_overhead`), :class:`WorkspaceError` for an unknown
    tokenizer or dashboard name or if ``directory`` already holds a workspace (any
    part of one, an empty journal included:
    :func:`~sim.workspace.presence.workspace_marks`), :class:`WorkspaceLockedError`
    if another process writes there; all checked before anything is created on disk.
    """

    #: the payload store and journal a workspace writes (a scratch workspace for
    #: throwaway episodes swaps in memory ones: :mod:`sim.workspace.memory`)
    store_class = PayloadStore
    journal_class = Journal

    def __init__(self, directory: str | Path | None = None,
                 options: WorkspaceOptions | None = None, **settings: Any):
        options = WorkspaceOptions.given(options, settings)
        # validate every argument before anything is created on disk
        self._configure(options)
        if directory is not None:
            marks = workspace_marks(directory)
            if marks:  # even a damaged one: a new journal would hide its bytes
                raise WorkspaceError(f"{str(directory)!r} already holds a workspace ("
                                     f"{', '.join(marks)}); use Workspace.open")
        check_overhead(self)
        self._place(directory, new=True)
        self._attach(None if options.read_only else self._acquire_lock())
        self._commit(dict(self.head))

    @classmethod
    def for_replay(cls, directory: str | Path, options: WorkspaceOptions,
                   lock: tuple[Any, Any] | None, reserved: int = 0) -> "Workspace":
        """The reopen path's empty workspace over the existing workspace ``directory``,
        before its checkpoint and journal are replayed into it (:mod:`.reopen`,
        :mod:`.repair`): nothing on disk is checked, locked or written here.
        ``lock``: the ``(WriterLock, token)`` the caller holds, or None for a reader
        (``options.read_only``). ``reserved``: the recorded id reservation
        (:mod:`sim.workspace.reserve`). Use :meth:`open` to reopen a workspace."""
        ws = cls.__new__(cls)
        ws._configure(options)
        ws._place(directory, new=False)
        ws._attach(lock)
        ws._reserved = reserved
        return ws

    def _configure(self, options: WorkspaceOptions) -> None:
        """Set up everything in memory from ``options`` (checked; nothing on disk)."""
        from .tools import context_tool_schemas

        check_budget(options.budget)
        self.options = options
        tok = options.tokenizer
        self.tokenizer = get_tokenizer(tok) if isinstance(tok, str) else tok
        self.budget = options.budget
        self.assembler = self._make_assembler(options.dashboard)
        self.read_only = options.read_only
        self.strict = options.strict
        self.guard_threshold = options.guard_threshold
        self._given_prompt = options.system_prompt
        self.system_prompt = self.system_prompt_at(options.budget)
        self.tools = list(options.tools or []) + (
            context_tool_schemas() if options.context_tools else [])
        #: what the journal operations change (:mod:`sim.workspace.ops`)
        self.state = WorkspaceState()
        #: id -> why, for blocks and groups whose payload failed at open
        self.corrupt: dict[str, str] = {}

    def _make_assembler(self, dashboard: str):
        """The request assembler with dashboard ``dashboard`` (a scratch workspace
        makes its incremental one here, so that no dashboard is made twice)."""
        return Assembler(self, dashboard)

    def _place(self, directory: str | Path | None, new: bool) -> None:
        """Make (or, for a reopen, find) the directory; a new one's name is made
        durable. ``directory=None``: a temporary directory, removed on close."""
        sync, read_only = self.options.sync, self.options.read_only
        #: a directory this object made (``directory=None``): removed on close
        self._temporary: Path | None = None
        try:
            if directory is None:
                self.directory = self._temporary = Path(
                    tempfile.mkdtemp(prefix="ctxsim-ws-"))
            else:
                self.directory = Path(directory)
                make_dirs(self.directory, sync and not read_only)
                if sync and new:  # a new workspace: its name made durable
                    fsync_dir(self.directory.absolute().parent)
        except OSError as exc:
            raise ConfigError(f"cannot use {str(directory)!r} as a workspace directory: "
                              f"{exc.strerror or exc}") from None

    def _acquire_lock(self) -> tuple[Any, Any]:
        """The writer lock of a new workspace's directory (a scratch one has none)."""
        return WriterLock.acquire(self.directory)

    def _attach(self, lock: tuple[Any, Any] | None) -> None:
        """Open the payload store and journal under ``lock`` (None: a reader)."""
        sync, read_only = self.options.sync, self.options.read_only
        self._lock, self._lock_token = lock or (None, None)
        self.store = self.store_class(self.directory / "payloads", sync=sync,
                                      guard=self._check_writer, read_only=read_only)
        self.journal = self.journal_class(self.directory / "journal.jsonl", sync=sync,
                                          read_only=read_only)
        self.bound = TotalBound(self)                 # upper bound on the request
        self.quarantine = None      # a writer's open: files it moved (``.moved``)
        self.open_notes: list[str] = []
        self.head: dict[str, Any] = {"op": "init", "version": JOURNAL_VERSION,
                                     "tokenizer": self.tokenizer.name,
                                     "budget": self.budget}
        self.journal_lines = 0
        #: journal lines the checkpoint file covers (written by a checkpoint, an open)
        self.checkpointed_lines = 0
        #: no block id at or above this was issued (:mod:`sim.workspace.reserve`)
        self._reserved = 0
        self.torn = None
        self.checkpoint_error = ""
        #: why an open did not use the checkpoint file there (a writer quarantines it)
        self.checkpoint_rejected = ""

    def system_prompt_at(self, budget: int | None) -> str:
        """The system prompt this workspace has under ``budget``: the one it was
        given, else the default, which states the budget
        (:func:`~sim.workspace.assembly.default_system_prompt`)."""
        from .assembly import default_system_prompt

        if self._given_prompt is not None:
            return self._given_prompt
        return default_system_prompt(budget)

    # the state record's fields under the names the rest of the package reads
    # (``ws.state`` is the record itself; ``ops`` writes only through it)
    blocks = property(lambda self: self.state.blocks,
                      doc="id -> :class:`Block`, in registration order")
    groups = property(lambda self: self.state.groups,
                      doc="id -> :class:`Group`, in archive order")
    group_of = property(lambda self: self.state.group_of,
                        doc="direct group of an archived block or group id")
    results = property(lambda self: self.state.results,
                       doc="tool-call block -> {call id: result block}")
    top = property(lambda self: self.state.top,
                   doc="the top-level items in stream order (what a request renders)")

    @property
    def versions(self) -> dict[str, int]:
        """id -> rendering version (bumped whenever an item's rendering may change)."""
        return self.state.versions

    @versions.setter
    def versions(self, value: dict[str, int]) -> None:  # a logging dict (memory.py)
        self.state.versions = value

    @property
    def turn(self) -> int:
        """The current root turn (0 before the first assistant message)."""
        return self.state.turn

    @turn.setter
    def turn(self, value: int) -> None:
        self.state.turn = value

    # ------------------------------------------------------------------ reopen
    @classmethod
    def open(cls, directory: str | Path, *, tokenizer: Tokenizer | str | None = None,
             read_only: bool = False, **kwargs: Any) -> "Workspace":
        """Reopen a workspace from its journal (after a clean exit or a crash).

        Restores every block, status, group and handle from the checkpoint and the
        journal's tail (:mod:`sim.workspace.reopen`). Never deletes a byte: a writer
        moves a torn last journal line, temp files and payloads nothing references to
        ``quarantine/`` (``self.quarantine.moved``); a damaged or missing payload
        marks its block or group corrupt (``self.corrupt``; reading it raises
        :class:`CorruptPayloadError` naming it). ``read_only``: take no lock, write
        and move nothing, ignore a torn last line (a reader beside a live writer).
        ``kwargs`` are :class:`WorkspaceOptions` fields (budget defaults to the
        journaled one; the reopen path builds its workspace with :meth:`for_replay`).
        Raises :class:`JournalError` naming the line and byte offset of a bad line
        (a journal missing, empty or only a torn line beside the other parts of a
        workspace is one: run ``ctxsim workspace repair``), :class:`WorkspaceError`
        if ``directory`` holds no workspace, :class:`WorkspaceLockedError` if
        another process is writing (unless ``read_only``).
        """
        from .reopen import reopen

        return reopen(cls, directory, tokenizer, kwargs, read_only)

    # ------------------------------------------------------------------ queries
    def block(self, block_id: str) -> Block:
        """The block ``block_id``; :class:`UnknownBlockError` if there is none."""
        try:
            return self.blocks[block_id]
        except (KeyError, TypeError):
            raise UnknownBlockError(f"unknown block {block_id!r}", str(block_id)) from None

    def group(self, group_id: str) -> Group:
        """The group ``group_id``; :class:`UnknownBlockError` if there is none."""
        try:
            return self.groups[group_id]
        except (KeyError, TypeError):
            raise UnknownBlockError(f"unknown group {group_id!r}", str(group_id)) from None

    def top_group(self, ident: str, memo: dict[str, str] | None = None) -> str | None:
        """The outermost archived group containing block/group ``ident`` (or None).
        ``memo`` (group -> top) makes repeated calls over one state linear."""
        return top_group(self, ident, memo)

    def payload_path(self, handle: Handle) -> Path:
        """The absolute path a handle names, for Python callers: its file if the
        payload is 4 KiB or more; a packed payload has no file of its own (read
        either with :meth:`read_payload`, which accepts this path)."""
        return self.store.root.absolute() / handle.path

    def display_path(self, handle: Handle) -> str:
        """The payload path the agent sees (placeholders, the archive tool's answer):
        relative to the workspace directory, e.g. ``payloads/ab/ab12...``.

        Relative, so that a request's text and token count do not depend on where
        the workspace lives (a temp dir differs per run); :meth:`read_payload` /
        :meth:`recover` accept it (and a file tool rooted at the workspace reads it
        when the payload is 4 KiB or more; smaller ones are packed).
        """
        return f"{self.store.root.name}/{handle.path}"

    def resolve(self, spec: str) -> list[str]:
        """Ids named by a spec, deduplicated, in stream order (blocks by number, a
        group at its first block). Raises :class:`BlockIdError` (malformed) or
        :class:`UnknownBlockError` (well formed, names nothing here)."""
        out: dict[str, None] = {}
        last = self.state.next_block - 1
        for item in parse_spec(spec):
            if item.kind == "group":
                gid = f"G{item.group}"
                self.group(gid)
                out[gid] = None
                continue
            if item.end > last:
                first = max(item.start, last + 1)
                raise UnknownBlockError(f"unknown block B{first} in {item.text!r} "
                                        f"(last block is B{last})", f"B{first}")
            blocks = self.blocks
            for n in range(item.start, item.end + 1):
                bid = f"B{n}"
                if bid in blocks:
                    out[bid] = None
                elif item.start == item.end:  # a gap repair left (reserved ids)
                    raise UnknownBlockError(f"unknown block {bid}", bid)
        return sorted(out, key=self._position)

    def _position(self, ident: str) -> tuple[int, int]:
        if ident[0] == "B":
            return (int(ident[1:]), 0)
        return (self.groups[ident].first, 1)

    # ------------------------------------------------------------------ register
    def register(self, message: dict[str, Any], *, pinned: bool = False,
                 block_type: BlockType | str | None = None, new_turn: bool | None = None,
                 observation: bool | None = None) -> Block:
        """Admit one OpenAI chat message as a new block ``B<n>`` and return it.

        Roles map to types (system, user_message, assistant_message, tool_call when
        ``tool_calls`` is present, tool_result); ``block_type`` overrides (summary,
        note). Content may be bytes (stored byte-exact, e.g. non-UTF-8 tool output).
        A tool-call message is stored whole (``data`` is its canonical JSON: text and
        every call's id, name and arguments), so archiving it loses nothing.
        An assistant message starts a new root turn unless ``new_turn=False``. Tool
        results pass preflight: if they exceed ``guard_threshold`` or the resulting
        request would exceed the budget, the wire-payload guard offloads them to a
        payload and a placeholder (never truncated), unless offloading would not
        make the request smaller (or, decided without an assembly, would save at
        most ``accounting.LOCAL_SLACK`` tokens). ``observation``: pass the guard (default:
        only tool results; importers set it for observations a format records as
        user messages). Raises :class:`ToolCallError` for a malformed message,
        including anything that would make the assembled request invalid
        (:mod:`sim.workspace.validate`): a tool call whose id or function name is
        not a non-empty string, a call id already used in this workspace or this
        message (compared as sent, :meth:`call_id_owner`), ``tool_calls`` on a
        message that is not an assistant's; :class:`UnknownBlockError` for a result
        whose ``tool_call_id`` answers no registered call. Nothing is stored or
        journaled then.
        """
        if not isinstance(message, dict):
            raise ToolCallError(f"a message must be a dict, got {message!r:.80}")
        role = message.get("role")
        if role not in _ROLE_TYPE:
            raise ToolCallError(f"unknown message role {role!r}")
        text = message_text(message.get("content"))
        data = text if isinstance(text, bytes) else self._encode(text)
        btype = BlockType(block_type) if block_type is not None else _ROLE_TYPE[role]
        meta: dict[str, Any] = {"role": role}
        if message.get("name"):
            meta["name"] = str(message["name"])
        call_block = None
        if role != "assistant" and message.get("tool_calls") not in (None, []):
            # only an assistant message carries calls; storing the content alone
            # would drop them without a word
            raise ToolCallError(f"a {role} message cannot carry tool_calls (got "
                                f"{message['tool_calls']!r:.60}); expected them on an "
                                "assistant message")
        if role == "assistant" and message.get("tool_calls"):
            meta["tool_calls"] = _clean_tool_calls(message["tool_calls"])
            here: set[str] = set()
            for cid in (c["id"] for c in meta["tool_calls"]):
                owner = self.call_id_owner(cid) or (
                    "this message" if wire_safe(cid) in here else None)
                if owner:
                    raise ToolCallError(f"tool call id {cid!r} is already used by "
                                        f"{owner}; expected an id unique in the "
                                        "workspace")
                here.add(wire_safe(cid))
            if block_type is None:
                btype = BlockType.TOOL_CALL
            elif btype is not BlockType.TOOL_CALL:
                raise ToolCallError(f"a {btype.value} block cannot carry tool_calls")
            # the block's bytes are the whole message: text, ids, names, arguments
            data = _encode_call(text, meta["tool_calls"], meta.get("name"))
        if role == "tool":
            cid = message.get("tool_call_id")
            if not isinstance(cid, str) or cid not in self.state.call_owner:
                raise UnknownBlockError(f"tool result answers unknown tool_call_id "
                                        f"{cid!r}", str(cid))
            meta["tool_call_id"] = cid
            call_block = self.state.call_owner[cid]
            if cid in self.results.get(call_block, {}):
                raise ToolCallError(f"tool_call_id {cid!r} is already answered by "
                                    f"{self.results[call_block][cid]}")
        if pinned and role == "tool":
            raise PinnedBlockError("tool results cannot be pinned")
        turn = self.turn
        if role == "assistant" and new_turn is not False or new_turn:
            turn += 1
        status = BlockStatus.PINNED if pinned else BlockStatus.VISIBLE
        return self._admit(btype, data, meta, turn, status, call_block=call_block,
                           observation=role == "tool" if observation is None
                           else bool(observation) and not pinned)

    @staticmethod
    def _encode(text: str) -> bytes:
        """A message's text as the block's bytes (a scratch workspace reuses the
        bytes of a text it has seen: :class:`~sim.workspace.memory.ScratchWorkspace`)."""
        return text.encode("utf-8", "surrogatepass")

    def call_id_owner(self, call_id: str) -> str | None:
        """The block whose tool call has id ``call_id`` as a request shows it, or None.
        Ids are compared in their wire form (:func:`~sim.workspace.messages.wire_safe`),
        so ``"c\\ud800"`` (a lone surrogate) and ``"c\\\\ud800"`` (its escape, typed
        out) are one id: a request could not tell their results apart."""
        owner = self.state.call_owner.get(call_id)
        key = wire_safe(call_id)
        if owner is None and ("\\" in call_id or key is not call_id):
            # only an id holding a backslash or a lone surrogate can equal another
            # one's wire form: every other id is found by the lookup above
            owner = next((o for c, o in self.state.call_owner.items()
                          if wire_safe(c) == key), None)
        return owner

    def _admit(self, btype: BlockType, data: bytes, meta: dict, turn: int,
               status: BlockStatus, *, call_block: str | None = None,
               recovered_from: str | None = None, observation: bool = False,
               check_budget: bool = False) -> Block:
        bid = f"B{self.state.next_block}"
        handle = self.store.handle_for(data)
        tokens = self.assembler.native_tokens(btype, data, meta, recovered_from, bid)
        op = {"op": "register", "id": bid, "type": btype.value, "turn": turn,
              "tokens": tokens, "status": status.value, "message": meta,
              "handle": handle.to_json(), "call_block": call_block,
              "recovered_from": recovered_from}
        if observation:
            op = self._guard(op, data)
        elif check_budget:
            over = self._what_if(op, data)
            if over > 0 and self.strict:
                raise BudgetExceededError(
                    f"recovering {recovered_from} ({tokens} tokens) would put the "
                    f"request {over} tokens over the budget {self.budget}",
                    self.budget + over, self.budget)
        self.store.put(data)
        self._commit(op, data=data)
        return self.blocks[bid]

    def _guard(self, op: dict, data: bytes) -> dict:
        """The wire-payload guard: ``op`` or its offloaded twin, whichever the exact
        count says (offload when the request would be over budget or the result over
        ``guard_threshold``, unless the placeholder costs more than the result).
        Decided without an assembly where bounds settle it (:mod:`.accounting`):
        the request is surely over (its lower bound) or the threshold crossed, and
        the result's own message and ledger row are all that differs but the
        header: offload if that saves more than ``LOCAL_SLACK`` tokens (the request
        then surely shrinks), else keep it inline. Otherwise both requests are
        assembled and the smaller one is kept."""
        threshold = self.guard_threshold is not None and op["tokens"] > self.guard_threshold
        inline = None
        if not threshold:
            if self.budget is None:
                return op
            floor = self.bound.floor_after(op)
            if floor is None or floor <= self.budget:
                over = self._what_if(op, data)
                if over <= 0:
                    return op  # fits (bound or exact measure)
                inline = self.budget + over  # the exact measure (bounds only say fits)
        offloaded = dict(op, status=BlockStatus.OFFLOADED.value)
        # the local saving decides only where the bounds settled it (surely over, or
        # the threshold); near the budget the inline total is exact, and a placeholder
        # saving a few tokens may be what brings the request back under the budget
        saving = self.bound.saving(op, self) if inline is None else None
        if saving is not None:
            return offloaded if saving > LOCAL_SLACK else op
        if inline is None:
            inline = self._measure_with(op, data)
        off = self._measure_with(offloaded, data)
        # offloading must never make the request larger (a tiny result costs less
        # inline than its placeholder)
        chosen, total = (offloaded, off) if off < inline else (op, inline)
        self.bound.tried(chosen, total)
        return chosen

    def _what_if(self, op: dict, data: bytes) -> int:
        """Tokens over budget if ``op`` were applied (0 or less: fits)."""
        if self.budget is None:
            return 0
        bound = self.bound.after(op)
        if bound is not None and bound <= self.budget:
            return bound - self.budget  # fits for sure: no assembly (accounting.py)
        total = self._measure_with(op, data)
        self.bound.tried(op, total)
        return total - self.budget

    def _measure_with(self, op: dict, data: bytes) -> int:
        """Tokens of the request if register ``op`` were applied (then undone)."""
        saved = (self.state.next_block, self.turn)
        self._apply(op, data=data)
        try:
            return self.assembler.measure()
        finally:
            unapply_register(self, op["id"], saved)

    def next_turn(self) -> int:
        """Start a new root turn explicitly (ages grow by one); returns it."""
        self._commit({"op": "turn", "turn": self.turn + 1})
        return self.turn

    # ------------------------------------------------------------------ reopen, repair
    def replay(self, entry: dict[str, Any]) -> None:
        """Apply journal line ``entry`` as a reopen replays it: into memory only
        (it is journaled already). The caller checks it first
        (:func:`~sim.workspace.journal.check_entry`), as :mod:`.reopen` does."""
        self._apply(entry, replay=True)

    def reattach(self, data: bytes) -> Block:
        """Register payload bytes no journal line references (repair's orphans:
        their line was lost) as a new offloaded note at the current turn; returns
        its block."""
        return self._admit(BlockType.NOTE, data, {"role": "user"}, self.turn,
                           BlockStatus.OFFLOADED)

    def skip_ids(self, bound: int) -> None:
        """Journal that the next block id is ``bound`` (repair: ids below it may have
        been issued by lost journal lines, so they are never reused)."""
        self._commit({"op": "ids", "next": bound})

    # ------------------------------------------------------------------ context tools
    def archive(self, spec: str, replacement: str = "") -> Handle:
        """Archive the blocks/groups named by ``spec`` (VISTA's archive tool).

        One block: it is replaced in the stream by a placeholder with ``replacement``
        and its handle (level 1). Several items (visible blocks, top-level offloaded
        placeholders, top-level groups): a new group ``G<n>`` is made; its handle
        addresses a readable transcript of every member's bytes; member groups move
        one level down (hierarchical archive, §2.4 "Hierarchical recovery"). An
        offloaded member keeps its status and own handle (its bytes are already
        externalized), so :meth:`expand` gives it back as a placeholder.
        Returns the handle; ``payload_path(handle)`` is the file to read. Raises
        :class:`BlockIdError`, :class:`UnknownBlockError`, :class:`PinnedBlockError`,
        :class:`BlockStateError` (deleted, already archived, a lone offloaded block,
        inside a group, a lone group) or :class:`ToolCallError` (replacement not a
        string); then nothing has changed.
        """
        if not isinstance(replacement, str):
            raise ToolCallError(f"replacement must be a string, got {replacement!r:.60}")
        items = self.resolve(spec)
        _rules.check_archive(self, items)
        if len(items) == 1:
            b = self.blocks[items[0]]
            self._commit({"op": "archive", "items": items, "group": None,
                          "replacement": replacement, "handle": b.handle.to_json()})
            return b.handle
        data = self.transcript(items)
        handle = self.store.put(data)
        gid = f"G{self.state.next_group}"
        self._commit({"op": "archive", "items": items, "group": gid,
                      "replacement": replacement, "handle": handle.to_json()})
        return handle

    def delete(self, spec: str, reason: str = "") -> list[str]:
        """Permanently delete the blocks/groups named by ``spec`` (VISTA's delete
        tool); a group takes all its members with it. Payload files no live block
        references are removed. Returns the deleted block ids. Raises
        :class:`PinnedBlockError`, :class:`BlockStateError` (already deleted, a block
        inside an archived group, a group inside another or already expanded), id
        errors, or :class:`ToolCallError` (reason not a string); nothing changed then.
        """
        if not isinstance(reason, str):
            raise ToolCallError(f"reason must be a string, got {reason!r:.60}")
        blocks, groups = _rules.delete_targets(self, self.resolve(spec))
        self._commit({"op": "delete", "blocks": blocks, "groups": groups,
                      "reason": reason})
        return blocks

    def recover(self, target: Handle | str) -> Block:
        """Re-admit archived/offloaded bytes as a new visible block linked to the
        original (``recovered_from``), byte-exact (sha256 checked).

        ``target``: a :class:`Handle`, a block id, a group id (its transcript comes back
        as a note) or a payload path. In strict mode a recovery that would break the
        budget raises :class:`BudgetExceededError`. If an earlier recovery of the same
        source is still visible, that block is returned and nothing changes (no new
        block, the request does not grow). Raises :class:`DeletedHandleError`,
        :class:`ConfinementError`, :class:`CorruptPayloadError`, :class:`HandleError`,
        :class:`BlockStateError` (the block is visible), id errors; nothing changed then.
        """
        source = owner_of(self, target)
        for b in _views.recovered_from(self, source):
            # a repeated recovery while the earlier copy is still visible returns that
            # copy: another one would make every later request pay twice
            if b.recovered_from == source and b.status in (BlockStatus.VISIBLE,
                                                           BlockStatus.PINNED) \
                    and b.id not in self.group_of:
                return b
        if source in self.corrupt:
            raise CorruptPayloadError(f"cannot recover {source}: {self.corrupt[source]}")
        if source[0] == "G":
            g = self.groups[source]
            if g.status is GroupStatus.DELETED:
                raise DeletedHandleError(f"group {source} was deleted")
            data = self.store.read(g.handle)
            return self._admit(BlockType.NOTE, data, {"role": "user"}, self.turn,
                               BlockStatus.VISIBLE, recovered_from=source,
                               check_budget=True)
        b = self.blocks[source]
        if b.status is BlockStatus.DELETED:
            raise DeletedHandleError(f"block {source} was deleted ({b.reason or 'no reason'})")
        if b.in_stream:
            raise BlockStateError(f"block {source} is {b.status.value}; nothing to recover")
        data = self.store.read(b.handle)
        return self._admit(b.type, data, {"role": "user"}, self.turn, BlockStatus.VISIBLE,
                           recovered_from=source, check_budget=True)

    def expand(self, group_id: str) -> list[str]:
        """Walk recovery one level down: dissolve top-level group ``group_id`` so its
        members are top-level again under their own handles: groups up a level, blocks
        archived, offloaded ones placeholders (not visible: walking down must not pour
        a payload the guard kept out back into the request). Returns the members.
        Raises id errors or :class:`BlockStateError` (not a top-level archived group)."""
        if not is_group_id(group_id):
            raise BlockIdError(f"expected a group id, got {group_id!r}", str(group_id))
        g = self.group(group_id)
        if g.status is not GroupStatus.ARCHIVED or g.parent:
            raise BlockStateError(f"cannot expand {group_id}: it is "
                                  f"{g.status if not g.parent else 'inside ' + g.parent}")
        self._commit({"op": "expand", "group": group_id})
        return list(g.members)

    def pin(self, spec: str) -> list[str]:
        """Pin visible blocks (never archived or deleted afterwards). Raises
        :class:`BlockStateError` for a block that is not visible (archived, deleted)
        and id errors; pinning a pinned block is a no-op. Returns the ids pinned."""
        ids = self.resolve(spec)
        for ident in ids:
            if ident[0] == "G":
                raise BlockStateError(f"cannot pin group {ident}; recover it first")
            b = self.blocks[ident]
            if not b.in_stream:
                raise BlockStateError(f"cannot pin {ident}: it is {b.status.value}")
        self._commit({"op": "pin", "ids": ids})
        return ids

    def unpin(self, spec: str) -> list[str]:
        """Make pinned blocks ordinary visible blocks again. Raises
        :class:`BlockStateError` for a block that is not pinned. Returns the ids."""
        ids = self.resolve(spec)
        for ident in ids:
            if ident[0] == "G" or self.blocks[ident].status is not BlockStatus.PINNED:
                raise BlockStateError(f"cannot unpin {ident}: it is not pinned")
        self._commit({"op": "unpin", "ids": ids})
        return ids

    def read_payload(self, path: str | Handle) -> bytes:
        """Recovery as an ordinary read: the bytes at a payload path (absolute inside
        the store, or relative) verified against their content address. Raises
        :class:`ConfinementError`, :class:`HandleError`, :class:`CorruptPayloadError`."""
        return read_named(self, path)

    # ------------------------------------------------------------------ views
    def transcript(self, items: Iterable[str]) -> bytes:
        """The exact bytes of blocks/groups as one readable transcript: each member
        headed by ``=== B<n> <type> (turn t) ===`` (groups expanded in place)."""
        return _views.transcript(self, items)

    def snapshot(self) -> dict[str, Any]:
        """A full, comparable picture of the state: every block and group field,
        counters, turn, journal length and stored payload files (for "nothing
        changed" checks)."""
        return _views.snapshot(self)

    def live_blocks(self) -> list[Block]:
        """Blocks not deleted, in id order."""
        return [b for b in self.blocks.values() if b.status is not BlockStatus.DELETED]

    def assemble(self, *, strict: bool | None = None, incremental: bool = True,
                 warn: bool = True):
        """The next model request (overhead + visible blocks + placeholders + dashboard)
        as a :class:`~sim.workspace.assembly.Request`. Strict mode (default: the
        workspace's) raises :class:`BudgetExceededError` naming the overshoot; soft
        mode returns it and warns with :class:`BudgetWarning` (``warn=False``: a
        caller that enforces the budget itself, silently). ``incremental=False``
        re-renders and re-counts everything (the benchmark's baseline)."""
        req = self.assembler.assemble(incremental=incremental)
        self.bound.exact(req.total, req.dashboard)
        strict = self.strict if strict is None else strict
        if self.budget is not None and req.total > self.budget:
            msg = (f"request is {req.total - self.budget} tokens over the budget "
                   f"{self.budget} ({req.total} tokens: overhead {req.overhead}, "
                   f"conversation {req.conversation}, dashboard {req.dashboard})")
            if strict:
                raise BudgetExceededError(msg, req.total, self.budget)
            if warn:
                warnings.warn(msg, BudgetWarning, stacklevel=2)
        return req

    def dashboard_text(self) -> str:
        """The dashboard as the agent sees it now (empty for the "none" variant)."""
        return self.assembler.assemble().dashboard_text

def fixed_overhead(ws: Workspace) -> int:
    """Tokens every request of ``ws`` costs before any block: system prompt, tool
    schemas, reply priming and the dashboard of an empty workspace (its budget bar).
    Only meaningful on a workspace with no blocks yet (measured by assembling it)."""
    req = ws.assembler.assemble(incremental=False)
    return req.overhead + req.dashboard


def check_overhead(ws: Workspace, what: str = "budget", *,
                   budget: int | None = None) -> None:
    """Raise :class:`ImpossibleBudgetError` if ``budget`` (default: ``ws``'s own)
    cannot hold what no context program can take out of a request of ``ws``
    (:meth:`~sim.workspace.assembly.Assembler.floor`): the fixed overhead (system
    prompt, tool schemas and the dashboard) and, once there are any, the pinned
    blocks; no request could ever fit, and archiving cannot help. Refused are
    exactly the budgets below the least one that holds it (a budget above it whose
    floor does not fit, where one more digit costs more than it adds, is left to
    be over budget). The message states that least budget
    (:meth:`~sim.workspace.assembly.Assembler.least_budget`, also the error's
    ``least``) and what it counts. ``what`` names the budget in the message (e.g.
    an option)."""
    budget = ws.budget if budget is None else budget
    if budget is None or ws.assembler.floor(budget).total <= budget:
        return  # it fits, so the least budget that fits is no larger
    least = ws.assembler.least_budget()
    if budget >= least:
        # the floor is not monotone in the budget (one more digit may cost more
        # than it adds): refused as impossible are exactly the budgets below the
        # least one, so the stated minimum never moves; this one is over at worst
        return
    f = ws.assembler.floor(least)
    # counted at the least budget, not at the one refused: the system prompt and
    # the dashboard state the budget, so their tokens change with its digits
    if f.pinned:
        counts = (f"what no context program can archive, at that budget: the fixed "
                  f"overhead (system prompt and tool schemas) {f.overhead:,}, the "
                  f"pinned blocks {f.pinned:,} and a dashboard listing only them "
                  f"{f.dashboard:,}")
    else:
        counts = (f"the fixed overhead at that budget: system prompt and tool schemas "
                  f"{f.overhead:,}, the empty dashboard {f.dashboard:,}")
    raise ImpossibleBudgetError(f"{what} {budget:,} tokens is impossible: expected at "
                                f"least {least:,}, {counts}", least)
