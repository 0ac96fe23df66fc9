"""The command-line options of ``ctxsim run evoharness``: the run options every
experiment takes, then one option per setting, generated from
:class:`experiments.settings.evoharness.GridConfig` (each default declared there)."""

from __future__ import annotations

NAME = "evoharness"


def add_arguments(parser) -> None:
    """Options: --out, --quick, --no-progress, --config, then one per setting."""
    from experiments.arguments import add_no_progress
    from experiments.config import add_config_argument
    from experiments.settings.evoharness import GridConfig

    parser.add_argument("--out", default="figures",
                        help="output directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="medium profile only, 96 tasks, two replicates "
                             "(default: off)")
    add_no_progress(parser)  # taken like every experiment's; this one prints no progress
    add_config_argument(parser, NAME)
    GridConfig.add_arguments(parser)
