"""``ctxsim run contextevo``: evolve context programs from trajectories and judge the
frozen result on held-out tasks (ContextEvo §4-6, Tables 2 and 5; issue 11).

Settings: start from ``react`` and ``masking`` (``--start`` picks one registered
program, ``--spec`` a spec file) on the LOCA-like tasks at 128K growth with budget
128K, and on the BrowseComp-like tasks at window 16K. For each: start, iteration 1 and
iteration 2 on held-in, held-out and all tasks, with paired-bootstrap 95% intervals of
the difference from the start over tasks (common random numbers: every spec runs each
task with the same episode seed). From the first start, on both task sets, the
leave-one-stage-out ablations (no paginated review, no cross-case aggregation, no
replay, no policy update) stand beside the paper's Table 5 numbers (we reproduce
orderings, not sizes), and three evidence-free baselines at the same evaluation
budget (``variant = evidence_free``; ``baseline``: ``moves``, random moves from the
editor's own move set; ``steps``, random multi-surface grammar steps the size of the
editor's median changeset; ``best_of_n``, random specs) run from the first start on
both task sets for ``--ef-seeds`` seeds (default 5;
:mod:`experiments.contextevo.evidence_free`): the paired per-seed difference of
held-out accuracy, ContextEvo minus each baseline, with its 95% t-interval over seeds.

Writes ``contextevo.csv`` (one row per setting x variant x stage x split; accuracies
and paper values are fractions), ``contextevo_seeds.csv`` (seed, variant, baseline,
held-out accuracy per seed), ``contextevo.png``, ``contextevo.json`` (config,
per-iteration judge logs with the attribution precision and recall against the
simulator's true causes at the set mislabel rate and at 0, hypotheses rejected by each
screen, the evidence-free comparison, the back-end's call ledger) and
``contextevo_spec.json`` (each evolved spec and its diff from the start). ``--backend llm`` uses the real model as annotator and editor
(``--base-url``, else the embedded model served locally) and writes the same files
with the suffix ``_llm``.
"""

from __future__ import annotations

import json
import time

import numpy as np

from experiments.contextevo.evidence_free import BASELINES
from experiments.contextevo.paper import PAPER, PAPER_HELD_OUT_NOTES

NAME = "contextevo"
ABLATIONS = {"full": {}, "no_review": {"review": False},
             "no_aggregation": {"aggregate": False}, "no_replay": {"replay": False},
             "no_update": {"update": False}}
#: accuracy, diffs and paper_accuracy are fractions of tasks solved; the
#: hyp_* / rejected_* columns count the judge's hypotheses in that iteration
COLUMNS = ("setting", "start", "variant", "baseline", "stage", "split", "n", "accuracy",
           "diff_vs_start", "diff_lo", "diff_hi", "diff_vs_full", "full_lo", "full_hi",
           "paper_accuracy", "hyp_considered", "hyp_accepted", "rejected_support",
           "rejected_screens", "rejected_replay", "error_episodes", "backend")
#: the paper's evidence bases (App. B.2) and what this package builds of each
EVIDENCE_BASES = {
    "raw": "covered: low/high graded-reward medians of a card metric (judge.raw_screen)",
    "annotation": "covered: annotated rate, low vs high group; solved cases annotated too",
    "stratified": "covered: high-work split at median final context, gap >= 0.4",
    "bootstrap": "missing: no inert-control / resource-pressure claim",
    "local": "partial: anchored decision-point replay with a hypothesis-derived "
             "treatment (replay.restore), used as a screen, not as its own basis",
    "prospective": "missing: no untested-mechanism proposals"}
SPLITS = ("held_in", "held_out", "all")


