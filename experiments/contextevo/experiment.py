"""``ctxsim run contextevo``: evolve context programs from trajectories and judge the
frozen result on held-out tasks (ContextEvo §4-6, Tables 2 and 5; issue 11).

Settings: start from ``react`` and ``masking`` (``--start`` picks one registered
program, ``--spec`` a spec file) on the LOCA-like tasks at 128K growth with budget
128K, and on the BrowseComp-like tasks at window 16K. For each: start, iteration 1 and
iteration 2 on held-in, held-out and all tasks, with paired-bootstrap 95% intervals of
the difference from the start over tasks (common random numbers: every spec runs each
task with the same episode seed). From the first start, on both task sets, the
leave-one-stage-out ablations (no paginated review, no cross-case aggregation, no
replay, no policy update) and two baselines at the same evaluation budget (random
grammar edits, best-of-N random specs) stand beside the paper's Table 5 numbers; we
reproduce orderings, not sizes.

Writes ``contextevo.csv`` (one row per setting x variant x stage x split),
``contextevo.png``, ``contextevo.json`` (config, per-iteration judge logs with the
attribution precision and recall against the simulator's true causes, the
back-end's call ledger) and ``contextevo_spec.json`` (each evolved spec and its diff
from the start). ``--backend llm`` uses the real model as annotator and editor
(``--base-url``, else the embedded model served locally) and writes the same files
with the suffix ``_llm``.
"""

from __future__ import annotations

import json
import time

import numpy as np

from experiments.claims.registry.contextevo import table5

NAME = "contextevo"
#: ContextEvo Table 5 (LHTB-46, DeepSeek-V4-Flash): all-task score (%) and held-out,
#: held once in the claims registry
PAPER = table5()
ABLATIONS = {"full": {}, "no_review": {"review": False},
             "no_aggregation": {"aggregate": False}, "no_replay": {"replay": False},
             "no_update": {"update": False}, "random_edits": {"mode": "random_edits"},
             "best_of_n": {"mode": "best_of_n"}}
COLUMNS = ("setting", "start", "variant", "stage", "split", "n", "accuracy",
           "diff_vs_start", "diff_lo", "diff_hi", "diff_vs_full", "full_lo", "full_hi",
           "paper_accuracy", "backend")
SPLITS = ("held_in", "held_out", "all")
QUICK = {"families": 15, "seeds": 2, "queries": 15, "browse_seeds": 1}
FULL = {"families": 15, "seeds": 5, "queries": 25, "browse_seeds": 2}
#: the small real-model run: LOCA-like tasks at 8K growth under a 6K budget (react
#: solves about half: both reward groups exist for the screens)
LLM_QUICK = {"growth": 8_000, "budget": 6_000, "families": 15, "seeds": 1}


def add_arguments(parser) -> None:
    """Options of ``ctxsim run contextevo``."""
    from experiments.arguments import add_no_progress
    from experiments.sweep import nonnegative_int, positive_int, program_names
    from sim.evolve.contextevo.spec import SURFACES

    add_no_progress(parser)

    parser.add_argument("--out", default="figures", help="output directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer tasks (LOCA-like 15x2, BrowseComp-like 15x1; with "
                             "--backend llm: LOCA-like 15x1 at 8K growth, budget 6K; default: off)")
    parser.add_argument("--backend", choices=("synthetic", "llm"), default="synthetic",
                        help="annotator/editor back-end (default: %(default)s)")
    parser.add_argument("--start", default=None, metavar="PROGRAM", choices=program_names(),
                        help="start from this registered program only (default: react "
                             f"and masking); valid: {', '.join(program_names())}")
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
    parser.add_argument("--held-in-fraction", type=float, default=None, metavar="F",
                        help="share of tasks held in (default: 76/174, the paper's split)")
    parser.add_argument("--mislabel", type=float, default=0.2,
                        help="synthetic back-end mislabel rate (default: %(default)s)")
    parser.add_argument("--no-ablations", action="store_true",
                        help="skip the ablations and baselines (the llm back-end always "
                             "skips them; default: off)")
    parser.add_argument("--surfaces", nargs="+", choices=SURFACES, default=None,
                        metavar="SURFACE",
                        help="surfaces the harness adapter exposes to the editor; edits "
                             "to others are discarded and counted (default: all): "
                             + ", ".join(SURFACES))
    parser.add_argument("--llm-calls", type=positive_int, default=150,
                        help="model-call budget of the llm back-end (default: %(default)s)")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (default: the embedded model, "
                             "served locally for the run)")
    parser.add_argument("--model", default=None, help="model name at --base-url (default: the endpoint's)")


