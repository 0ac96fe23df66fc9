"""Robustness of the Evo-Harness orderings to the harness caps.

The cap fraction is a guess (issue 32; :data:`sim.evolve.evoharness.budget.FRACTION`;
Evo-Harness App. E.2, whose budget numbers, App. F, are not in our text).

``python -m experiments.evoharness.caps --out DIR [--fractions 0.15,0.25,0.5]
[--workers N] [--full]`` reruns the grid's arms (the quick grid unless ``--full``) at
each ``cap_fraction`` and writes ``DIR/evoharness_caps.csv``: per fraction, every
ordering of :data:`experiments.evoharness.table.COMPARISONS` with its paired
difference and 95% interval, the direction the paper states (``>0``/``<0``, ``""``
where it states none), the direction the interval resolves (``0 inside`` when it
holds 0) and whether the ordering holds (``yes``/``no``, ``""`` without a stated
direction). It prints the same table. The policy comparison is not rerun (it has no
harness caps).
"""

from __future__ import annotations

import argparse
import sys

from experiments.arguments import float_in, positive_int
from experiments.evoharness.arms import arms
from experiments.evoharness.grid import run_grid
from experiments.evoharness.table import comparisons
from experiments.output import OutDirError, out_dir, write_csv
from experiments.settings.evoharness import GridConfig

#: the fractions of the default sweep: the prior's low end, the default, and twice it
FRACTIONS = (0.15, 0.25, 0.5)
COLUMNS = ("cap_fraction", "profile", "arm", "reference", "paper", "diff", "lo", "hi",
           "stated", "resolved", "holds")


def stated(paper: str) -> str:
    """The direction an ordering's paper text states: ``<0`` (below), ``>0`` (above,
    at least), ``""`` (none)."""
    if " below " in f" {paper} ":
        return "<0"
    return ">0" if (" above " in f" {paper} " or "at least" in paper) else ""


def row(fraction: float, c: dict) -> dict:
    """One CSV row of comparison ``c`` (:func:`comparisons`) at ``fraction``."""
    resolved = "<0" if c["hi"] < 0 else ">0" if c["lo"] > 0 else "0 inside"
    want = stated(c["paper"])
    return {"cap_fraction": fraction, **c, "stated": want, "resolved": resolved,
            "holds": "" if not want else "yes" if want == resolved else "no"}


def sweep(cfg: GridConfig, fractions=FRACTIONS) -> list[dict]:
    """:func:`row` s of every ordering at each of ``fractions`` (grid ``cfg``)."""
    out = []
    for f in fractions:
        c = cfg.with_(cap_fraction=f)
        results = run_grid(arms(c.profiles), c)
        out += [row(f, x) for x in comparisons(results, c.profiles, c.seed)]
    return out


def _fractions(text: str) -> tuple[float, ...]:
    """Comma-separated cap fractions in (0, 1], at least one, none repeated.

    Raises:
        argparse.ArgumentTypeError: naming the bad item, or an empty or repeated list.
    """
    share = float_in(0.0, 1.0, lo_open=True)
    out = tuple(share(x) for x in text.split(",") if x.strip())
    if not out:
        raise argparse.ArgumentTypeError(f"no cap fraction in {text!r}; expected e.g. "
                                         "0.15,0.25,0.5")
    repeated = sorted({x for x in out if out.count(x) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"cap fraction {repeated[0]:g} given twice in "
                                         f"{text!r}")
    return out


def main(argv=None) -> int:
    """The command (module docstring); returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m experiments.evoharness.caps",
                                 description=__doc__.split("\n\n")[0].replace("\n", " "))
    # a str, not a Path: Path("") would be the current directory, which out_dir refuses
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--fractions", type=_fractions, default=FRACTIONS,
                    help="comma-separated cap fractions in (0, 1] (default: "
                         f"{','.join(map(str, FRACTIONS))})")
    ap.add_argument("--workers", type=positive_int, default=None,
                    help="processes for the arms (default: min(2, CPUs))")
    ap.add_argument("--full", action="store_true", help="the default grid, not --quick")
    a = ap.parse_args(argv)
    grid = argparse.ArgumentParser()
    GridConfig.add_run_arguments(grid)
    GridConfig.add_arguments(grid)
    opts = ["--out", str(a.out)] + ([] if a.full else ["--quick"]) + (
        ["--workers", str(a.workers)] if a.workers else [])
    cfg = GridConfig.from_args(grid.parse_args(opts))
    try:
        # checked and created before minutes of grids, removed again if they fail
        with out_dir(a.out) as out:
            rows = sweep(cfg, a.fractions)
            path = write_csv(out / "evoharness_caps.csv", COLUMNS, rows)
    except OutDirError as exc:
        print(f"{ap.prog}: error: {exc}", file=sys.stderr)
        return 2
    for r in rows:
        print(f"{r['cap_fraction']:<5} {r['arm']} - {r['reference']} ({r['profile']}): "
              f"{r['diff']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}] stated {r['stated'] or '-'}"
              f" resolved {r['resolved']} holds {r['holds'] or '-'}")
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
