"""LLM-free synthetic agents (DESIGN.md "Agents"; VISTA §2.6, Theorem 1, Prop. 2).

A :class:`SyntheticAgent` plays its task's script and makes context decisions from
what its observation channel shows:

* ``ledger``: the dashboard's exact per-block sizes and the used/budget bar. It
  archives the largest blocks, in one batch, until the request is back at its target
  (the full-ledger endpoint, I = log2 n).
* ``content``: no dashboard; each block's size is perceived as
  ``exp(ln s + sigma * eps)`` with ``eps ~ N(0, 1)`` fixed per block (Proposition 2),
  and the total as the sum of perceptions. Not knowing how much it freed, it archives
  one block at a time in decreasing perceived size (the sequential process of
  Theorem 1), so it over-archives and hits load-bearing blocks.
* ``blind``: nothing but the harness's over-budget notice; archives uniformly random
  blocks one at a time while the notice stands (I = 0).

Evidence is remembered only through the view: a needed value is read from visible
text (an evidence result, a restated note, a summary, a call) or recovered. Recovery
re-admits an archived block's exact bytes as a new visible block through the
workspace (``Workspace.recover``): it costs tokens, it is refused when it would not
fit, and the agent then archives other blocks to make room and retries, never
archiving what the current step needs (its working set). The agent finds what to
recover from the index texts it wrote when archiving (block ids, calls, and the
evidence keys it read there) or, for a program's placeholders, from the call.
Every random decision is a common random number keyed by ``(seed, purpose, item)``,
so two programs run on the same task face the same agent luck and differ only by
what their views expose.
"""

from __future__ import annotations

import re
import zlib

import numpy as np

from sim.agents.profiles import Profile, get_profile
from sim.agents.protocol import (ANSWER, ARCHIVE, DELETE, RECOVER, TASK, Action, Entry,
                                 View)

CHANNELS = ("auto", "ledger", "content", "blind")
_ARCHIVED = ("archived", "offloaded_placeholder")
#: tokens a placeholder keeps in the stream (the agent's estimate of an archive's cost)
_PLACEHOLDER_COST = 40
#: tokens the agent adds to a block's size when making room to recover it (the
#: "[recovered ...]" prefix and its dashboard row)
_RECOVER_MARGIN = 60
#: an index entry the agent wrote: "B12 search(...) has key, key"
_INDEX = re.compile(r"\b(B\d+) ([^;\n]*)")


def _crc(s: str) -> int:
    return zlib.crc32(s.encode())


def find_value(entries, fact) -> str | None:
    """The value of ``fact`` (a :class:`sim.tasks.base.Fact`) as the first entry of
    ``entries`` showing it gives it (its text, or the call it shows), or None."""
    for e in entries:
        v = fact.extract(e.text)
        if v is None and e.source_call:
            v = fact.extract(e.source_call)
        if v is not None:
            return v
    return None


def _short(call: str) -> str:
    """A call as an index names it: at most 160 characters, no ";" (the separator)."""
    return call[:160].replace(";", ",")


def _mentions(label: str, key: str) -> bool:
    """Whether an index label names evidence ``key`` (not a longer key it prefixes)."""
    return re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", label) is not None


def _overflow(view: View) -> bool:
    """Whether the harness reports an over-budget event (not a recovery outcome)."""
    return bool(view.notice) and not view.notice.startswith("recovery")


def call_text(tool: str, args: str) -> str:
    """How a task call is written in the stream and in archive indexes."""
    return f"{tool}({args})"


