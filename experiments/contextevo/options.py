"""The command-line options of ``ctxsim run contextevo`` (ContextEvo §4-6): the run
options every experiment takes, then one option per setting, generated from
:class:`experiments.settings.contextevo.ContextEvoSettings` (each default declared
there once)."""

from __future__ import annotations

NAME = "contextevo"


def add_arguments(parser) -> None:
    """Options of ``ctxsim run contextevo``."""
    from experiments.arguments import add_no_progress
    from experiments.config import add_config_argument
    from experiments.settings import settings_for

    add_no_progress(parser)
    add_config_argument(parser, NAME)
    parser.add_argument("--out", default="figures", help="output directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer tasks (LOCA-like 15x2, BrowseComp-like 15x1; with "
                             "--backend llm: LOCA-like 15x1 at 8K growth, budget 6K; default: off)")
    settings_for(NAME).add_arguments(parser)