def add_arguments(parser) -> None:
    """Options of ``ctxsim run contextevo``."""
    from experiments.arguments import (Distinct, add_no_progress, base_url, float_in,
                                       fraction)
    from experiments.config import add_config_argument
    from experiments.sweep import nonnegative_int, positive_int
    from sim.evolve.contextevo.spec import SURFACES
    from sim.policies import PROGRAMS

    # built-in programs only: ContextEvo edits a program's spec in its grammar, which
    # a plugin class (sim.plugins) does not have
    builtin = list(PROGRAMS)

    add_no_progress(parser)
    add_config_argument(parser, NAME)
    parser.add_argument("--out", default="figures", help="output directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer tasks (LOCA-like 15x2, BrowseComp-like 15x1; with "
                             "--backend llm: LOCA-like 15x1 at 8K growth, budget 6K; default: off)")
    parser.add_argument("--backend", choices=("synthetic", "llm"), default="synthetic",
                        help="annotator/editor back-end (default: %(default)s)")
    parser.add_argument("--start", default=None, metavar="PROGRAM", choices=builtin,
                        help="start from this built-in program only (default: react "
                             f"and masking; not a plugin: ContextEvo edits a built-in "
                             f"program's spec); valid: {', '.join(builtin)}")
    parser.add_argument("--spec", default=None, metavar="FILE",
                        help="start from a ProgramSpec JSON file instead (default: none)")
    parser.add_argument("--seed", type=nonnegative_int, default=0,
                        help="base seed: task instances, agent draws and the synthetic "
                             "back-end's mislabels (the split seed stays 15, the paper's; "
                             "default: %(default)s)")
    parser.add_argument("--iterations", type=positive_int, default=2,
                        help="evolution iterations (default: %(default)s)")
    parser.add_argument("--candidates", type=positive_int, default=3,
                        help="candidate changesets evaluated per iteration (default: 3)")
    parser.add_argument("--held-in-fraction", default=None, metavar="F",
                        type=float_in(0.0, 1.0, lo_open=True, hi_open=True),
                        help="share of tasks held in (default: 76/174, the paper's split)")
    parser.add_argument("--mislabel", type=fraction, default=0.2,
                        help="synthetic back-end mislabel rate (default: %(default)s)")
    parser.add_argument("--no-ablations", action="store_true",
                        help="skip the ablations and baselines (the llm back-end always "
                             "skips them; default: off)")
    parser.add_argument("--surfaces", nargs="+", choices=SURFACES, action=Distinct,
                        default=None,
                        metavar="SURFACE",
                        help="surfaces the harness adapter exposes to the editor; edits "
                             "to others are discarded and counted (default: all): "
                             + ", ".join(SURFACES))
    parser.add_argument("--ef-seeds", type=nonnegative_int, default=5,
                        help="seeds of the ContextEvo vs evidence-free comparison from "
                             "the first start on both task sets (0: skip; the llm "
                             "back-end skips it; default: %(default)s)")
    parser.add_argument("--llm-calls", type=positive_int, default=150,
                        help="model-call budget of the llm back-end (default: %(default)s)")
    parser.add_argument("--base-url", type=base_url, default=None,
                        help="OpenAI-compatible endpoint (default: the embedded model, "
                             "served locally for the run)")
    parser.add_argument("--model", default=None, help="model name at --base-url (default: the endpoint's)")


def starts(args) -> list:
    """The start specs the options name.

    Raises:
        KeyError: naming the known programs, for an unknown ``--start``.
        SpecError: for a malformed ``--spec`` file.
        UsageError: when both ``--spec`` and ``--start`` are given (exit 2).
    """
    from experiments.arguments import UsageError
    from sim.evolve.contextevo.compile import spec_of
    from sim.evolve.contextevo.spec import load_spec

    if args.spec and args.start:
        raise UsageError(f"--spec {args.spec!r} and --start {args.start!r} both name the "
                         "start; give one")
    if args.spec:
        return [load_spec(args.spec)]
    if args.start:
        return [spec_of(args.start)]
    if args.backend == "llm":
        return [spec_of("react")]
    return [spec_of("react"), spec_of("masking")]


def task_grid(args) -> dict:
    """The task sets' grid: a table of configs/contextevo.toml (``[default]``,
    ``[quick]`` under ``--quick``, ``[llm_quick]`` under ``--backend llm --quick``)
    with ``--config FILE``'s keys over it.

    Raises:
        ConfigValueError: naming a bad or unknown key (exit 2).
    """
    from experiments.config import grid

    section = "default"
    if args.quick:
        section = "llm_quick" if args.backend == "llm" else "quick"
    return grid(NAME, args, section)


def tasksets(args) -> list:
    """The LOCA-like (default 128K growth, budget 128K) and BrowseComp-like (default
    W = 16K) sets of :func:`task_grid`; with ``--backend llm`` only the LOCA-like set
    (under ``--quick`` at 8K growth with budget 6K: short trajectories, few pages per
    case)."""
    from sim.evolve.contextevo.loop import browse_taskset, loca_taskset

    g = task_grid(args)
    loca = loca_taskset(g["loca_growth"], g["loca_budget"], g["families"], g["seeds"],
                        args.seed)
    if args.backend == "llm":
        return [loca]
    return [loca, browse_taskset(g["browse_window"], g["queries"], g["browse_seeds"],
                                 args.seed)]


