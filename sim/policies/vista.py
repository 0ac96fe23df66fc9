"""VISTA: a factual dashboard, agent-chosen archive, and recovery by reading the
payload path (VISTA §2.2-2.4), with the six mechanism ablations of §3.7 / Fig. 8.

Flags (each toggles one thing from the full method, like the paper's SM_* flags):

* ``no_archive``: no recoverable externalization; the agent may only delete.
* ``no_dashboard``: no ledger; the agent falls back to content-only size perception.
* ``no_recover``: payload paths hidden and no recovery.
* ``fixed_archive``: a static rule archives (oldest first) instead of the agent.
* ``reworded``: the protocol text is rephrased (capabilities unchanged).
* ``status_board``: the same ledger facts rendered as a status board.

Knob ``dashboard_tokens`` (0: the full ledger) > 0 shows the bounded ledger capped at
that many tokens instead (issue 14; registered as ``vista_bounded_ledger``, 400).
"""

from __future__ import annotations

from sim.policies.agentic import archive_oldest
from sim.policies.base import ContextProgram
from sim.workspace.dashboard import dashboard_spec

ABLATIONS = ("no_archive", "no_dashboard", "no_recover", "fixed_archive", "reworded",
             "status_board")


class Vista(ContextProgram):
    """The full method unless a flag is set; ``fixed_at``/``fixed_to`` (0.8/0.5 B) and
    ``fixed_keep`` (3) configure the fixed-archive rule."""

    name = "vista"
    DEFAULTS = {**{a: False for a in ABLATIONS}, "fixed_at": 0.8, "fixed_to": 0.5,
                "fixed_keep": 3, "dashboard_tokens": 0}

    def __init__(self, **knobs):
        super().__init__(**knobs)
        self.dashboard = ("none" if self.no_dashboard else
                          "status_board" if self.status_board else
                          dashboard_spec("bounded_ledger", self.dashboard_tokens)
                          if self.dashboard_tokens else "ledger")
        tools = {"archive", "recover"}
        if self.no_archive:
            tools = {"delete"}
        if self.no_recover:
            tools.discard("recover")
        if self.fixed_archive:
            tools.discard("archive")
        self.agent_tools = frozenset(tools)
        self.show_handles = "recover" in tools
        self.protocol = "reworded" if self.reworded else "vista"

    def maintenance_planning(self, ctx) -> bool:
        return self.fixed_archive and ctx.used() > self.fixed_at * ctx.budget

    def representation_update(self, ctx) -> None:
        archive_oldest(ctx, self.fixed_to, self.fixed_keep)
