"""What one ``ctxsim run contextevo`` is made of, from its options: the start specs,
the task sets (configs/contextevo.toml), the back-end and the loop's
:class:`~sim.evolve.contextevo.loop.EvolveConfig` (ContextEvo §4-5)."""

from __future__ import annotations

NAME = "contextevo"


def starts(args) -> list:
    """The start specs the options name.

    Raises:
        KeyError: naming the known programs, for an unknown ``--start``.
        SpecError: for a malformed ``--spec`` file.
        UsageError: when both ``--spec`` and ``--start`` are given (exit 2).
    """
    from experiments.arguments import UsageError
    from sim.evolve.contextevo.compile import spec_of
    from sim.evolve.contextevo.spec import load_spec

    if args.spec and args.start:
        raise UsageError(f"--spec {args.spec!r} and --start {args.start!r} both name the "
                         "start; give one")
    if args.spec:
        return [load_spec(args.spec)]
    if args.start:
        return [spec_of(args.start)]
    if args.backend == "llm":
        return [spec_of("react")]
    return [spec_of("react"), spec_of("masking")]


def task_grid(args) -> dict:
    """The task sets' grid: a table of configs/contextevo.toml (``[default]``,
    ``[quick]`` under ``--quick``, ``[llm_quick]`` under ``--backend llm --quick``)
    with ``--config FILE``'s keys over it.

    Raises:
        ConfigValueError: naming a bad or unknown key (exit 2).
    """
    from experiments.config import grid

    section = "default"
    if args.quick:
        section = "llm_quick" if args.backend == "llm" else "quick"
    return grid(NAME, args, section)


def tasksets(args) -> list:
    """The LOCA-like (default 128K growth, budget 128K) and BrowseComp-like (default
    W = 16K) sets of :func:`task_grid`; with ``--backend llm`` only the LOCA-like set
    (under ``--quick`` at 8K growth with budget 6K: short trajectories, few pages per
    case)."""
    from sim.evolve.contextevo.loop import browse_taskset, loca_taskset

    g = task_grid(args)
    loca = loca_taskset(g["loca_growth"], g["loca_budget"], g["families"], g["seeds"],
                        args.seed)
    if args.backend == "llm":
        return [loca]
    return [loca, browse_taskset(g["browse_window"], g["queries"], g["browse_seeds"],
                                 args.seed)]


def make_backend(args, client=None):
    """The back-end the options name (the llm one needs ``client``)."""
    from sim.evolve.contextevo.backends import LLMBackend, SyntheticBackend

    if args.backend == "llm":
        return LLMBackend(client, max_calls=args.llm_calls, context_tokens=4096)
    return SyntheticBackend(args.seed, args.mislabel)


def exposed(args) -> tuple:
    from sim.evolve.contextevo.spec import SURFACES

    return tuple(args.surfaces) if getattr(args, "surfaces", None) else SURFACES


def split_options(args) -> dict:
    f = getattr(args, "held_in_fraction", None)
    return {} if f is None else {"held_in_fraction": f}


def evolve_config(args, **over):
    from sim.evolve.contextevo.loop import EvolveConfig

    kw = {"iterations": args.iterations, "candidates": args.candidates,
          "seed": args.seed, "exposed": exposed(args), **split_options(args)}
    if args.backend == "synthetic":
        kw["reference_mislabel"] = 0.0  # attribution also scored at mislabel 0
    return EvolveConfig(**{**kw, **over})


def progress_printer(args):
    """``print`` for the loop's progress lines, or a no-op under ``--no-progress``."""
    return (lambda line: None) if getattr(args, "no_progress", False) else print


def with_seed(args, seed: int):
    import argparse

    return argparse.Namespace(**{**vars(args), "seed": seed})