def paired(solved: dict, stage: str, ref: str, tasks) -> tuple[float, float, float]:
    """Mean difference of ``stage`` minus ``ref`` over ``tasks`` with its 95%
    paired-bootstrap interval."""
    from experiments.intervals import bootstrap_mean_ci

    d = [solved[stage][t] - solved[ref][t] for t in tasks]
    return bootstrap_mean_ci(d)


def rows_of(setting: str, start: str, variant: str, res, backend: str,
            full=None, baseline: str = "") -> list[dict]:
    """CSV rows of one loop result: every stage on every split."""
    sides = {"held_in": list(res.held_in), "held_out": list(res.held_out),
             "all": sorted(res.held_in + res.held_out)}
    out = []
    for stage in res.solved:
        it = int(stage[4:]) if stage.startswith("iter") else 0
        entry = res.log[it - 1] if 0 < it <= len(res.log) else {}
        rej = entry.get("rejections", {})
        for split, tasks in sides.items():
            acc = float(np.mean([res.solved[stage][t] for t in tasks]))
            d = paired(res.solved, stage, "start", tasks)
            row = {"setting": setting, "start": start, "variant": variant,
                   "baseline": baseline, "stage": stage,
                   "split": split, "n": len(tasks), "accuracy": round(acc, 4),
                   "diff_vs_start": round(d[0], 4), "diff_lo": round(d[1], 4),
                   "diff_hi": round(d[2], 4), "diff_vs_full": "", "full_lo": "",
                   "full_hi": "", "paper_accuracy": "",
                   "hyp_considered": rej.get("considered", ""),
                   "hyp_accepted": rej.get("accepted", ""),
                   "rejected_support": rej.get("support", ""),
                   "rejected_screens": rej.get("screens", ""),
                   "rejected_replay": rej.get("replay", ""),
                   "error_episodes": sum(1 for e in res.errors.get(stage, [])
                                         if e["task_id"] in set(tasks)),
                   "backend": backend}
            if full is not None and stage == _last(res):
                both = {"v": res.solved[stage], "f": full.solved[_last(full)]}
                f = paired(both, "v", "f", tasks)
                row.update(diff_vs_full=round(f[0], 4), full_lo=round(f[1], 4),
                           full_hi=round(f[2], 4))
            paper = PAPER.get("native" if (variant == "full" and stage == "start")
                              else variant, {})
            if stage == _last(res) or (variant == "full" and stage == "start"):
                row["paper_accuracy"] = paper.get(split, "")
            out.append(row)
    return out


def _last(res) -> str:
    return list(res.solved)[-1]


def make_backend(args, client=None):
    """The back-end the options name (the llm one needs ``client``)."""
    from sim.evolve.contextevo.backends import LLMBackend, SyntheticBackend

    if args.backend == "llm":
        return LLMBackend(client, max_calls=args.llm_calls, context_tokens=4096)
    return SyntheticBackend(args.seed, args.mislabel)


def _exposed(args) -> tuple:
    from sim.evolve.contextevo.spec import SURFACES

    return tuple(args.surfaces) if getattr(args, "surfaces", None) else SURFACES


def _split_options(args) -> dict:
    f = getattr(args, "held_in_fraction", None)
    return {} if f is None else {"held_in_fraction": f}


def _config(args, **over):
    from sim.evolve.contextevo.loop import EvolveConfig

    kw = {"iterations": args.iterations, "candidates": args.candidates,
          "seed": args.seed, "exposed": _exposed(args), **_split_options(args)}
    if args.backend == "synthetic":
        kw["reference_mislabel"] = 0.0  # attribution also scored at mislabel 0
    return EvolveConfig(**{**kw, **over})


def _progress(args):
    """``print`` for the loop's progress lines, or a no-op under ``--no-progress``."""
    return (lambda line: None) if getattr(args, "no_progress", False) else print


