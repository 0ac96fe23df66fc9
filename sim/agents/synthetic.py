"""LLM-free synthetic agents (DESIGN.md "Agents"; VISTA §2.6, Theorem 1, Prop. 2).

A :class:`SyntheticAgent` plays its task's script and makes context decisions from
what its view shows. Its parameters (a :class:`~sim.agents.profiles.Profile`) are the
same in every program: what differs between two programs is only what the agent can
observe through them, and every interface is one of THEORY.md's observation channels
(§2-3), applied per block (the rule agreed in notes/INTERFACES.md):

* a block with a ledger row in the view (``View.ledger``) is perceived at the row's
  exact tokens: the ledger channel, I = log2 n bits. The VISTA ledger and the status
  board carry the same rows (the same channel; only the rendering differs, which a
  synthetic agent cannot perceive, so that ablation needs a real model);
* a block without a row is perceived through its content only,
  ``exp(ln s + sigma * eps)`` with ``eps ~ N(0, 1)`` fixed per block: the Gaussian
  content channel of Proposition 2 (rate at most (ln kappa)^2 / (2 sigma^2 ln 2)
  bits, the centroid bound). No dashboard leaves every block on this channel; a
  windowed (bounded) ledger is exact for its w rows and content-only for the rest
  (THEORY.md §2 "Windowed ledger", plus the content channel on the unlisted blocks);
* the request total is ``View.used_tokens`` when the view shows the budget bar, else
  the sum of the perceptions;
* ``channel="blind"`` (an agent option, the same for every program) ignores sizes:
  the harness's binary over-budget notice only, I = 0.

No program offers a list interface yet (a dashboard naming m candidate blocks without
sizes: THEORY.md's list channel, rate log2(n/m)); the protocol has no field for it.

Archiving follows from the estimates and their uncertainty, not from which dashboard
is shown. Once the perceived total passes ``archive_at`` x B (or the harness reports
an overflow) the agent frees down to ``archive_to`` x B, largest perceived block
first, and puts a block in the current call only while an upper confidence bound of
what the call frees, ``sum(estimate * exp(z * sd))`` with sd = 0 for a ledger row and
sigma for a content estimate (``z`` = ``Profile.free_z``), is still short of the
excess. Exact sizes give one batch; noisy sizes give smaller calls and another look
at the (perceived) total after each: the sequential process of Theorem 1.

Recovery needs the agent to know where the evidence went. The handle is the address;
what tells the agent which handle holds a value is the index text it wrote when
archiving (block ids, calls and the evidence keys it read there; each key it read is
listed with probability ``p_index``, so an index can be incomplete), or a
placeholder's call when the task says which call produced the value (a family
parameter; none does by default). It reads that handle with probability
``p_find_target`` (a miss reads another archived item); otherwise it searches the
archived candidates in a random order, up to ``max_attempts`` reads per needed value,
reading again after a miss with probability ``p_retry``; every failed read is a real
recovery through
the workspace (a call, and the recovered block's tokens in every later request), so
the recovery burden of Theorem 1 is a measured cost, not a probability. A recovery
the workspace refuses (it would not fit) makes the agent free the overshoot the
refusal states and retry, never archiving what the current step needs.

Nothing else is certain either (every parameter's prior and source:
:mod:`sim.world`, ``ctxsim world``). A ledger row is read correctly with probability
``p_row_read`` (else that block stays on the content channel). Evidence it restates
(``p_note``) is copied exactly with probability ``p_note_exact``. The newest value in
view is the one it uses (a later record supersedes an earlier one), so a stale value
left in view after the update was archived is answered confidently. A value in view
is used correctly with probability ``Profile.p_use(request tokens)``, a curve falling
with the length of what it reads (long-context degradation). A value it cannot use,
out of view or missed, is answered with a plausible wrong value (one digit off) with
probability ``p_confabulate`` and abstained (``unknown``) otherwise. A failure
unrelated to context (``base_error``, drawn once per episode) spoils one answered value
in exactly that way: no answer says which cause it had.

Every random decision is a common random number keyed by ``(seed, purpose, item)``,
so two programs run on the same task face the same agent luck and differ only by
what their views expose.

Over 500 lines: one agent, one class. Perception, archiving, recovery and answering
read and update the same per-episode state (estimates, index text, attempts, draws);
split by decision, that state would travel between modules. The stateless helpers
above the class are a few lines each.
"""

from __future__ import annotations

import re
import zlib
from functools import lru_cache

import numpy as np

