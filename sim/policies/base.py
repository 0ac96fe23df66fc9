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

from sim.policies.knobs import ProgramKnobs, knobs_from_defaults


class ContextProgram:
    """Base program: keeps everything, and on overflow drops the oldest messages.

    Subclasses name their knobs in :attr:`Knobs` (a frozen dataclass of
    :class:`~sim.policies.knobs.ProgramKnobs`, each field declared with
    :func:`~sim.policies.knobs.knob`: default, range, help, source) and read them as
    ``self.knobs.<name>``; they override the points they use. A plugin class may give
    ``DEFAULTS = {knob: default}`` instead (the older form): its knobs class is made
    from it and its knobs are also read as attributes (``self.keep``).

    Raises:
        TypeError: from the constructor, for a knob the program does not have (named,
            with the ones it has).
        ValueError: from the constructor, for a knob value of the wrong type or out of
            its range (named).
    """

    #: registry name
    name: ClassVar[str] = "base"
    #: the knobs class (no knobs by default)
    Knobs: ClassVar[type[ProgramKnobs]] = ProgramKnobs
    #: dashboard variant rendered into the request: "ledger", "status_board" or "none"
    dashboard: str = "none"
    #: context tools offered to the agent (subset of archive, delete, recover)
    agent_tools: frozenset[str] = frozenset()
    #: whether archive handles (payload paths) are shown to the agent
    show_handles: bool = False
    #: system-prompt variant: "plain", "vista" or "reworded"
    protocol: str = "plain"
    #: True for a class whose knobs come from a ``DEFAULTS`` dict (read as attributes)
    _knob_attributes: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "DEFAULTS" in cls.__dict__ and "Knobs" not in cls.__dict__:
            cls.Knobs = knobs_from_defaults(cls.__name__, cls.DEFAULTS)
            # found again by pickle (a --jobs worker) as the class's attribute
            cls.Knobs.__module__ = cls.__module__
            cls.Knobs.__qualname__ = f"{cls.__qualname__}.Knobs"
            cls._knob_attributes = True

    def __init__(self, **knobs: Any):
        self.knobs = self.Knobs.make(type(self).__name__, knobs)

    def __getattr__(self, attr: str):
        # only for the DEFAULTS form: its programs read their knobs as attributes
        if type(self)._knob_attributes and attr != "knobs" and "knobs" in self.__dict__:
            try:
                return getattr(self.__dict__["knobs"], attr)
            except AttributeError:
                pass
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")

    def __repr__(self) -> str:
        return (f"{type(self).__name__}("
                f"{', '.join(f'{k}={v!r}' for k, v in self.knobs.as_dict().items())})")

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
