"""The settings of ``ctxsim run evoharness`` (Evo-Harness Tables 2-4, Fig. 5;
ContextEvo §6 Table 3): the grid (:class:`GridConfig`), every default declared once
here (the TOML keys of configs/evoharness.toml and the options).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import ClassVar

from experiments.arguments import base_url, nonnegative_int, positive_int
from experiments.settings import ListOf, Settings, answers, register, setting
from experiments.settings import kinds as k
from sim.evolve.evoharness.budget import FRACTION, FRACTION_PRIOR


def _profiles():
    from sim.agents.profiles import PROFILES

    return PROFILES


def _opt(default, help: str, **kw):
    """A command-line-only setting (no TOML key)."""
    return setting(default, None, help, toml=False, **kw)


@register
@dataclass(frozen=True)
class GridConfig(Settings):
    """One run's grid.

    Attributes:
        profiles: synthetic solver profiles.
        families, seeds: LOCA families (task types) and instances per family.
        reps: stream replicates (agent seeds).
        growth, budget: context growth and budget of the grid's tasks (tokens).
        long_growth, long_budget, long_families, long_seeds: the long-horizon tasks of
            the skills-vs-context-policy comparison.
        b: skills per task; batch: tasks per harness update.
        program: context program of the grid.
        cap_fraction: share of the lesson catalogue the caps hold
            (:func:`sim.evolve.evoharness.budget.proportional_caps`).
        seed: base seed; backend: ``synthetic`` or ``llm``.
        reflector, reflector_calls: ``rules`` or ``llm``
            (:class:`sim.evolve.evoharness.reflector.LLMReflector`) and its model-call
            budget per stream.
        workers: processes for the arms (results do not depend on it).
        base_url, model: the llm back-end's endpoint and model (None: the embedded one).
        cache, no_cache: the llm back-end's answer file (:mod:`experiments.answers`).
        quick: the small grid (``--quick``; a run option, not a setting).
    """

    NAME: ClassVar[str] = "evoharness"
    HEADER: ClassVar[str] = """\
