"""``ctxsim llm``: the embedded real model.

``ctxsim llm serve [--port P] [--n-ctx N] [--threads T] [--pidfile F]`` assembles
and verifies the model into the cache directory once (``$CTXSIM_CACHE``, default
``~/.cache/ctxsim``), starts llama-cpp-python's OpenAI-compatible server on
127.0.0.1 (a free port unless ``--port``), waits until it answers, prints the base
URL to export as ``CTXSIM_LLM_BASE_URL``, and runs until Ctrl-C, then stops the
server cleanly. ``--background`` leaves it running and writes ``--pidfile``;
``ctxsim llm stop --pidfile F`` stops it.

``ctxsim llm status [--base-url URL]`` reports the llama-cpp-python version, whether
the pinned parts are installed, the model path and size, whether it was verified,
and whether the endpoint answers. ``--verify`` re-hashes the model in full.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``llm`` subcommands: serve, status, stop."""
    from experiments.arguments import TOKENS_HELP, base_url, positive_tokens
    from sim.agents.llm_server import N_CTX

    sub = parser.add_subparsers(dest="llm_command", required=True)
    sv = sub.add_parser("serve", help="assemble/verify the model and serve it locally")
    sv.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    sv.add_argument("--n-ctx", type=positive_tokens, default=N_CTX, metavar="TOKENS",
                    help=f"context window in tokens ({TOKENS_HELP}; default: "
                         "%(default)s)")
    sv.add_argument("--threads", type=int, default=None, help="CPU threads (default: all)")
    sv.add_argument("--ready-timeout", type=float, default=180.0,
                    help="seconds to wait for the server (default: %(default)s)")
    sv.add_argument("--background", action="store_true",
                    help="leave the server running and return (see --pidfile; "
                         "default: serve until Ctrl-C)")
    sv.add_argument("--pidfile", default=None,
                    help="write the server's pid here (default: none)")
    st = sub.add_parser("status", help="model, verification and endpoint status")
    st.add_argument("--base-url", type=base_url, default=None,
                    help="endpoint to probe (default: $CTXSIM_LLM_BASE_URL)")
    st.add_argument("--verify", action="store_true",
                    help="re-hash the model in full (default: trust the stamp)")
    sp = sub.add_parser("stop", help="stop a server started with --background")
    sp.add_argument("--pidfile", required=True)


def _serve(args) -> int:
    from sim.agents import llm_server as ls

    path = ls.model_path()
    if not ls.is_verified(path):
        print(f"assembling {path} from {len(ls.PARTS)} parts (once) ...", file=sys.stderr)
    path = ls.assemble_model()
    proc, info = ls.start_server(path, port=args.port, n_ctx=args.n_ctx,
                                 n_threads=args.threads, ready_timeout=args.ready_timeout,
                                 die_with_parent=not args.background)
    if args.pidfile:
        with open(args.pidfile, "w") as fh:
            fh.write(f"{proc.pid}\n")
    print(f"serving {info.model} at {info.base_url} (pid {proc.pid}, ready in "
          f"{info.startup_seconds:.1f} s)")
    print(f"export CTXSIM_LLM_BASE_URL={info.base_url}", flush=True)
    if args.background:
        return 0
    try:
        while proc.poll() is None:
            time.sleep(0.5)
        print(f"server exited with code {proc.returncode}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("stopping ...", file=sys.stderr)
        return 0
    finally:
        ls.stop_server(proc)
        if args.pidfile and os.path.exists(args.pidfile):
            os.unlink(args.pidfile)


def _stop(args) -> int:
    try:
        pid = int(open(args.pidfile).read().strip())
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or exc  # not the path and errno again
        print(f"ctxsim llm stop: cannot read pid from {args.pidfile!r}: {why}",
              file=sys.stderr)
        return 2
    try:
        os.killpg(pid, signal.SIGINT)  # the server leads its own process group
    except ProcessLookupError:
        print(f"no process {pid}", file=sys.stderr)
    os.unlink(args.pidfile)
    return 0


def local_model_missing(info: dict) -> list[str]:
    """What the embedded model lacks to be served, from :func:`status`'s record:
    llama-cpp-python, and the model (neither its parts nor a verified cached copy)."""
    missing = []
    if info.get("llama_cpp_python") == "not installed":
        missing.append("llama-cpp-python is not installed")
    if not info.get("parts_installed") and not info.get("cached_model_verified"):
        missing.append("neither the model parts nor a verified cached model are present")
    return missing


def main(args: argparse.Namespace) -> int:
    """Run the chosen subcommand; 2 on a model or server error (message on stderr);
    ``status`` exits 1 when the endpoint it probes does not answer or, with no
    endpoint, when the embedded model cannot be served (:func:`local_model_missing`)."""
    from sim.agents import llm_server as ls

    try:
        if args.llm_command == "serve":
            return _serve(args)
        if args.llm_command == "stop":
            return _stop(args)
        if args.verify:
            ls.verify_model()
        info = ls.status(args.base_url)
        print(json.dumps(info, indent=2))
        if info["base_url"] and not info["reachable"]:
            print(f"ctxsim llm: endpoint {info['base_url']} is not reachable",
                  file=sys.stderr)
            return 1
        missing = local_model_missing(info)
        if not info["base_url"] and missing:
            print(f"ctxsim llm: no model to serve: {', '.join(missing)}; "
                  f"{info.get('hint', 'install the [llm] extra')}", file=sys.stderr)
            return 1
        return 0
    except (ls.ModelError, ls.ServerError) as exc:
        print(f"ctxsim llm: {exc}", file=sys.stderr)
        return 2