def run_all(args, client=None, progress=print) -> dict:
    """Every loop the options ask for; returns the raw results (for :func:`run`)."""
    from experiments.contextevo.evidence_free import median_changeset, run_seeds
    from sim.evolve.contextevo.loop import Runner, evolve
    from sim.evolve.split import split_tasks

    sts = starts(args)
    sets = tasksets(args)
    for ts in sets:  # a bad split fails before any episode runs
        split_tasks(ts.names, **_split_options(args))
    results, ablations, ledgers, baselines = [], {}, [], {}
    for si, ts in enumerate(sets):
        runner = Runner(ts)
        for sj, start in enumerate(sts):
            backend = make_backend(args, client)
            t0 = time.perf_counter()
            res = evolve(start, ts, backend, _config(args), runner)
            progress(f"[contextevo] {ts.name} from {start.name}: "
                     f"{time.perf_counter() - t0:.1f} s")
            results.append((ts.name, start, res))
            ledgers.append({"setting": ts.name, "start": start.name, **backend.ledger()})
            led = ledgers[-1]
            if led.get("model_calls") and led.get("failed_calls") == led["model_calls"]:
                # an evolution in which no call reached the model is not a result
                raise RuntimeError(f"every one of the {led['model_calls']} model calls "
                                   f"failed ({ts.name} from {start.name}); last: "
                                   f"{led.get('last_error') or 'unknown'}")
            if sj == 0 and not args.no_ablations and args.backend == "synthetic":
                abl = ablations.setdefault(ts.name, {})
                for var, over in ABLATIONS.items():
                    if var == "full":
                        abl[var] = res
                        continue
                    b = make_backend(args, client)
                    abl[var] = evolve(start, ts, b, _config(args, **over), runner)
                    progress(f"[contextevo] {ts.name} ablation {var} done")
                    ledgers.append({"setting": ts.name, "start": start.name,
                                    "variant": var, **b.ledger()})
                size = median_changeset(res)
                for name, mode in BASELINES.items():
                    baselines.setdefault(ts.name, {})[name] = evolve(
                        start, ts, None, _config(args, mode=mode, step_surfaces=size),
                        runner)
                progress(f"[contextevo] {ts.name} evidence-free baselines done "
                         f"(steps of {size} surfaces)")
    seed_rows, comparison = [], {}
    if args.ef_seeds and not args.no_ablations and args.backend == "synthetic":
        seeds = list(range(args.seed, args.seed + args.ef_seeds))
        kw = {"iterations": args.iterations, "candidates": args.candidates,
              "exposed": _exposed(args), **_split_options(args)}

        def make_sets(seed):
            return tasksets(_with_seed(args, seed))

        def backend_of(seed):
            return make_backend(_with_seed(args, seed))

        # the main run's seed is the first: its loops from the first start are reused
        done = {(args.seed, ts.name): (ablations[ts.name]["full"], baselines[ts.name])
                for ts in sets if ts.name in baselines}
        seed_rows, comparison = run_seeds(make_sets, sts[0], seeds, backend_of, kw,
                                          progress, done)
    return {"results": results, "ablations": ablations, "ledgers": ledgers,
            "sets": sets, "starts": sts, "baselines": baselines,
            "seed_rows": seed_rows, "comparison": comparison}


def _with_seed(args, seed: int):
    import argparse

    return argparse.Namespace(**{**vars(args), "seed": seed})


def _pool(entries, get) -> dict:
    tot = {"attributed": 0, "correct": 0, "true": 0}
    for e in entries:
        a = get(e)
        if a:
            for k in tot:
                tot[k] += a[k]
    return {**tot,
            "precision": tot["correct"] / tot["attributed"] if tot["attributed"] else None,
            "recall": tot["correct"] / tot["true"] if tot["true"] else None}


def attribution_summary(logs: dict, mislabel: float | None = None) -> dict:
    """Judge attribution precision/recall (and the annotator's) against the
    simulator's true causes, pooled over the iterations of each setting, at the run's
    mislabel rate and (synthetic back-end) at mislabel 0 on the same trajectories."""
    table, lines = {}, []

    def f(x):
        return "n/a" if x is None else f"{x:.2f}"
    for key, entries in logs.items():
        rec = {"attribution": _pool(entries, lambda e: e.get("attribution", {}).get("all")),
               "annotation": _pool(entries, lambda e: e.get("annotation", {}).get("all")),
               "attribution_mislabel0": _pool(entries, lambda e: e.get(
                   "attribution_reference", {}).get("judge", {}).get("all")),
               "annotation_mislabel0": _pool(entries, lambda e: e.get(
                   "attribution_reference", {}).get("annotation", {}).get("all"))}
        table[key] = rec
        j, a, j0 = rec["attribution"], rec["annotation"], rec["attribution_mislabel0"]
        rate = "" if mislabel is None else f" at mislabel {mislabel:g}"
        line = (f"{key}: judge precision {f(j['precision'])} ({j['correct']}/"
                f"{j['attributed']}), recall {f(j['recall'])} ({j['correct']}/{j['true']})"
                f"{rate}; annotator {f(a['precision'])}/{f(a['recall'])}")
        if j0["true"]:
            line += (f"; at mislabel 0: judge {f(j0['precision'])}/{f(j0['recall'])}, "
                     f"annotator {f(rec['annotation_mislabel0']['precision'])}/"
                     f"{f(rec['annotation_mislabel0']['recall'])}")
        lines.append(line)
    return {"table": table, "lines": lines}