def starts(args) -> list:
    """The start specs the options name.

    Raises:
        KeyError: naming the known programs, for an unknown ``--start``.
        SpecError: for a malformed ``--spec`` file.
    """
    from sim.evolve.contextevo.compile import spec_of
    from sim.evolve.contextevo.spec import load_spec

    if args.spec:
        return [load_spec(args.spec)]
    if args.start:
        return [spec_of(args.start)]
    if args.backend == "llm":
        return [spec_of("react")]
    return [spec_of("react"), spec_of("masking")]


def tasksets(args) -> list:
    """The LOCA-like (128K growth, budget 128K) and BrowseComp-like (W = 16K) sets;
    with ``--backend llm`` only LOCA-like tasks, and under ``--quick`` at 8K growth
    with budget 6K (:data:`LLM_QUICK`: short trajectories, few pages per case)."""
    from sim.evolve.contextevo.loop import browse_taskset, loca_taskset

    if args.backend == "llm":
        if args.quick:
            q = LLM_QUICK
            return [loca_taskset(q["growth"], q["budget"], q["families"], q["seeds"],
                                 args.seed)]
        return [loca_taskset(128_000, 128_000, FULL["families"], FULL["seeds"], args.seed)]
    n = QUICK if args.quick else FULL
    return [loca_taskset(128_000, 128_000, n["families"], n["seeds"], args.seed),
            browse_taskset(16_000, n["queries"], n["browse_seeds"], args.seed)]


def paired(solved: dict, stage: str, ref: str, tasks) -> tuple[float, float, float]:
    """Mean difference of ``stage`` minus ``ref`` over ``tasks`` with its 95%
    paired-bootstrap interval."""
    from experiments.paired import bootstrap_mean_ci

    d = [solved[stage][t] - solved[ref][t] for t in tasks]
    return bootstrap_mean_ci(d)


def rows_of(setting: str, start: str, variant: str, res, backend: str,
            full=None) -> list[dict]:
    """CSV rows of one loop result: every stage on every split."""
    sides = {"held_in": list(res.held_in), "held_out": list(res.held_out),
             "all": sorted(res.held_in + res.held_out)}
    out = []
    for stage in res.solved:
        for split, tasks in sides.items():
            acc = float(np.mean([res.solved[stage][t] for t in tasks]))
            d = paired(res.solved, stage, "start", tasks)
            row = {"setting": setting, "start": start, "variant": variant, "stage": stage,
                   "split": split, "n": len(tasks), "accuracy": round(acc, 4),
                   "diff_vs_start": round(d[0], 4), "diff_lo": round(d[1], 4),
                   "diff_hi": round(d[2], 4), "diff_vs_full": "", "full_lo": "",
                   "full_hi": "", "paper_accuracy": "", "backend": backend}
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


def _progress(args):
    """``print`` for the loop's progress lines, or a no-op under ``--no-progress``."""
    return (lambda line: None) if getattr(args, "no_progress", False) else print


def run_all(args, client=None, progress=print) -> dict:
    """Every loop the options ask for; returns the raw results (for :func:`run`)."""
    from sim.evolve.contextevo.loop import EvolveConfig, Runner, evolve
    from sim.evolve.split import split_tasks

    sts = starts(args)
    sets = tasksets(args)
    for ts in sets:  # a bad split fails before any episode runs
        split_tasks(ts.names, **_split_options(args))
    results, ablations, ledgers = [], {}, []
    for si, ts in enumerate(sets):
        runner = Runner(ts)
        for sj, start in enumerate(sts):
            backend = make_backend(args, client)
            cfg = EvolveConfig(iterations=args.iterations, candidates=args.candidates,
                               seed=args.seed, exposed=_exposed(args),
                               **_split_options(args))
            t0 = time.perf_counter()
            res = evolve(start, ts, backend, cfg, runner)
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
                    c = EvolveConfig(**{"iterations": args.iterations,
                                        "candidates": args.candidates, "seed": args.seed,
                                        "exposed": _exposed(args),
                                        **_split_options(args), **over})
                    abl[var] = evolve(start, ts, b, c, runner)
                    progress(f"[contextevo] {ts.name} ablation {var} done")
                    ledgers.append({"setting": ts.name, "start": start.name,
                                    "variant": var, **b.ledger()})
    return {"results": results, "ablations": ablations, "ledgers": ledgers,
            "sets": sets, "starts": sts}


