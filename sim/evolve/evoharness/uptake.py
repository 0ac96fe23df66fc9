"""How a synthetic agent takes up skill text: reading, following, and how far it
carries an instruction that names no amount (Evo-Harness §3.1; ContextEvo §6 "three
limits of skill evolution": skills that are not invoked, not followed, or cost
context).

These are the agent's parameters of instruction uptake, the same for every profile
and every lesson; what a followed lesson then does is played
(:mod:`sim.evolve.evoharness.lessons`, :mod:`sim.evolve.evoharness.lesson_agent`).
Each field carries its default, prior range and source like a world parameter
(:func:`sim.world_param.world_param`); :data:`SKILL_USE_PRIOR` lists the ranges.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from sim.world_param import PROBABILITY as _P
from sim.world_param import world_param

_IFEVAL = ("instruction-following benchmarks put frontier models' per-instruction "
           "compliance at roughly 0.6-0.9 (IFEval, Zhou et al. 2023); the papers "
           "report no reading or following rates")


@dataclass(frozen=True)
class SkillUse:
    """A synthetic agent's uptake of skill text.

    Attributes:
        read_max: P(read a skill at a decision point with an empty context).
        pressure_drop: how much a full context lowers it (P falls linearly in the
            request's fill fraction, to ``read_max * (1 - pressure_drop)`` at full).
        follow: P(follow an instruction once read), per instruction.
        extra_reads: recovery reads per value a followed ``recover`` adds.
        shorten_factor: what a followed ``shorten`` multiplies the archive trigger
            and target (fractions of the budget) by.

    Raises:
        ValueError: naming a probability outside [0, 1], ``extra_reads`` not an int
            >= 0, or ``shorten_factor`` outside (0, 1].
    """

    read_max: float = world_param(0.8, 0.6, 0.95, _P, "guess: " + _IFEVAL,
                                  "a skill is read at a decision point (empty context)")
    pressure_drop: float = world_param(0.6, 0.3, 0.8, "fraction",
                                       "guess: long prompts lower instruction use; no "
                                       "measurement for skill blocks",
                                       "drop of the read probability at a full context")
    follow: float = world_param(0.7, 0.5, 0.9, _P, _IFEVAL,
                                "a read instruction is followed")
    extra_reads: int = world_param(3, 1, 8, "reads per value",
                                   "guess: how much longer a model searches when told "
                                   "to; the same range as Profile.max_attempts",
                                   "recovery reads a followed 'recover' adds",
                                   integer=True)
    shorten_factor: float = world_param(0.7, 0.4, 0.95, "factor",
                                        "guess: how much earlier a model frees context "
                                        "when told to keep requests short",
                                        "scale of the archive trigger and target under "
                                        "a followed 'shorten'")

    def __post_init__(self):
        for f in ("read_max", "pressure_drop", "follow"):
            v = getattr(self, f)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"SkillUse.{f} must be in [0, 1], got {v!r}")
        if isinstance(self.extra_reads, bool) or not isinstance(self.extra_reads, int) \
                or self.extra_reads < 0:
            raise ValueError(f"SkillUse.extra_reads must be an int >= 0, got "
                             f"{self.extra_reads!r}")
        if not 0.0 < self.shorten_factor <= 1.0:
            raise ValueError(f"SkillUse.shorten_factor must be in (0, 1], got "
                             f"{self.shorten_factor!r}")


#: prior ranges of the :class:`SkillUse` fields (from their declarations)
SKILL_USE_PRIOR = {f.name: (f.metadata["world"]["low"], f.metadata["world"]["high"])
                   for f in fields(SkillUse)}