Grids of `ctxsim run evoharness` (Evo-Harness): few task types with many tasks each
(6 LOCA families), as in the paper's benchmarks (CL-Bench: 4 categories; SWE-bench
Lite: 12 repositories): a task-type procedure only pays off when its type recurs,
and the stream must be long enough for the caps to bind (issue 20). The long_* keys
are the long-horizon tasks of the skills-vs-context-policy comparison. [quick] (used
with --quick) overrides some keys of [default]; command-line options win over both,
and over a --config FILE."""

    profiles: tuple[str, ...] = setting(
        ("strong", "medium", "weak"),
        ListOf(k.one_of("a synthetic solver profile", _profiles)),
        "synthetic solver profiles", option=None, quick=("medium",),
        note="synthetic solver profiles")
    families: int = setting(6, k.families, "LOCA families (task types)", option=None,
                            note="LOCA families (task types), 1..15",
                            source="issue 20: few task types, many tasks each")
    seeds: int = setting(40, k.COUNT, "instances per family", option=None, quick=16,
                         note="instances per family")
    reps: int = setting(2, k.COUNT, "stream replicates ({default})", parse=positive_int,
                        note="stream replicates (agent seeds)")
    growth: int = setting(48_000, k.GROWTH, "context growth of the grid's tasks",
                          unit="tokens", option=None,
                          note="context growth of the grid's tasks, tokens")
    budget: int = setting(16_000, k.TOKENS, "context budget of the grid's tasks",
                          unit="tokens", option=None,
                          note="context budget of the grid's tasks, tokens")
    long_growth: int = setting(128_000, k.GROWTH, "context growth of the long-horizon "
                               "tasks", unit="tokens", option=None, quick=64_000)
    long_budget: int = setting(128_000, k.TOKENS, "context budget of the long-horizon "
                               "tasks", unit="tokens", option=None, quick=64_000)
    long_families: int = setting(15, k.families, "LOCA families of the long-horizon "
                                 "tasks", option=None)
    long_seeds: int = setting(4, k.COUNT, "instances per family of the long-horizon "
                              "tasks", option=None, quick=2)
    b: int = setting(3, k.integer(0), "skills selected per task, >= 0 ({default})",
                     parse=nonnegative_int, note="skills selected per task",
                     source="Evo-Harness §3.1: Select(x, H; b)")
    batch: int = setting(1, k.COUNT, "tasks per harness update |B_i| ({default}, "
                         "per-task)", parse=positive_int,
                         note="tasks per harness update |B_i|",
                         source="Evo-Harness Algorithm 1")
    program: str = setting("vista_no_dashboard", k.program,
                           "context program of the grid: a built-in name or a plugin "
                           "MODULE:CLASS on PYTHONPATH (docs: Plugins; {default})",
                           note="context program of the grid")
    cap_fraction: float = setting(
        FRACTION, k.number_in(0.0, 1.0, "a share in (0, 1]", lo_open=True),
        "share of the lesson catalogue the harness caps hold, in (0, 1] ({default}; "
        "a guess, prior %g-%g; robustness: python -m experiments.evoharness.caps)"
        % FRACTION_PRIOR,
        note="share of the lesson catalogue the caps hold (a guess)",
        source="guess: sim.evolve.evoharness.budget.FRACTION (Evo-Harness App. F, "
               "which gives the paper's budget, is not in our text)")
    seed: int = _opt(0, "base seed of tasks and agent draws ({default})",
                     parse=nonnegative_int)
    backend: str = _opt("synthetic", "solver backend ({default})",
                        choices=("synthetic", "llm"))
    reflector: str = _opt("rules", "who proposes lessons in the evolving arms: the "
                          "general rules or a model as reflector, its free text parsed "
                          "into the lesson grammar (llm: the --base-url endpoint, else "
                          "the embedded model; {default})", choices=("rules", "llm"))
    reflector_calls: int = _opt(200, "--reflector llm: model calls per stream, the rest "
                                "of its failures yield no lesson ({default})",
                                parse=positive_int)
    workers: int | None = _opt(None, "processes for the arms; results do not depend on "
                               "it (default: min(2, CPUs))", parse=positive_int)
    base_url: str | None = _opt(None, "--backend llm / --reflector llm: OpenAI-compatible "
                                "endpoint (default: the embedded local model, started "
                                "for the run)", parse=base_url)
    model: str | None = _opt(None, "--backend llm / --reflector llm: model name (default: "
                             "the endpoint's)")
    cache: str | None = answers.cache("evoharness", "--backend llm: ")
    no_cache: bool = answers.no_cache("--backend llm: ")
    quick: bool = field(default=False)

    @classmethod
    def finish(cls, values: dict, args) -> dict:
        """``quick`` from ``--quick``; ``workers`` None: min(2, CPUs); the program
        played through its protocol check.

        Raises:
            PluginError: for an unknown or broken ``program`` (named; exit 2).
            UsageError: for ``--cache`` or ``--no-cache`` without ``--backend llm``.
        """
        from sim.plugins import check_program, resolve_program

        # the synthetic grid's reflectors run in worker processes: no shared file
        answers.check(values, values["backend"] == "llm", "--backend llm")
        resolve_program(values["program"])   # PluginError names an unknown program
        check_program(values["program"])
        values["quick"] = bool(getattr(args, "quick", False))
        if values["workers"] is None:
            values["workers"] = max(1, min(2, os.cpu_count() or 1))
        return values

    def to_dict(self) -> dict:
        """JSON-ready fields (the sidecar's config)."""
        return {**self.record(), "quick": self.quick}

    def with_(self, **changes) -> "GridConfig":
        """A copy with ``changes``."""
        return replace(self, **changes)
