"""The arms of the Evo-Harness grid (:class:`Arm`) and what each one runs with."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sim.evolve.evoharness.budget import proportional_caps
from sim.evolve.evoharness.curate import AddOnlyCurator, Curator
from sim.evolve.evoharness.skill_harness import SkillHarness

FEEDBACK = ("self", "minimal", "standard")
BOTH = ("general", "topic")


@dataclass(frozen=True)
class Arm:
    """One arm: a profile, a stream mode, a feedback level, the skill levels kept,
    the curator and whether the solver proposes (False: No-Propose)."""

    arm: str
    profile: str
    mode: str
    feedback: str = "standard"
    levels: tuple[str, ...] = BOTH
    curator: str = "budgeted"
    reflect: bool = True

    @property
    def evolving(self) -> bool:
        """Whether the arm updates a harness."""
        return self.mode != "none"

    def to_row(self) -> dict:
        """The arm's CSV fields (``levels`` as ``general+topic``)."""
        d = asdict(self)
        d["levels"] = "+".join(self.levels)
        return d


def arms(profiles) -> list[Arm]:
    """Per profile: no-evolve, the feedback x mode grid, the general-only / topic-only
    and No-Propose ablations (Table 3) and the ADD-only curator."""
    out = []
    for p in profiles:
        out.append(Arm("no-evolve", p, "none"))
        for mode in ("online", "train-split"):
            out += [Arm(f"{mode}-{fb}", p, mode, fb) for fb in FEEDBACK]
        out.append(Arm("general-only", p, "online", levels=("general",)))
        out.append(Arm("topic-only", p, "online", levels=("topic",)))
        out.append(Arm("no-propose", p, "online", reflect=False))
        out.append(Arm("add-only", p, "online", curator="add-only"))
    return out


def curator_and_harness(arm: Arm, topics, fraction: float):
    """The arm's curator and an empty harness under caps holding ``fraction`` of the
    lesson catalogue of ``topics`` at the arm's levels (the ADD-only curator appends
    under the same caps: it never merges, so it skips once full)."""
    caps = proportional_caps(topics, arm.levels, fraction)
    if arm.curator == "add-only":
        return AddOnlyCurator(levels=arm.levels), SkillHarness(caps)
    return Curator(levels=arm.levels), SkillHarness(caps)
