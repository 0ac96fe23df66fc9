"""``ctxsim workspace``: look at a real run through the block workspace.

``ctxsim workspace replay FILE --budget TOKENS [--policy none]`` replays a trajectory
(any format of :data:`sim.workspace.importers.FORMATS`: SWE-agent .traj,
mini-swe-agent, pi session JSONL, OpenAI messages or request, ATIF, Anthropic
Messages, Claude Code session JSONL, Codex CLI rollout JSONL, OpenHands event stream
and evaluation output) into a fresh workspace (``--dir``, kept; else a temporary directory removed at
the end), assembling and validating a request after every block, then
prints the final dashboard and totals (the format chosen and why, recorded tool
schemas, blocks by type and status, tokens, largest blocks, records kept aside or
carrying no context, compactions and stray results).

``ctxsim workspace replay FILE --program NAME --budget TOKENS`` instead plays the
trajectory's exact-value questions (:func:`sim.tasks.trajectory_tasks.replay_task`) under a
context program (a built-in name or a plugin ``MODULE:CLASS``) with the synthetic
agent (or ``--agent``) and prints, per question, what was asked, the answer, what
was answered, where the evidence was (in view, archived, lost) and why a wrong
answer was wrong (:mod:`experiments.replay_report`); ``--json`` prints the same as
JSON. Exit 0 with a report, 2 for a bad input (an unreadable file, a budget below
the program's fixed overhead, a trajectory with no unambiguous question), 3 when some
request was over the budget (the pinned task and the program's fixed parts did not
fit; ``--soft``: exit 0), after the report.

``ctxsim workspace check DIR`` verifies every payload against its sha256 and the
journal without writing, lists quarantined files and exits 1 on damage;
``ctxsim workspace repair DIR`` rebuilds what the surviving bytes allow (never
deleting) and exits 1 if damage remains (:mod:`sim.workspace.repair`). Both exit 2
if DIR holds no part of a workspace (:mod:`sim.workspace.presence`: an empty or
missing journal beside a checkpoint or payloads is damage, not absence).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import sys
import tempfile
import warnings
from pathlib import Path


from experiments.arguments import (  # noqa: E402 - one wording everywhere
    TOKENS_HELP, agent_spec, nonnegative_int, positive_int, positive_tokens, program_spec)


def _dir_problem(directory: str) -> str | None:
    """Why ``--dir`` cannot hold a new workspace (None if it can)."""
    from sim.workspace.presence import workspace_marks

    path = Path(directory)
    for p in (path, *path.parents):
        if p.exists() and not p.is_dir():
            return f"--dir {directory!r}: {str(p)!r} is not a directory"
    marks = workspace_marks(path)
    if marks:
        return (f"--dir {directory!r} already holds a workspace ({', '.join(marks)}); "
                "expected a new or empty directory (or no --dir: a temporary one; "
                "`ctxsim workspace check` if it is damaged)")
    return None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``workspace`` subcommands."""
    from sim.workspace.dashboard import DASHBOARDS
    from sim.workspace.importers import FORMATS, READERS
    from sim.workspace.trajectory_replay import POLICIES
    # the names get_tokenizer takes (its table; help, choices and its error agree)
    from sim.workspace.tokenizer import _NAMED

    TOKENIZERS = sorted(_NAMED)

    sub = parser.add_subparsers(dest="workspace_command", required=True)
    formats = "; ".join(f"{k}: {v}" for k, v in FORMATS.items())
    rp = sub.add_parser("replay", help="replay a trajectory and print the final ledger",
                        description="Replay a recorded trajectory into a fresh block "
                        f"workspace. Formats: {formats}.")
    rp.add_argument("file", help="trajectory file (" + ", ".join(FORMATS.values())
                    + ")")
    rp.add_argument("--budget", type=positive_tokens, required=True, metavar="TOKENS",
                    help=f"context budget B (tokens, >= 1; {TOKENS_HELP})")
    rp.add_argument("--program", type=program_spec, default=None, metavar="PROGRAM",
                    help="play the trajectory's exact-value questions under this context "
                         "program (a built-in name such as vista or react, or a plugin "
                         "MODULE:CLASS on PYTHONPATH) and print a per-question report "
                         "(default: none, replay the messages into a workspace)")
    rp.add_argument("--seed", type=nonnegative_int, default=None,
                    help="--program: which questions are drawn and the agent's random "
                         "numbers (default: 0)")
    rp.add_argument("--questions", type=positive_int, default=None, metavar="N",
                    help="--program: at most N questions, one per type (command, path, "
                         "line, field; default: 4)")
    rp.add_argument("--agent", type=agent_spec, default=None, metavar="AGENT",
                    help="--program: synthetic or an agent plugin MODULE:CLASS "
                         "(default: synthetic)")
    rp.add_argument("--profile", default=None, choices=sorted(_profiles()),
                    help="--program: the synthetic agent's profile (default: medium)")
    rp.add_argument("--json", action="store_true",
                    help="--program: print the report as JSON (default: text)")
    rp.add_argument("--policy", choices=POLICIES, default="none",
                    help="what to do over budget (default: none; the wire-payload "
                         "guard still offloads observations that do not fit)")
    rp.add_argument("--dashboard", choices=sorted(DASHBOARDS), default="ledger",
                    help="dashboard shown to the agent (default: %(default)s)")
    rp.add_argument("--dashboard-tokens", type=positive_tokens, default=None,
                    metavar="TOKENS", help="token cap of --dashboard bounded_ledger "
                                           f"({TOKENS_HELP}; default: 400)")
    rp.add_argument("--tokenizer", default="cl100k_base", choices=TOKENIZERS,
                    metavar="NAME",
                    help=f"token counter, one of {', '.join(TOKENIZERS)} (bpe: another "
                         "name of cl100k_base; default: cl100k_base)")
    # lower-cased first, so `--format OpenAI` is openai rather than an error
    rp.add_argument("--format", choices=sorted(READERS), default=None, type=str.lower,
                    help="trajectory format (default: detected, and the reason printed; "
                         "an ambiguous file is an error listing the candidates): "
                         + formats)
    rp.add_argument("--dir", default=None,
                    help="new workspace directory to keep (created; must not hold a "
                         "workspace). Default: a temporary directory, removed at the end")
    rp.add_argument("--top", type=positive_int, default=5,
                    help="largest blocks to list (>= 1; default 5)")
    rp.add_argument("--soft", action="store_true",
                    help="exit 0 even if some request was over the budget (default: "
                         "such a replay exits 3, naming how many)")
    ck = sub.add_parser("check", help="verify every payload against its sha256 and the "
                        "journal (writes nothing); exit 1 on damage")
    ck.add_argument("dir", help="workspace directory")
    rr = sub.add_parser("repair", help="rebuild what the surviving bytes allow (never "
                        "deletes); exit 1 if damage remains")
    rr.add_argument("dir", help="workspace directory")