def _rejections(entries) -> dict:
    out: dict = {}
    for e in entries:
        for k, v in e.get("rejections", {}).items():
            out[k] = out.get(k, 0) + v
    return out


def _spec_record(start, res) -> dict:
    from sim.evolve.contextevo.spec import diff

    final = res.specs[_last(res)]
    return {"start": start.to_dict(), "evolved": final.to_dict(),
            "diff": [{"surface": s, "start": a, "evolved": b}
                     for s, a, b in diff(start, final)]}


def _panel_stages(ax, rows, backend: str) -> None:
    """Accuracy per stage and split for each setting; the held-out paired difference
    of the final iteration from the start, with its 95% interval, above each group."""
    full = [r for r in rows if r["variant"] == "full"]
    settings = list(dict.fromkeys((r["setting"], r["start"]) for r in full))
    stages = list(dict.fromkeys(r["stage"] for r in full))
    width = 0.8 / (len(SPLITS) * len(stages))
    for k, (setting, start) in enumerate(settings):
        for a, split in enumerate(SPLITS):
            for b, stage in enumerate(stages):
                r = next((x for x in full if (x["setting"], x["start"], x["split"],
                                              x["stage"]) == (setting, start, split, stage)),
                         None)
                if r is None:
                    continue
                x = k + (a * len(stages) + b - (len(SPLITS) * len(stages) - 1) / 2) * width
                ax.bar(x, r["accuracy"], width, color=f"C{b}", alpha=(0.45, 1.0, 0.7)[a],
                       label=stage if k == 0 and a == 0 else None,
                       edgecolor="k" if split == "held_out" else "none", linewidth=0.6)
                if stage != "start":
                    _paired_whisker(ax, x, r, "diff_vs_start", "diff_lo", "diff_hi")
    # the held-out difference goes under each group's name, not above its bars, so
    # the axis ends at a fraction of 1 whatever the bars' heights
    ticks = []
    for setting, start in settings:
        last = next((x for x in full if (x["setting"], x["start"], x["split"], x["stage"])
                     == (setting, start, "held_out", stages[-1])), None)
        n = {x["split"]: x["n"] for x in full if (x["setting"], x["start"]) == (setting, start)}
        ticks.append(f"{setting}\nfrom {start}\nn = " + " | ".join(
            str(n.get(sp, "?")) for sp in SPLITS) + " tasks" + (
            "" if last is None else f"\nheld-out {last['diff_vs_start']:+.2f}\n"
            f"[{last['diff_lo']:+.2f}, {last['diff_hi']:+.2f}]"))
    ax.set_xticks(range(len(settings)), ticks, fontsize=8)
    ax.set_ylim(0, 1.0)
    ax.set_ylabel("solved fraction")
    ax.legend(fontsize=7, loc="upper left", ncol=len(stages))
    ax.set_title(f"(a) ContextEvo, {backend} back-end: bars per group = held-in | "
                 "held-out (outlined) | all;\nwhiskers: each iteration's paired 95% "
                 "interval of its difference from start, around its bar;\nunder each "
                 "group: held-out difference, final iteration minus start [95% CI]",
                 fontsize=8)


def _paired_whisker(ax, pos, r, diff: str, lo: str, hi: str, horizontal=False) -> None:
    """Row ``r``'s 95% paired interval of its difference from its reference (columns
    ``diff``, ``lo``, ``hi``), drawn around its bar's end at ``pos``: the whisker
    spans reference + [lo, hi] (the pressure figure's convention), so it crosses the
    reference's value exactly when the interval holds 0; clipped to [0, 1] (a
    resampled reference can be higher than the reference, so reference + lo can
    fall below 0, where no solved fraction lies). None where ``r`` has no interval."""
    if r.get(lo, "") == "" or r.get(hi, "") == "":
        return
    v, d = float(r["accuracy"]), float(r[diff])
    low = min(max(v - d + float(r[lo]), 0.0), v)
    high = max(min(v - d + float(r[hi]), 1.0), v)
    err = [[v - low], [high - v]]
    kw = dict(fmt="none", ecolor="k", elinewidth=0.8, capsize=2, zorder=3)
    if horizontal:
        ax.errorbar(v, pos, xerr=err, **kw)
    else:
        ax.errorbar(pos, v, yerr=err, **kw)


