"""The ``ctxsim`` command line.

``ctxsim run NAME [options]`` runs one experiment module; ``ctxsim theory`` runs
every symbolic check; further command groups (``workspace``, ``llm``) register
themselves in :data:`COMMAND_GROUPS`.

Each experiment module named in :data:`EXPERIMENTS` exposes
``add_arguments(parser)`` and ``run(args) -> list[pathlib.Path]`` (the files it
wrote). Each command-group module exposes ``add_arguments(parser)`` and
``main(args) -> int``. Only the module a command names is imported.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

#: experiment name -> (module, one-line help)
EXPERIMENTS: dict[str, tuple[str, str]] = {
    "proposition1": ("experiments.vista.proposition1",
                     "Proposition 1: lossy strategies vs a recoverable archive (recovery game)"),
    "theorem1": ("experiments.vista.theorem1",
                 "Theorem 1 curves and Proposition 2 (eviction game, rates, bounds)"),
    "proposition2": ("experiments.vista.proposition2",
                     "Proposition 2 alone: content-channel rate and burden against n"),
    "pressure": ("experiments.vista.pressure",
                 "accuracy per context program vs context growth 8K-256K (VISTA Fig. 4)"),
    "window": ("experiments.vista.window",
               "retrieval-then-synthesis accuracy vs window W (VISTA Fig. 6)"),
    "ablations": ("experiments.vista.ablations",
                  "VISTA's six mechanism ablations with archive/retrieve counts (Fig. 8)"),
    "cost": ("experiments.vista.cost",
             "cache-aware dollar cost per task per program (VISTA Table 2)"),
    "perception": ("experiments.vista.perception",
                   "perception probe with a real model, with/without dashboard (VISTA Table 5)"),
    "presentation": ("experiments.vista.presentation",
                     "does the ledger's layout change a real model's archive choice?"),
    "calibrate": ("experiments.calibrate",
                  "calibrate the synthetic agent's parameters against the real model"),
    "sorted_window": ("experiments.vista.sorted_window",
                      "bounded ledger as a sorted window: E[blocks archived] vs listed rows w"),
    "overhead": ("experiments.vista.overhead",
                 "dashboard tokens vs registered blocks on real trajectories (VISTA Fig. 10)"),
    "evoharness": ("experiments.evoharness.experiment",
                   "Evo-Harness: online skill harness under a budget; skills vs context policy"),
    "contextevo": ("experiments.contextevo.experiment",
                   "evolve a context program from trajectories; judge it on held-out tasks"),
}

#: command group -> (module, one-line help)
COMMAND_GROUPS: dict[str, tuple[str, str]] = {
    "theory": ("experiments.theory_report", "run every sympy check and print one line per result"),
    "claims": ("experiments.claims.cli",
               "the claims scorecard: each paper claim, our value and a verdict from "
               "the committed CSVs"),
    "workspace": ("experiments.workspace_cli",
                  "replay a trajectory into a block workspace and show its ledger"),
    "llm": ("experiments.llm_cli",
            "the embedded real model: serve it locally, show its status"),
    "world": ("experiments.world_cli",
              "every parameter of the synthetic world: default, prior range, unit, source"),
}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser.

    Only the module of the experiment or group named in ``argv`` is imported (to
    add its options); the others appear in ``--help`` by name, so ``ctxsim --help``
    does not import numba, sympy or the workspace.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    from sim import __version__

    parser = argparse.ArgumentParser(
        prog="ctxsim", description="Theory and simulation of LLM context management.")
    parser.add_argument("--version", action="version", version=f"ctxsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one experiment and write CSV/PNG/JSON")
    run_sub = run.add_subparsers(dest="experiment", required=True, metavar="EXPERIMENT")
    wanted = set(argv[:2])
    for name, (module, help_text) in EXPERIMENTS.items():
        p = run_sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module, _kind="experiment")
        if argv[:1] == ["run"] and name in wanted:
            importlib.import_module(module).add_arguments(p)
    for name, (module, help_text) in COMMAND_GROUPS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module, _kind="group")
        if argv[:1] == [name]:
            importlib.import_module(module).add_arguments(p)
    return parser


def run_command(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the command; exceptions propagate (for tests and
    scripts). Returns the exit status."""
    args = build_parser(argv).parse_args(argv)
    module = importlib.import_module(args._module)
    if args._kind == "experiment":
        for path in run_experiment(module, args):
            print(path)
        return 0
    return int(module.main(args) or 0)


def run_experiment(module, args: argparse.Namespace) -> list:
    """``module.run(args)`` with its files written as a set
    (:func:`experiments.output.output_set`): ``--out`` is checked writable before
    anything is computed, and it receives the run's files only if the run succeeds.
    Returns the final paths."""
    import pathlib

    from experiments.output import output_set

    out = pathlib.Path(args.out)
    with output_set(args.out) as staging:
        args.out = str(staging)
        try:
            paths = module.run(args)
        finally:
            args.out = str(out)
    return [out / pathlib.Path(p).relative_to(staging) for p in paths]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ctxsim`` console script; returns the exit status.

    A failure is reported as one line, ``ctxsim: error: <type>: <message>``, with
    exit status 1 (argparse's own usage errors exit 2). Set ``CTXSIM_DEBUG=1`` to
    get the full traceback instead.
    """
    if os.environ.get("CTXSIM_DEBUG"):
        return run_command(argv)
    try:
        return run_command(argv)
    except KeyboardInterrupt:
        print("ctxsim: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
        print(f"ctxsim: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("ctxsim: set CTXSIM_DEBUG=1 for the traceback", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
