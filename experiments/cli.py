"""The ``ctxsim`` command line.

``ctxsim run NAME [options]`` runs one experiment module; ``ctxsim theory`` runs
every symbolic check; further command groups (``workspace``, ``llm``) register
themselves in :data:`COMMAND_GROUPS`.

Each experiment module named in :data:`EXPERIMENTS` exposes
``add_arguments(parser)`` and ``run(args) -> list[pathlib.Path]`` (the files it
wrote). Each command-group module exposes ``add_arguments(parser)`` and
``main(args) -> int``. Modules are imported lazily so ``ctxsim --help`` is fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: experiment name -> (module, one-line help)
EXPERIMENTS: dict[str, tuple[str, str]] = {
    "proposition1": ("experiments.proposition1",
                     "Proposition 1: lossy strategies vs a recoverable archive (recovery game)"),
    "theorem1": ("experiments.theorem1",
                 "Theorem 1 curves and Proposition 2 (eviction game, rates, bounds)"),
    "proposition2": ("experiments.proposition2",
                     "Proposition 2 alone: content-channel rate and burden against n"),
}

#: command group -> (module, one-line help)
COMMAND_GROUPS: dict[str, tuple[str, str]] = {
    "theory": ("theory.report", "run every sympy check and print one line per result"),
    "workspace": ("experiments.workspace_cli",
                  "replay a trajectory into a block workspace and show its ledger"),
}


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (experiment options are added lazily per name)."""
    parser = argparse.ArgumentParser(
        prog="ctxsim", description="Theory and simulation of LLM context management.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one experiment and write CSV/PNG/JSON")
    run_sub = run.add_subparsers(dest="experiment", required=True, metavar="EXPERIMENT")
    for name, (module, help_text) in EXPERIMENTS.items():
        p = run_sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module, _kind="experiment")
        importlib.import_module(module).add_arguments(p)
    for name, (module, help_text) in COMMAND_GROUPS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module, _kind="group")
        importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ctxsim`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    module = importlib.import_module(args._module)
    if args._kind == "experiment":
        for path in module.run(args):
            print(path)
        return 0
    return int(module.main(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