from sim.agents.profiles import Profile, get_profile
from sim.agents.protocol import (ANSWER, ARCHIVE, DELETE, RECOVER, TASK, Action, Entry,
                                 View)
from sim.tasks.base import call_text

CHANNELS = ("auto", "ledger", "content", "blind")
_ARCHIVED = ("archived", "offloaded_placeholder")
#: tokens a placeholder keeps in the stream (the agent's estimate of an archive's cost)
_PLACEHOLDER_COST = 40
#: tokens the agent adds to a block's size when making room to recover it (the
#: "[recovered ...]" prefix and its dashboard row)
_RECOVER_MARGIN = 60
#: the overshoot a refused recovery states ("... would put the request N tokens over")
_OVER = re.compile(r"(\d+) tokens over the budget")
#: an index entry the agent wrote: "B12 search(...) has key, key"
_INDEX = re.compile(r"\b(B\d+) ([^;\n]*)")


def _num(block_id: str) -> int:
    """The number of a block id ``"B12"`` (0 for anything else)."""
    return int(block_id[1:]) if block_id[1:].isdigit() else 0


def _crc(s: str) -> int:
    return zlib.crc32(s.encode())


# Common random numbers, made once per process: every program of a sweep job plays
# the same task with the same seed, so each draw repeats once per program, and
# seeding a generator costs far more than the draw (issue 35). Pure functions of
# their key, so a hit is the very value a fresh generator gives.
@lru_cache(maxsize=1 << 16)
def _uniform(key: tuple[int, ...]) -> float:
    """The first uniform of a generator seeded with ``key`` (a tuple of ints)."""
    return float(np.random.default_rng(list(key)).random())


