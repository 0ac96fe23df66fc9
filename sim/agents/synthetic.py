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

Evidence is remembered only through the view: a needed value is read from a visible
``"key: value"`` line (an evidence result, a restated note, a summary) or recovered by
reading an archived payload whose handle the view shows. Every random decision is a
common random number keyed by ``(seed, purpose, item)``, so two programs run on the
same task face the same agent luck and differ only by what their views expose.
"""

from __future__ import annotations

import zlib

import numpy as np

from sim.agents.profiles import Profile, get_profile
from sim.agents.protocol import (ANSWER, ARCHIVE, DELETE, RECOVER, TASK, Action, Entry,
                                 View)

CHANNELS = ("auto", "ledger", "content", "blind")
_ARCHIVED = ("archived", "offloaded_placeholder")
#: tokens a placeholder keeps in the stream (the agent's estimate of an archive's cost)
_PLACEHOLDER_COST = 40


def _crc(s: str) -> int:
    return zlib.crc32(s.encode())


def find_value(entries, key: str) -> str | None:
    """The value of the first visible ``"key: value"`` line in ``entries``, or None."""
    needle = key + ": "
    for e in entries:
        i = e.text.find(needle)
        if i >= 0 and (i == 0 or e.text[i - 1] in "\n "):
            j = e.text.find("\n", i)
            return e.text[i + len(needle): j if j >= 0 else None].strip()
    return None


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

    def _candidates(self, view: View) -> list[Entry]:
        """Visible, unpinned tool results other than the newest ``keep_recent``."""
        res = [e for e in view.entries if e.status == "visible" and e.type == "tool_result"
               and e.id.startswith("B")]
        return res[: max(0, len(res) - self.profile.keep_recent)]

    # -- context decisions ---------------------------------------------------------
    def _context_action(self, view: View) -> Action | None:
        tools = view.tools
        verb = ARCHIVE if "archive" in tools else DELETE if "delete" in tools else None
        if verb is None or self.context_actions >= self.profile.max_context_actions:
            return None
        p, B = self.profile, view.budget
        cands = self._candidates(view)
        if not cands:
            return None
        mode = self._mode(view)
        if mode == "ledger":
            used = view.used_tokens
            if used <= p.archive_at * B and not view.notice:
                return None
            excess, chosen, freed = used - p.archive_to * B, [], 0
            for e in sorted(cands, key=lambda e: -e.tokens):
                if freed >= excess:
                    break
                chosen.append(e)
                freed += e.tokens - _PLACEHOLDER_COST
            return self._make(verb, chosen)
        if mode == "content":
            total = sum(self.perceived(e) for e in view.entries)
            if total > p.archive_at * B or view.notice:
                self.draining = True
            elif total < p.archive_to * B:
                self.draining = False
            if not self.draining:
                return None
            return self._make(verb, [max(cands, key=self.perceived)])
        # blind: only the harness's binary over-budget notice
        if not view.notice:
            return None
        i = int(self._u("blind", view.turn, self.context_actions) * len(cands))
        return self._make(verb, [cands[i]])

    def _make(self, verb: str, chosen: list[Entry]) -> Action | None:
        if not chosen:
            return None
        self.context_actions += 1
        ids = ",".join(e.id for e in chosen)
        index = "; ".join(e.source_call or e.id for e in chosen)
        if verb == ARCHIVE:
            self.archives += 1
            return Action(ARCHIVE, block_ids=ids, replacement=f"archived results: {index}")
        return Action(DELETE, block_ids=ids, replacement="bulky result, no future value")

    # -- evidence ------------------------------------------------------------------
    def _notes_from(self, view: View) -> None:
        """Queue restatements of evidence lines in newly seen tool results."""
        for e in view.entries:
            if e.id in self.seen or e.status != "visible":
                continue
            self.seen.add(e.id)
            if e.type != "tool_result":
                continue
            for key in self.task.facts:
                if key + ": " in e.text and self._u("note", key) < self.profile.p_note:
                    v = find_value([e], key)
                    self.pending_notes.append(f"Noted {key}: {v}")

    def _recover_action(self, view: View, key: str) -> Action | None:
        """A recovery read for ``key``, or None when the agent cannot or does not."""
        if "recover" not in view.tools or key in self.given_up:
            return None
        fact = self.task.facts[key]
        tried = self.tried.setdefault(key, set())
        archived = [e for e in view.entries if e.status in _ARCHIVED and e.handle
                    and e.handle not in tried]
        src = self._sources[key]
        targets = [e for e in archived if src in e.source_call or src in e.text]
        if not targets and not fact.source_known:
            order = np.random.default_rng([self.seed, _crc(key), len(tried)]).permutation(
                len(archived))
            targets = [archived[i] for i in order]
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
        tried.add(targets[0].handle)
        self.recoveries += 1
        return Action(RECOVER, handle=targets[0].handle, key=key)

    def write_notes(self, view: View, round_: int) -> str:
        """A knowledge block / fold summary: each visible fact kept with probability
        ``p_knowledge`` (agent-mediated compression, ACON/Focus-style). Returns text."""
        lines = ["Knowledge so far:"]
        for key in self.task.facts:
            v = find_value(view.entries, key)
            if v is not None and self._u("knowledge", key, round_) < self.profile.p_knowledge:
                lines.append(f"{key}: {v}")
        return "\n".join(lines) + "\n"

    # -- the protocol --------------------------------------------------------------
    def act(self, view: View) -> Action:
        """The next action for ``view`` (see the module docstring)."""
        self._notes_from(view)
        ctx = self._context_action(view)
        if ctx is not None:
            return ctx
        step = self.task.steps[self.pos]
        if step.kind == "observe":
            self.pos += 1
            self.context_actions = 0
            text, self.pending_notes = "\n".join(self.pending_notes), []
            return Action(TASK, tool=step.tool, args=step.args, text=text)
        values = {}
        for key in step.needs:
            v = find_value(view.entries, key)
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
