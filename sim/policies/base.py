"""The context-program interface: ContextEvo's eight intervention points.

ContextEvo (Appendix B.1, Table 11) exposes context policy at eight lifecycle points
in three dimensions; a fixed harness adapter (:mod:`sim.harness`) invokes only the
points whose events occur:

* input assembly: :meth:`~ContextProgram.observation_entry` (a new tool result was
  registered) and :meth:`~ContextProgram.request_assembly` (the next model-visible
  request is built);
* history maintenance: :meth:`~ContextProgram.maintenance_planning` (is maintenance
  due?), :meth:`~ContextProgram.representation_update` (mask, clear, summarize,
  compact, archive), :meth:`~ContextProgram.memory_update` (notes, knowledge blocks)
  and :meth:`~ContextProgram.recovery` (an agent read of an archived payload);
* orchestration: :meth:`~ContextProgram.parent_to_child` and
  :meth:`~ContextProgram.child_to_parent` at scope boundaries (task phases).

Every program acts only through the :class:`sim.program_context.ProgramContext` it is given,
i.e. through the block workspace's archive and delete operations, so all programs are
compared on identical tasks, budgets and tokenizers (DESIGN.md "Context programs").
Class attributes declare the interface the agent gets: the dashboard variant, the
context tools offered to the agent, and whether payload handles are shown.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ContextProgram:
    """Base program: keeps everything, and on overflow drops the oldest messages.

    Subclasses set :attr:`DEFAULTS` (knob -> default, with the source in the class
    docstring) and override the points they use. Knobs are attributes.

    Raises:
        TypeError: from the constructor, for a knob not in :attr:`DEFAULTS`.
    """

    #: registry name
    name: ClassVar[str] = "base"
    #: knob -> default value
    DEFAULTS: ClassVar[dict[str, Any]] = {}
    #: dashboard variant rendered into the request: "ledger", "status_board" or "none"
    dashboard: str = "none"
    #: context tools offered to the agent (subset of archive, delete, recover)
    agent_tools: frozenset[str] = frozenset()
    #: whether archive handles (payload paths) are shown to the agent
    show_handles: bool = False
    #: system-prompt variant: "plain", "vista" or "reworded"
    protocol: str = "plain"

    def __init__(self, **knobs: Any):
        unknown = set(knobs) - set(self.DEFAULTS)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no knob(s) {sorted(unknown)}; "
                            f"knobs: {sorted(self.DEFAULTS)}")
        self.knobs = {**self.DEFAULTS, **knobs}
        for k, v in self.knobs.items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.knobs.items())})"

    # ---- input assembly ------------------------------------------------------------
    def observation_entry(self, ctx, block) -> None:
        """A tool result was registered (after the workspace's wire-payload guard).
        Keep, truncate or offload it. Default: keep."""

    def request_assembly(self, ctx) -> None:
        """Bring the next request within budget before it is sent. Default: the
        harness's hard trim (drop the oldest unpinned messages), LOCA-bench's
        last-resort rule that every program shares."""
        ctx.trim_oldest(ctx.budget)

    # ---- history maintenance ---------------------------------------------------------
    def maintenance_planning(self, ctx) -> bool:
        """Is maintenance due after this event? Default: never."""
        return False

    def representation_update(self, ctx) -> None:
        """Transform history (mask, clear, summarize, compact, archive)."""

    def memory_update(self, ctx) -> None:
        """Write notes or knowledge blocks."""

    def recovery(self, ctx, target: str, key: str):
        """The agent asks to recover ``target`` (block id, group id or payload path)
        while looking for evidence ``key``. Default: re-admit the exact bytes as a new
        visible block (:meth:`sim.program_context.ProgramContext.recover`, budget-checked).
        Returns the new block, or None (refused, or no recovery in this program)."""
        if "recover" not in self.agent_tools:
            return None
        return ctx.recover(target)

    # ---- orchestration -----------------------------------------------------------------
    def parent_to_child(self, ctx, phase: int) -> None:
        """A scope (task phase) starts: what the child receives. Default: everything."""

    def child_to_parent(self, ctx, phase: int) -> None:
        """A scope ends: what returns to the parent. Default: everything, unchanged."""
