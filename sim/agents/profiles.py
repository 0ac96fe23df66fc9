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
    "the Hill curve fitted per model (experiments/priors/degradation.py) to NoLiMa "
    "(Modarressi et al. 2025, arXiv:2502.05167) Table 3, 12 models at 1K-32K (half-"
    "points 4.2K-28K; GPT-4o 25K), and RULER's (Hsieh et al. 2024, arXiv:2404.06654) "
    "main table, 22 models claiming >= 128K at 4K-128K (4 whose half-point lies past "
    "4 x 128K are not identified); the prior spans the 30 identified fits: drop "
    "0.10-1.0, half-point 4.2K-512K (the range rounds out to 520K), Hill exponent "
    "0.53-4.3, the half-point log-uniform (the fits spread over two decades); our keys "
    "match literally "
    "(easier than NoLiMa)")

#: why the summariser's fidelity is a wide guess
SUMMARY_SOURCE = (
    "guess: ACON (Kang et al. 2025, arXiv:2510.00615), Focus and ReSum (Wu et al. "
    "2025, arXiv:2509.13313) report that summaries lose exact values, without a "
    "per-value retention rate; FABLES (Kim et al. 2024, arXiv:2404.01261) rates "
    "claim faithfulness of book summaries, not exact-value retention; the defaults "
    "are the constants the summarizer had before (0.5 exact, 0.2 inexact)")


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
        summary_p_exact: P(a salient line survives the summarization program's
            summary verbatim).
        summary_p_garble: P(a line not kept verbatim survives as an inexact
            paraphrase; else dropped), so P(inexact) is
            ``summary_p_garble * (1 - summary_p_exact)`` (:attr:`summary_p_approx`).
        p_confabulate: P(a value the agent cannot use, out of view or missed in a long
            request, is answered with a plausible wrong value; else it abstains).
        ctx_drop_max: the share of visible facts misused as the request grows without
            bound (the long-context degradation curve, :meth:`p_use`).
        ctx_half_tokens: request tokens at which half that drop is reached.
        ctx_shape: steepness (Hill exponent) of the degradation curve.
        base_error: P(the task fails for reasons unrelated to context).
        archive_at: archive when used (or perceived) tokens exceed this fraction of B.
        archive_to: archive down to this fraction of B.
        max_refusals: refused recoveries of one value the agent answers by freeing
            the overshoot the refusal states and retrying; the next refusal gives
            the value up for the step.
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
    sigma: float = world_param(0.9, 0.67, 1.7, "sd of ln tokens",
            "VISTA Table 5: without the dashboard, median relative size error 0.43-0.84 "
            "over four backbones; median |exp(sigma Z) - 1| is 0.43 at sigma 0.674 and "
            "0.84 at 1.698 (experiments/priors/sigma.py)",
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
    p_confabulate: float = world_param(0.5, 0.206, 0.991, _P,
            "SimpleQA (Wei et al. 2024, arXiv:2411.04368) Table 3: incorrect / "
            "(incorrect + not attempted) over six models runs 0.21 (Claude-3-haiku) to "
            "0.99 (GPT-4o-mini) (experiments/priors/confabulation.py)",
            "a value it cannot use is answered wrongly (else it abstains)")
    ctx_drop_max: float = world_param(0.5, 0.1, 1.0, _P, LONG_CONTEXT_SOURCE,
            "share of visible facts misused as the request grows without bound")
    ctx_half_tokens: float = world_param(128_000.0, 4_200.0, 520_000.0, "tokens",
            LONG_CONTEXT_SOURCE, "request tokens at which half that drop is reached",
            log=True)
    ctx_shape: float = world_param(1.5, 0.53, 4.3, "Hill exponent", LONG_CONTEXT_SOURCE,
            "steepness of the degradation curve")
    base_error: float = world_param(0.12, 0.08, 0.2, _P,
            "VISTA §3.3: at 8K growth the methods solve 84.0-86.7% of LOCA-Bench",
            "the task fails for reasons unrelated to context")
    # -- the summariser (issue 31, "Every number in the table"): the summarization
    # program's summary is written by the model, so its fidelity is the agent's,
    # read by sim.policies.summarize; the two are parametrised so that every point
    # of the table is a valid summariser (P(exact) + P(inexact) <= 1)
    summary_p_exact: float = world_param(0.5, 0.1, 0.9, _P, SUMMARY_SOURCE,
            "a salient key: value line survives a summary verbatim")
    summary_p_garble: float = world_param(0.4, 0.0, 0.8, _P, SUMMARY_SOURCE,
            "a line that does not survive verbatim survives as an inexact paraphrase "
            "(else it is dropped): P(inexact) = summary_p_garble x (1 - summary_p_exact)")
    archive_at: float = world_param(0.85, 0.7, 0.97, "fraction of B",
            "guess: when a model starts freeing room (VISTA's protocol leaves it to the "
            "model)", "archive trigger")
    archive_to: float = world_param(0.6, 0.3, 0.65, "fraction of B",
            "guess: how far a model frees once it starts", "archive target")
    # issue 31, "Every number in the table": how often the agent retries a refused
    # recovery (a constant 3 in sim/agents/synthetic.py before)
    max_refusals: int = world_param(3, 1, 8, "refusals per value",
            "guess: no measurement of how often a model frees room and retries a "
            "recovery the workspace refused before giving the value up",
            "refused recoveries of one value answered by freeing room and retrying "
            "(the next refusal gives the value up for the step)", integer=True)
    keep_recent: int = world_param(2, 0, 5, "tool results",
            "guess: models rarely archive what they just read", "the agent's masking "
            "window: the newest results it never archives", integer=True)
    max_attempts: int = world_param(3, 1, 8, "reads per value",
            "guess: no measurement of the reads a model spends searching an archive for "
            "one value; VISTA Fig. 8b's 105 recoveries over 75 tasks count recoveries "
            "per task, not reads per value, and bound neither end",
            "recovery reads spent searching for one value",
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

    @property
    def summary_p_approx(self) -> float:
        """P(a salient line survives a summary with an inexact value):
        ``summary_p_garble * (1 - summary_p_exact)`` (0.2 at the defaults, exactly:
        the halving of 0.4 is exact in binary)."""
        return self.summary_p_garble * (1.0 - self.summary_p_exact)

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
    "strong": Profile("strong", sigma=0.7, p_index=0.8, p_note=0.4, p_knowledge=0.85,
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
