"""LOCA-like task families as documented parameter sets (issue 17; DESIGN.md "The
synthetic world").

Five archetypes, each producing one pathology whose correct fix differs from the
others', in three variants (1-3 facts, small to bulky results): 15 families, as
LOCA-bench's suite (VISTA §3.3). The family names are labels only.

=========  ========================================  ===================================
archetype  structure                                 pathology, and the fix it needs
=========  ========================================  ===================================
overflow   small lookups early, bulky results after  the request overflows and one-way
                                                     truncation loses the early evidence:
                                                     archive and recover
buried     the evidence line sits in a large export  largest-first archiving hits the
           table (``buried_scale`` x the median)     evidence itself: recover it, or
                                                     archive by value, not by size
stale      a later record supersedes each value      the old value stays in view (or in a
           (the latest is right)                     note) after the update is archived:
                                                     recover the latest, keep recent
churn      three intermediate writes need the        evidence archived between uses must
           evidence, spread over the task            be recovered again (over-archiving
                                                     churn; a trigger firing too early):
                                                     a later, gentler trigger
late       the evidence arrives late (80% of the     arrives when the request is fullest:
           results), no intermediate write           a trigger firing too late overflows
                                                     at its arrival (offloaded unseen, or
                                                     read amid the longest request): an
                                                     earlier trigger
=========  ========================================  ===================================

Overflow and churn values may also sit in bulk data (``TaskParams.p_late_reuse``):
read early from a result drawn from the size-biased law (:mod:`sim.tasks.size_law`), so
largest-first archiving takes it under pressure, and needed again late (every later
write and the answer): archive, then recover.

Every numeric knob shared by the families (the size law's spread, the jitter of the
growth, the superseded and distractor rates, the buried scale, the bulk share) is a parameter of
:class:`TaskParams` with a prior range and source in :mod:`sim.world`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sim.world_param import PROBABILITY, world_param

#: the five archetypes, in family order (family i has archetype i % 5)
ARCHETYPES = ("overflow", "buried", "stale", "churn", "late")
#: 15 families, named after LOCA-bench-like workflows (names are labels only)
FAMILIES = ("canvas_grades", "orders_reconcile", "calendar_merge", "inventory_audit",
            "ticket_triage", "payroll_check", "shipment_trace", "crm_dedupe",
            "invoice_match", "sheet_rollup", "repo_release", "lab_results",
            "travel_budget", "course_enroll", "vendor_quotes")


@dataclass(frozen=True)
class TaskParams:
    """The task-generation parameters shared by every family. Each field is a row
    of the world table (``task.<field>``, :mod:`sim.world`), its default, prior
    range, unit and source declared once here (:func:`sim.world_param.world_param`).

    Attributes:
        size_sd: sd of ln(tokens) of every tool result (evidence and distractors),
            whose shape is the empirical law of the shipped trajectories' tool
            results (:mod:`sim.tasks.size_law`; no fitted law passes its KS test:
            experiments/priors/sizes.py).
        growth_jitter: each instance realises ``growth * U(1 - j, 1 + j)``.
        buried_scale: median size of an evidence table relative to the family's
            median result (buried archetype).
        max_result_ratio: the largest tool result relative to the family's median
            (the size law is clipped there, and at a share of the task's growth).
        phase_steps: steps per task phase (a scope: folding folds each finished one).
        p_superseded: P(a fact of a non-stale family is superseded later) (a stale
            family supersedes every fact).
        distractors_per_fact: mean number of lines with the same field for another
            entity (Poisson), spread over the other results.
        p_late_reuse: P(a value of a family with ``bulk_reuse`` that is not
            superseded sits in bulk data: the result holding it is drawn from the
            size-biased law, :func:`sim.tasks.size_law.draw_size`), per value, the same at every
            growth level. Such a value arrives early (the family's ``arrival``) and
            is needed again by every later write and the answer.
    """

    size_sd: float = world_param(
        1.637, 1.0, 2.2, "sd of ln tokens",
        "the size law is the empirical distribution of the 418 real tool results in "
        "the shipped trajectories (sim/tasks/size_law.py), since no fitted law passes "
        "KS at 5% (lognormal D 0.189 vs 0.044 with its parameters estimated; "
        "log-logistic 0.169, generalized Pareto 0.164, Weibull 0.203, gamma 0.250 vs "
        "0.066; 43 results of 22 tokens force D >= 0.051 for any continuous law: "
        "experiments/priors/sizes.py); their ln-sd is 1.637 (bootstrap 95% CI "
        "1.53-1.74), and another value stretches the empirical ln-shape; guess: the "
        "range allows for LOCA-Bench's different tools (381 of the 418 come from one "
        "pi session)",
        "spread of every tool result's size, evidence included")
    growth_jitter: float = world_param(
        0.25, 0.05, 0.5, "fraction",
        "guess: LOCA-Bench tasks at one growth level differ in length",
        "each instance realises growth x U(1 - j, 1 + j)")
    buried_scale: float = world_param(
        3.0, 1.0, 8.0, "ratio",
        "guess: an export table is several ordinary results long",
        "median size of a buried evidence table relative to the family's median")
    # issue 31, "Every number in the table": the size law's clip (a constant 12 in
    # sim/tasks/loca.py before); the arithmetic: tests/tasks/test_result_ratio.py
    max_result_ratio: float = world_param(
        12.0, 4.0, 430.0, "ratio",
        "guess: where a tool's largest result stops; of the 418 tool results in the "
        "shipped trajectories 65 (15.6%) exceed 12x their median (24 tokens) and the "
        "largest is 427x, so the range reaches that ratio (tests/tasks/"
        "test_result_ratio.py)",
        "largest tool result relative to the family's median (the size law's clip)",
        log=True)
    # issue 31: the length of a task phase (a constant 6 in sim/tasks/loca.py before)
    phase_steps: int = world_param(
        6, 3, 24, "steps",
        "guess: how many calls one subtask of a workflow takes; no measurement",
        "steps per task phase (the scope Context-Folding folds on return)",
        integer=True)
    p_superseded: float = world_param(
        0.15, 0.02, 0.5, PROBABILITY,
        "guess: how often a workflow's record is updated later",
        "a value of a non-stale family is superseded later (latest right)")
    distractors_per_fact: float = world_param(
        3.0, 0.5, 10.0, "lines per fact",
        "guess: the same field for other entities in bulky results",
        "mean number of distractor lines (same field, other entity)", log=True)
    # -- recovery as a mechanism (issue 31): values read from bulk data early and
    # needed again late, after pressure has archived the bulky result
    p_late_reuse: float = world_param(
        0.3, 0.02, 0.9, PROBABILITY,
        "the shipped pi coding session (experiments/vista/late_reuse.py): of 25 "
        "paths first read in a tool result and written again >= 10 interactions "
        "later, 11 were first read in a top-quartile result (b = 0.25 of the results, "
        "w = 0.90 of their tokens), so p = (q - b) / (w - b) = 0.30, Wilson "
        "[0.03, 0.59]; one coding session, not an office workflow, whose exports and "
        "inbox dumps (VISTA Fig. 9) may put more values in bulk data: the range runs "
        "to 0.9",
        "a value of an overflow or churn family (not superseded) is read from bulk "
        "data: its result's size is drawn from the size-biased empirical law "
        "(sim/tasks/size_law.py), and it is needed at every later write and the answer")

    def with_(self, **changes) -> "TaskParams":
        """A copy with ``changes`` applied."""
        return replace(self, **changes)


@dataclass(frozen=True)
class FamilySpec:
    """One family's fixed structure.

    Attributes:
        name: the family label.
        archetype: one of :data:`ARCHETYPES`.
        n_facts: exact values the answer needs (1..3).
        evidence: ``"lookup"`` (an ordinary result) or ``"table"`` (a large export).
        arrival: where the evidence arrives, as a fraction of the task's results.
        update_at: where superseding records arrive (fraction of the results).
        n_uses: intermediate writes that need every value.
        median_tokens: median tokens of one result (the size law's scale).
        superseded: every value is superseded later (stale archetype).
        source_named: the task statement names the call that holds each value (a
            family parameter that says so; False in the default suite).
        bulk_reuse: its values may sit in bulk data (``TaskParams.p_late_reuse``):
            overflow and churn, whose evidence arrives early and is needed again
            late (a buried family's evidence is a bulky table already, a late one's
            arrives late, a stale one's early value is superseded).
    """

    name: str
    archetype: str
    n_facts: int
    evidence: str
    arrival: float
    update_at: float
    n_uses: int
    median_tokens: int
    superseded: bool = False
    source_named: bool = False
    bulk_reuse: bool = False


def family_spec(family: int) -> FamilySpec:
    """The structure of family ``family`` (0..14): archetype ``family % 5``, variant
    ``family // 5`` (1, 2, 3 facts; median result 800, 1,600, 2,600 tokens: a mean
    of about 2K, 4K and 6.5K tokens under the size law).

    Raises:
        ValueError: for a family outside ``range(15)``.
    """
    if isinstance(family, bool) or not isinstance(family, int) \
            or not 0 <= family < len(FAMILIES):
        raise ValueError(f"family must be an int in 0..{len(FAMILIES) - 1}, got {family!r}")
    arch, variant = ARCHETYPES[family % 5], family // 5
    base = dict(name=FAMILIES[family], archetype=arch, n_facts=1 + variant,
                evidence="lookup", arrival=0.05, update_at=0.7, n_uses=1,
                median_tokens=(800, 1_600, 2_600)[variant])
    if arch in ("overflow", "churn"):
        base.update(bulk_reuse=True)
    if arch == "buried":
        base.update(evidence="table", n_uses=0)
    elif arch == "stale":
        base.update(superseded=True, update_at=0.6)
    elif arch == "churn":
        base.update(arrival=0.2, n_uses=3)
    elif arch == "late":
        base.update(arrival=0.8, n_uses=0)
    return FamilySpec(**base)


def family_params(family: int) -> dict:
    """:func:`family_spec` as a dict (the older accessor)."""
    from dataclasses import asdict

    return asdict(family_spec(family))


def family_of(task_id: str) -> str:
    """The family label of a task id ``"<generator>/<family>/..."`` (the id itself
    when it has no ``/``)."""
    parts = task_id.split("/")
    return parts[1] if len(parts) > 1 else task_id
