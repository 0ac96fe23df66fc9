"""Benchmark of the ContextEvo loop (run: ``python -m experiments.bench.bench_contextevo``).

Reported against a reference measured in the same process, plus the issue's bars:

1. one LLM-free iteration (run, card, review, judge, edit, select) over the 33
   held-in LOCA-like tasks at 128K growth, against the plain episodes of the start
   program on the same 33 tasks (the ratio is the loop's overhead over playing the
   episodes once); bar: under 2 minutes on 2 cores;
2. the full default ``ctxsim run contextevo`` (synthetic back-end, both starts, both
   task sets, ablations and baselines), in seconds; bar: under 10 minutes;
3. ``--seeds N`` (default 5): the react start on the LOCA-like tasks with base seeds
   0..N-1: the held-out paired difference (iteration 2 minus start) and whether its
   95% paired-bootstrap interval excludes 0; bar: at least 4 of 5;
4. ``--mislabel-sweep``: the same react/LOCA-like loop (seed 0) with the synthetic
   annotator's mislabel rate at 0, 0.2, 0.5 and 0.8: the held-out gain and the
   judge's attribution precision and recall (how much annotator error the screens,
   replay and held-in selection absorb);
5. one evidence-free iteration (``ef_moves``: three random grammar moves evaluated on
   the same 33 held-in tasks) beside the ContextEvo iteration of item 1: the ratio is
   what reading the evidence costs over evidence-free search at the same budget.
"""

from __future__ import annotations

import argparse
import time

from experiments.bench import description


def one_iteration() -> dict:
    """One loop iteration (stages 1-3 and selection) on the held-in tasks against
    playing those tasks' episodes once, and against one evidence-free iteration at the
    same budget. Returns seconds (``episodes_s``, ``iteration_s``, ``evidence_free_s``),
    the ratios and the episodes the iteration played."""
    from sim.agents import SyntheticAgent
    from sim.evolve.contextevo.backends import SyntheticBackend
    from sim.evolve.contextevo.compile import compile_spec, spec_of
    from sim.evolve.contextevo.loop import EvolveConfig, Runner, loca_taskset
    from sim.evolve.split import split_tasks
    from sim.harness import run_episode

    ts = loca_taskset()
    held_in = split_tasks(ts.names).held_in
    start = spec_of("react")
    t0 = time.perf_counter()
    for t in held_in:
        run_episode(ts.tasks[t], compile_spec(start), SyntheticAgent(ts.profile),
                    budget=ts.budget, seed=ts.seeds[t], tokenizer=ts.tokenizer(t))
    ref = time.perf_counter() - t0
    # the iteration itself (stages 1-3 and selection), on the 33 held-in tasks only
    import numpy as np

    from sim.evolve.contextevo import loop as L
    runner = Runner(ts)
    cfg = EvolveConfig(iterations=1)
    t0 = time.perf_counter()
    entry, _ = L._iteration(1, start, start.name, list(held_in), runner, SyntheticBackend(0),
                            cfg, np.random.default_rng(0))
    loop = time.perf_counter() - t0
    blind_runner = Runner(ts)
    t0 = time.perf_counter()
    L._blind_iteration(1, start, start.name, list(held_in), blind_runner,
                       EvolveConfig(iterations=1, mode="ef_moves"),
                       np.random.default_rng(0), set())
    blind = time.perf_counter() - t0
    return {"held_in_tasks": len(held_in), "episodes_s": ref, "iteration_s": loop,
            "ratio": loop / ref, "episodes_played": runner.episodes,
            "evidence_free_s": blind, "evidence_ratio": loop / blind}


def full_run(out: str) -> float:
    """Wall seconds of the default ``ctxsim run contextevo`` into ``out``."""
    from experiments.cli import run_command

    t0 = time.perf_counter()
    run_command(["run", "contextevo", "--out", out])
    return time.perf_counter() - t0


