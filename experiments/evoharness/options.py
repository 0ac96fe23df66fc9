"""The command-line options of ``ctxsim run evoharness``: the run options every
experiment takes, then one option per setting, generated from
:class:`experiments.settings.evoharness.GridConfig` (each default declared there)."""

from __future__ import annotations

NAME = "evoharness"


def add_arguments(parser) -> None:
    """Options: --out, --quick, --no-progress, --config, then one per setting."""
    from experiments.settings.evoharness import GridConfig

    # --no-progress is taken like every experiment's; this one prints no progress
    GridConfig.add_run_arguments(parser, quick_help=GridConfig.quick_help())
    GridConfig.add_arguments(parser)
