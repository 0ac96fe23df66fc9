"""What a context program may see and do during one episode (ContextEvo Appendix B.1):
:class:`ProgramContext` wraps the episode's workspace, and builds the agent's
:class:`sim.agents.protocol.View` of the assembled request.

Programs call its methods, never the workspace directly, so every program acts
through the same archive, delete and recover operations (DESIGN.md "Context
programs"). The view carries only what the program's interface shows: the ledger
rows when a dashboard is rendered, payload handles when the program shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from sim.agents.profiles import Profile
from sim.agents.protocol import Entry, LedgerRow, View
from sim.cost import THINKING_TOKENS, EpisodeResult
from sim.tasks.tokens import count_tokens
from sim.tracked import TrackedDict, TrackedSet
from sim.workspace.blocks import IN_STREAM, BlockStatus, BlockType


#: enum member -> its value (``.value`` is a slow property in a per-row loop)
_VALUE = {e: e.value for e in (*BlockType, *BlockStatus)}
_DELETED = BlockStatus.DELETED
#: ledger rows by their fields, shared by the episodes of a process: a row is
#: immutable, and the programs of a sweep replay one task with one agent seed, so
#: most rows come back (making a frozen dataclass costs more than finding it)
_LEDGER_ROWS: dict[tuple, LedgerRow] = {}
_LEDGER_ROWS_KEPT = 1 << 17


@lru_cache(maxsize=1 << 14)
def _placeholder_tokens(replacement: str) -> int:
    """Tokens a program's and the agent's view charge an archived item: its
    replacement text's count and a fixed framing (id, handle, status). The request's
    exact total is the workspace's assembly. Memoised: a sweep's programs show the
    same few replacements (a summary, ``[Old observation omitted]``) many times."""
    return count_tokens(replacement) + 30


@dataclass
class Item:
    """A top-level stream item (a block, or a top-level archived group): ``id``,
    ``type``, ``status``, ``text`` (what the model reads), ``tokens`` (its cost)."""

    id: str
    type: str
    status: str
    text: str
    tokens: int
    turn: int




class ProgramContext:
    """What a context program may see and do (one episode). Built by
    :func:`run_episode`; programs call its methods, never the workspace directly."""

    def __init__(self, ws, program, agent, budget: int, rng: np.random.Generator,
                 result: EpisodeResult, memo: bool = False):
        self.ws, self.program, self.agent, self.budget = ws, program, agent, budget
        self.rng, self.result = rng, result
        self.hidden = set()      # ids whose handles are never shown (a TrackedSet)
        self.phase: dict[str, int] = {}
        self.calls = {}          # id -> call text shown (a TrackedDict)
        self.notice: str | None = None
        #: reuse the assembled request and the stream while the workspace state is
        #: unchanged (see :meth:`_state`); off: every call assembles afresh
        self.memo = memo
        self._request = None     # (state, Request, dashboard rows shown, remainder)
        self._items = None       # (state, every top-level item)
        self._item_cache: dict[str, tuple] = {}   # id -> (fields shown, Item)
        self._item_of: dict[str, Item] = {}       # id -> its current Item
        self._cursor = 0                          # how much of the touched-id log is seen
        #: id -> its view Entry (memo): rebuilt only for the ids in ``_entry_dirty``
        #: (touched by an operation) or whose hiding or call text changed
        self._entries: dict[str, Entry] = {}
        self._entry_dirty: set[str] = set()

    # ``hidden`` and ``calls`` record the ids they change (any writer: programs, the
    # harness), so the memoised view rebuilds exactly those entries
    hidden = property(lambda self: self._hidden,
                      lambda self, v: setattr(self, "_hidden", TrackedSet(v)),
                      doc="ids whose handles are never shown to the agent")
    calls = property(lambda self: self._calls,
                     lambda self, v: setattr(self, "_calls", TrackedDict(v)),
                     doc="block id -> the call text shown for it")

    # -- reading -------------------------------------------------------------------
    def _state(self) -> int:
        # Every change to a workspace is one committed journal operation, so the
        # count of committed operations names the state (a what-if measure applies
        # and undoes a registration without committing: the state is unchanged).
        return self.ws.journal_lines

    def used(self) -> int:
        """Tokens of the request that would be sent now."""
        return self._assemble().total

    def _assemble(self):
        if self.memo and self._request is not None and self._request[0] == self._state():
            return self._request[1]
        # soft assembly: the program, not the workspace, enforces the budget here,
        # so the workspace's over-budget warning is expected and not raised (a
        # warnings filter per request cost more than the rest of a memo hit)
        req = self.ws.assemble(strict=False, warn=False)
        if self.memo:
            # a bounded ledger's rows shown belong to this request: a later what-if
            # measure renders the dashboard again
            dash = self.ws.assembler.dashboard
            self._request = (self._state(), req, getattr(dash, "shown", None),
                             getattr(dash, "remainder", None))
        return req

    def _dashboard_rows(self) -> tuple:
        """(rows shown, remainder line) of the bounded ledger of the last request."""
        if self.memo:
            return self._request[2], self._request[3]
        dash = self.ws.assembler.dashboard
        return getattr(dash, "shown", None), getattr(dash, "remainder", None)

    def stream(self, types=None, statuses=("visible",), unpinned: bool = True) -> list[Item]:
        """Top-level items in stream order, filtered by block ``types`` and
        ``statuses`` (None: any live status; groups have type ``"group"``)."""
        if not self.memo:
            return self._stream(types, statuses, unpinned)
        state = self._state()
        if self._items is None or self._items[0] != state:
            self._items = (state, self._top_items())
        if types is None and statuses is None and not unpinned:
            return list(self._items[1])  # every item: nothing to filter
        return [it for it in self._items[1]
                if not (unpinned and it.status == "pinned")
                and (types is None or it.type in types)
                and (statuses is None or it.status in statuses)]

    def _top_items(self) -> list[Item]:
        """Every top-level item, as :meth:`_stream` lists them with no filter, from
        the workspace's top-level index (archived groups in place of their members,
        deleted blocks absent: :mod:`sim.workspace.toplevel`); an item is rebuilt
        only when a field it shows changed. On a workspace that logs the ids each
        operation touches (:class:`sim.workspace.incremental.DirtyVersions`) only
        those ids are looked at."""
        ws = self.ws
        since = getattr(ws.versions, "since", None)
        if since is None:
            items = [self._item(ident) for ident in ws.top]
            self._entry_dirty.update(it.id for it in items)
            return items
        touched, self._cursor = since(self._cursor)
        for ident in touched:
            if ident in ws.blocks or ident in ws.groups:
                self._item(ident)
        self._entry_dirty |= touched
        return list(map(self._item_of.__getitem__, ws.top))

    def _item(self, ident: str) -> Item:
        """Block or group ``ident`` as an :class:`Item` (the same object while the
        fields it shows are unchanged)."""
        ws, cache = self.ws, self._item_cache
        hit = cache.get(ident)
        if ident[0] == "G":
            g = ws.groups[ident]
            key = (g.replacement, g.turn)
            if hit is None or hit[0] != key:
                hit = cache[ident] = (key, Item(ident, "group", "archived", g.replacement,
                                                _placeholder_tokens(g.replacement), g.turn))
                self._item_of[ident] = hit[1]
        else:
            b = ws.blocks[ident]
            key = (b.status, b.tokens, b.replacement, b.turn)
            if hit is None or hit[0] != key:
                text, tokens = ((b.content, b.tokens) if b.status in IN_STREAM else
                                (b.replacement, _placeholder_tokens(b.replacement)))
                hit = cache[ident] = (key, Item(b.id, _VALUE[b.type], _VALUE[b.status],
                                                text, tokens, b.turn))
                self._item_of[ident] = hit[1]
        return hit[1]

    def _stream(self, types, statuses, unpinned: bool) -> list[Item]:
        ws, out, emitted = self.ws, [], set()
        for b in ws.blocks.values():
            if b.status.value == "deleted":
                continue
            if b.id in ws.group_of:
                gid = ws.top_group(b.id)
                if gid in emitted:
                    continue
                emitted.add(gid)
                g = ws.groups[gid]
                item = Item(gid, "group", "archived", g.replacement,
                            _placeholder_tokens(g.replacement), g.turn)
            else:
                st = b.status.value
                if st == "deleted" or (unpinned and st == "pinned"):
                    continue
                if b.in_stream:
                    item = Item(b.id, b.type.value, st, b.content, b.tokens, b.turn)
                else:
                    item = Item(b.id, b.type.value, st, b.replacement,
                                _placeholder_tokens(b.replacement), b.turn)
            if types is not None and item.type not in types:
                continue
            if statuses is not None and item.status not in statuses:
                continue
            out.append(item)
        return out

    def phase_of(self, ident: str) -> int | None:
        """Task phase in which block/group ``ident`` entered."""
        if ident[0] == "G":
            ident = self.ws.groups[ident].members[0]
            return self.phase_of(ident)
        return self.phase.get(ident)

    # -- acting --------------------------------------------------------------------
    def archive(self, ids: list[str], replacement: str | None, hidden: bool,
                each: bool = False) -> None:
        """Archive ``ids`` (one group, or ``each`` separately). ``replacement=None``
        indexes each by its call; ``hidden`` handles are never shown to the agent
        (the irreversible baselines). Skips a lone already-archived group."""
        batches = [[i] for i in ids] if each else [ids]
        for batch in batches:
            if len(batch) == 1 and batch[0][0] == "G":
                continue
            text = replacement if replacement is not None else "archived: " + "; ".join(
                self.calls.get(i, i) for i in batch)
            self.ws.archive(",".join(batch), text)
            self.result.program_edits += 1
            self.result.program_edited_blocks += len(batch)
            if hidden:
                self.hidden.update(batch)
                if len(batch) > 1:
                    self.hidden.add(self.ws.top_group(batch[0]))

    def delete(self, ids: list[str], reason: str) -> None:
        """Delete ``ids`` irreversibly."""
        if ids:
            self.ws.delete(",".join(ids), reason)
            self.result.deletes += 1

    def trim_oldest(self, limit: int) -> None:
        """Drop the oldest unpinned items until the request is at most ``limit``
        (tokens): how every program's request assembly holds the request to B, the
        only enforcer of a program that shows no handles (the budget rule,
        :mod:`sim.episode`)."""
        over = self.used() - limit
        while over > 0:
            items = self.stream(statuses=None)
            if not items:
                return
            drop, freed = [], 0
            for it in items:
                drop.append(it.id)
                freed += it.tokens
                if freed >= over:
                    break
            self.delete(drop, "trimmed: over budget")
            over = self.used() - limit

    def recover(self, target: str):
        """Re-admit archived bytes through :meth:`Workspace.recover` (VISTA §2.4): the
        exact payload of ``target`` (a block id, group id or payload path) comes back
        as a new visible block that costs its tokens in every later request.

        The check is strict whatever the workspace mode (VISTA's hard-budget flag,
        SM_STRICT_LONG_CONTEXT): a recovery that would not fit is refused, and the
        refusal is the next view's notice, so the agent must archive to make room
        and retry. Returns the new block, or None (refused, deleted, unknown).
        """
        from sim.workspace import BudgetExceededError, WorkspaceError

        ws = self.ws
        strict, ws.strict = ws.strict, True
        try:
            block = ws.recover(target)
        except BudgetExceededError as exc:
            self.notice = f"recovery refused: {exc}"
            return None
        except WorkspaceError as exc:
            self.notice = f"recovery failed: {exc}"
            return None
        finally:
            ws.strict = strict
        src = block.recovered_from
        if src[0] == "B" and ws.blocks[src].status.value == "offloaded_placeholder":
            self.result.offload_reads += 1
        else:
            self.result.recoveries += 1
        self.calls[block.id] = self.calls.get(src, f"recover({src})")
        self.phase[block.id] = self.phase.get(src, 0)
        return block

    def agent_notes(self, items: list[Item], round_: int) -> str:
        """Ask the agent to write a knowledge block over ``items`` (one request)."""
        entries = tuple(Entry(i.id, i.type, "visible", i.text, i.tokens) for i in items)
        view = View(entries, self.budget)
        write = getattr(self.agent, "write_notes", None)  # optional for a plugin agent
        text = write(view, round_) if write is not None else ""
        self.result.requests += 1
        self.result.input_tokens += sum(i.tokens for i in items)
        self.result.output_tokens += THINKING_TOKENS + count_tokens(text)
        return text

    def summary_fidelity(self) -> tuple[float, float]:
        """``(p_exact, p_approx)`` of a summary the model writes in this episode: the
        agent's :class:`~sim.agents.profiles.Profile` (``summary_p_exact``,
        ``summary_p_approx``; world rows ``agent.summary_*``), or the world table's
        defaults for an agent without a profile (an LLM or plugin agent, whose
        summaries the synthetic summarizer still stands in for). Probabilities,
        summing to at most 1 (issue 31: the summarizer is the model summarising)."""
        profile = getattr(self.agent, "profile", None)
        if not isinstance(profile, Profile):
            profile = Profile()
        return profile.summary_p_exact, profile.summary_p_approx

    def _ledger_row(self, b) -> LedgerRow:
        """The dashboard row of block ``b`` as the agent reads it."""
        return LedgerRow(b.id, b.tokens, self.ws.turn - b.turn, b.type.value, b.level,
                         b.parent or "-", b.status.value)

    def _memo_ledger(self, shown) -> tuple:
        """The view's ledger rows, as :meth:`view` lists them without the memo (live
        blocks in id order, only the ``shown`` ids of a bounded ledger; None: all),
        from the rows already made (:data:`_LEDGER_ROWS`). A bounded ledger lists a few rows (its token cap bounds them), so
        only those blocks are looked at, not every block of the session."""
        ws = self.ws
        turn = ws.turn
        if shown is None:
            blocks = [b for b in ws.blocks.values() if b.status is not _DELETED]
        else:
            # shown ids are top-level items of this very state: live blocks or groups
            # (a group is no block: it has no ledger row here)
            blocks = sorted((ws.blocks[i] for i in shown if i[0] == "B"),
                            key=lambda b: int(b.id[1:]))
        rows, made = [], _LEDGER_ROWS
        for b in blocks:
            key = (b.id, b.tokens, turn - b.turn, _VALUE[b.type], b.level, b.parent or "-",
                   _VALUE[b.status])
            row = made.get(key)
            if row is None:
                if len(made) >= _LEDGER_ROWS_KEPT:
                    made.clear()
                row = made[key] = LedgerRow(*key)
            rows.append(row)
        return tuple(rows)

    def _entry(self, it: Item) -> Entry:
        """Item ``it`` as the agent's view lists it."""
        ws = self.ws
        hide = it.id in self.hidden
        handle = None
        if it.status in ("archived", "offloaded_placeholder") and self.program.show_handles \
                and not hide:
            h = (ws.groups[it.id].handle if it.id[0] == "G" else ws.blocks[it.id].handle)
            handle = h.path
        # a result shows the call that produced it; a call block shows its own call
        # text (what the model reads in the assistant message)
        call = self.calls.get(it.id)
        src = call or ""
        if it.id[0] == "G" or it.status != "visible":
            src = it.text if not src else src
        return Entry(it.id, it.type, it.status, it.text, it.tokens, handle, src, it.turn)

    # -- the agent's view ------------------------------------------------------------
    def view(self) -> tuple[View, object]:
        """The assembled request as the agent sees it, and the workspace Request."""
        ws, prog = self.ws, self.program
        req = self._assemble()
        if self.memo:
            # an entry depends on its item (rebuilt when an operation touches the id),
            # its hiding and its call text: only ids where one of them changed are
            # made again (O(changes)); the stream walk brings the touched ids in
            self.stream(statuses=None, unpinned=False)
            dirty, self._entry_dirty = self._entry_dirty, set()
            dirty |= self._hidden.drain()
            dirty |= self._calls.drain()
            cache, item_of = self._entries, self._item_of
            for ident in dirty:
                it = item_of.get(ident)
                if it is not None:
                    cache[ident] = self._entry(it)
            entries = tuple(map(cache.__getitem__, ws.top))
        else:
            entries = [self._entry(it) for it in
                       self.stream(statuses=None, unpinned=False)]
        ledger = None
        # a bounded ledger shows only some rows: the view carries those rows and the
        # exact remainder line, never rows the model could not read
        shown, remainder = self._dashboard_rows()
        if prog.dashboard != "none":
            if self.memo:
                ledger = self._memo_ledger(shown if remainder is not None else None)
            else:
                ledger = tuple(self._ledger_row(b) for b in ws.live_blocks())
                if remainder is not None:
                    shown = set(shown)
                    ledger = tuple(r for r in ledger if r.id in shown)
        tools = frozenset(prog.agent_tools) | {"task"}
        v = View(tuple(entries), self.budget, req.dashboard_text or None, ledger,
                 req.total if ledger is not None else None, self.notice, tools, ws.turn,
                 remainder if ledger is not None else None)
        return v, req

