"""Skill profiles of synthetic agents: stand-ins for different backbones.

A profile holds every behaviour of the synthetic agent that is not certain: how well
it perceives a block's size from content (``sigma``, Proposition 2's content channel)
or reads a ledger row (``p_row_read``), how cautiously it frees tokens
(``free_z``), its archive trigger and target, its own masking window
(``keep_recent``), how completely its archive index lists the evidence it read
(``p_index``), how often and how faithfully it restates evidence (``p_note``,
``p_note_exact``), what a summary keeps (``p_knowledge``), how many reads it spends
searching an archive (``max_attempts``), how using a visible fact degrades with the
request's length (``ctx_drop_max``, ``ctx_half_tokens``, ``ctx_shape``), what it
answers for a value it cannot use (``p_confabulate``) and a base error rate for
failures unrelated to context (VISTA §3.3: even at 8K the methods solve 84-87%).

Every field's prior range, unit and source is in :mod:`sim.world` (``ctxsim world``);
:func:`sim.world.world_at` builds a profile from any point of that table.

A profile belongs to the agent, never to a program: no field is keyed by a program,
a dashboard or an interface. What a program changes is what the agent observes
(:mod:`sim.agents.synthetic`); ``tests/agents/test_honest_agents.py`` enforces it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Profile:
    """Synthetic-agent skill parameters (probabilities in (0, 1), fractions of B).

    Attributes:
        name: profile label.
        sigma: content-channel noise: perceived size ``exp(ln s + sigma * eps)``.
        p_row_read: P(a ledger row's size is read correctly); a misread row leaves
            that block on the content channel.
        free_z: standard deviations of its log-size uncertainty the agent guards
            against when choosing how much one archive call frees.
        p_index: P(an evidence key read in a block is listed in the replacement text
            the agent writes when archiving that block), per key and block.
        p_note: P(restate a newly seen evidence line in the next reasoning message).
        p_note_exact: P(a restated value is copied exactly; else a wrong copy).
        p_knowledge: P(include a visible fact in a knowledge block / fold summary).
        p_confabulate: P(a value the agent cannot use, out of view or missed in a long
            request, is answered with a plausible wrong value; else it abstains).
        ctx_drop_max: the share of visible facts misused as the request grows without
            bound (the long-context degradation curve, :meth:`p_use`).
        ctx_half_tokens: request tokens at which half that drop is reached.
        ctx_shape: steepness (Hill exponent) of the degradation curve.
        base_error: P(the task fails for reasons unrelated to context).
        archive_at: archive when used (or perceived) tokens exceed this fraction of B.
        archive_to: archive down to this fraction of B.
        keep_recent: the agent's masking window: it never archives the newest this
            many tool results while observing.
        max_attempts: recovery reads per needed value (named handles first, then a
            search of the other archived items; each read is a real recovery).
        max_context_actions: context tool calls per turn (a loop guard).
    """

    name: str = "medium"
    sigma: float = 0.9
    p_row_read: float = 0.97
    free_z: float = 1.0
    p_index: float = 0.6
    p_note: float = 0.3
    p_note_exact: float = 0.9
    p_knowledge: float = 0.75
    p_confabulate: float = 0.5
    ctx_drop_max: float = 0.5
    ctx_half_tokens: float = 128_000.0
    ctx_shape: float = 1.5
    base_error: float = 0.12
    archive_at: float = 0.85
    archive_to: float = 0.6
    keep_recent: int = 2
    max_attempts: int = 3
    max_context_actions: int = 8

    def with_(self, **changes) -> "Profile":
        """A copy with ``changes`` applied (dataclasses.replace)."""
        return replace(self, **changes)

    def p_use(self, request_tokens: float) -> float:
        """P(a fact visible in a request of ``request_tokens`` tokens is used
        correctly): ``1 - ctx_drop_max * x^k / (1 + x^k)`` with
        ``x = request_tokens / ctx_half_tokens`` and ``k = ctx_shape``. Equals 1 at 0
        tokens, ``1 - ctx_drop_max / 2`` at ``ctx_half_tokens``, and falls
        monotonically; the prior ranges (sim.world) come from RULER, NoLiMa and
        "Lost in the Middle"."""
        if request_tokens <= 0:
            return 1.0
        xk = math.exp(self.ctx_shape * math.log(request_tokens / self.ctx_half_tokens))
        return 1.0 - self.ctx_drop_max * xk / (1.0 + xk)


#: Named profiles (different "backbones"): the default point of the world table
#: ("medium") and two points inside its prior ranges.
PROFILES: dict[str, Profile] = {
    "strong": Profile("strong", sigma=0.6, p_index=0.8, p_note=0.4, p_knowledge=0.85,
                      ctx_drop_max=0.35, ctx_half_tokens=200_000.0, base_error=0.08),
    "medium": Profile(),
    "weak": Profile("weak", sigma=1.25, p_index=0.4, p_note=0.2, p_knowledge=0.6,
                    ctx_drop_max=0.7, ctx_half_tokens=64_000.0, base_error=0.18),
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
