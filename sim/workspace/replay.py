"""Replaying a recorded trajectory into a workspace under a budget (VISTA Appendix G's
AMA-Bench adaptation: each action and observation becomes a block). The policy hook
is minimal on purpose; real context programs live in ``sim.policies``.

Policies: ``none`` (register only; the wire-payload guard still offloads
observations that do not fit) and ``archive-oldest`` (when a request is over budget,
archive the oldest visible unpinned blocks together as one group until it fits).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .blocks import BlockStatus
from .errors import BudgetWarning, WorkspaceError
from .importers import import_trajectory
from .validate import validate_chat_request
from .workspace import Workspace

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


def archive_oldest(ws: Workspace) -> str | None:
    """Archive the oldest visible unpinned blocks and top-level groups, as one group
    (coarser groups for old groups: hierarchical), until the request fits; returns
    the spec archived (None if nothing could be)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BudgetWarning)
        req = ws.assemble(strict=False)
    need = req.total - (ws.budget or req.total)
    if need <= 0:
        return None
    chosen: list[str] = []
    freed = 0
    tops: dict[str, str] = {}
    for b in ws.blocks.values():
        top = ws.top_group(b.id, tops)
        ident = top or b.id
        if ident in chosen or not (top or b.status is BlockStatus.VISIBLE):
            continue
        chosen.append(ident)
        freed += req.item_tokens.get(ident, b.tokens) - (40 if top else 0)
        if freed >= need + 200 and len(chosen) > 1:  # room for the placeholder
            break
    if len(chosen) < 2 and not (chosen and chosen[0][0] == "B"):
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
    for a bad file, :class:`RequestValidationError` if a request is invalid."""
    if policy not in POLICIES:
        raise WorkspaceError(f"unknown replay policy {policy!r}; choose one of {POLICIES}")
    ws = Workspace(directory, budget=budget, tokenizer=tokenizer, strict=False,
                   dashboard=dashboard, sync=sync)
    result = ReplayResult(ws)

    def step(block) -> None:
        if policy == "archive-oldest":
            for _ in range(8):
                spec = archive_oldest(ws)
                if spec is None:
                    break
                result.archives.append(spec)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BudgetWarning)
            req = ws.assemble(strict=False)
        result.requests += 1
        result.over_budget += req.total > budget
        result.max_total = max(result.max_total, req.total)
        body = req.to_openai()
        if validate:
            validate_chat_request(body)
        if on_request is not None:
            on_request(body)

    import_trajectory(source, ws, format=format, on_step=step)
    return result
