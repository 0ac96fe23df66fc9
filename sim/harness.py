"""The harness adapter: task stream -> program intervention points -> workspace ->
agent action (ContextEvo Appendix B.1; VISTA Algorithm 1).

:func:`run_episode` plays one task with one context program and one agent over a fresh
:class:`sim.workspace.Workspace`. Each model request is assembled by the workspace,
shown to the agent as a :class:`sim.agents.protocol.View`, and recorded in a token
ledger with its cache-reusable prefix (an edit at position p invalidates the cached
prefix from p; THEORY.md §4), from which :func:`sim.cost.cost_usd` prices it.

This module is the episode loop only; the jobs it composes have their own modules:
:mod:`sim.episode` (the workspace's budget, guard, dashboard and prompt, and the
budget rule), :mod:`sim.token_cache` (token counts measured once per task),
:mod:`sim.cost` (the request ledger and its prices) and :mod:`sim.program_context`
(what a program may see and do, and the agent's view). Imports point one way:
agents, policies, tasks and the workspace never import the harness
(``tests/test_layers.py``).
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np

from sim.agents.protocol import ANSWER, ARCHIVE, DELETE, RECOVER
from sim.cost import EpisodeResult, record_request
from sim.episode import EpisodeSetup
from sim.program_context import ProgramContext
from sim.tasks.base import call_text
from sim.token_cache import KnownCountTokenizer

__all__ = ["run_episode", "scratch_dir"]


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


def run_episode(task, program, agent, *, budget: int, seed: int, tokenizer=None,
                pinned: tuple[str, ...] = (), fast: bool = False) -> EpisodeResult:
    """Play ``task`` with ``program`` and ``agent`` under budget ``budget`` (tokens).

    Args:
        task: a :class:`sim.tasks.base.Task`.
        program: a :class:`sim.policies.base.ContextProgram` (fresh per episode).
        agent: a :class:`sim.agents.protocol.Agent` with ``write_notes``.
        budget: context budget B in tokens; the workspace is set up for it by
            :class:`sim.episode.EpisodeSetup` (which enforcer holds the program to B).
        seed: episode seed; the agent's common random numbers come from it, so it
            should not depend on the program.
        tokenizer: workspace tokenizer (default: cl100k with the task's known counts).
        pinned: extra texts registered as pinned user blocks after the statement
            (e.g. an Evo-Harness skill block): charged in every request like the rest.
        fast: play on an in-memory :class:`sim.workspace.memory.ScratchWorkspace`
            and reuse the assembled request and stream while the workspace state is
            unchanged (:class:`ProgramContext` ``memo``): the same workspace core and
            the same result, at a fraction of the cost (sweeps; checked
            byte-identical in ``tests/experiments/test_fast_episodes.py``).

    Returns:
        An :class:`EpisodeResult`. ``solved`` needs every use/final value exact.
    """
    from sim.workspace import Workspace
    from sim.workspace.tokenizer import get_tokenizer

    if tokenizer is None:
        tokenizer = KnownCountTokenizer(get_tokenizer("cl100k_base"),
                                        {s.content: s.tokens for s in task.steps if s.content})
    result = EpisodeResult(task.task_id, program.name, solved=False)
    options = EpisodeSetup.of(program, budget).workspace_options(tokenizer)
    if fast:
        from sim.workspace.memory import scratch_workspace

        tmp, ws = None, scratch_workspace(options)
    else:
        tmp = tempfile.mkdtemp(prefix="ctxsim-ep-", dir=scratch_dir())
        ws = Workspace(tmp, options)
    rng = np.random.default_rng([seed, 7])
    ctx = ProgramContext(ws, program, agent, budget, rng, result, memo=fast)
    try:
        _play(task, program, agent, ws, ctx, result, seed, pinned)
    finally:
        ws.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return result


def _play(task, program, agent, ws, ctx, result, seed, pinned=()) -> None:
    agent.reset(task, seed)
    ws.register({"role": "user", "content": task.statement}, pinned=True)
    for text in pinned:
        ws.register({"role": "user", "content": text}, pinned=True)
    prev: list = []
    pos, phase, n_call = 0, 0, 0
    correct = True
    guard = len(task.steps) * 40 + 100
    targets: set[tuple[int, str]] = set()
    while pos < len(task.steps) and guard > 0:
        guard -= 1
        program.request_assembly(ctx)
        view, req = ctx.view()
        action = agent.act(view)
        prev = record_request(result, req, prev, action.text or action.args)
        ctx.notice = None
        if action.kind in (ARCHIVE, DELETE):
            if action.kind == ARCHIVE and "archive" in program.agent_tools:
                items = len(ws.resolve(action.block_ids))
                ws.archive(action.block_ids, action.replacement)
                result.agent_archives += 1
                result.agent_archived_blocks += items
            elif action.kind == DELETE and "delete" in program.agent_tools:
                ws.delete(action.block_ids, action.replacement)
                result.deletes += 1
            continue
        if action.kind == RECOVER:
            _recover(task, program, ctx, result, action, pos, targets)
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
    # failed_base: a failure unrelated to context (optional for a plugin agent)
    result.solved = bool(correct and pos == len(task.steps)
                         and not getattr(agent, "failed_base", False))


def _recover(task, program, ctx, result, action, pos: int, targets: set) -> None:
    """Run the agent's recovery through the program; count the value it looked for
    (one target per needed value per step) and a read that did not show it."""
    before = result.recoveries
    block = program.recovery(ctx, action.handle, action.key)
    if block is None and not ctx.notice:
        ctx.notice = "recovery failed: this harness offers no recovery tool"
    fact = task.facts.get(action.key) if action.key else None
    if fact is None or result.recoveries == before:
        return  # no read of archived content (refused, an offload read, no key)
    if (pos, action.key) not in targets:
        targets.add((pos, action.key))
        result.recovery_targets += 1
    if fact.extract(block.content) is None:
        result.failed_reads += 1