def _profiles():
    from sim.agents.profiles import PROFILES

    return PROFILES


#: options of ``replay --program`` only / of the plain replay only (dest -> flag)
PROGRAM_ONLY = {"seed": "--seed", "questions": "--questions", "agent": "--agent",
                "profile": "--profile", "json": "--json"}
MESSAGES_ONLY = {"policy": "--policy", "dashboard": "--dashboard",
                 "dashboard_tokens": "--dashboard-tokens", "dir": "--dir", "top": "--top",
                 "tokenizer": "--tokenizer"}


def main(args: argparse.Namespace) -> int:
    """Run the chosen subcommand; returns the exit status (2 on a workspace error)."""
    if args.workspace_command in ("check", "repair"):
        return _maintain(args)
    from experiments.arguments import given_flags, only_with

    defaults = {"policy": "none", "dashboard": "ledger", "top": 5,
                "tokenizer": "cl100k_base"}
    if args.program is None:
        only_with("--program", given_flags(args, PROGRAM_ONLY))
    else:
        given = given_flags(args, MESSAGES_ONLY, defaults)
        if given:
            from experiments.arguments import UsageError

            raise UsageError(f"{', '.join(given)} only appl{'ies' if len(given) == 1 else 'y'} without "
                             "--program (the "
                             "question replay runs the program's own workspace)")
        return _replay_program(args)
    if args.dir is not None:
        problem = _dir_problem(args.dir)
        if problem:
            print(f"ctxsim workspace: {problem}", file=sys.stderr)
            return 2
    with contextlib.ExitStack() as stack:
        directory = args.dir
        if directory is None:  # removed on the way out, whatever happens
            directory = stack.enter_context(tempfile.TemporaryDirectory(
                prefix="ctxsim-replay-"))
        return _replay(args, directory)


