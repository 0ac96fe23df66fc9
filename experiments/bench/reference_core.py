"""Bare bookkeeping for one episode in plain Python: the floor the episode core is
measured against (issue 35, "Episode core"; ``bench_episodes`` prints
``core/reference``).

:func:`play` does for one task what any context layer must do, and nothing else:
blocks in a dict, the task's known token counts (texts counted once and memoised),
a budget check on every tool result with offloading to a placeholder when it would
not fit, archiving the oldest tool results (all but the newest ``keep``) once the
request passes ``trigger`` x B, down to ``target`` x B (Auto-Archive's knobs, VISTA
§3.1: :class:`sim.policies.agentic.AutoArchiveKnobs`), a one-line-per-block
dashboard rebuilt and counted on every request, each needed value looked up in the
visible texts, and the input tokens of every request summed.

It is a yardstick, not a model of any program: there is no agent (every needed
value is read straight off the visible texts, so nothing is ever misread, and an
archived or offloaded value is never recovered), no protocol (tool-call ids, call
messages as JSON), no journal and no invariant checks. Its solved count therefore
agrees with the core's only where no program's episode depends on those: where the
needed values stay visible (see ``bench_episodes``' comparison line).
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.policies.agentic import AutoArchiveKnobs
from sim.tasks.base import call_text
from sim.workspace.assembly import default_system_prompt


@dataclass
class ReferenceResult:
    """What :func:`play` reports of one episode: ``solved`` (every needed value was
    visible and exact), ``requests``, ``input_tokens`` (summed over requests),
    ``offloaded`` (results the budget check replaced by a placeholder) and
    ``archived`` (results archived by the 80% rule)."""

    solved: bool
    requests: int
    input_tokens: int
    offloaded: int
    archived: int


def play(task, budget: int, count, knobs: AutoArchiveKnobs | None = None) -> ReferenceResult:
    """Play ``task`` (a :class:`sim.tasks.base.Task`) under budget ``budget`` (tokens)
    with the bare bookkeeping of the module doc. ``count(text) -> int`` counts
    tokens (a memoising tokenizer's ``count``, e.g.
    :class:`sim.token_cache.KnownCountTokenizer`). ``knobs``: the archive rule's
    trigger, target and keep (default: Auto-Archive's). Raises ``ValueError`` for a
    budget that is not a positive int."""
    if not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be an int >= 1 (tokens), got {budget!r}")
    knobs = knobs or AutoArchiveKnobs()
    overhead = count(default_system_prompt(budget))
    # id -> [text, tokens, status, turn, kind]; insertion order is stream order
    blocks: dict[str, list] = {}
    conversation = 0  # tokens of what the request shows of the blocks
    n = 0

    def add(text: str, tokens: int, status: str, turn: int, kind: str) -> None:
        nonlocal n, conversation
        n += 1
        blocks[f"B{n}"] = [text, tokens, status, turn, kind]
        conversation += tokens

    def placeholder(bid: str, b: list, status: str) -> None:
        nonlocal conversation
        text = f"[{status} {bid}: {b[4]}, ~{b[1]} tokens]"
        tokens = count(text)
        conversation += tokens - b[1]
        b[0], b[1], b[2] = text, tokens, status

    def dashboard(turn: int) -> int:
        lines = [f"{bid} ~{b[1]} {turn - b[3]}r {b[4]} {b[2]}"
                 for bid, b in blocks.items()]
        return sum(count(line) for line in lines) + count(f"{used()} / {budget}")

    def used() -> int:
        return overhead + conversation

    add(task.statement, count(task.statement), "pinned", 0, "user_message")
    requests = input_tokens = offloaded = archived = 0
    correct = True
    for turn, step in enumerate(task.steps, start=1):
        requests += 1
        input_tokens += used() + dashboard(turn - 1)
        if step.kind != "observe":
            visible = [b[0] for b in blocks.values() if b[2] in ("visible", "pinned")]
            for key in step.needs:
                fact = task.facts[key]
                if not any(fact.extract(t) == fact.value for t in visible):
                    correct = False
            if step.kind == "final":
                break
        call = call_text(step.tool, step.args)
        add(call, count(call), "visible", turn, "tool_call")
        content = step.content if step.kind == "observe" else "ok\n"
        tokens = step.tokens if step.kind == "observe" and step.content else count(content)
        add(content, tokens, "visible", turn, "tool_result")
        if used() > budget:  # the budget check on every result
            bid = f"B{n}"
            placeholder(bid, blocks[bid], "offloaded")
            offloaded += 1
        if used() > knobs.trigger * budget:
            results = [(bid, b) for bid, b in blocks.items()
                       if b[4] == "tool_result" and b[2] == "visible"]
            for bid, b in results[:max(0, len(results) - knobs.keep)]:
                if used() <= knobs.target * budget:
                    break
                placeholder(bid, b, "archived")
                archived += 1
    return ReferenceResult(correct, requests, input_tokens, offloaded, archived)
