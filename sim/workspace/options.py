"""A workspace's settings, declared once: :class:`WorkspaceOptions` (VISTA §2.1-2.3:
the budget, the tokenizer that counts it, strict or soft assembly, the dashboard
variant, the system prompt and tools that make up the fixed overhead, the
wire-payload guard's threshold; DESIGN.md "The block workspace contract").

``Workspace(directory, options)`` creates a workspace with them and
``Workspace.open(directory, ...)`` reopens one (its budget defaulting to the journaled
one); the keyword form ``Workspace(directory, budget=...)`` is shorthand for
``Workspace(directory, WorkspaceOptions(budget=...))``, so every default lives here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .tokenizer import Tokenizer


@dataclass(frozen=True)
class WorkspaceOptions:
    """How a workspace counts, checks and renders.

    ``budget``: B in tokens (None: unlimited; else an int >= 1). ``tokenizer``: a
    :class:`~sim.workspace.tokenizer.Tokenizer` or a name (default cl100k_base).
    ``strict``: refuse an over-budget request (else warn). ``dashboard``: "ledger",
    "status_board", "none" or a bounded-ledger spec. ``system_prompt``: overhead text
    (None: VISTA's protocol plus a budget notice). ``tools``: task-tool schemas
    (OpenAI function format); the context tools are added when ``context_tools``.
    ``guard_threshold``: tool results above this many tokens are offloaded on entry
    (None: only when they would break the budget). ``sync``: fsync payloads and
    journal. ``read_only``: refuse every change (what ``Workspace.open(...,
    read_only=True)`` sets: a reader beside a live writer). Values are checked by
    the workspace that takes them (:class:`~sim.workspace.errors.ConfigError`,
    :class:`~sim.workspace.errors.WorkspaceError`), before anything is created.
    """

    budget: int | None = None
    tokenizer: Tokenizer | str = "cl100k_base"
    strict: bool = True
    dashboard: str = "ledger"
    system_prompt: str | None = None
    tools: list[dict] | None = None
    guard_threshold: int | None = None
    sync: bool = True
    context_tools: bool = True
    read_only: bool = False

    @classmethod
    def given(cls, options: "WorkspaceOptions | None",
              settings: dict[str, Any]) -> "WorkspaceOptions":
        """``options``, or options made from keyword ``settings`` (field names;
        ``TypeError`` names an unknown one). Raises :class:`ConfigError` if both are
        given, or if ``options`` is not a :class:`WorkspaceOptions`."""
        if options is None:
            return cls(**settings)
        if not isinstance(options, cls):
            raise ConfigError(f"workspace options must be a WorkspaceOptions, got "
                              f"{options!r:.60}")
        if settings:
            raise ConfigError(f"give workspace options or keyword settings, not both "
                              f"(got options and {', '.join(sorted(settings))})")
        return options
