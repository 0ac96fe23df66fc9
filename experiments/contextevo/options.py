"""The command-line options of ``ctxsim run contextevo`` (ContextEvo §4-6): the run
options every experiment takes, then one option per setting, generated from
:class:`experiments.settings.contextevo.ContextEvoSettings` (each default declared
there once)."""

from __future__ import annotations

NAME = "contextevo"


def add_arguments(parser) -> None:
    """Options of ``ctxsim run contextevo``."""
    from experiments.settings import settings_for

    cls = settings_for(NAME)
    cls.add_run_arguments(parser, quick_help=cls.quick_help())
    cls.add_arguments(parser)
