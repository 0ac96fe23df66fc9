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

from dataclasses import dataclass

from sim.policies.agentic import archive_oldest
from sim.policies.base import ContextProgram
from sim.policies.knobs import ProgramKnobs, knob
from sim.workspace.dashboard import dashboard_spec

ABLATIONS = ("no_archive", "no_dashboard", "no_recover", "fixed_archive", "reworded",
             "status_board")


def _flag(help_: str):
    return knob(False, help_, source="VISTA §3.7 / Fig. 8 (the SM_* flags)")


@dataclass(frozen=True)
class VistaKnobs(ProgramKnobs):
    """Knobs of :class:`Vista`: one bool per ablation flag (:data:`ABLATIONS`), the
    fixed-archive rule and the bounded ledger's cap."""

    no_archive: bool = _flag("no recoverable externalization; the agent may only delete")
    no_dashboard: bool = _flag("no ledger: content-only size perception")
    no_recover: bool = _flag("payload paths hidden and no recovery")
    fixed_archive: bool = _flag("a static rule archives (oldest first), not the agent")
    reworded: bool = _flag("the protocol text rephrased (capabilities unchanged)")
    status_board: bool = _flag("the same ledger facts rendered as a status board")
    fixed_at: float = knob(0.8, "the fixed-archive rule archives past this share of B",
                           low=0.0, high=1.0, unit="fraction of B",
                           source="as Auto-Archive's trigger (VISTA §3.1)")
    fixed_to: float = knob(0.5, "the fixed-archive rule archives down to this share "
                           "of B", low=0.0, high=1.0, unit="fraction of B",
                           source="as Auto-Archive's target")
    fixed_keep: int = knob(3, "the fixed-archive rule keeps the newest this many "
                           "results", low=0, unit="tool results",
                           source="as Auto-Archive's keep")
    dashboard_tokens: int = knob(0, "> 0: the bounded ledger capped at this many tokens "
                                 "(0: the full ledger)", low=0, high=10_000_000,
                                 unit="tokens", source="issue 14 (registered: 400)")


class Vista(ContextProgram):
    """The full method unless a flag is set; ``fixed_at``/``fixed_to`` (0.8/0.5 B) and
    ``fixed_keep`` (3) configure the fixed-archive rule."""

    name = "vista"
    Knobs = VistaKnobs

    def __init__(self, **knobs):
        super().__init__(**knobs)
        k = self.knobs
        self.dashboard = ("none" if k.no_dashboard else
                          "status_board" if k.status_board else
                          dashboard_spec("bounded_ledger", k.dashboard_tokens)
                          if k.dashboard_tokens else "ledger")
        tools = {"archive", "recover"}
        if k.no_archive:
            tools = {"delete"}
        if k.no_recover:
            tools.discard("recover")
        if k.fixed_archive:
            tools.discard("archive")
        self.agent_tools = frozenset(tools)
        self.show_handles = "recover" in tools
        self.protocol = "reworded" if k.reworded else "vista"

    def maintenance_planning(self, ctx) -> bool:
        return self.knobs.fixed_archive and ctx.used() > self.knobs.fixed_at * ctx.budget

    def representation_update(self, ctx) -> None:
        archive_oldest(ctx, self.knobs.fixed_to, self.knobs.fixed_keep)
