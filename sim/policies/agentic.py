"""Agent-mediated and rule-archiving baselines (VISTA §3.1, baseline definitions).

* :class:`ActiveCompression` (Focus / Active Context Compression): past a trigger the
  agent writes a knowledge block of what it judges worth keeping, and the raw history
  behind it is pruned (irreversible).
* :class:`ContextFolding` (Context-Folding): each task phase runs as a branch; on
  return (child -> parent) the branch's steps fold into the agent's return summary.
* :class:`AutoArchive` (Auto-Archive + Recover): a fixed rule archives the oldest tool
  results losslessly; the agent sees the placeholders and may recover.

Knowledge and fold summaries are written by the agent (``agent.write_notes``), so
their losses are the agent's: each visible fact survives with the profile's
``p_knowledge``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.policies.base import ContextProgram
from sim.policies.fixed import _limit, trigger_knob
from sim.policies.knobs import ProgramKnobs, knob


@dataclass(frozen=True)
class ActiveCompressionKnobs(ProgramKnobs):
    """Knobs of :class:`ActiveCompression`."""

    trigger: float = trigger_knob(0.6, "write a knowledge block once the request "
                                  "passes this", source="Focus / Active Context Compression (0.6 B: ours)")
    keep_last: int = knob(4, "newest messages kept behind the knowledge block", low=0,
                          unit="messages", source="guess")


@dataclass(frozen=True)
class AutoArchiveKnobs(ProgramKnobs):
    """Knobs of :class:`AutoArchive`."""

    trigger: float = trigger_knob(0.8, "archive once the request passes this",
                                  source="VISTA §3.1 Auto-Archive + Recover (0.8 B)")
    target: float = knob(0.5, "archive down to this share of B", low=0.0, high=1.0,
                         unit="fraction of B", source="VISTA §3.1 (0.5 B)")
    keep: int = knob(3, "newest tool results never archived", low=0,
                     unit="tool results", source="as clearing's keep 3")


class ActiveCompression(ContextProgram):
    """Past ``trigger`` (fraction of B, 0.6) the agent writes a knowledge block and all
    but the last ``keep_last`` = 4 messages are pruned behind it."""

    name = "active_compression"
    Knobs = ActiveCompressionKnobs

    def __init__(self, **knobs):
        super().__init__(**knobs)
        self.rounds = 0

    def maintenance_planning(self, ctx) -> bool:
        return ctx.used() > _limit(self.knobs.trigger, ctx.budget)

    def memory_update(self, ctx) -> None:
        items = ctx.stream(statuses=None, unpinned=True)
        old = items[: max(0, len(items) - self.knobs.keep_last)]
        # a block another mechanism already archived on its own (a mask, an archive
        # placeholder, an entry offload) cannot join a new group: its placeholder stays
        # where it is and only visible blocks and earlier groups are folded
        old = [i for i in old if i.status == "visible" or i.id[0] == "G"]
        if not old:
            return
        self.rounds += 1
        notes = ctx.agent_notes(old, self.rounds)
        ctx.archive([i.id for i in old], notes, hidden=True)


class ContextFolding(ContextProgram):
    """Fold each finished phase (calls and results) into the agent's return summary
    at the child -> parent boundary; the parent keeps only the summaries."""

    name = "folding"

    def child_to_parent(self, ctx, phase: int) -> None:
        items = [i for i in ctx.stream(statuses=None, unpinned=True)
                 if ctx.phase_of(i.id) == phase]
        if not items:
            return
        notes = ctx.agent_notes(items, 1000 + phase)
        ctx.archive([i.id for i in items], f"Branch {phase} returned.\n{notes}",
                    hidden=True)


def archive_oldest(ctx, to: float, keep: int) -> None:
    """Archive the oldest visible tool results, each under its own handle indexed by
    its call, until the request is at most ``to`` x B; the newest ``keep`` stay.
    Shared by :class:`AutoArchive` and VISTA's fixed-archive ablation."""
    results = ctx.stream(types=("tool_result",))
    over = ctx.used() - to * ctx.budget
    ids = []
    for b in results[: max(0, len(results) - keep)]:
        if over <= 0:
            break
        ids.append(b.id)
        over -= b.tokens
    if ids:
        ctx.archive(ids, None, hidden=False, each=True)


class AutoArchive(ContextProgram):
    """Past ``trigger`` (0.8 B) archive the oldest results down to ``target`` (0.5 B),
    keeping the newest ``keep`` = 3; placeholders show handles; the agent may recover."""

    name = "auto_archive"
    Knobs = AutoArchiveKnobs
    agent_tools = frozenset({"recover"})
    show_handles = True

    def maintenance_planning(self, ctx) -> bool:
        return ctx.used() > _limit(self.knobs.trigger, ctx.budget)

    def representation_update(self, ctx) -> None:
        archive_oldest(ctx, self.knobs.target, self.knobs.keep)