def _panel_variants(ax, rows, first: str, backend: str = "synthetic") -> None:
    """Final-iteration accuracy on all tasks: full, ablations, evidence-free baselines
    (ours, per task set) beside the paper's Table 5 (fractions)."""
    def name(r):
        return f"evidence-free: {r['baseline']}" if r["variant"] == "evidence_free" \
            else r["variant"]
    last = {r["setting"]: r["stage"] for r in rows if r["variant"] == "full"}
    pick = [r for r in rows if r["split"] == "all" and r["start"] == first
            and r["stage"] == last.get(r["setting"])]
    starts_ = {r["setting"]: r for r in rows if r["variant"] == "full" and r["split"] == "all"
               and r["stage"] == "start" and r["start"] == first}
    names = ["start"] + list(ABLATIONS) + [f"evidence-free: {b}" for b in BASELINES]
    settings = list(dict.fromkeys(r["setting"] for r in pick))
    ys = np.arange(len(names))
    h = 0.8 / (len(settings) + 1)
    for i, setting in enumerate(settings):
        got = {name(r): r for r in pick if r["setting"] == setting}
        if setting in starts_:
            got["start"] = starts_[setting]
        pos = ys + (i - len(settings) / 2) * h
        ax.barh(pos, [got[n]["accuracy"] if n in got else np.nan for n in names], h,
                color=f"C{i}", label=f"ours: {setting} from {first}")
        for y, n in zip(pos, names):
            r = got.get(n)
            if r is None or n == "start":
                continue
            if n == "full":  # full's reference is the start
                _paired_whisker(ax, y, r, "diff_vs_start", "diff_lo", "diff_hi", True)
            else:
                _paired_whisker(ax, y, r, "diff_vs_full", "full_lo", "full_hi", True)
    paper = [PAPER["native"]["all"]] + [PAPER.get(n, {}).get("all", np.nan)
                                        for n in names[1:]]
    ax.barh(ys + (len(settings) / 2) * h, paper, h, color="C7",
            label="paper: LHTB-46, Table 5 (no evidence-free baseline there)")
    # the paper's held-out numbers beside the paper's own bar, named as the paper's
    for y, n, v in zip(ys, names, paper):
        if n in PAPER_HELD_OUT_NOTES:
            ax.text(v + 0.01, y + (len(settings) / 2) * h,
                    f"paper: {PAPER_HELD_OUT_NOTES[n]}", fontsize=6, va="center",
                    color="dimgrey")
    ax.set_yticks(ys, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("solved fraction, all tasks, final iteration\n(whiskers: 95% paired "
                  "interval of the difference from full, for full from start)", fontsize=8)
    ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1)
    # the title says what the panel holds: without ablation or baseline rows (the llm
    # back-end runs neither) it shows the paper's bars only
    ours = any(r["variant"] != "full" for r in pick)
    ax.set_title("(b) ablations and evidence-free baselines at equal budget\n"
                 "(paper: orderings, not sizes)" if ours else
                 f"(b) the paper's Table 5 ablations only:\nnot run with the {backend} "
                 "back-end", fontsize=8)


def seeds_not_run(rows: list[dict], backend: str) -> str:
    """Why panel (c) is empty, in the words of the run that made ``rows``: the
    evidence-free seeds run only with the synthetic back-end (:func:`run_all`), only
    with the ablations, and only with ``--ef-seeds`` at least 2."""
    if backend != "synthetic":
        return (f"evidence-free seeds not run with the {backend} back-end\n"
                "(they run with the synthetic back-end only)")
    if not any(r["variant"] != "full" for r in rows):
        return "evidence-free seeds not run (--no-ablations)"
    return "evidence-free seeds not run (--ef-seeds 0)"


