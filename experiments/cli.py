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
    "figures": ("experiments.figures_cli",
                "list the committed figures, their commit and whether their code "
                "changed since; --verify NAME reruns one and compares its CSV"),
}


class Parser(argparse.ArgumentParser):
    """The CLI's parsers (subcommands inherit it): a usage error is one line,
    ``ctxsim run pressure: error: <message> (see --help)``, exit status 2, not
    argparse's usage block first (README: "errors are reported in one line")."""

    def error(self, message):
        message = " ".join(str(message).split())
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser.

    Only the module of the experiment or group named in ``argv`` is imported (to
    add its options); the others appear in ``--help`` by name, so ``ctxsim --help``
    does not import numba, sympy or the workspace.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    from sim import __version__

    parser = Parser(
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
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # reported by the (sub)command they were given to
        command_parser(parser, argv).error(f"unrecognized arguments: {' '.join(unknown)}")
    module = importlib.import_module(args._module)
    if args._kind == "experiment":
        for path in run_experiment(module, args, argv[2:]):
            print(path)
        return 0
    return int(module.main(args) or 0)


def command_parser(parser: argparse.ArgumentParser, argv: list[str]
                   ) -> argparse.ArgumentParser:
    """The innermost subcommand parser ``argv`` names (``ctxsim run sorted_window``'s
    for ``run sorted_window --bad``), so an error shows that command's usage."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for i, token in enumerate(argv):
                if token in action.choices:
                    return command_parser(action.choices[token], argv[i + 1:])
    return parser


def run_experiment(module, args: argparse.Namespace, argv: list[str] | None = None
                   ) -> list:
    """``module.run(args)`` with its files written as a set
    (:func:`experiments.output.output_set`): ``--out`` is checked writable before
    anything is computed, and it receives the run's files only if the run succeeds.
    Every sidecar records the command line (``ctxsim run EXPERIMENT ARGV``, see
    :func:`experiments.output.recording_run`) and the run's wall time.
    Returns the final paths."""
    import pathlib
    import time

    from experiments.output import add_run_seconds, output_set, recording_run

    out = pathlib.Path(args.out)
    start = time.perf_counter()
    with output_set(args.out) as staging, \
            recording_run(args.experiment, argv or [], str(out)):
        args.out = str(staging)
        try:
            paths = module.run(args)
        finally:
            args.out = str(out)
        add_run_seconds(staging, time.perf_counter() - start)
    return [out / pathlib.Path(p).relative_to(staging) for p in paths]


#: (module, class) of the errors that mean "this input cannot be run" (exit 2);
#: looked up only in modules already imported, so the CLI imports none of them
USAGE_ERRORS = (("experiments.arguments", "UsageError"),
                ("sim.workspace.errors", "ConfigError"),
                ("sim.evolve.contextevo.spec", "SpecError"),
                ("sim.plugin_spec", "PluginError"))


def exit_status(exc: BaseException) -> int:
    """2 for an input the command cannot run with (:data:`USAGE_ERRORS`), else 1."""
    for module, name in USAGE_ERRORS:
        cls = getattr(sys.modules.get(module), name, None)
        if cls is not None and isinstance(exc, cls):
            return 2
    return 1


def error_line(exc: BaseException, argv: list[str] | None = None) -> str:
    """The one line ``ctxsim`` prints for a failure, the debug hint on the same line:
    ``ctxsim run NAME: error: <message>`` for an impossible input,
    ``ctxsim run NAME: error: <type>: <message> (CTXSIM_DEBUG=1 shows the traceback)``
    for any other failure."""
    argv = list(sys.argv[1:] if argv is None else argv)
    words = argv[:2] if argv[:1] == ["run"] else argv[:1]
    prog = " ".join(["ctxsim", *(w for w in words if not w.startswith("-"))])
    # a KeyError's str() is the repr of its argument: show the message itself
    message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    message = " ".join(str(message).split()) or type(exc).__name__
    if exit_status(exc) == 2:
        return f"{prog}: error: {message}"
    return (f"{prog}: error: {type(exc).__name__}: {message} "
            f"(CTXSIM_DEBUG=1 shows the traceback)")


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, ``kill``, a batch scheduler), raised in the main thread
    like Ctrl-C so that every cleanup an interrupt runs (an output set's staging
    folder, the embedded model server, a workspace lock) runs for it too."""


def _terminate(signum, frame):
    raise Terminated()


def _interrupt_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The ``KeyboardInterrupt`` (or :class:`Terminated`) that is ``exc`` or anywhere in
    its chain (``__cause__`` and ``__context__``), else None."""
    todo, seen = [exc], set()
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        if isinstance(e, KeyboardInterrupt):
            return e
        seen.add(id(e))
        todo += [e.__cause__, e.__context__]
    return None


def interrupted(exc: BaseException) -> bool:
    """Whether a ``KeyboardInterrupt`` is ``exc`` or anywhere in its chain
    (``__cause__`` and ``__context__``): Ctrl-C inside a numba kernel surfaces as a
    ``SystemError`` with the interrupt set as its context."""
    return _interrupt_in(exc) is not None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ctxsim`` console script; returns the exit status.

    A failure is reported as one line (:func:`error_line`) with exit status 2 for
    an input the command cannot run with (as argparse's usage errors) and 1 for
    any other failure; commands with their own statuses return them (``workspace
    replay``: 3 for an over-budget request). Ctrl-C prints ``ctxsim: interrupted`` and
    exits 130, also when the interrupt arrives chained under another error
    (:func:`interrupted`); SIGTERM runs the same cleanups (:class:`Terminated`),
    prints ``ctxsim: terminated`` and exits 143. Set ``CTXSIM_DEBUG=1`` to get the
    full traceback instead.
    """
    import signal

    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return _main(argv)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stopped(exc: BaseException) -> int:
    """Say how the run was stopped (``exc`` has an interrupt in its chain); return 143
    for SIGTERM, 130 for Ctrl-C."""
    if isinstance(_interrupt_in(exc), Terminated):
        print("ctxsim: terminated", file=sys.stderr)
        return 143
    print("ctxsim: interrupted", file=sys.stderr)
    return 130


def _main(argv: list[str] | None) -> int:
    if os.environ.get("CTXSIM_DEBUG"):
        return run_command(argv)
    try:
        return run_command(argv)
    except KeyboardInterrupt as exc:
        return _stopped(exc)
    except BrokenPipeError:
        # the reader went away (``ctxsim figures | head``): stop quietly, as a shell
        # tool does, with no second error when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
        if interrupted(exc):
            return _stopped(exc)
        print(error_line(exc, argv), file=sys.stderr)
        return exit_status(exc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
