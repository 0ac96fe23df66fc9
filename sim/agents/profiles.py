"""Skill profiles of synthetic agents: stand-ins for different backbones.

A profile fixes how well an agent perceives a block's size from its content
(``sigma``, the content-channel noise of Proposition 2), how cautiously it frees
tokens when its sizes are uncertain (``free_z``), how many reads it spends looking
for an archived value, how often it restates evidence in its own reasoning or
knowledge notes, its archive trigger/target as fractions of the budget, and a base
error rate for failures unrelated to context (VISTA §3.3: even at 8K the methods solve
84-87%, not 100%).

A profile belongs to the agent, never to a program: no field is keyed by a program,
a dashboard or an interface. What a program changes is what the agent observes
(:mod:`sim.agents.synthetic`); ``tests/agents/test_honest_agents.py`` enforces it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Profile:
    """Synthetic-agent skill parameters (probabilities in [0, 1], fractions of B).

    Attributes:
        name: profile label.
        sigma: content-channel noise: perceived size ``exp(ln s + sigma * eps)``.
        free_z: standard deviations of its log-size uncertainty the agent guards
            against when choosing how much one archive call frees (0: trust the
            estimates; an exact ledger row has none, so it does not matter there).
        p_note: P(restate a newly seen evidence line in the next reasoning message).
        p_knowledge: P(include a visible fact in a knowledge block / fold summary).
        base_error: P(the task fails for reasons unrelated to context).
        archive_at: archive when used (or perceived) tokens exceed this fraction of B.
        archive_to: archive down to this fraction of B.
        keep_recent: never archive the newest this many tool results.
        max_attempts: recovery reads per needed value (named handles first, then a
            search of the other archived items; each read is a real recovery).
        max_context_actions: context tool calls per turn (a loop guard).
    """

    name: str = "medium"
    sigma: float = 1.0
    free_z: float = 1.0
    p_note: float = 0.3
    p_knowledge: float = 0.75
    base_error: float = 0.13
    archive_at: float = 0.85
    archive_to: float = 0.6
    keep_recent: int = 2
    max_attempts: int = 3
    max_context_actions: int = 8

    def with_(self, **changes) -> "Profile":
        """A copy with ``changes`` applied (dataclasses.replace)."""
        return replace(self, **changes)


#: Named profiles (different "backbones").
PROFILES: dict[str, Profile] = {
    "strong": Profile("strong", sigma=0.7,
                      p_note=0.4, p_knowledge=0.85, base_error=0.08),
    "medium": Profile(),
    "weak": Profile("weak", sigma=1.5,
                    p_note=0.2, p_knowledge=0.6, base_error=0.2),
}


def get_profile(name: str) -> Profile:
    """The named profile.

    Raises:
        KeyError: naming the known profiles, for an unknown name.
    """
    try:
        return PROFILES[name]
    except KeyError:
        raise KeyError(f"unknown profile {name!r}; known: {sorted(PROFILES)}") from None
