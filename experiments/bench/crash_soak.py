"""Crash soak: many SIGKILLs of a child archiving/deleting on a durable workspace,
each followed by a reopen that checks every byte (see sim.workspace.soak).

    python -m experiments.bench.crash_soak [--kills 2000] [--seed 0] [--max-delay 0.03]
"""

from __future__ import annotations

import argparse
import tempfile

from sim.workspace.soak import soak


def main(argv: list[str] | None = None) -> int:
    """Kill a child doing archive/delete ``--kills`` times, reopen after each kill and
    check every byte and every acknowledged register (the child logs each one as
    its call returns); prints the acknowledged writes and the losses; returns 0 if
    nothing was lost (a loss raises AssertionError naming it)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-delay", type=float, default=0.03)
    parser.add_argument("--dir", default=None, help="root directory (default: temp)")
    args = parser.parse_args(argv)
    root = args.dir or tempfile.mkdtemp(prefix="ctxsim-soak-")
    res = soak(root, args.kills, seed=args.seed, max_delay=args.max_delay)
    print(f"{res.kills} kills over {res.workspaces} workspaces in {res.seconds:.1f} s: "
          f"{res.acknowledged} acknowledged writes, {res.lost} lost, {res.wrong} wrong "
          f"bytes served (last check: {res.live_blocks} live blocks) [{root}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