class SyntheticAgent:
    """A scripted agent with a context rule driven by its observation channel.

    Args:
        profile: a :class:`Profile` or a profile name.
        channel: ``"auto"`` (ledger when the view has one, else content), or force
            ``"ledger"``, ``"content"`` or ``"blind"``; a forced ledger falls back to
            content when the view shows no ledger.

    Raises:
        ValueError: for an unknown channel.
    """

    def __init__(self, profile: Profile | str = "medium", channel: str = "auto"):
        if channel not in CHANNELS:
            raise ValueError(f"channel must be one of {CHANNELS}, got {channel!r}")
        self.profile = get_profile(profile) if isinstance(profile, str) else profile
        self.channel = channel
        self.name = f"synthetic-{self.profile.name}-{channel}"

    # -- episode state -------------------------------------------------------------
    def reset(self, task, seed: int) -> None:
        """Start ``task`` (a :class:`sim.tasks.base.Task`) with common random numbers
        from ``seed``."""
        self.task = task
        self.seed = int(seed)
        self.pos = 0
        self.seen: set[str] = set()
        self.pending_notes: list[str] = []
        self.attempts: dict[str, int] = {}
        self.tried: dict[str, set[str]] = {}
        self.given_up: set[str] = set()
        self.context_actions = 0
        self.draining = False
        self.archives = 0
        self.recoveries = 0
        self.refusals: dict[str, int] = {}
        self.last_recover: tuple[str, str] | None = None
        self.make_room = 0
        self._step_state = -1
        self.read: set[str] = set()
        self._eps = np.random.default_rng([self.seed, 1]).standard_normal(8192)
        self.failed_base = self._u("base") < self.profile.base_error
        self._sources = {k: call_text(task.steps[f.source].tool, task.steps[f.source].args)
                         for k, f in task.facts.items()}

    def _u(self, purpose: str, *items) -> float:
        """A uniform draw fixed by (seed, purpose, items): the same in every program."""
        key = [self.seed, _crc(purpose)] + [_crc(str(x)) for x in items]
        return float(np.random.default_rng(key).random())

    # -- perception ----------------------------------------------------------------
    def _mode(self, view: View) -> str:
        if self.channel in ("auto", "ledger"):
            return "ledger" if view.ledger is not None else "content"
        return self.channel

    def perceived(self, entry: Entry) -> float:
        """Content-channel size estimate of ``entry`` (tokens, lognormal noise)."""
        n = int(entry.id[1:]) if entry.id[1:].isdigit() else 0
        return entry.tokens * float(np.exp(self.profile.sigma * self._eps[n % 8192]))

    def _candidates(self, view: View, protect: frozenset[str] | None = None
                    ) -> list[Entry]:
        """Visible, unpinned tool results and calls other than the ``protect`` working
        set and, while observing (no working set yet), the newest ``keep_recent``."""
        # calls too: a real trajectory's calls can be bulky (file edits carry the text)
        res = [e for e in view.entries if e.status == "visible" and e.id.startswith("B")
               and e.type in ("tool_result", "tool_call")]
        if protect is None:
            return res[: max(0, len(res) - self.profile.keep_recent)]
        return [e for e in res if e.id not in protect]

    # -- context decisions ---------------------------------------------------------
    def _context_action(self, view: View, protect: frozenset[str] | None = None
                        ) -> Action | None:
        tools = view.tools
        verb = ARCHIVE if "archive" in tools else DELETE if "delete" in tools else None
        if verb is None or self.context_actions >= self.profile.max_context_actions:
            return None
        p, B = self.profile, view.budget
        cands = self._candidates(view, protect)
        if not cands:
            return None
        mode = self._mode(view)
        if self.make_room:
            return self._room_action(view, verb, cands, mode)
        if mode == "ledger":
            used = view.used_tokens
            if used <= p.archive_at * B and not _overflow(view):
                return None
            return self._make(verb, _largest_first(cands, used - p.archive_to * B,
                                                   self._row_size(view)), view)
        if mode == "content":
            total = sum(self.perceived(e) for e in view.entries)
            if total > p.archive_at * B or _overflow(view):
                self.draining = True
            elif total < p.archive_to * B:
                self.draining = False
            if not self.draining:
                return None
            return self._make(verb, [max(cands, key=self.perceived)], view)
        # blind: only the harness's binary over-budget notice
        if not _overflow(view):
            return None
        return self._make(verb, [self._random_pick(cands, view)], view)

    def _room_action(self, view: View, verb: str, cands: list[Entry], mode: str
                     ) -> Action | None:
        """Archive to make room for a refused recovery. The ledger agent frees exactly
        what it needs (it sees the used total and the block's size) in one call; the
        others archive one block per refusal (what they perceive as largest, or at
        random when blind) and retry."""
        need, self.make_room = self.make_room, 0
        if mode != "ledger":
            pick = (max(cands, key=self.perceived) if mode == "content" else
                    self._random_pick(cands, view))
            return self._make(verb, [pick], view)
        excess = view.used_tokens + need - view.budget
        return self._make(verb, _largest_first(cands, excess, self._row_size(view)), view)

    def _row_size(self, view: View):
        """Ledger sizes: exact for blocks with a row, the content-channel estimate for
        the rest (a bounded ledger; interim until the agreed per-block rule lands)."""
        if view.ledger_remainder is None:
            return lambda e: e.tokens
        rows = {r.id for r in view.ledger}
        return lambda e: e.tokens if e.id in rows else self.perceived(e)

    def _random_pick(self, cands: list[Entry], view: View) -> Entry:
        """The blind agent's choice: uniform, keyed by turn and action count."""
        return cands[int(self._u("blind", view.turn, self.context_actions) * len(cands))]

    def _make(self, verb: str, chosen: list[Entry], view: View) -> Action | None:
        if not chosen:
            return None
        self.context_actions += 1
        ids = ",".join(e.id for e in chosen)
        # the index an LLM would write: each block's id, its call, and the evidence
        # keys it read there (what makes the archive searchable later)
        index = "; ".join(f"{e.id} {_short(e.source_call)}" + self._keys_in(e)
                          for e in chosen)
        if verb == ARCHIVE:
            self.archives += 1
            return Action(ARCHIVE, block_ids=ids, replacement=f"archived results: {index}")
        return Action(DELETE, block_ids=ids, replacement="bulky result, no future value")

    # -- evidence ------------------------------------------------------------------
    def _keys_in(self, e: Entry) -> str:
        keys = [k for k, f in self.task.facts.items() if f.extract(e.text) is not None]
        return f" has {', '.join(keys)}" if keys else ""

    def _notes_from(self, view: View) -> None:
        """Queue restatements of evidence lines in newly seen tool results."""
        for e in view.entries:
            if e.id in self.seen or e.status != "visible":
                continue
            self.seen.add(e.id)
            if e.type != "tool_result":
                continue
            for key, fact in self.task.facts.items():
                v = fact.extract(e.text)
                if v is not None and self._u("note", key) < self.profile.p_note:
                    self.pending_notes.append(f"Noted {key}: {v}")

    def _archive_targets(self, view: View, key: str) -> list[tuple[str, str]]:
        """``(target, label)`` for every archived item whose handle the view shows:
        the member blocks an index of the agent's lists, else the item itself with
        its call and placeholder text."""
        out = []
        for e in view.entries:
            if e.status not in _ARCHIVED or not e.handle:
                continue
            members = _INDEX.findall(e.text)
            if members:
                out.extend(members)
            else:
                out.append((e.id, f"{e.source_call} {e.text}"))
        return out

    def _recover_action(self, view: View, key: str) -> Action | None:
        """A recovery of the block holding ``key``, or None when the agent cannot or
        does not (no recover tool, nothing left to try, or its skill draw fails)."""
        if "recover" not in view.tools or key in self.given_up:
            return None
        fact = self.task.facts[key]
        tried = self.tried.setdefault(key, set())
        archived = [(t, lab) for t, lab in self._archive_targets(view, key)
                    if t not in tried]
        src = self._sources[key]
        targets = [t for t, lab in archived
                   if _mentions(lab, key)
                   or (fact.source_known and src in lab)]
        if not targets and not fact.source_known:
            # the agent never read where it was: search the archive at random
            order = np.random.default_rng([self.seed, _crc(key), len(tried)]).permutation(
                len(archived))
            targets = [archived[i][0] for i in order]
        n = self.attempts.get(key, 0)
        limit = 1 if fact.source_known else self.profile.max_attempts
        if not targets or n >= limit:
            self.given_up.add(key)
            return None
        p = (self.profile.p_recover_ledger if view.ledger is not None
             else self.profile.p_recover_stream)
        if self._u("recover", key, n) >= p:
            self.given_up.add(key)
            return None
        self.attempts[key] = n + 1
        tried.add(targets[0])
        self.recoveries += 1
        self.last_recover = (key, targets[0])
        return Action(RECOVER, handle=targets[0], key=key)

    def _read_offloaded(self, view: View) -> Action | None:
        """Read a result the wire-payload guard offloaded on entry (the agent has not
        seen it yet) by recovering it once, after the overflow notice made it archive;
        a refused read is not retried."""
        if "recover" not in view.tools:
            return None
        for e in view.entries:
            if e.status == "offloaded_placeholder" and e.handle and e.id not in self.read:
                self.read.add(e.id)
                self.recoveries += 1
                return Action(RECOVER, handle=e.id)
        return None

    def _after_refusal(self, view: View) -> None:
        """A refused recovery (it would not fit) is not a failed attempt: forget it,
        and make room for it before retrying; after three refusals, give up."""
        key, target = self.last_recover
        self.last_recover = None
        self.attempts[key] -= 1
        self.tried[key].discard(target)
        self.refusals[key] = self.refusals.get(key, 0) + 1
        if self.refusals[key] > 3:
            self.given_up.add(key)
            return
        size = next((r.tokens for r in view.ledger or () if r.id == target), 0)
        self.make_room = size + _RECOVER_MARGIN if size else 1

    def write_notes(self, view: View, round_: int) -> str:
        """A knowledge block / fold summary: each visible fact kept with probability
        ``p_knowledge`` (agent-mediated compression, ACON/Focus-style). Returns text."""
        lines = ["Knowledge so far:"]
        for key, fact in self.task.facts.items():
            v = find_value(view.entries, fact)
            keep = self._u("knowledge", key, round_) < self.profile.p_knowledge
            if v is not None and keep:
                lines.append(f"{key}: {v}")
        return "\n".join(lines) + "\n"

    # -- the protocol --------------------------------------------------------------
    def act(self, view: View) -> Action:
        """The next action for ``view`` (see the module docstring)."""
        self._notes_from(view)
        if self.last_recover is not None:
            if view.notice and view.notice.startswith("recovery refused"):
                self._after_refusal(view)
            else:
                self.last_recover = None
        step = self.task.steps[self.pos]
        if self._step_state != self.pos:
            # recovery bookkeeping is per step: a value recovered, used and archived
            # again may be recovered again when a later step needs it
            self._step_state = self.pos
            self.attempts, self.tried, self.given_up, self.refusals = {}, {}, set(), {}
        protect: frozenset[str] | None = None
        if step.kind != "observe":
            # the working set: blocks showing a value this step needs stay visible
            facts = [self.task.facts[k] for k in step.needs]
            protect = frozenset(e.id for e in view.entries if e.status == "visible"
                                and any(f.extract(e.text) is not None for f in facts))
        room = self.make_room
        ctx = self._context_action(view, protect)
        if ctx is not None:
            return ctx
        if room and not self._candidates(view, protect):
            # nothing left to archive outside the working set: the recovery cannot
            # fit, so the value it was for is lost
            self.make_room = 0
            self.given_up.update(k for k in step.needs if self.refusals.get(k))
        if step.kind == "observe":
            read = self._read_offloaded(view)
            if read is not None:
                return read
            self.pos += 1
            self.context_actions = 0
            text, self.pending_notes = "\n".join(self.pending_notes), []
            return Action(TASK, tool=step.tool, args=step.args, text=text)
        values = {}
        for key in step.needs:
            v = find_value(view.entries, self.task.facts[key])
            if v is None:
                rec = self._recover_action(view, key)
                if rec is not None:
                    return rec
            values[key] = v if v is not None else "unknown"
        self.pos += 1
        self.context_actions = 0
        kind = ANSWER if step.kind == "final" else TASK
        if kind == ANSWER and self.failed_base:
            values = {k: v + "?" for k, v in values.items()}
        args = ", ".join(f"{k}={v}" for k, v in values.items())
        return Action(kind, tool=step.tool, args=args, values=values)


def _largest_first(cands: list[Entry], excess: float, size=lambda e: e.tokens
                   ) -> list[Entry]:
    """The largest entries by ``size`` until their archiving frees ``excess`` tokens
    (each leaves a placeholder of about ``_PLACEHOLDER_COST`` tokens): the ledger
    agent's choice."""
    chosen, freed = [], 0
    for e in sorted(cands, key=lambda e: -size(e)):
        if freed >= excess:
            break
        chosen.append(e)
        freed += size(e) - _PLACEHOLDER_COST
    return chosen
