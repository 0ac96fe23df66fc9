"""Skill profiles of synthetic agents: stand-ins for different backbones.

A profile holds every behaviour of the synthetic agent that is not certain: how well
it perceives a block's size from content (``sigma``, Proposition 2's content channel)
or reads a ledger row (``p_row_read``), how cautiously it frees tokens
(``free_z``), its archive trigger and target, its own masking window
(``keep_recent``), how completely its archive index lists the evidence it read
(``p_index``), how often and how faithfully it restates evidence (``p_note``,
``p_note_exact``), what a summary keeps (``p_knowledge``), how many reads it spends
searching an archive (``max_attempts``), whether a read goes to the archived item
its view names (``p_find_target``) and whether it reads again after a miss
(``p_retry``), how using a visible fact degrades with the
request's length (``ctx_drop_max``, ``ctx_half_tokens``, ``ctx_shape``), what it
answers for a value it cannot use (``p_confabulate``) and a base error rate for
failures unrelated to context (VISTA §3.3: even at 8K the methods solve 84-87%).

Every field is declared once, with its default, prior range, unit and source
(:func:`sim.world_param.world_param`): those declarations are the agent rows of the
world table (:mod:`sim.world`, ``ctxsim world``), and :func:`sim.world.world_at`
builds a profile from any point of that table.

A profile belongs to the agent, never to a program: no field is keyed by a program,
a dashboard or an interface. What a program changes is what the agent observes
(:mod:`sim.agents.synthetic`); ``tests/agents/test_honest_agents.py`` enforces it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from sim.world_param import PROBABILITY as _P
from sim.world_param import world_param
#: the long-context evaluations the degradation curve's prior comes from
LONG_CONTEXT_SOURCE = (
    "RULER (Hsieh et al. 2024, arXiv:2404.06654): of 17 models claiming >= 32K, only "
    "half stay satisfactory at 32K, and almost all drop as length grows; NoLiMa "
    "(Modarressi et al. 2025, arXiv:2502.05167): at 32K GPT-4o falls from 99.3% to "
    "69.7%, Llama 3.3 70B from 97.3% to 42.7%, 10 of 12 models below half their "
    "short-context score; our keys match literally (easier than NoLiMa), so the "
    "range spans RULER-like mild to NoLiMa-like steep declines")


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
        p_find_target: P(a recovery read goes to the archived item the view names
            for the value, an index entry listing its key or its source call; else
            the read goes to another archived item), per read.
        p_retry: P(after a recovery read that did not show the value, the agent
            reads again, up to ``max_attempts``; else it answers without the value),
            per failed read.
    """

    name: str = "medium"
    sigma: float = world_param(0.9, 0.5, 1.3, "sd of ln tokens",
            "VISTA Table 5: without the dashboard, median relative size error 0.43-0.84 "
            "over four backbones; lognormal noise of sd 0.55-1.2 gives that median",
            "content-channel noise of a size estimate (Proposition 2)")
    p_row_read: float = world_param(0.97, 0.9, 0.999, _P,
            "VISTA Table 5: with the ledger, block-size error 0-0.02 and total-size "
            "error 0 on all four backbones",
            "a ledger row's size is read correctly (else the block is judged by content)")
    free_z: float = world_param(1.0, 0.0, 2.0, "standard deviations",
            "guess: how cautious a freeing step is; no measurement",
            "log-size uncertainty guarded against when choosing how much to free")
    p_index: float = world_param(0.6, 0.1, 0.95, _P,
            "guess: no measurement of how completely a model lists the values an "
            "archived result holds in its replacement text",
            "each evidence key read in a block is listed in the archive index")
    p_note: float = world_param(0.3, 0.05, 0.8, _P,
            "guess: how often a model restates an exact value in its reasoning",
            "a newly seen evidence line is restated in the next message")
    p_note_exact: float = world_param(0.9, 0.6, 0.99, _P,
            "guess: copy errors of restated identifiers and numbers",
            "a restated value is copied exactly (else a one-digit-off copy)")
    p_knowledge: float = world_param(0.75, 0.4, 0.95, _P,
            "guess: summaries keep most but not all exact values (ACON/Focus report "
            "lossy summaries without a per-value rate)",
            "a visible fact is kept in a knowledge block / fold summary")
    p_confabulate: float = world_param(0.5, 0.1, 0.9, _P,
            "guess: answering with a plausible value vs abstaining when the value is "
            "not found; varies widely across models",
            "a value it cannot use is answered wrongly (else it abstains)")
    ctx_drop_max: float = world_param(0.5, 0.1, 0.9, _P, LONG_CONTEXT_SOURCE,
            "share of visible facts misused as the request grows without bound")
    ctx_half_tokens: float = world_param(128_000.0, 32_000.0, 512_000.0, "tokens",
            LONG_CONTEXT_SOURCE, "request tokens at which half that drop is reached")
    ctx_shape: float = world_param(1.5, 0.7, 3.0, "Hill exponent", LONG_CONTEXT_SOURCE,
            "steepness of the degradation curve")
    base_error: float = world_param(0.12, 0.08, 0.2, _P,
            "VISTA §3.3: at 8K growth the methods solve 84.0-86.7% of LOCA-Bench",
            "the task fails for reasons unrelated to context")
    archive_at: float = world_param(0.85, 0.7, 0.97, "fraction of B",
            "guess: when a model starts freeing room (VISTA's protocol leaves it to the "
            "model)", "archive trigger")
    archive_to: float = world_param(0.6, 0.3, 0.65, "fraction of B",
            "guess: how far a model frees once it starts", "archive target")
    keep_recent: int = world_param(2, 0, 5, "tool results",
            "guess: models rarely archive what they just read", "the agent's masking "
            "window: the newest results it never archives", integer=True)
    max_attempts: int = world_param(3, 1, 6, "reads per value",
            "guess: VISTA Fig. 8b has 105 recoveries over 75 tasks (~1.4 per task), a "
            "lower bound on attempts", "recovery reads spent searching for one value",
            integer=True)
    max_context_actions: int = world_param(8, 4, 16, "calls per turn",
            "guess: a loop guard, not a behaviour; results do not depend on it unless "
            "it binds", "context tool calls per turn", integer=True)
    # -- recovery as a mechanism (issue 31): which archived item a read goes to, and
    # whether a read that missed is followed by another
    p_find_target: float = world_param(0.8, 0.4, 0.97, _P,
            "the embedded model's recovery probe (figures/calibration.json, "
            "qwen2.5-coder-1.5b, archived results whose index names each key): 7 of 10 "
            "decisions named the right handle, Wilson 95% [0.40, 0.89] (1 read a wrong "
            "one, 2 answered without a read: 7 of 8 reads right); choosing among several "
            "offered calls (BFCL, Yan et al. 2024; ToolBench, Qin et al. 2023) is "
            "better for large models and unmeasured for this choice, so the range runs "
            "from the probe's lower bound to 0.97; default between 0.70 and 7/8",
            "a recovery read goes to the archived item the view names for the value "
            "(else to another archived item)")
    p_retry: float = world_param(0.7, 0.3, 0.95, _P,
            "guess: no measurement of re-reading after a read that missed; the nearest, "
            "the recovery probe's share that recovers at all rather than answering, is "
            "8 of 10 (Wilson [0.49, 0.94]) for a first read",
            "after a recovery read that did not show the value, the agent reads again "
            "(else it answers without it)")

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