def attribution_summary(logs: dict) -> dict:
    """Judge attribution precision/recall (and the annotator's) against the
    simulator's true causes, pooled over the iterations of each setting."""
    table, lines = {}, []
    for key, entries in logs.items():
        rec = {}
        for who in ("attribution", "annotation"):
            tot = {"attributed": 0, "correct": 0, "true": 0}
            for e in entries:
                a = e.get(who, {}).get("all")
                if a:
                    for k in tot:
                        tot[k] += a[k]
            rec[who] = {**tot,
                        "precision": tot["correct"] / tot["attributed"] if tot["attributed"] else None,
                        "recall": tot["correct"] / tot["true"] if tot["true"] else None}
        table[key] = rec

        def f(x):
            return "n/a" if x is None else f"{x:.2f}"
        j, a = rec["attribution"], rec["annotation"]
        lines.append(f"{key}: judge precision {f(j['precision'])} ({j['correct']}/"
                     f"{j['attributed']}), recall {f(j['recall'])} ({j['correct']}/{j['true']}); "
                     f"annotator precision {f(a['precision'])}, recall {f(a['recall'])}")
    return {"table": table, "lines": lines}


def _spec_record(start, res) -> dict:
    from sim.evolve.contextevo.spec import diff

    final = res.specs[_last(res)]
    return {"start": start.to_dict(), "evolved": final.to_dict(),
            "diff": [{"surface": s, "start": a, "evolved": b}
                     for s, a, b in diff(start, final)]}


def _delta_labels(ax, ys, xs, ref, extra=None, names=None) -> None:
    """Write each bar's difference from ``ref`` in percentage points beside it."""
    if ref is None:
        return
    for k, (y, x) in enumerate(zip(ys, xs)):
        if x is None or np.isnan(x):
            continue
        tail = (extra or {}).get(names[k], "") if names else ""
        ax.text(x + 0.01, y, f"{100 * (x - ref):+.2f} pp{tail}", va="center", fontsize=5)


def figure(rows: list[dict], path, backend: str, notes=()):
    """Panel (a): accuracy per stage and split per setting, with the paired interval
    of the difference from the start; panel (b): ablations, ours beside the paper."""
    from experiments.output import new_figure, save_figure
    from experiments.paired import CRN_NOTE

    full = [r for r in rows if r["variant"] == "full"]
    settings = list(dict.fromkeys((r["setting"], r["start"]) for r in full))
    abl = [r for r in rows if r["variant"] != "full" and r["split"] == "all"
           and r["stage"] == "iter2"]
    fig, axes = new_figure(1, 2, figsize=(13, 4.6),
                           gridspec_kw={"width_ratios": [1.6, 1]})
    ax = axes[0]
    stages = ("start", "iter1", "iter2")
    width = 0.8 / (len(SPLITS) * len(stages))
    for k, (setting, start) in enumerate(settings):
        for a, split in enumerate(SPLITS):
            for b, stage in enumerate(stages):
                r = next((x for x in full if x["setting"] == setting and x["start"] == start
                          and x["split"] == split and x["stage"] == stage), None)
                if r is None:
                    continue
                x = k + (a * len(stages) + b - (len(SPLITS) * len(stages) - 1) / 2) * width
                ax.bar(x, r["accuracy"], width, color=f"C{b}", alpha=(1.0, 0.75, 0.5)[a],
                       label=f"{stage}" if k == 0 and a == 0 else None,
                       edgecolor="k" if split == "held_out" else "none", linewidth=0.6)
                if stage != "start":
                    ax.text(x, r["accuracy"] + 0.01, f"{r['diff_vs_start']:+.2f}\n"
                            f"[{r['diff_lo']:+.2f},{r['diff_hi']:+.2f}]", ha="center",
                            fontsize=4.5, rotation=90, va="bottom")
    ax.set_xticks(range(len(settings)),
                  [f"{s}\nfrom {st}\n(in | out | all)" for s, st in settings], fontsize=7)
    ax.set_ylim(0, 1.25)
    ax.set_ylabel("solved fraction")
    ax.legend(fontsize=7, loc="upper left", ncol=3)
    ax.set_title(f"ContextEvo ({backend} back-end): start, iter 1, iter 2 on held-in | "
                 "held-out (outlined) | all;\nlabels: paired difference from start "
                 "[95% CI]", fontsize=8)
    ax2 = axes[1]
    names = ["native/start"] + list(ABLATIONS)
    ys = np.arange(len(names))
    abl_settings = list(dict.fromkeys(r["setting"] for r in abl))
    first = settings[0][1] if settings else ""
    h = 0.8 / (len(abl_settings) + 1)
    for i, setting in enumerate(abl_settings):
        vals = {r["variant"]: r["accuracy"] for r in abl if r["setting"] == setting}
        for r in full:
            if (r["setting"], r["start"], r["split"]) == (setting, first, "all"):
                if r["stage"] == "iter2":
                    vals["full"] = r["accuracy"]
                elif r["stage"] == "start":
                    vals["native/start"] = r["accuracy"]
        y = ys + (i - len(abl_settings) / 2) * h
        xs = [vals.get(n, np.nan) for n in names]
        ax2.barh(y, xs, h, color=f"C{i}", label=f"ours: {setting} from {first} "
                 "(synthetic agent)")
        _delta_labels(ax2, y, xs, vals.get("full"))
    paper = [PAPER["native"]["all"] / 100] + [PAPER[n]["all"] / 100 if n in PAPER else np.nan
                                             for n in list(ABLATIONS)]
    y = ys + (len(abl_settings) / 2) * h
    ax2.barh(y, paper, h, color="C7", label="paper: LHTB-46, Table 5 (no baselines there)")
    _delta_labels(ax2, y, paper, PAPER["full"]["all"] / 100,
                  extra={"no_review": " (held-out -16.93)",
                         "no_replay": " (held-out 43.12 -> 35.29)"}, names=names)
    ax2.set_yticks(ys, names, fontsize=7)
    ax2.invert_yaxis()
    ax2.set_xlim(0, 1.3)
    ax2.set_xlabel("solved fraction, all tasks (final iteration); labels: pp from full")
    ax2.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)
    # the title says what the panel holds: without ablation rows (the llm back-end
    # skips them) it shows the paper's bars only
    ax2.set_title(f"Ablations and baselines, {backend} back-end (orderings, not sizes)"
                  if abl else f"The paper's Table 5 ablations only: not run with the "
                  f"{backend} back-end", fontsize=8)
    fig.text(0.5, -0.04, CRN_NOTE, ha="center", fontsize=6)
    if notes:
        fig.text(0.02, -0.06, "attribution vs the simulator's true causes, pooled over "
                 "iterations:\n" + "\n".join(notes), ha="left", va="top", fontsize=6)
    return save_figure(fig, path)


