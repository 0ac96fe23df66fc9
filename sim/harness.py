"""The harness adapter: task stream -> program intervention points -> workspace ->
agent action (ContextEvo Appendix B.1; VISTA Algorithm 1).

:func:`run_episode` plays one task with one context program and one agent over a fresh
:class:`sim.workspace.Workspace`. Each model request is assembled by the workspace,
shown to the agent as a :class:`sim.agents.protocol.View`, and recorded in a token
ledger with its cache-reusable prefix (an edit at position p invalidates the cached
prefix from p; THEORY.md §4), from which :func:`cost_usd` prices it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass, field

import numpy as np

from sim.agents.protocol import (ANSWER, ARCHIVE, DELETE, RECOVER, Entry, LedgerRow,
                                 View)
from sim.agents.synthetic import call_text
from sim.tasks.tokens import count_tokens

#: THEORY.md §4 / VISTA Table 2 prices, dollars per million tokens
PRICES = {"uncached": 0.50, "cached": 0.05, "output": 3.00}
#: output tokens per model call besides its visible text (reasoning, call framing)
THINKING_TOKENS = 120
PLAIN_PROMPT = ("You are a tool-using agent. Complete the task with the tools provided; "
                "report exact values.")
REWORDED_PROMPT = (
    "CONTEXT TOOLS: each turn a <context_workspace_status> map lists your context blocks."
    " Call the context tools only when you really need them; do not move content out "
    "just because it is old or big, and keep it visible while the budget allows. "
    "Placeholders stand for large payloads; open the originals only when needed, with "
    "the ordinary file or terminal tools. Query structured data from its source.")


def scratch_dir() -> str | None:
    """Where episode workspaces live: ``$CTXSIM_SCRATCH``, else ``/dev/shm`` when it
    is a writable directory, else the system temp dir (None).

    Why: a simulated episode's workspace is thrown away at its end, so it needs no
    durability (episodes run with ``sync=False``: no fsync), and on a disk-backed
    filesystem creating and removing the payload store's hundreds of small files
    and directories dominated a sweep (measured: 4.7 s vs 1.2 s for nine programs
    on one 256K-growth task; ``experiments/bench/bench_sweeps.py``).
    """
    env = os.environ.get("CTXSIM_SCRATCH")
    if env:
        return env
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


class KnownCountTokenizer:
    """A tokenizer that answers from known counts first (task content measured at
    generation), then from a memo, then from ``base`` (the workspace tokenizer)."""

    def __init__(self, base, known: dict[str, int] | None = None):
        self.base = base
        self.name = getattr(base, "name", "cl100k_base")
        self.memo: dict[str, int] = dict(known or {})

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        n = self.memo.get(text)
        if n is None:
            n = self.memo[text] = self.base.count(text) if len(text) > 0 else 0
        return n


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


@dataclass
class EpisodeResult:
    """Outcome and ledger of one episode (tokens; dollars in ``cost``).

    ``recoveries`` counts archived content brought back (VISTA Fig. 8b's retrieve
    events); ``offload_reads`` counts results the wire-payload guard offloaded on
    entry that the agent then read (a different mechanism, so counted apart)."""

    task_id: str
    program: str
    solved: bool
    requests: int = 0
    active_tokens: list[int] = field(default_factory=list)
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    agent_archives: int = 0
    program_edits: int = 0
    deletes: int = 0
    recoveries: int = 0
    offload_reads: int = 0
    offloaded: int = 0
    dashboard_tokens: int = 0

    @property
    def mean_active(self) -> float:
        """Mean request size (tokens)."""
        return float(np.mean(self.active_tokens)) if self.active_tokens else 0.0

    @property
    def mean_dashboard(self) -> float:
        """Mean rendered dashboard size per request (tokens; 0 without one)."""
        return self.dashboard_tokens / self.requests if self.requests else 0.0

    @property
    def total_tokens(self) -> int:
        """All input plus output tokens over the episode."""
        return self.input_tokens + self.output_tokens

    @property
    def cost(self) -> float:
        """Cache-aware dollar cost (:data:`PRICES`)."""
        return cost_usd(self.input_tokens, self.cached_tokens, self.output_tokens)


def cost_usd(input_tokens: int, cached_tokens: int, output_tokens: int,
             prices: dict[str, float] = PRICES) -> float:
    """Dollars: uncached input, cached input and output at ``prices`` per 1M tokens.

    Raises:
        ValueError: if ``cached_tokens`` exceeds ``input_tokens``.
    """
    if cached_tokens > input_tokens:
        raise ValueError(f"cached {cached_tokens} > input {input_tokens}")
    return ((input_tokens - cached_tokens) * prices["uncached"]
            + cached_tokens * prices["cached"] + output_tokens * prices["output"]) / 1e6


class ProgramContext:
    """What a context program may see and do (one episode). Built by
    :func:`run_episode`; programs call its methods, never the workspace directly."""

    def __init__(self, ws, program, agent, budget: int, rng: np.random.Generator,
                 result: EpisodeResult):
        self.ws, self.program, self.agent, self.budget = ws, program, agent, budget
        self.rng, self.result = rng, result
        self.hidden: set[str] = set()
        self.phase: dict[str, int] = {}
        self.calls: dict[str, str] = {}
        self.notice: str | None = None

    # -- reading -------------------------------------------------------------------
    def used(self) -> int:
        """Tokens of the request that would be sent now."""
        return self._assemble().total

    def _assemble(self):
        # soft assembly: the program, not the workspace, enforces the budget here,
        # so the workspace's over-budget warning is expected and silenced
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.ws.assemble(strict=False)

    def stream(self, types=None, statuses=("visible",), unpinned: bool = True) -> list[Item]:
        """Top-level items in stream order, filtered by block ``types`` and
        ``statuses`` (None: any live status; groups have type ``"group"``)."""
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
                item = Item(gid, "group", "archived", g.replacement, count_tokens(
                    g.replacement) + 30, g.turn)
            else:
                st = b.status.value
                if st == "deleted" or (unpinned and st == "pinned"):
                    continue
                if b.in_stream:
                    item = Item(b.id, b.type.value, st, b.content, b.tokens, b.turn)
                else:
                    item = Item(b.id, b.type.value, st, b.replacement,
                                count_tokens(b.replacement) + 30, b.turn)
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
                each: bool = False, kind: str = "") -> None:
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
        """Drop the oldest unpinned items until the request is at most ``limit``."""
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
        text = self.agent.write_notes(view, round_)
        self.result.requests += 1
        self.result.input_tokens += sum(i.tokens for i in items)
        self.result.output_tokens += THINKING_TOKENS + count_tokens(text)
        return text

    # -- the agent's view ------------------------------------------------------------
    def view(self) -> tuple[View, object]:
        """The assembled request as the agent sees it, and the workspace Request."""
        ws, prog = self.ws, self.program
        req = self._assemble()
        entries = []
        show = prog.show_handles
        for it in self.stream(statuses=None, unpinned=False):
            handle = None
            if it.status in ("archived", "offloaded_placeholder") and show \
                    and it.id not in self.hidden:
                h = (ws.groups[it.id].handle if it.id[0] == "G" else ws.blocks[it.id].handle)
                handle = h.path
            # a result shows the call that produced it; a call block shows its own
            # call text (what the model reads in the assistant message)
            src = self.calls.get(it.id, "")
            if it.id[0] == "G" or it.status != "visible":
                src = it.text if not src else src
            entries.append(Entry(it.id, it.type, it.status, it.text, it.tokens, handle,
                                 src, it.turn))
        ledger = None
        if prog.dashboard != "none":
            ledger = tuple(LedgerRow(b.id, b.tokens, ws.turn - b.turn, b.type.value,
                                     b.level, b.parent or "-", b.status.value)
                           for b in ws.live_blocks())
        tools = frozenset(prog.agent_tools) | {"task"}
        remainder = getattr(ws.assembler.dashboard, "remainder", None)  # bounded ledger
        if ledger is not None and remainder is not None:
            shown = set(ws.assembler.dashboard.shown)
            ledger = tuple(r for r in ledger if r.id in shown)
        v = View(tuple(entries), self.budget, req.dashboard_text or None, ledger,
                 req.total if ledger is not None else None, self.notice, tools, ws.turn,
                 remainder if ledger is not None else None)
        return v, req


def _system_prompt(program, budget: int) -> str:
    from sim.workspace.assembly import default_system_prompt

    if program.protocol == "vista":
        return default_system_prompt(budget)
    if program.protocol == "reworded":
        return (f"{REWORDED_PROMPT}\nContext window: <budget:token_budget>{budget}"
                f"</budget:token_budget>")
    return PLAIN_PROMPT


def run_episode(task, program, agent, *, budget: int, seed: int, tokenizer=None,
                profile_seed: int | None = None) -> EpisodeResult:
    """Play ``task`` with ``program`` and ``agent`` under budget ``budget`` (tokens).

    Args:
        task: a :class:`sim.tasks.base.Task`.
        program: a :class:`sim.policies.base.ContextProgram` (fresh per episode).
        agent: a :class:`sim.agents.protocol.Agent` with ``write_notes``.
        budget: context budget B in tokens.
        seed: episode seed; the agent's common random numbers come from it, so it
            should not depend on the program.
        tokenizer: workspace tokenizer (default: cl100k with the task's known counts).

    Returns:
        An :class:`EpisodeResult`. ``solved`` needs every use/final value exact.
    """
    from sim.workspace import Workspace
    from sim.workspace.tokenizer import get_tokenizer

    if tokenizer is None:
        tokenizer = KnownCountTokenizer(get_tokenizer("cl100k_base"),
                                        {s.content: s.tokens for s in task.steps if s.content})
    result = EpisodeResult(task.task_id, program.name, solved=False)
    tmp = tempfile.mkdtemp(prefix="ctxsim-ep-", dir=scratch_dir())
    guard = bool(program.show_handles)
    ws = Workspace(tmp, budget=budget if guard else None, tokenizer=tokenizer,
                   strict=False, dashboard=program.dashboard, sync=False,
                   system_prompt=_system_prompt(program, budget),
                   context_tools=bool(program.agent_tools))
    rng = np.random.default_rng([seed, 7])
    ctx = ProgramContext(ws, program, agent, budget, rng, result)
    try:
        _play(task, program, agent, ws, ctx, result, seed)
    finally:
        ws.close()
        shutil.rmtree(tmp, ignore_errors=True)
    result.agent_archives = getattr(agent, "archives", 0)
    return result


def _record(result: EpisodeResult, req, prev: list, text: str) -> list:
    """Add one request to the ledger; return its segment keys for the next one."""
    ws_versions = req.item_tokens
    keys = [("overhead", req.overhead)] + list(ws_versions.items())
    cached = 0
    for a, b in zip(prev, keys):
        if a != b:
            break
        cached += b[1] if isinstance(b[1], int) else 0
    result.requests += 1
    result.active_tokens.append(req.total)
    result.dashboard_tokens += req.dashboard
    result.input_tokens += req.total
    result.cached_tokens += min(cached, req.total)
    result.output_tokens += THINKING_TOKENS + (count_tokens(text) if text else 0)
    return keys


def _play(task, program, agent, ws, ctx, result, seed) -> None:
    agent.reset(task, seed)
    ws.register({"role": "user", "content": task.statement}, pinned=True)
    prev: list = []
    pos, phase, n_call = 0, 0, 0
    correct = True
    guard = len(task.steps) * 40 + 100
    while pos < len(task.steps) and guard > 0:
        guard -= 1
        program.request_assembly(ctx)
        view, req = ctx.view()
        action = agent.act(view)
        prev = _record(result, req, prev, action.text or action.args)
        ctx.notice = None
        if action.kind in (ARCHIVE, DELETE):
            if action.kind == ARCHIVE and "archive" in program.agent_tools:
                ws.archive(action.block_ids, action.replacement)
            elif action.kind == DELETE and "delete" in program.agent_tools:
                ws.delete(action.block_ids, action.replacement)
                result.deletes += 1
            continue
        if action.kind == RECOVER:
            if program.recovery(ctx, action.handle, action.key) is None and not ctx.notice:
                ctx.notice = "recovery failed: this harness offers no recovery tool"
            continue
        step = task.steps[pos]
        pos += 1
        if step.phase != phase:
            program.child_to_parent(ctx, phase)
            phase = step.phase
            program.parent_to_child(ctx, phase)
        if step.kind != "observe":
            ok = all(action.values.get(k) == task.facts[k].value for k in step.needs)
            correct = correct and ok
            if action.kind == ANSWER:
                break
        n_call += 1
        cid = f"call_{n_call}"
        call = ws.register({"role": "assistant", "content": action.text or None,
                            "tool_calls": [{"id": cid, "type": "function", "function": {
                                "name": step.tool, "arguments": action.args or step.args}}]})
        ctx.phase[call.id] = phase
        ctx.calls[call.id] = call_text(step.tool, action.args or step.args)
        res = ws.register({"role": "tool", "tool_call_id": cid,
                           "content": step.content if step.kind == "observe" else "ok\n"})
        ctx.phase[res.id] = phase
        ctx.calls[res.id] = call_text(step.tool, step.args)
        if res.status.value == "offloaded_placeholder":
            result.offloaded += 1
            ctx.notice = f"result {res.id} offloaded: the request would exceed the budget"
        program.observation_entry(ctx, res)
        if program.maintenance_planning(ctx):
            program.representation_update(ctx)
            program.memory_update(ctx)
    result.solved = bool(correct and pos == len(task.steps) and not agent.failed_base)
