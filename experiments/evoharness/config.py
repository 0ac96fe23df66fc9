"""Configuration of ``ctxsim run evoharness``: the grid (:class:`GridConfig`), its
defaults and the command-line options."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace

from experiments.arguments import UsageError
from sim.evolve.evoharness.budget import FRACTION

NAME = "evoharness"


@dataclass(frozen=True)
class GridConfig:
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
        seed: base seed; backend: ``synthetic`` or ``llm``; quick: the small grid.
        workers: processes for the arms (results do not depend on it).
    """

    profiles: tuple[str, ...]
    families: int
    seeds: int
    reps: int
    growth: int
    budget: int
    long_growth: int
    long_budget: int
    long_families: int
    long_seeds: int
    b: int = 3
    batch: int = 1
    program: str = "vista_no_dashboard"
    cap_fraction: float = FRACTION
    seed: int = 0
    backend: str = "synthetic"
    quick: bool = False
    workers: int = 1

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return asdict(self)

    def with_(self, **changes) -> "GridConfig":
        """A copy with ``changes``."""
        return replace(self, **changes)


def defaults(quick: bool, path=None) -> GridConfig:
    """The grid: the ``[quick]`` (``quick``) or ``[default]`` table of
    configs/evoharness.toml, with the keys of the user TOML ``path`` (``--config``)
    over it. Few task types with many tasks each (6 LOCA families), as in the paper's
    benchmarks (CL-Bench: 4 categories; SWE-bench Lite: 12 repositories): a task-type
    procedure only pays off when its type recurs, and the stream must be long enough
    for the caps to bind (issue 20).

    Raises:
        ConfigValueError: naming a bad or unknown key of ``path`` (exit 2).
    """
    from experiments.config import load_config

    table = load_config(NAME, "quick" if quick else "default", path)
    workers = max(1, min(2, os.cpu_count() or 1))
    return GridConfig(**{**table, "profiles": tuple(table["profiles"])}, quick=quick,
                      workers=workers)


def add_arguments(parser) -> None:
    """Options: --quick, --backend, --seed, --out, --reps, --b, --batch, --program,
    --workers, --config."""
    from experiments.arguments import (add_no_progress, base_url, nonnegative_int,
                                       positive_int)
    from experiments.config import add_config_argument

    parser.add_argument("--out", default="figures",
                        help="output directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="medium profile only, 96 tasks, two replicates "
                             "(default: off)")
    parser.add_argument("--backend", choices=("synthetic", "llm"), default="synthetic",
                        help="solver backend (default: %(default)s)")
    parser.add_argument("--seed", type=nonnegative_int, default=0,
                        help="base seed of tasks and agent draws (default: %(default)s)")
    parser.add_argument("--reps", type=positive_int, default=None,
                        help="stream replicates (default: 2; --quick 2)")
    parser.add_argument("--b", type=nonnegative_int, default=None,
                        help="skills selected per task, >= 0 (default: 3)")
    parser.add_argument("--batch", type=positive_int, default=None,
                        help="tasks per harness update |B_i| (default: 1, per-task)")
    from experiments.arguments import program_spec

    parser.add_argument("--program", default=None, type=program_spec,
                        help="context program of the grid: a built-in name or a plugin "
                             "MODULE:CLASS on PYTHONPATH (docs: Plugins; default: "
                             "vista_no_dashboard)")
    parser.add_argument("--workers", type=positive_int, default=None,
                        help="processes for the arms; results do not depend on it "
                             "(default: min(2, CPUs))")
    add_no_progress(parser)  # taken like every experiment's; this one prints no progress
    parser.add_argument("--base-url", type=base_url, default=None,
                        help="--backend llm: OpenAI-compatible endpoint (default: the "
                             "embedded local model, started for the run)")
    parser.add_argument("--model", default=None,
                        help="--backend llm: model name (default: the endpoint's)")
    add_config_argument(parser, NAME)


def config(args) -> GridConfig:
    """The grid ``args`` ask for.

    Raises:
        ValueError: for a bad ``--b``.
        UsageError: for an unknown ``--program`` (named; exit 2).
    """
    from sim.evolve.evoharness.select import check_b
    from sim.plugins import check_program, resolve_program

    cfg = defaults(args.quick, getattr(args, "config", None)).with_(
        seed=args.seed, backend=args.backend)
    for k in ("reps", "b", "program", "batch", "workers"):
        if getattr(args, k, None) is not None:
            cfg = cfg.with_(**{k: getattr(args, k)})
    check_b(cfg.b)
    resolve_program(cfg.program)   # PluginError (exit 2) names an unknown program
    check_program(cfg.program)
    return cfg