def _replay_program(args: argparse.Namespace) -> int:
    """``replay FILE --program NAME``: the per-question report (text or JSON)."""
    import json

    from experiments.arguments import UsageError
    from experiments.replay_report import play
    from experiments.sweep import JobSetup, check_budgets
    from sim.workspace import WorkspaceError

    # a budget below the program's fixed overhead: one line naming both (exit 2)
    check_budgets([JobSetup(budget=args.budget, programs=(args.program,))])
    try:
        report = play(args.file, args.program, args.budget, seed=args.seed or 0,
                      questions=args.questions or 4, agent=args.agent or "synthetic",
                      profile=args.profile or "medium", format=args.format)
    except WorkspaceError as exc:
        print(f"ctxsim workspace: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:   # no unambiguous question in this trajectory
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print("\n".join(report.lines()))
    if report.over_budget and not args.soft:
        print(f"ctxsim workspace: {report.over_budget} of {report.requests} requests were "
              f"over the budget {args.budget:,} (largest {report.max_request:,} tokens): "
              "the pinned task and the program's fixed parts do not fit; raise --budget "
              "(--soft: exit 0)", file=sys.stderr)
        return 3
    return 0


def _replay(args: argparse.Namespace, directory: str) -> int:
    """Replay into ``directory`` and print the report; the workspace is closed
    before returning (a temporary directory is then removed by the caller)."""
    from sim.workspace import BudgetWarning, WorkspaceError, replay_trajectory
    from sim.workspace.dashboard import dashboard_spec
    from sim.workspace.trajectory_replay import check_final_budget

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BudgetWarning)
            res = replay_trajectory(args.file, budget=args.budget, policy=args.policy,
                                    directory=directory, tokenizer=args.tokenizer,
                                    dashboard=dashboard_spec(args.dashboard,
                                                             args.dashboard_tokens),
                                    format=args.format)
            req = res.workspace.assemble(strict=False)
    except WorkspaceError as exc:
        msg = str(exc).replace("use Workspace.open", "choose a new --dir")
        print(f"ctxsim workspace: {msg}", file=sys.stderr)
        return 2
    ws = res.workspace
    try:
        # an impossible budget is an input error: said before any report (stdout
        # stays empty), with a least budget that does not depend on the one given
        check_final_budget(res)
        return _report(args, res, req)
    except WorkspaceError as exc:
        print(f"ctxsim workspace: {exc}", file=sys.stderr)
        return 2
    finally:
        ws.close()


def _report(args: argparse.Namespace, res, req) -> int:
    """Print the final dashboard and totals of replay ``res``; the exit status."""
    ws = res.workspace
    print(req.dashboard_text or "(no dashboard)")
    print()
    blocks = list(ws.blocks.values())
    by_type = collections.Counter(b.type.value for b in blocks)
    by_status = collections.Counter(b.status.value for b in blocks)
    raw = sum(b.tokens for b in blocks)
    traj = res.trajectory
    print(f"file        {args.file}")
    print(f"format      {traj.format} ({traj.reason})")
    if res.tools:
        print(f"tools       {len(res.tools)} recorded tool schema(s), ~{res.tool_tokens:,} "
              f"tokens of every request's fixed overhead: " + ", ".join(res.tools[:8])
              + (" ..." if len(res.tools) > 8 else ""))
    print(f"tokenizer   {ws.tokenizer.name}   policy {args.policy}   budget {args.budget:,}")
    print(f"blocks      {len(blocks)}  (" + ", ".join(f"{k} {v}" for k, v in
                                              by_type.most_common()) + ")")
    print("status      " + ", ".join(f"{k} {v}" for k, v in by_status.most_common())
          + f"; groups {len(ws.groups)}")
    print(f"tokens      raw trajectory ~{raw:,}; final request ~{req.total:,} = overhead "
          f"{req.overhead:,} + conversation {req.conversation:,} + dashboard "
          f"{req.dashboard:,}")
    print(f"requests    {res.requests} assembled and validated; {res.over_budget} over "
          f"budget; largest ~{res.max_total:,} tokens; policy archives {len(res.archives)}")
    print("largest blocks:")
    for b in sorted(blocks, key=lambda b: -b.tokens)[:args.top]:
        print(f"  {b.id:>6} {b.tokens:>8,} tok  {b.type.value:<17} {b.status.value}")
    if traj.skipped:
        print("no context  " + "; ".join(f"{k} {v}" for k, v in sorted(
            traj.skipped.items())))
    if traj.notes:
        print(f"notes       {len(traj.notes)}:")
        for line in traj.notes:
            print(f"  {line}")
    if res.dropped:
        print(f"dropped     {len(res.dropped)} empty assistant message(s) left off the "
              f"wire: {', '.join(res.dropped)}")
    print(f"workspace   {ws.directory}" if args.dir is not None else
          "workspace   temporary, removed (pass --dir to keep it)")
    if res.over_budget and not args.soft:
        tries = [] if args.policy == "archive-oldest" else ["--policy archive-oldest"]
        print(f"ctxsim workspace: {res.over_budget} of {res.requests} requests were over "
              f"the budget {args.budget:,} (largest ~{res.max_total:,} tokens); try "
              f"{', '.join([*tries, 'a larger --budget'])} or --soft", file=sys.stderr)
        return 3
    return 0


def _maintain(args: argparse.Namespace) -> int:
    """``check`` / ``repair``: 0 intact, 1 damaged or a failed system call (a
    read-only filesystem, EIO: :class:`WorkspaceIOError`, one line saying whether
    anything took effect), 2 on any other workspace error (one line)."""
    from sim.workspace import WorkspaceError, WorkspaceIOError
    from sim.workspace.repair import check, repair

    try:  # a directory with no workspace is an error (2), one damaged a report (1)
        if args.workspace_command == "repair":
            for line in repair(args.dir):
                print(f"repair      {line}")
        report = check(args.dir)
    except WorkspaceError as exc:
        print(f"ctxsim workspace: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, WorkspaceIOError) else 2
    print("\n".join(report.lines()))
    return 1 if report.damaged else 0
