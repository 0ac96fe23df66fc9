"""One episode's set-up, decided once: the workspace's budget, its guard, the
dashboard, the context tools and the system prompt of a (program, budget B) episode
(ContextEvo Appendix B.1: the fixed harness adapter; VISTA §2.1-2.3).

:func:`sim.harness.run_episode` plays on the workspace this set-up describes, and the
sweep's budget pre-check (:func:`experiments.sweep.check_budgets`) measures the fixed
overhead of that same workspace, so the two cannot drift apart.

The budget rule (DESIGN.md "The budget rule"): every request of every program is at
most B tokens when it is sent, and the program's request assembly holds it there:
:meth:`sim.policies.base.ContextProgram.request_assembly` drops the oldest unpinned
items (LOCA-bench's last-resort rule), and every built-in program's request assembly
ends with it. The workspace is given B as well, so that its wire-payload guard
offloads a tool result that would break it, exactly where the program shows payload
handles (:data:`GUARDED`); a program that shows none is exempt from the guard
(:data:`EXEMPT`), because an offloaded result would be bytes its agent has no handle
to read. ``tests/test_episode_setup.py`` checks, per program, which enforcer holds it
and that no request of an episode exceeds B under either.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sim.workspace import ConfigError, WorkspaceOptions
from sim.workspace.assembly import default_system_prompt
from sim.workspace.rules import check_budget

PLAIN_PROMPT = ("You are a tool-using agent. Complete the task with the tools provided; "
                "report exact values.")
REWORDED_PROMPT = (
    "CONTEXT TOOLS: each turn a <context_workspace_status> map lists your context blocks."
    " Call the context tools only when you really need them; do not move content out "
    "just because it is old or big, and keep it visible while the budget allows. "
    "Placeholders stand for large payloads; open the originals only when needed, with "
    "the ordinary file or terminal tools. Query structured data from its source.")

#: why a program that shows payload handles gives the workspace its budget
GUARDED = ("it shows payload handles, so the workspace is given B and its wire-payload "
           "guard offloads a tool result that would break B to a placeholder whose "
           "handle the agent can read back (VISTA §2.3); its request assembly trims "
           "what is still over")
#: why a program that shows no payload handle is exempt from the workspace's guard
EXEMPT = ("it shows no payload handle, so it is exempt from the workspace's guard: an "
          "offloaded result would be bytes its agent has no handle to read back (a "
          "silent loss the LOCA-bench baselines never make: they keep, clear, mask, "
          "summarize or trim); its request assembly alone holds the request to B")


def system_prompt(program, budget: int) -> str:
    """The system prompt of ``program``'s protocol under budget ``budget`` (tokens):
    VISTA's protocol with its budget notice, the reworded ablation's, or the plain
    tool-agent prompt (``program.protocol``: "vista", "reworded", anything else)."""
    if program.protocol == "vista":
        return default_system_prompt(budget)
    if program.protocol == "reworded":
        return (f"{REWORDED_PROMPT}\nContext window: <budget:token_budget>{budget}"
                f"</budget:token_budget>")
    return PLAIN_PROMPT


@dataclass(frozen=True)
class EpisodeSetup:
    """How one episode's workspace is set up (see the module doc).

    ``budget``: B in tokens, what every request is held to. ``guard``: the workspace
    is given B (its wire-payload guard offloads over-budget results); False: only the
    program's request assembly holds B. ``reason``: which of :data:`GUARDED` and
    :data:`EXEMPT` applies. ``dashboard``, ``system_prompt``, ``context_tools``: as
    for :class:`sim.workspace.WorkspaceOptions`.
    """

    budget: int
    guard: bool
    reason: str
    dashboard: str
    system_prompt: str
    context_tools: bool

    @classmethod
    def of(cls, program, budget: int) -> "EpisodeSetup":
        """The set-up of ``program`` (a :class:`sim.policies.base.ContextProgram`) under
        budget ``budget`` (tokens). Raises :class:`sim.workspace.ConfigError` for a
        budget that is not an int >= 1."""
        if budget is None:
            raise ConfigError("an episode's budget must be an int >= 1 (tokens), got "
                              "None (unlimited)")
        check_budget(budget)
        guard = bool(program.show_handles)
        return cls(budget=budget, guard=guard, reason=GUARDED if guard else EXEMPT,
                   dashboard=program.dashboard,
                   system_prompt=system_prompt(program, budget),
                   context_tools=bool(program.agent_tools))

    @property
    def workspace_budget(self) -> int | None:
        """The budget the workspace is given: B when guarded, else None (unlimited)."""
        return self.budget if self.guard else None

    def workspace_options(self, tokenizer="cl100k_base") -> WorkspaceOptions:
        """The episode workspace's options: soft (the workspace warns and never
        refuses a request: the program's request assembly holds it to B), no fsync
        (a thrown-away workspace), ``tokenizer`` (a
        :class:`~sim.workspace.tokenizer.Tokenizer` or a name)."""
        return WorkspaceOptions(budget=self.workspace_budget, tokenizer=tokenizer,
                                strict=False, dashboard=self.dashboard,
                                system_prompt=self.system_prompt, sync=False,
                                context_tools=self.context_tools)

    def check_overhead(self) -> None:
        """Raise :class:`sim.workspace.ImpossibleBudgetError` (a ``ConfigError``,
        naming the least budget) if B cannot hold this workspace's fixed overhead
        (system prompt, tool schemas, empty dashboard): no request could fit,
        whichever enforcer holds the episode to B. Builds a throwaway in-memory
        workspace with budget B (nothing is written)."""
        from sim.workspace.memory import scratch_workspace

        scratch_workspace(replace(self.workspace_options(), budget=self.budget)).close()

