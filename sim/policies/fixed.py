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

from dataclasses import dataclass

from sim.policies.base import ContextProgram
from sim.policies.knobs import ProgramKnobs, knob



def trigger_knob(default: float, help: str, source: str):
    """A maintenance trigger's knob: tokens (> 1) or a fraction of B (<= 1), as
    :func:`_limit` reads it; 0 (always due) .. 10M tokens."""
    return knob(default, help, low=0, high=10_000_000,
                unit="tokens (> 1) or fraction of B (<= 1)", source=source)


def _limit(value: float, budget: int) -> float:
    """A trigger given either in tokens (> 1) or as a fraction of the budget (<= 1)."""
    return value * budget if value <= 1 else value


@dataclass(frozen=True)
class ReActKnobs(ProgramKnobs):
    """Knobs of :class:`ReAct`."""

    trim_to: float = knob(1.0, "on overflow, trim the request to this share of B",
                          low=0.05, high=1.0, unit="fraction of B",
                          source="LOCA-bench's hard trim: drop the oldest until it fits")


class ReAct(ContextProgram):
    """Append-only; on overflow drop the oldest unpinned messages until the request
    fits ``trim_to`` x budget (knob ``trim_to``, default 1.0: just fit)."""

    name = "react"
    Knobs = ReActKnobs

    def request_assembly(self, ctx) -> None:
        if ctx.used() > ctx.budget:
            ctx.trim_oldest(int(self.knobs.trim_to * ctx.budget))
        ctx.trim_oldest(ctx.budget)


@dataclass(frozen=True)
class ClearingKnobs(ProgramKnobs):
    """Knobs of :class:`ToolResultClearing`."""

    trigger: float = trigger_knob(100_000, "clear once the request passes this",
                                  source="Anthropic clear_tool_uses: 100K input tokens")
    keep: int = knob(3, "most recent tool results kept", low=0,
                     source="Anthropic clear_tool_uses: keep 3")
    fraction: float | None = knob(None, "clear the oldest share of the clearable "
                                  "results (None: all but keep)", low=0.01, high=1.0,
                                  none_ok=True, unit="fraction",
                                  source="LOCA-bench's reset ratio 0.5 (variant)")
    placeholder: bool = knob(True, 'leave "[tool result cleared]" (else delete)',
                             source="Anthropic clear_tool_uses; LOCA-bench: False")


class ToolResultClearing(ContextProgram):
    """Clear old tool results once the request passes ``trigger``.

    Knobs: ``trigger`` (tokens, or fraction of B if <= 1; default 100,000 as in
    Anthropic's clear_tool_uses), ``keep`` (most recent results kept, 3),
    ``fraction`` (None: clear all but ``keep``; 0.5: LOCA-bench's reset ratio, clear
    the oldest half), ``placeholder`` (leave "[tool result cleared]"; LOCA: False).
    """

    name = "clearing"
    Knobs = ClearingKnobs

    def maintenance_planning(self, ctx) -> bool:
        return ctx.used() > _limit(self.knobs.trigger, ctx.budget)

    def representation_update(self, ctx) -> None:
        k = self.knobs
        results = ctx.stream(types=("tool_result",))
        clearable = results[: max(0, len(results) - k.keep)]
        if k.fraction is not None:
            clearable = clearable[: max(1, int(len(clearable) * k.fraction))]
        ids = [b.id for b in clearable]
        if not ids:
            return
        if k.placeholder:
            ctx.archive(ids, "[tool result cleared]", hidden=True, each=True)
        else:
            ctx.delete(ids, "tool result cleared")


@dataclass(frozen=True)
class MaskingKnobs(ProgramKnobs):
    """Knobs of :class:`ObservationMasking`."""

    window: int = knob(10, "newest tool results left unmasked", low=0, high=10_000,
                       unit="tool results",
                       source='"The Complexity Trap" masking M=10 (OpenHands: 100)')
    marker: str = knob("[Old observation omitted]", "text a masked result becomes",
                       source="SWE-agent LastNObservations")


class ObservationMasking(ContextProgram):
    """Replace every tool result older than the last ``window`` results by ``marker``
    (knobs ``window`` = 10, ``marker``); calls and reasoning stay visible."""

    name = "masking"
    Knobs = MaskingKnobs

    def maintenance_planning(self, ctx) -> bool:
        return len(ctx.stream(types=("tool_result",))) > self.knobs.window

    def representation_update(self, ctx) -> None:
        results = ctx.stream(types=("tool_result",))
        ids = [b.id for b in results[: len(results) - self.knobs.window]]
        if ids:
            ctx.archive(ids, self.knobs.marker, hidden=True, each=True)


@dataclass(frozen=True)
class SkeletonKnobs(ProgramKnobs):
    """Knobs of :class:`SkeletonCompression`."""

    trigger: float = trigger_knob(0.8, "compress once the request passes this",
                                  source="VISTA §3.1 structured compression (0.8 B: ours)")
    keep: int = knob(3, "newest tool results kept whole", low=0, unit="tool results",
                     source="as clearing's keep 3")
    stub_chars: int = knob(160, "characters of a result's first line kept", low=0,
                           unit="characters", source="guess: one line")


class SkeletonCompression(ContextProgram):
    """Past ``trigger`` (fraction of B, 0.8), replace old results (all but the last
    ``keep`` = 3) by their first line, capped at ``stub_chars`` = 160 characters, plus
    "[result elided]"; the call skeleton stays."""

    name = "skeleton"
    Knobs = SkeletonKnobs

    def maintenance_planning(self, ctx) -> bool:
        return ctx.used() > _limit(self.knobs.trigger, ctx.budget)

    def representation_update(self, ctx) -> None:
        results = ctx.stream(types=("tool_result",))
        for b in results[: max(0, len(results) - self.knobs.keep)]:
            first = b.text.split("\n", 1)[0][: self.knobs.stub_chars]
            ctx.archive([b.id], f"{first}\n[result elided]", hidden=True)