def run(args) -> list:
    """Run the experiment and write CSV, PNG, JSON and the spec JSON."""
    from experiments.output import prepare_out, write_csv, write_sidecar
    from sim.evolve.contextevo.spec import ProgramSpec
    from sim.evolve.split import split_tasks

    out = prepare_out(args.out)
    starts(args)  # bad --start / --spec fail before any work
    if args.backend == "llm":
        for ts in tasksets(args):
            split_tasks(ts.names, **_split_options(args))
    suffix = "" if args.backend == "synthetic" else "_llm"
    t0 = time.perf_counter()
    record: dict = {}
    if args.backend == "llm":
        from experiments.vista.perception import endpoint
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
    specs = {f"{s}/{st.name}": _spec_record(st, res) for s, st, res in raw["results"]}
    for key, rec in specs.items():
        print(f"[contextevo] evolved spec {key}:\n"
              f"{ProgramSpec.from_dict(rec['evolved']).to_json()}", end="")
        changes = "; ".join(f"{d['surface']}: {json.dumps(d['start'])} -> "
                            f"{json.dumps(d['evolved'])}" for d in rec["diff"])
        print(f"[contextevo] diff from start: {changes or 'none (empty changesets)'}")
    paths = [write_csv(out / f"{NAME}{suffix}.csv", COLUMNS, rows)]
    spec_path = out / f"{NAME}{suffix}_spec.json"
    spec_path.write_text(json.dumps(specs, indent=1, sort_keys=True) + "\n")
    logs = {f"{s}/{st.name}": res.log for s, st, res in raw["results"]}
    attribution = attribution_summary(logs)
    for line in attribution["lines"]:
        print(f"[contextevo] {line}")
    paths.append(figure(rows, out / f"{NAME}{suffix}.png", args.backend,
                        attribution["lines"]))
    abl_logs = {f"{s}/{v}": r.log for s, abl in raw["ablations"].items()
                for v, r in abl.items() if v != "full"}
    cfg = {"quick": bool(args.quick), "backend": args.backend, "seed": args.seed,
           "iterations": args.iterations, "candidates": args.candidates,
           "mislabel": args.mislabel, "starts": [s.name for s in raw["starts"]],
           "settings": [{"name": ts.name, "budget": ts.budget, "tasks": len(ts.tasks)}
                        for ts in raw["sets"]],
           "split": "split_tasks(sorted names, held_in_fraction=76/174, seed=15)",
           "spec_file": args.spec, "surfaces": list(_exposed(args)), "held_in_fraction": args.held_in_fraction or 76 / 174}
    episodes = sum(r.episodes for _, _, r in raw["results"])
    paths.append(write_sidecar(out / f"{NAME}{suffix}.json", cfg, {
        **record, "attribution": attribution["table"], "logs": logs,
        "ablation_logs": abl_logs, "call_ledger": raw["ledgers"],
        "paper_table5": PAPER, "episodes_played_main": episodes,
        "wall_seconds": round(wall, 1),
        "measured": "synthetic agent (one profile) acting; back-end as annotator/editor",
        "evolved_diffs": {k: [d["surface"] for d in v["diff"]] for k, v in specs.items()}}))
    paths.append(spec_path)
    return paths
