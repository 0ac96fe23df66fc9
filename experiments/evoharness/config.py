"""Configuration of ``ctxsim run evoharness``: the grid's settings
(:class:`experiments.settings.evoharness.GridConfig`, every default declared there)
and the command-line options generated from it."""

from __future__ import annotations

from experiments.settings.evoharness import GridConfig

NAME = "evoharness"


def defaults(quick: bool, path=None) -> GridConfig:
    """The grid with no option given: the ``[quick]`` (``quick``) or ``[default]``
    table with the keys of the user TOML ``path`` (``--config``) over it.

    Raises:
        ConfigValueError: naming a bad or unknown key of ``path`` (exit 2).
    """
    import argparse

    return GridConfig.from_args(argparse.Namespace(quick=quick, config=path))


def add_arguments(parser) -> None:
    """Options: --out, --quick, --no-progress, --config, then one per setting."""
    from experiments.arguments import add_no_progress
    from experiments.config import add_config_argument

    parser.add_argument("--out", default="figures",
                        help="output directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="medium profile only, 96 tasks, two replicates "
                             "(default: off)")
    add_no_progress(parser)  # taken like every experiment's; this one prints no progress
    add_config_argument(parser, NAME)
    GridConfig.add_arguments(parser)


def config(args) -> GridConfig:
    """The grid ``args`` ask for: options given, over ``--config FILE``, over the
    ``[quick]`` (``--quick``) or ``[default]`` table.

    Raises:
        ValueError: for a bad ``--b``.
        UsageError: for an unknown ``--program`` (named; exit 2).
    """
    from sim.evolve.evoharness.select import check_b
    from sim.plugins import check_program, resolve_program

    cfg = GridConfig.from_args(args)
    check_b(cfg.b)
    resolve_program(cfg.program)   # PluginError (exit 2) names an unknown program
    check_program(cfg.program)
    return cfg
