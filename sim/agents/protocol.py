"""The agent protocol: one assembled view in, one action out.

Shared by the synthetic agents here and the LLM agent (a later issue): the harness
assembles a :class:`View` (the model-visible stream, the dashboard if the context
program renders one, budget facts a real harness would print, and the tool list) and
the agent returns one :class:`Action`: a task tool call, a context tool call (archive,
delete, recover) or the final answer. Source: DESIGN.md "Agents"; VISTA §2.3-2.4.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

#: action kinds
TASK, ARCHIVE, DELETE, RECOVER, ANSWER = "task", "archive", "delete", "recover", "answer"
CONTEXT_KINDS = frozenset({ARCHIVE, DELETE, RECOVER})


@dataclass(frozen=True)
class Entry:
    """One item of the model-visible stream.

    Attributes:
        id: block id (``"B7"``), group id (``"G2"``) or ``""`` for harness text.
        type: block type (``"tool_result"``, ``"summary"``, ...).
        status: ``"visible"``, ``"pinned"``, ``"archived"``, ``"offloaded_placeholder"``
            or ``"masked"`` (a program's irreversible marker).
        text: exactly what the model reads for this item (placeholder text when not
            visible).
        tokens: tokens the item costs in the request.
        handle: payload path shown to the agent, or None (none, or hidden by the
            program as in the no-recover ablation).
        source_call: the task call (``"tool(args)"``) that produced a tool result, when
            the stream shows it.
        turn: root turn it entered.
    """

    id: str
    type: str
    status: str
    text: str
    tokens: int
    handle: str | None = None
    source_call: str = ""
    turn: int = 0


@dataclass(frozen=True)
class LedgerRow:
    """One dashboard row (VISTA dashboard format): exact tokens, age in root turns,
    type, compression level, parent, status. Only present when a dashboard is shown."""

    id: str
    tokens: int
    age: int
    type: str
    level: int
    parent: str
    status: str


@dataclass(frozen=True)
class View:
    """The assembled request as an agent sees it.

    Attributes:
        entries: the stream in request order.
        budget: the context budget B in tokens (the protocol states it).
        dashboard: rendered dashboard text, or None when the program shows none.
        ledger: the rows behind ``dashboard`` (same numbers), or None.
        used_tokens: request tokens as the dashboard reports them; None without one.
        notice: harness notice (e.g. a result offloaded because it would overflow).
        tools: names of the tools offered this turn (task tools and context tools).
        turn: current root turn.
        ledger_remainder: ``(count, tokens, oldest_age)`` of the items a bounded
            dashboard does not list as rows (tokens; age in root turns), or None when
            every item has a row (full ledger) or there is no dashboard.
    """

    entries: tuple[Entry, ...]
    budget: int
    dashboard: str | None = None
    ledger: tuple[LedgerRow, ...] | None = None
    used_tokens: int | None = None
    notice: str | None = None
    tools: frozenset[str] = frozenset()
    turn: int = 0
    ledger_remainder: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class Action:
    """One agent action.

    Attributes:
        kind: ``task``, ``archive``, ``delete``, ``recover`` or ``answer``.
        tool: task tool name (``task``/``answer``).
        args: tool arguments text; for ``use``/``answer`` steps, the values given.
        block_ids: block-id spec for archive/delete (``"B3,B4"``, ``"B10-B20"``).
        replacement: index text for archive, reason for delete.
        handle: payload path to read (recover).
        key: the evidence key a recovery looks for (a bounded read, VISTA §2.4).
        text: assistant text accompanying the call (reasoning, restated facts).
        values: key -> exact value given by a ``use``/``answer`` action.
    """

    kind: str
    tool: str = ""
    args: str = ""
    block_ids: str = ""
    replacement: str = ""
    handle: str = ""
    key: str = ""
    text: str = ""
    values: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class Agent(Protocol):
    """Anything that turns a view into an action.

    ``reset`` starts an episode with the task (the synthetic agent reads its script; an
    LLM agent reads the statement); ``act`` is called once per model request.
    """

    name: str

    def reset(self, task, seed: int) -> None:
        """Start an episode of ``task`` with randomness from ``seed``."""

    def act(self, view: View) -> Action:
        """Return the next action for ``view``."""
