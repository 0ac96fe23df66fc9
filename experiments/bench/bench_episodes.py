"""Cost of one synthetic episode, the durable path against the fast path (run:
``python -m experiments.bench.bench_episodes``).

Plays the same pressure-sweep jobs (LOCA-like tasks, every program of the default
sweep, every growth level) both ways in this process, job by job and alternating
which path goes first, so load on a shared machine hits both alike:

* reference: :func:`experiments.sweep.run_job` with ``fast=False``: each episode on
  a durable :class:`sim.workspace.Workspace` (payload files, journal, lock) and a
  fresh assembly for every read of the request;
* fast: ``fast=True``: the same workspace core on an in-memory
  :class:`sim.workspace.memory.ScratchWorkspace`, with the request and stream reused
  while the workspace state is unchanged, and each request assembled incrementally
  (:mod:`sim.workspace.incremental`: only the items an operation touched are
  re-rendered; a registration's what-if request is the next request when that
  registration is committed; native messages made once per process).

Checks that both give identical episode rows, and prints CPU seconds (process time,
less sensitive to other processes than wall time) and milliseconds per episode of
each and ``speed-up N.Nx`` (durable / fast).

Then the bare-bookkeeping floor (:mod:`experiments.bench.reference_core`): the same
tasks played by plain-Python bookkeeping, once per episode the core plays, in the same
loop (alternating with the fast route), with its solved count beside each program's;
and as its last line ``core/reference N.Nx``: the fast route's CPU time per episode
over the reference's (issue 35's goal: at most 3.0x).

``--breakdown``: before that line, one more fast pass with each part of the core
timed (:mod:`experiments.bench.breakdown`): every part's share and its milliseconds
per episode, scaled to the plain fast pass, beside the reference's whole episode.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments.arguments import Distinct
from experiments.bench import description
from experiments.bench.reference_core import play
from experiments.settings import kinds as k
from experiments.settings.vista import PressureSettings
from experiments.sweep import build_task, loca_specs, run_job
from sim.tasks.loca import FAMILIES


def main(argv=None) -> int:
    """Play the jobs both ways, compare the rows, print the times and the ratio."""
    d = PressureSettings.table()
    p = argparse.ArgumentParser(description=description(__doc__))
    # each value checked as the pressure sweep checks it (experiments.settings.kinds)
    p.add_argument("--levels", type=k.GROWTH.parse, nargs="+", action=Distinct,
                   default=d["levels"], metavar="TOKENS",
                   help="growth levels, tokens >= 1,000 (default: the pressure sweep's)")
    p.add_argument("--families", type=k.families().parse, default=2, metavar="N",
                   help=f"LOCA-like task families per level, 1..{len(FAMILIES)} "
                        "(default: 2)")
    p.add_argument("--seeds", type=k.COUNT.parse, default=1, metavar="N",
                   help="seeds per family, >= 1 (default: 1)")
    p.add_argument("--programs", type=k.program().parse, nargs="+", action=Distinct,
                   default=d["programs"], metavar="PROGRAM",
                   help="context programs (default: the pressure sweep's)")
    p.add_argument("--repeat", type=k.COUNT.parse, default=1, metavar="N",
                   help="play the jobs this many times, CPU summed (default: 1; more "
                        "passes, less noise in the ratio)")
    p.add_argument("--breakdown", action="store_true",
                   help="also time each part of the fast route (one more pass)")
    args = p.parse_args(argv)
    # dashboard_tokens None: each program's registered cap
    specs = loca_specs(PressureSettings(levels=tuple(args.levels),
                                        programs=tuple(args.programs),
                                        families=args.families, seeds=args.seeds,
                                        dashboard_tokens=None))
    run_job(specs[0], fast=False)       # warm-up: imports, tokenizer, vocabularies
    run_job(specs[0], fast=True)
    _reference_job(specs[0])
    seconds = {False: 0.0, True: 0.0, "ref": 0.0}
    rows = {False: [], True: []}
    ref_solved: list[bool] = []
    wall = time.perf_counter()
    for i, spec in enumerate(specs * args.repeat):
        for fast in ((False, True, "ref") if i % 2 == 0 else ("ref", True, False)):
            t0 = time.process_time()
            if fast == "ref":
                ref_solved += _reference_job(spec)
            else:
                rows[fast] += run_job(spec, fast=fast)
            seconds[fast] += time.process_time() - t0
    wall = time.perf_counter() - wall
    episodes = len(rows[True])
    one_pass = episodes // args.repeat
    if rows[True] != rows[False]:
        diff = next(i for i, (a, b) in enumerate(zip(rows[False], rows[True])) if a != b)
        print(f"ROWS DIFFER at episode {diff}: {rows[False][diff]} vs {rows[True][diff]}")
        return 1
    print(f"{episodes} episodes ({len(specs)} jobs x {len(args.programs)} programs"
          f"{f' x {args.repeat} passes' if args.repeat > 1 else ''}, levels "
          f"{args.levels}), identical rows both ways; wall {wall:.1f} s for the three "
          "routes")
    for fast, name in ((False, "reference (durable store, fresh assembly)"),
                       (True, "fast (in-memory store, memoised views)")):
        print(f"{name:44s} {seconds[fast]:8.2f} CPU s {1000 * seconds[fast] / episodes:8.1f} "
              f"ms/episode")
    print(f"speed-up {seconds[False] / seconds[True]:.1f}x")
    ref_episodes = len(ref_solved)
    print(f"{'bare bookkeeping (reference_core)':44s} {seconds['ref']:8.2f} CPU s "
          f"{1000 * seconds['ref'] / ref_episodes:8.2f} ms/episode")
    # solved counts of one pass (every pass plays the same episodes)
    _compare_solved(rows[True][:one_pass], ref_solved[:one_pass:len(args.programs)],
                    args.programs)
    fast_ms, ref_ms = 1000 * seconds[True] / episodes, 1000 * seconds["ref"] / ref_episodes
    if args.breakdown:
        _breakdown(specs, fast_ms, ref_ms)
    ratio = fast_ms / ref_ms
    print(f"core/reference {ratio:.1f}x")
    return 0


def _breakdown(specs, fast_ms: float, ref_ms: float) -> None:
    """Play the jobs once more on the fast route with its parts timed; print each
    part's share of that pass and its ms per episode scaled to ``fast_ms``."""
    from experiments.bench.breakdown import shares, timed

    with timed() as parts:
        t0 = time.process_time()
        for spec in specs:
            run_job(spec, fast=True)
        total = time.process_time() - t0
    print(f"where the fast route's {fast_ms:.2f} ms/episode go (one timed pass, "
          f"{1000 * total / (len(specs) * len(specs[0].setup.programs)):.2f} ms/episode "
          "with the timers; shares of it):")
    for part, share in shares(parts, total).items():
        print(f"  {part:34s} {share:6.1%} {share * fast_ms:7.2f} ms "
              f"{share * fast_ms / ref_ms:5.2f}x the reference's whole episode")


