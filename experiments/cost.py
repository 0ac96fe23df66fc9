"""``ctxsim run cost``: cache-aware dollar cost per task per program (VISTA Table 2,
THEORY.md §4: $0.50/M uncached input, $0.05/M cached, $3.00/M output incl. thinking;
an edit at prompt position p invalidates the cached prefix from p). LOCA-like suite at
one growth level; the token ledger of every request is priced. Writes
``cost.csv``/``.png``/``.json``.
"""

from __future__ import annotations


from experiments.output import new_figure, prepare_out, save_figure, write_csv, write_sidecar
from experiments.sweep import add_common_arguments, run_loca_config

NAME = "cost"
COLUMNS = ("program", "n", "accuracy", "input_tokens", "cached_tokens", "output_tokens",
           "total_tokens", "cache_hit", "cost_usd", "requests")


def add_arguments(parser) -> None:
    """Options: programs, growth, budget, families, seeds (+ the common ones)."""
    from sim.policies import MAIN_PROGRAMS

    add_common_arguments(parser)
    parser.add_argument("--programs", nargs="+", default=list(MAIN_PROGRAMS))
    parser.add_argument("--growth", type=int, default=128_000)
    parser.add_argument("--budget", type=int, default=128_000)
    parser.add_argument("--families", type=int, default=15)
    parser.add_argument("--seeds", type=int, default=5)


def config(args) -> dict:
    """The effective configuration (``--quick`` shrinks it)."""
    cfg = {"programs": list(args.programs), "growth": args.growth, "budget": args.budget,
           "families": args.families, "seeds": args.seeds, "profile": args.profile,
           "seed": args.seed, "jobs": args.jobs}
    if args.quick:
        cfg.update(families=6, seeds=1, growth=256_000, programs=["react", "vista"])
    return cfg


def run(args, executor=None) -> list:
    """Price every program's ledger and write CSV, PNG and JSON; returns the paths."""
    out = prepare_out(args.out)
    cfg = config(args)
    rows, per_program, wall = run_loca_config(cfg, args.jobs, executor, desc=NAME,
                                              progress=not args.no_progress)
    table = {r["program"]: r for r in per_program}
    ordered = sorted((table[p] for p in cfg["programs"]), key=lambda r: r["cost_usd"])
    for r in ordered:
        r["cache_hit"] = r["cached_tokens"] / max(1.0, r["input_tokens"])
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, ordered)]
    fig, ax = new_figure(figsize=(7, 4))
    for i, r in enumerate(ordered):
        ax.scatter(r["cost_usd"], 100 * r["accuracy"], s=40)
        # Alternate labels above and below: neighbours in cost often tie in accuracy.
        ax.annotate(r["program"], (r["cost_usd"], 100 * r["accuracy"]), fontsize=8,
                    xytext=(4, 4 if i % 2 else -10), textcoords="offset points")
    ax.set_xlabel("cache-aware cost per task ($)")
    ax.set_ylabel("accuracy (%)")
    ax.set_title(f"Cost vs accuracy at {cfg['growth'] // 1000}K growth (cf. Table 2)")
    paths.append(save_figure(fig, out / f"{NAME}.png"))
    paths.append(write_sidecar(out / f"{NAME}.json", cfg, {
        "wall_seconds": round(wall, 1), "episodes": len(rows),
        "prices_per_million": {"uncached": 0.50, "cached": 0.05, "output": 3.00}}))
    return paths
