"""What one ``ctxsim run contextevo`` is made of, from its settings
(:class:`experiments.settings.contextevo.ContextEvoSettings`): the start specs, the
task sets, the back-end and the loop's :class:`~sim.evolve.contextevo.loop.EvolveConfig`
(ContextEvo §4-5)."""

from __future__ import annotations

import dataclasses

NAME = "contextevo"


def settings_of(args):
    """The :class:`~experiments.settings.contextevo.ContextEvoSettings` an argparse
    Namespace asks for (options over ``--config FILE`` over the table of
    :meth:`~experiments.settings.contextevo.ContextEvoSettings.section_of`).

    Raises:
        ConfigValueError: naming a bad or unknown key of ``--config`` (exit 2).
        UsageError: ``--spec`` with ``--start``, or ``--ef-seeds 1`` (exit 2).
    """
    from experiments.settings import settings_for

    cls = settings_for(NAME)
    return cls.from_args(args, cls.section_of(args))


def starts(s) -> list:
    """The start specs settings ``s`` name.

    Raises:
        KeyError: naming the known programs, for an unknown ``start``.
        SpecError: for a malformed ``spec`` file.
    """
    from sim.evolve.contextevo.compile import spec_of
    from sim.evolve.contextevo.spec import load_spec

    if s.spec:
        return [load_spec(s.spec)]
    if s.start:
        return [spec_of(s.start)]
    if s.backend == "llm":
        return [spec_of("react")]
    return [spec_of("react"), spec_of("masking")]


def tasksets(s) -> list:
    """The LOCA-like (default 128K growth, budget 128K) and BrowseComp-like (default
    W = 16K) sets of settings ``s``; with the llm back-end only the LOCA-like set
    (under ``--quick`` at 8K growth with budget 6K: short trajectories, few pages per
    case)."""
    from sim.evolve.contextevo.loop import browse_taskset, loca_taskset

    loca = loca_taskset(s.loca_growth, s.loca_budget, s.families, s.seeds, s.seed)
    if s.backend == "llm":
        return [loca]
    return [loca, browse_taskset(s.browse_window, s.queries, s.browse_seeds, s.seed)]


def make_backend(s, client=None):
    """The back-end settings ``s`` name (the llm one needs ``client``)."""
    from sim.evolve.contextevo.backends import LLMBackend, SyntheticBackend

    if s.backend == "llm":
        return LLMBackend(client, max_calls=s.llm_calls, context_tokens=4096)
    return SyntheticBackend(s.seed, s.mislabel)


def exposed(s) -> tuple:
    """The surfaces the editor may change (every one when ``s.surfaces`` is None)."""
    from sim.evolve.contextevo.spec import SURFACES

    return tuple(s.surfaces) if s.surfaces else SURFACES


def split_options(s) -> dict:
    """:func:`sim.evolve.split.split_tasks` keywords (none: the paper's split)."""
    return {} if s.held_in_fraction is None else {"held_in_fraction": s.held_in_fraction}


def evolve_config(s, **over):
    """The loop's config under settings ``s``, with ``over`` (a variant's switches)."""
    from sim.evolve.contextevo.loop import EvolveConfig

    kw = {"iterations": s.iterations, "candidates": s.candidates,
          "hypotheses": s.hypotheses, "seed": s.seed, "exposed": exposed(s), **split_options(s)}
    if s.backend == "synthetic":
        kw["reference_mislabel"] = 0.0  # attribution also scored at mislabel 0
    return EvolveConfig(**{**kw, **over})


def progress_printer(args):
    """``print`` for the loop's progress lines, or a no-op under ``--no-progress``."""
    return (lambda line: None) if getattr(args, "no_progress", False) else print


def with_seed(s, seed: int):
    """Settings ``s`` at another base seed."""
    return dataclasses.replace(s, seed=seed)