def _reference_job(spec) -> list[bool]:
    """The job's task played by the bare-bookkeeping reference once per program (as
    many episodes as the core plays, one memo of counts per job as the core's
    :class:`~sim.token_cache.KnownCountTokenizer`); its solved flags."""
    from sim.token_cache import KnownCountTokenizer
    from sim.workspace.tokenizer import get_tokenizer

    task = build_task(spec)
    tok = KnownCountTokenizer(get_tokenizer("cl100k_base"),
                              {s.content: s.tokens for s in task.steps if s.content})
    return [play(task, spec.setup.budget, tok.count).solved
            for _ in spec.setup.programs]


def _compare_solved(rows: list[dict], ref: list[bool], programs) -> None:
    """Print the reference's solved count beside each program's, and on how many
    tasks each program's solved flag differs from the reference's."""
    tasks = len(ref)
    print(f"solved of {tasks} tasks: reference {sum(ref)}; " + ", ".join(
        f"{p} {sum(r['solved'] for r in rows if r['program'] == p)}" for p in programs))
    differ = {p: sum(bool(r["solved"]) != want for r, want in
                     zip((r for r in rows if r["program"] == p), ref)) for p in programs}
    # where they differ: the reference has no agent (it never misreads a value, so
    # it solves what an agent's base error fails) and no recovery (a value archived
    # by its 80% rule is lost, where VISTA's agent reads it back)
    print("tasks on which each program's solved differs from the reference's: "
          + ", ".join(f"{p} {n}" for p, n in differ.items()))


if __name__ == "__main__":
    sys.exit(main())