def _panel_seeds(ax, seed_rows, comparison, why_not: str = "") -> None:
    """Held-out accuracy per seed, ContextEvo and each evidence-free baseline, with
    the paired interval of ContextEvo minus each over seeds; ``why_not`` when there
    are no seeds."""
    if not seed_rows:
        ax.set_axis_off()
        ax.text(0.5, 0.5, why_not, ha="center", va="center", fontsize=9)
        return
    settings = list(dict.fromkeys(r["setting"] for r in seed_rows))
    arms = [("full", "")] + [("evidence_free", b) for b in BASELINES]
    lines = []
    for k, setting in enumerate(settings):
        for a, (var, base) in enumerate(arms):
            ys = [r["heldout_accuracy"] for r in seed_rows if r["setting"] == setting
                  and r["variant"] == var and r["baseline"] == base]
            x = k + (a - (len(arms) - 1) / 2) * 0.18
            ax.scatter(np.full(len(ys), x), ys, s=12, color=f"C{a}",
                       label=("ContextEvo" if var == "full" else f"evidence-free: {base}")
                       if k == 0 else None)
            ax.plot([x - 0.07, x + 0.07], [np.mean(ys)] * 2, color=f"C{a}", lw=2)
        for base, c in comparison.get(setting, {}).items():
            lines.append(f"{setting}, ContextEvo - {base}: {c['mean']:+.3f} "
                         f"[{c['lo']:+.3f}, {c['hi']:+.3f}] ({c['verdict']})")
    ax.set_xticks(range(len(settings)), settings, fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("held-out solved fraction (one dot per seed; bar: mean)")
    ax.legend(fontsize=6, loc="lower left")
    n = comparison and next(iter(next(iter(comparison.values())).values()))["n_seeds"]
    ax.set_title(f"(c) ContextEvo vs evidence-free search, {n} seeds, equal budget",
                 fontsize=8)
    ax.text(0.0, -0.16, "paired per-seed difference, 95% t-interval over seeds:\n"
            + "\n".join(lines), transform=ax.transAxes, fontsize=6, va="top")


def figure(rows: list[dict], path, backend: str, notes=(), seed_rows=(), comparison=None):
    """The ContextEvo figure, three panels.

    Panel (a): accuracy per stage and split per setting with the held-out paired interval;
    (b) ablations and evidence-free baselines, ours beside the paper; (c) ContextEvo
    vs evidence-free search per seed.
    """
    from experiments.output import new_figure, save_figure
    from experiments.paired import CRN_NOTE

    fig, axes = new_figure(1, 3, figsize=(17, 5.4),
                           gridspec_kw={"width_ratios": [1.3, 1.1, 1.0]})
    _panel_stages(axes[0], rows, backend)
    first = next((r["start"] for r in rows if r["variant"] == "full"), "")
    _panel_variants(axes[1], rows, first, backend)
    _panel_seeds(axes[2], list(seed_rows), comparison or {}, seeds_not_run(rows, backend))
    fig.text(0.5, -0.02, CRN_NOTE, ha="center", fontsize=7)
    if notes:
        fig.text(0.01, -0.05, "attribution vs the simulator's true causes, pooled over "
                 "iterations (precision/recall):\n" + "\n".join(notes), ha="left",
                 va="top", fontsize=6.5)
    return save_figure(fig, path)


def run(args) -> list:
    """Run the experiment and write CSV, PNG, JSON and the spec JSON."""
    from experiments.arguments import UsageError
    from experiments.output import prepare_out, write_csv, write_sidecar
    from sim.evolve.contextevo.spec import ProgramSpec
    from sim.evolve.split import split_tasks

    if getattr(args, "ef_seeds", 0) == 1:
        raise UsageError("--ef-seeds must be 0 or at least 2 (an interval over seeds "
                         "needs two), got 1")
    out = prepare_out(args.out)
    starts(args)  # bad --start / --spec fail before any work
    for ts in tasksets(args):
        try:
            split_tasks(ts.names, **_split_options(args))
        except ValueError as exc:
            # a fraction that leaves a task set with no held-in or no held-out task
            # cannot run: a usage error (exit 2), reported before any work
            raise UsageError(f"--held-in-fraction {args.held_in_fraction!r} cannot split "
                             f"the {len(ts.names)} tasks: {exc}") from None
    suffix = "" if args.backend == "synthetic" else "_llm"
    t0 = time.perf_counter()
    record: dict = {}
    if args.backend == "llm":
        from experiments.endpoint import endpoint
        from sim.agents.llm import ChatClient

        with endpoint(args) as (settings, record):
            client = ChatClient(settings)
            raw = run_all(args, client, progress=_progress(args))
            record = {**record, "client_ledger": client.ledger.as_dict()}
    else:
        raw = run_all(args, progress=_progress(args))
    wall = time.perf_counter() - t0
    rows = []
    for setting, start, res in raw["results"]:
        rows += rows_of(setting, start.name, "full", res, args.backend)
    for setting, abl in raw["ablations"].items():
        for var, res in abl.items():
            if var != "full":
                rows += [r for r in rows_of(setting, raw["starts"][0].name, var, res,
                                            args.backend, abl["full"])
                         if r["stage"] != "start"]
    for setting, per in raw["baselines"].items():
        full = raw["ablations"][setting]["full"]
        for base, res in per.items():
            rows += [r for r in rows_of(setting, raw["starts"][0].name, "evidence_free", res,
                                        args.backend, full, baseline=base)
                     if r["stage"] != "start"]
    specs = {f"{s}/{st.name}": _spec_record(st, res) for s, st, res in raw["results"]}
    for key, rec in specs.items():
        print(f"[contextevo] evolved spec {key}:\n"
              f"{ProgramSpec.from_dict(rec['evolved']).to_json()}", end="")
        changes = "; ".join(f"{d['surface']}: {json.dumps(d['start'])} -> "
                            f"{json.dumps(d['evolved'])}" for d in rec["diff"])
        print(f"[contextevo] diff from start: {changes or 'none (empty changesets)'}")
    from experiments.contextevo.evidence_free import SEED_COLUMNS

    paths = [write_csv(out / f"{NAME}{suffix}.csv", COLUMNS, rows)]
    if raw["seed_rows"]:
        paths.append(write_csv(out / f"{NAME}{suffix}_seeds.csv", SEED_COLUMNS,
                               raw["seed_rows"]))
    for setting, per in raw["comparison"].items():
        for base, c in per.items():
            print(f"[contextevo] {setting}: ContextEvo minus evidence-free {base}, held-out,"
                  f" {c['n_seeds']} seeds: {c['mean']:+.3f} [{c['lo']:+.3f}, {c['hi']:+.3f}]"
                  f" -> {c['verdict']}")
    spec_path = out / f"{NAME}{suffix}_spec.json"
    spec_path.write_text(json.dumps(specs, indent=1, sort_keys=True) + "\n")
    logs = {f"{s}/{st.name}": res.log for s, st, res in raw["results"]}
    attribution = attribution_summary(
        logs, args.mislabel if args.backend == "synthetic" else None)
    for line in attribution["lines"]:
        print(f"[contextevo] {line}")
    paths.append(figure(rows, out / f"{NAME}{suffix}.png", args.backend,
                        attribution["lines"], raw["seed_rows"], raw["comparison"]))
    abl_logs = {f"{s}/{v}": r.log for s, abl in raw["ablations"].items()
                for v, r in abl.items() if v != "full"}
    cfg = {"quick": bool(args.quick), "backend": args.backend, "seed": args.seed,
           "iterations": args.iterations, "candidates": args.candidates,
           "mislabel": args.mislabel, "starts": [s.name for s in raw["starts"]],
           "settings": [{"name": ts.name, "budget": ts.budget, "tasks": len(ts.tasks)}
                        for ts in raw["sets"]],
           "split": "split_tasks(sorted names, held_in_fraction=76/174, seed=15)",
           "spec_file": args.spec, "surfaces": list(_exposed(args)),
           "held_in_fraction": args.held_in_fraction or 76 / 174,
           "ef_seeds": args.ef_seeds}
    episodes = sum(r.episodes for _, _, r in raw["results"])
    paths.append(write_sidecar(out / f"{NAME}{suffix}.json", cfg, {
        **record, "attribution": attribution["table"], "logs": logs,
        "ablation_logs": abl_logs, "call_ledger": raw["ledgers"],
        "paper_table5": PAPER, "episodes_played_main": episodes,
        "evidence_free_comparison": {
            "claim": "CE-diagnosis-vs-evidence-free: diagnosis-guided edits beat "
                     "evidence-free edits at equal budget on held-out tasks",
            "measure": "per seed: held-out accuracy of ContextEvo's final spec minus the "
                       "baseline's (same tasks, split and episode seeds); mean over seeds "
                       "with a 95% Student-t interval",
            "start": raw["starts"][0].name, "by_setting": raw["comparison"],
            "seeds_csv": f"{NAME}{suffix}_seeds.csv" if raw["seed_rows"] else None},
        "hypotheses_rejected": {key: _rejections(entries) for key, entries in logs.items()},
        "evidence_bases": EVIDENCE_BASES,
        "support_threshold": "MIN_SUPPORT = 2 failed cases per hypothesis (ours; the "
                             "paper states no count)",
        "candidate_errors": {f"{s}/{st.name}": res.errors for s, st, res in raw["results"]},
        "wall_seconds": round(wall, 1),
        "measured": "synthetic agent (one profile) acting; back-end as annotator/editor",
        "evolved_diffs": {k: [d["surface"] for d in v["diff"]] for k, v in specs.items()}}))
    paths.append(spec_path)
    return paths