@lru_cache(maxsize=16)
def _episode_noise(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(8192 standard normals, 8192 uniforms) of episode seed ``seed``: the content
    channel's per-block size noise and the per-block row-read draws. Read-only
    (shared by every agent of that seed)."""
    eps = np.random.default_rng([seed, 1]).standard_normal(8192)
    urow = np.random.default_rng([seed, 2]).random(8192)
    eps.flags.writeable = urow.flags.writeable = False
    return eps, urow


def find_value(entries, fact) -> str | None:
    """The value of ``fact`` (a :class:`sim.tasks.base.Fact`) as the latest entry of
    ``entries`` showing it gives it (its text, or the call it shows), or None: a
    later record supersedes an earlier one, so the newest value in view is used."""
    for e in reversed(entries):
        v = fact.extract(e.text)
        if v is None and e.source_call:
            v = fact.extract(e.source_call)
        if v is not None:
            return v
    return None


def perturb(value: str, u: float) -> str:
    """A plausible wrong value of the same form as ``value``: one digit changed (the
    digit and the change fixed by ``u`` in [0, 1)); a value without digits gets a
    suffix. Never equal to ``value``."""
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    if not digits:
        return value + "-2"
    i = digits[int(u * len(digits)) % len(digits)]
    step = 1 + int(u * 97) % 9
    return value[:i] + str((int(value[i]) + step) % 10) + value[i + 1:]


def _short(call: str) -> str:
    """A call as an index names it: at most 160 characters, no ";" (the separator)."""
    return call[:160].replace(";", ",")


def _mentions(label: str, key: str) -> bool:
    """Whether an index label names evidence ``key`` (not a longer key it prefixes)."""
    return re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", label) is not None


def _overflow(view: View) -> bool:
    """Whether the harness reports an over-budget event (not a recovery outcome)."""
    return bool(view.notice) and not view.notice.startswith("recovery")


class SyntheticAgent:
    """A scripted agent with a context rule driven by its observation channel.

    Args:
        profile: a :class:`Profile` or a profile name.
        channel: ``"auto"`` (the per-block rule: a ledger row's exact size where the
            view shows one, the content channel elsewhere; ``"ledger"`` is the same
            rule), ``"content"`` (ignore every row and the budget bar: content only)
            or ``"blind"`` (sizes ignored; the over-budget notice only). An option of
            the agent, applied alike in every program.

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
        self._eps, self._urow = _episode_noise(self.seed)
        self._row_reads: dict[str, bool] = {}  # block id -> its ledger row is read
        self.failed_base = self._u("base") < self.profile.base_error
        self.found_values: dict[str, str] = {}
        self._sources = {k: call_text(task.steps[f.source].tool, task.steps[f.source].args)
                         for k, f in task.facts.items()}

    def _u(self, purpose: str, *items) -> float:
        """A uniform draw fixed by (seed, purpose, items): the same in every program."""
        return _uniform((self.seed, _crc(purpose), *(_crc(str(x)) for x in items)))

    # -- perception ----------------------------------------------------------------
    def _mode(self, view: View) -> str:
        """``"sizes"`` (per-block estimates from rows and content) or ``"blind"``."""
        return "blind" if self.channel == "blind" else "sizes"

    def perceived(self, entry: Entry) -> float:
        """Content-channel size estimate of ``entry`` (tokens, lognormal noise)."""
        return entry.tokens * float(np.exp(self.profile.sigma
                                           * self._eps[_num(entry.id) % 8192]))

    def _rows(self, view: View) -> dict[str, int]:
        """Block id -> exact tokens of the ledger rows the view shows (``{}`` without
        a ledger, or when the agent is forced onto the content channel)."""
        if view.ledger is None or self.channel == "content":
            return {}
        # a row misread (P = 1 - p_row_read, fixed per block) leaves that block on
        # the content channel; fixed per block, so each block's draw is looked up
        # once an episode (the ledger is read on every request)
        reads, p, u = self._row_reads, self.profile.p_row_read, self._urow
        out = {}
        for r in view.ledger:
            read = reads.get(r.id)
            if read is None:
                read = reads[r.id] = u[_num(r.id) % 8192] < p
            if read:
                out[r.id] = r.tokens
        return out

    def estimate(self, entry: Entry, rows: dict[str, int]) -> tuple[float, float]:
        """``(tokens, sd of ln tokens)``: the ledger row's exact size when the view
        shows one for ``entry`` (sd 0), else the content-channel estimate (sd sigma)."""
        if entry.id in rows:
            return float(rows[entry.id]), 0.0
        return self.perceived(entry), self.profile.sigma

    def total(self, view: View, rows: dict[str, int] | None = None) -> float:
        """Perceived request tokens: the budget bar when shown, else the sum of the
        per-block estimates."""
        if view.used_tokens is not None and self.channel != "content":
            return float(view.used_tokens)
        rows = self._rows(view) if rows is None else rows
        return sum(self.estimate(e, rows)[0] for e in view.entries)

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
        if self._mode(view) == "blind":
            # only the harness's binary over-budget notice
            if not (self.make_room or _overflow(view)):
                return None
            self.make_room = 0
            return self._make(verb, [self._random_pick(cands, view)], view)
        rows = self._rows(view)
        if self.make_room:
            excess, self.make_room = self.make_room, 0
            return self._make(verb, self._batch(cands, excess, rows), view)
        total = self.total(view, rows)
        if total > p.archive_at * B or _overflow(view):
            self.draining = True
        if total <= p.archive_to * B:
            self.draining = False
        if not self.draining:
            return None
        return self._make(verb, self._batch(cands, total - p.archive_to * B, rows), view)

    def _batch(self, cands: list[Entry], excess: float, rows: dict[str, int]
               ) -> list[Entry]:
        """The blocks one archive call takes: largest estimate first, while an upper
        confidence bound of the tokens freed so far (each archived block leaves a
        placeholder of about ``_PLACEHOLDER_COST`` tokens) is short of ``excess``.
        With exact sizes this is the fewest blocks that free ``excess``; with content
        estimates the call stops early and the agent looks again. ``excess`` > 0
        gives at least one block."""
        z = self.profile.free_z
        est = [(self.estimate(e, rows), e) for e in cands]
        est.sort(key=lambda t: -t[0][0])
        chosen, freed_hi = [], 0.0
        for (size, sd), e in est:
            if freed_hi >= excess:
                break
            chosen.append(e)
            freed_hi += size * float(np.exp(z * sd)) - _PLACEHOLDER_COST
        return chosen

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
        """The evidence keys the index lists for ``e``: each key ``e`` shows, with
        probability ``p_index`` (fixed per key and call)."""
        p = self.profile.p_index
        keys = [k for k, f in self.task.facts.items() if f.extract(e.text) is not None
                and self._u("index", k, e.source_call) < p]
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
                if v is not None and self._u("note", key, e.id) < self.profile.p_note:
                    u = self._u("note-exact", key, e.id)
                    if u >= self.profile.p_note_exact:
                        v = perturb(v, u)
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
        """A recovery read for the value ``key``, or None when the agent cannot (no
        recover tool, nothing archived left to try, or ``max_attempts`` reads spent).

        A target named by what the view shows (an index naming ``key``, or the call
        the value came from when the task says which; the newest first) is the one
        read with probability ``p_find_target``; otherwise, and when nothing is named,
        the read goes to the next archived candidate in a random order (the search).
        After a read that missed, the agent reads again with probability ``p_retry``
        (else it gives the value up for this step)."""
        if "recover" not in view.tools or key in self.given_up:
            return None
        fact = self.task.facts[key]
        tried = self.tried.setdefault(key, set())
        archived = [(t, lab) for t, lab in self._archive_targets(view, key)
                    if t not in tried]
        src = self._sources[key]
        # newest first: a later record supersedes an earlier one
        named = sorted((t for t, lab in archived
                        if _mentions(lab, key) or (fact.source_known and src in lab)),
                       key=lambda t: -_num(t))
        order = np.random.default_rng([self.seed, _crc(key), len(tried)]).permutation(
            len(archived))
        others = [archived[i][0] for i in order if archived[i][0] not in named]
        n, p = self.attempts.get(key, 0), self.profile
        # a read this step already missed (a hit would show the value in view): the
        # agent looks again with probability p_retry (a common random number per
        # key, step and read, so no other draw moves)
        if (not named and not others) or n >= p.max_attempts or (
                n and self._u("retry", key, self.pos, n) >= p.p_retry):
            self.given_up.add(key)
            return None
        # the item the view names is the one read with probability p_find_target;
        # a miss reads the first other item of the random search order (with no
        # other item archived there is nothing to confuse it with)
        if named and (not others or self._u("find", key, self.pos, n) < p.p_find_target):
            target = named[0]
        else:
            target = others[0] if others else named[0]
        self.attempts[key] = n + 1
        tried.add(target)
        self.recoveries += 1
        self.last_recover = (key, target)
        return Action(RECOVER, handle=target, key=key)

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
        and make room for it before retrying; a refusal beyond ``max_refusals``
        gives the value up."""
        key, target = self.last_recover
        self.last_recover = None
        self.attempts[key] -= 1
        self.tried[key].discard(target)
        self.refusals[key] = self.refusals.get(key, 0) + 1
        if self.refusals[key] > self.profile.max_refusals:
            self.given_up.add(key)
            return
        # the refusal states the overshoot (the workspace's BudgetExceededError)
        m = _OVER.search(view.notice or "")
        self.make_room = int(m.group(1)) + _RECOVER_MARGIN if m else 1

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

    def request_tokens(self, view: View) -> int:
        """Tokens of the stream the agent reads (every entry of the view, pinned
        ones included): the length its use of a fact degrades with."""
        return sum(e.tokens for e in view.entries)

    def _use(self, view: View, key: str, seen: str | None) -> str:
        """The value the agent writes for ``key``. A value in view is used correctly
        with probability ``Profile.p_use(request tokens)``; a value it cannot use
        (out of view, or missed in a long request) is answered with a plausible wrong
        value with probability ``p_confabulate`` and abstained (``"unknown"``)
        otherwise, so a wrong or abstained answer does not name its cause."""
        if seen is not None and self._u("use", key, self.pos) < self.profile.p_use(
                self.request_tokens(view)):
            return seen
        return self._wrong(key, seen)

    def _wrong(self, key: str, seen: str | None) -> str:
        """A failed value for ``key``, whatever the cause (out of view, missed, or a
        base error): a plausible wrong value of the right form with probability
        ``p_confabulate`` (one digit off what it saw, else off the true value), else
        ``"unknown"``. The one form every cause shares, so the answer does not name
        its cause."""
        p, truth = self.profile, self.task.facts[key].value
        u = self._u("confabulate", key, self.pos)
        if u < p.p_confabulate:
            wrong = perturb(seen if seen is not None else truth, u / p.p_confabulate)
            return wrong if wrong != truth else perturb(wrong, 0.5)
        return "unknown"

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
            values[key] = self._use(view, key, v)
        self.pos += 1
        self.context_actions = 0
        kind = ANSWER if step.kind == "final" else TASK
        #: the values as the agent found them, before a base error (ground truth for
        #: a failure's cause, never shown in the trajectory)
        self.found_values = dict(values)
        if kind == ANSWER and self.failed_base and values:
            # a failure unrelated to context spoils one value, in the same form as
            # any other failure (no marker of its cause)
            keys = list(values)
            k = keys[int(self._u("base-key") * len(keys))]
            values[k] = self._wrong(k, values[k] if values[k] != "unknown" else None)
        args = ", ".join(f"{k}={v}" for k, v in values.items())
        return Action(kind, tool=step.tool, args=args, values=values)
