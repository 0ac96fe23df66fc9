"""Task streams with controllable context growth: LOCA-like, BrowseComp-like, replay."""

from sim.tasks.base import FINAL, OBSERVE, USE, Fact, Step, Task
from sim.tasks.families import ARCHETYPES, FamilySpec, TaskParams, family_spec
from sim.tasks.loca import FAMILIES, GROWTH_LEVELS, loca_suite, loca_task

__all__ = ["Fact", "Step", "Task", "OBSERVE", "USE", "FINAL", "FAMILIES",
           "GROWTH_LEVELS", "loca_suite", "loca_task", "ARCHETYPES", "FamilySpec",
           "TaskParams", "family_spec"]