def seeds_check(n: int) -> list[dict]:
    """Held-out gain of iteration 2 over react (paired bootstrap, fractions of tasks)
    for seeds ``0..n-1``, and whether iteration 2 is no worse held-in, one dict per seed."""
    from experiments.contextevo.rows import paired
    from sim.evolve.contextevo.backends import SyntheticBackend
    from sim.evolve.contextevo.compile import spec_of
    from sim.evolve.contextevo.loop import EvolveConfig, evolve, loca_taskset

    out = []
    for seed in range(n):
        ts = loca_taskset(base_seed=seed)
        res = evolve(spec_of("react"), ts, SyntheticBackend(seed), EvolveConfig(seed=seed))
        m, lo, hi = paired(res.solved, "iter2", "start", list(res.held_out))
        i1 = sum(res.solved["iter1"][t] for t in res.held_in)
        i2 = sum(res.solved["iter2"][t] for t in res.held_in)
        out.append({"seed": seed, "diff": m, "lo": lo, "hi": hi, "excludes_0": lo > 0,
                    "iter2_not_worse_held_in": i2 >= i1})
    return out


def mislabel_sweep(rates=(0.0, 0.2, 0.5, 0.8)) -> list[dict]:
    """Held-out gain (fractions of tasks, paired bootstrap) and the judge's attribution
    counts at each annotator mislabel rate in ``rates`` (probabilities)."""
    from experiments.contextevo.rows import paired
    from sim.evolve.contextevo.backends import SyntheticBackend
    from sim.evolve.contextevo.compile import spec_of
    from sim.evolve.contextevo.loop import EvolveConfig, Runner, evolve, loca_taskset

    ts = loca_taskset()
    runner = Runner(ts)
    out = []
    for rate in rates:
        res = evolve(spec_of("react"), ts, SyntheticBackend(0, rate), EvolveConfig(), runner)
        m, lo, hi = paired(res.solved, "iter2", "start", list(res.held_out))
        att = {"correct": 0, "attributed": 0, "true": 0}
        for e in res.log:
            for k in att:
                att[k] += e["attribution"]["all"][k]
        out.append({"mislabel": rate, "diff": m, "lo": lo, "hi": hi, **att})
    return out


def main(argv: list[str] | None = None) -> dict:
    """Run the checks and print one line each."""
    import tempfile

    p = argparse.ArgumentParser(description=description(__doc__))
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--skip-full", action="store_true")
    p.add_argument("--mislabel-sweep", action="store_true")
    args = p.parse_args(argv)
    r = one_iteration()
    print(f"one iteration over {r['held_in_tasks']} held-in tasks: {r['iteration_s']:.1f} s "
          f"({r['episodes_played']} episodes) vs {r['episodes_s']:.1f} s to play the start "
          f"once: ratio {r['ratio']:.1f}; bar < 120 s: "
          f"{'PASS' if r['iteration_s'] < 120 else 'FAIL'}")
    print(f"one evidence-free iteration (ef_moves, same budget): {r['evidence_free_s']:.1f} s;"
          f" ContextEvo / evidence-free: {r['evidence_ratio']:.2f}")
    if not args.skip_full:
        with tempfile.TemporaryDirectory() as d:
            w = full_run(d)
        r["full_s"] = w
        print(f"full default run: {w:.1f} s; bar < 600 s: {'PASS' if w < 600 else 'FAIL'}")
    s = seeds_check(args.seeds)
    for x in s:
        print(f"seed {x['seed']}: held-out iter2 - start = {x['diff']:+.3f} "
              f"[{x['lo']:+.3f}, {x['hi']:+.3f}] excludes 0: {x['excludes_0']}; "
              f"iter2 >= iter1 on held-in: {x['iter2_not_worse_held_in']}")
    k = sum(x["excludes_0"] for x in s)
    if s:
        print(f"held-out CI excludes 0 for {k} of {len(s)} seeds; bar >= 4 of 5: "
              f"{'PASS' if k >= 4 else 'FAIL'}")
    r["seeds"] = s
    if args.mislabel_sweep:
        r["mislabel"] = mislabel_sweep()
        for x in r["mislabel"]:
            prec = x["correct"] / x["attributed"] if x["attributed"] else float("nan")
            rec = x["correct"] / x["true"] if x["true"] else float("nan")
            print(f"mislabel {x['mislabel']:.1f}: held-out iter2 - start = {x['diff']:+.3f} "
                  f"[{x['lo']:+.3f}, {x['hi']:+.3f}]; judge precision {prec:.2f}, "
                  f"recall {rec:.2f}")
    return r


if __name__ == "__main__":  # pragma: no cover
    main()
