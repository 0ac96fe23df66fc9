"""Fixed external policies: the harness, not the agent, decides what to drop.

Sources (VISTA §3.1 "fixed-policy group" and its baseline definitions):

* :class:`ReAct`: append until over budget, then drop the oldest messages
  (LOCA-bench's hard trim).
* :class:`ToolResultClearing`: past a trigger, clear the oldest tool results, keep the
  last ``keep`` (Anthropic ``clear_tool_uses``: trigger 100K input tokens, keep 3,
  placeholder; LOCA-bench variant: clear the oldest fraction 0.5, no placeholder).
* :class:`ObservationMasking`: observations older than the last ``window`` are replaced
  by a short marker, reasoning and calls kept (SWE-agent LastNObservations; "The
  Complexity Trap" masking M=10; OpenHands' window 100 as a variant).
* :class:`SkeletonCompression`: past a trigger, keep the call skeleton and each old
  result's first line, drop the rest (structured compression after context-as-a-tool
  compressors; VISTA §3.1).

Every one of them is irreversible for the agent: handles are hidden and no recovery
tool is offered, whatever the workspace keeps underneath.
"""

from __future__ import annotations

from sim.policies.base import ContextProgram


def _limit(value: float, budget: int) -> float:
    """A trigger given either in tokens (> 1) or as a fraction of the budget (<= 1)."""
    return value * budget if value <= 1 else value


class ReAct(ContextProgram):
    """Append-only; on overflow drop the oldest unpinned messages until the request
    fits ``trim_to`` x budget (knob ``trim_to``, default 1.0: just fit)."""

    name = "react"
    DEFAULTS = {"trim_to": 1.0}

    def request_assembly(self, ctx) -> None:
        if ctx.used() > ctx.budget:
            ctx.trim_oldest(int(self.trim_to * ctx.budget))
        ctx.trim_oldest(ctx.budget)


class ToolResultClearing(ContextProgram):
    """Clear old tool results once the request passes ``trigger``.

    Knobs: ``trigger`` (tokens, or fraction of B if <= 1; default 100,000 as in
    Anthropic's clear_tool_uses), ``keep`` (most recent results kept, 3),
    ``fraction`` (None: clear all but ``keep``; 0.5: LOCA-bench's reset ratio, clear
    the oldest half), ``placeholder`` (leave "[tool result cleared]"; LOCA: False).
    """

    name = "clearing"
    DEFAULTS = {"trigger": 100_000, "keep": 3, "fraction": None, "placeholder": True}

    def maintenance_planning(self, ctx) -> bool:
        return ctx.used() > _limit(self.trigger, ctx.budget)

    def representation_update(self, ctx) -> None:
        results = ctx.stream(types=("tool_result",))
        clearable = results[: max(0, len(results) - self.keep)]
        if self.fraction is not None:
            clearable = clearable[: max(1, int(len(clearable) * self.fraction))]
        ids = [b.id for b in clearable]
        if not ids:
            return
        if self.placeholder:
            ctx.archive(ids, "[tool result cleared]", hidden=True, each=True)
        else:
            ctx.delete(ids, "tool result cleared")


class ObservationMasking(ContextProgram):
    """Replace every tool result older than the last ``window`` results by ``marker``
    (knobs ``window`` = 10, ``marker``); calls and reasoning stay visible."""

    name = "masking"
    DEFAULTS = {"window": 10, "marker": "[Old observation omitted]"}

    def maintenance_planning(self, ctx) -> bool:
        return len(ctx.stream(types=("tool_result",))) > self.window

    def representation_update(self, ctx) -> None:
        results = ctx.stream(types=("tool_result",))
        ids = [b.id for b in results[: len(results) - self.window]]
        if ids:
            ctx.archive(ids, self.marker, hidden=True, each=True)


class SkeletonCompression(ContextProgram):
    """Past ``trigger`` (fraction of B, 0.8), replace old results (all but the last
    ``keep`` = 3) by their first line, capped at ``stub_chars`` = 160 characters, plus
    "[result elided]"; the call skeleton stays."""

    name = "skeleton"
    DEFAULTS = {"trigger": 0.8, "keep": 3, "stub_chars": 160}

    def maintenance_planning(self, ctx) -> bool:
        return ctx.used() > _limit(self.trigger, ctx.budget)

    def representation_update(self, ctx) -> None:
        results = ctx.stream(types=("tool_result",))
        for b in results[: max(0, len(results) - self.keep)]:
            first = b.text.split("\n", 1)[0][: self.stub_chars]
            ctx.archive([b.id], f"{first}\n[result elided]", hidden=True)
