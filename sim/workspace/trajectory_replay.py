"""Replaying a recorded trajectory into a workspace under a budget (VISTA Appendix G's
AMA-Bench adaptation: each action and observation becomes a block). The policy hook
is minimal on purpose; real context programs live in ``sim.policies``.

Policies: ``none`` (register only; the wire-payload guard still offloads
observations that do not fit) and ``archive-oldest`` (see :func:`archive_oldest`:
when a request is over budget, first coarsen old groups, then bundle the oldest
visible blocks and offloaded placeholders into a group, until it fits).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .blocks import BlockStatus, GroupStatus
from .errors import ConfigError, ImpossibleBudgetError, WorkspaceError
from .importers import import_trajectory, read_trajectory
from .importers.trajectory import Trajectory
from .validate import validate_chat_request
from .workspace import Workspace, check_overhead, fixed_overhead  # noqa: F401

#: the name replay callers use (:func:`sim.workspace.workspace.check_overhead`)
check_feasible = check_overhead

POLICIES = ("none", "archive-oldest")


@dataclass
class ReplayResult:
    """What a replay did: the workspace, how many requests were assembled and
    validated, how many were over budget, the largest request (tokens) and the
    archive handles the policy made."""

    workspace: Workspace
    requests: int = 0
    over_budget: int = 0
    max_total: int = 0
    archives: list[str] = field(default_factory=list)
    #: blocks left off the wire at least once (assistant messages with neither text
    #: nor tool calls; see :attr:`~sim.workspace.assembly.Request.dropped`)
    dropped: list[str] = field(default_factory=list)
    #: the trajectory read: format and why, recorded tools, notes (records kept
    #: aside, compactions, stray results), records with no context by kind
    trajectory: Trajectory | None = None
    #: names of the recorded tool schemas in every request, and their tokens (part
    #: of the fixed overhead)
    tools: list[str] = field(default_factory=list)
    tool_tokens: int = 0


#: most top-level archived groups of one level before the oldest FANOUT of them are
#: archived into one coarser group (VISTA §2.4 "Hierarchical recovery"); like an
#: LSM tree this keeps about FANOUT x log_FANOUT(groups) group rows in the ledger
FANOUT = 4
#: tokens freed beyond the overshoot, so one bundle lasts a few steps
MARGIN = 200
#: tokens a group costs once made: its placeholder message and its ledger row
#: (an estimate; the caller re-checks the budget after every archive)
GROUP_COST = 60
#: tokens of one ledger row (an estimate, as above)
ROW_TOKENS = 20


def archive_oldest(ws: Workspace) -> str | None:
    """One archive step of the replay policy when the request is over budget; returns
    the spec archived, or None if the request fits or nothing can be archived.

    1. Coarsen: if more than :data:`FANOUT` top-level archived groups share a level,
       the oldest FANOUT of them become one group a level up. It costs the stream
       nothing (they are already out) and shrinks placeholders and ledger rows.
    2. Otherwise bundle the oldest top-level visible unpinned blocks *and* offloaded
       placeholders, in stream order, into one group until about ``need +``
       :data:`MARGIN` tokens (request and ledger) are freed; a call is not split
       from the results that follow it. Offloaded placeholders cost the stream
       little but a ledger row each: leaving them out kept the dashboard growing
       linearly on long sessions. A lone visible block is archived alone; a lone
       offloaded block stays (it is already externalized).

    Call it again while it returns a spec (each call re-measures the request).
    """
    req = ws.assemble(strict=False, warn=False)
    need = req.total - (ws.budget or req.total)
    if need <= 0:
        return None
    by_level: dict[int, list[str]] = {}
    for g in sorted(ws.groups.values(), key=lambda g: g.first):
        if g.status is GroupStatus.ARCHIVED and g.parent is None:
            by_level.setdefault(g.level, []).append(g.id)
    for level, gids in sorted(by_level.items()):
        if len(gids) > FANOUT:
            spec = ",".join(gids[:FANOUT])
            ws.archive(spec, f"replay policy: oldest {FANOUT} level-{level} groups")
            return spec
    chosen: list[str] = []
    taken: set[str] = set()
    freed = -GROUP_COST
    for b in ws.blocks.values():
        if b.id in ws.group_of or b.status not in (BlockStatus.VISIBLE,
                                                   BlockStatus.OFFLOADED):
            continue
        if freed >= need + MARGIN and len(chosen) > 1 and b.call_block not in taken:
            break
        chosen.append(b.id)
        taken.add(b.id)
        # a result answered right after its call is counted in the call's item
        freed += req.item_tokens.get(b.id, 0) + ROW_TOKENS
    if not chosen or (len(chosen) == 1
                      and ws.blocks[chosen[0]].status is not BlockStatus.VISIBLE):
        return None
    spec = ",".join(chosen)
    ws.archive(spec, f"replay policy: oldest {len(chosen)} item(s)")
    return spec


def replay_trajectory(source: str | Path | list | dict, *, budget: int,
                      policy: str = "none", directory: str | Path | None = None,
                      tokenizer: Any = "cl100k_base", dashboard: str = "ledger",
                      format: str | None = None, validate: bool = True,
                      sync: bool = False,
                      on_request: Callable[[dict], None] | None = None) -> ReplayResult:
    """Register a trajectory step by step, assembling (soft mode) and validating a
    request after every block; ``policy`` archives when over budget. Raises
    :class:`WorkspaceError` for an unknown policy, :class:`TrajectoryFormatError`
    for a bad file, :class:`RequestValidationError` if a request is invalid,
    :class:`ImpossibleBudgetError` (a :class:`ConfigError`) for a budget below the
    fixed overhead, stating the least budget that also holds the pinned blocks and
    their dashboard rows, as :func:`check_final_budget` does after a replay. With
    ``directory=None`` the workspace is temporary: ``result.workspace.close()``
    removes it (a replay that raises closes it itself)."""
    if policy not in POLICIES:
        raise WorkspaceError(f"unknown replay policy {policy!r}; choose one of {POLICIES}")
    traj = read_trajectory(source, format)
    tools = _recorded_tools(traj)
    try:  # an impossible budget is refused before anything is made on disk
        ws = Workspace(directory, budget=budget, tokenizer=tokenizer, strict=False,
                       dashboard=dashboard, sync=sync, tools=tools)
    except ImpossibleBudgetError as exc:
        # the empty workspace's least budget is not the replay's: say the one
        # check_final_budget says after a replay, whatever budget was refused
        _check_pinned_floor(traj, budget, tokenizer, dashboard, tools)
        raise _naming_tools(exc, len(tools)) from None  # (the pins only add to it)
    except ConfigError as exc:
        raise _naming_tools(exc, len(tools)) from None
    result = ReplayResult(ws, trajectory=traj)
    if tools:
        import json
        from .messages import wire_safe
        result.tools = [t["function"]["name"] for t in tools]
        # counted as the assembler counts the schemas in the overhead
        result.tool_tokens = ws.tokenizer.count(json.dumps(wire_safe(tools),
                                                           separators=(",", ":")))

    def step(block) -> None:
        if policy == "archive-oldest":
            for _ in range(8):
                spec = archive_oldest(ws)
                if spec is None:
                    break
                result.archives.append(spec)
        req = ws.assemble(strict=False, warn=False)
        result.requests += 1
        result.over_budget += req.total > budget
        result.max_total = max(result.max_total, req.total)
        result.dropped.extend(b for b in req.dropped if b not in result.dropped)
        body = req.to_openai()
        if validate:
            validate_chat_request(body)
        if on_request is not None:
            on_request(body)

    try:
        import_trajectory(traj, ws, on_step=step)
    except BaseException:
        ws.close()  # a temporary workspace (directory None) goes with it
        raise
    return result


def check_final_budget(result: ReplayResult) -> None:
    """Raise :class:`ImpossibleBudgetError` if some request of replay ``result`` was
    over its budget and the budget is below what no policy can take out of the final
    request: the fixed overhead, the pinned blocks and a dashboard listing them
    (:func:`check_overhead` on the final workspace). The message states the exact
    least budget that holds them, the same whatever budget was refused; at that
    budget a replay may still be over budget (other blocks), but not impossible."""
    if result.over_budget:
        try:
            check_overhead(result.workspace)
        except ConfigError as exc:
            raise _naming_tools(exc, len(result.tools)) from None


def _check_pinned_floor(traj: Trajectory, budget: int, tokenizer: Any, dashboard: str,
                        tools: list[dict]) -> None:
    """:func:`check_final_budget` for a replay that could not start: the trajectory
    imported with no budget into a scratch workspace pins the same blocks, with the
    same ids and turns, as any replay of it (a budget only offloads and archives
    other blocks), so its floor is the final request's."""
    from dataclasses import replace

    from .memory import scratch_workspace

    scratch = scratch_workspace(budget=None, tokenizer=tokenizer, strict=False,
                                dashboard=dashboard, tools=tools)
    try:
        import_trajectory(replace(traj, notes=[], renamed=[]), scratch)
        check_overhead(scratch, budget=budget)
    except ConfigError as exc:
        raise _naming_tools(exc, len(tools)) from None
    finally:
        scratch.close()


def _naming_tools(exc: ConfigError, recorded: int) -> ConfigError:
    """``exc``, saying that the overhead holds the file's recorded tool schemas."""
    if recorded and isinstance(exc, ImpossibleBudgetError):
        return ImpossibleBudgetError(f"{exc}, with the {recorded} tool schemas recorded "
                                     "in the file", exc.least)
    return exc


def _recorded_tools(traj: Trajectory) -> list[dict]:
    """The recorded tool schemas a replay puts in every request (fixed overhead);
    one whose name a context tool already uses is left out, with a note."""
    from .tools import context_tool_schemas
    context = {t["function"]["name"] for t in context_tool_schemas()}
    out: dict[str, dict] = {}
    for t in traj.tools:
        name = t["function"]["name"]
        if name in context:
            traj.notes.append(f"recorded tool {name[:40]!r} has a context tool's name; "
                              "the context tool's schema is used")
        elif name in out:  # recorded again (each task of an evaluation run)
            if out[name] != t:
                traj.notes.append(f"recorded tool {name[:40]!r} has two different "
                                  "schemas; the first is used")
        else:
            out[name] = t
    return list(out.values())
