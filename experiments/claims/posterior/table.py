"""The README's table of what the fitted world predicts (issue 30, item 4: "the
README states, per claim, whether the paper's number follows from its baselines"):
``python3 -m experiments.claims.posterior.table [FIGDIR]`` prints it from
``predictive.csv``, and ``tests/test_readme_predictive.py`` checks that the README's
copy is the current file's.

One row per simulated paper number: where the paper reports it, its role (``fit``:
the posterior was conditioned on it, so its row checks the fit; ``predict``: a VISTA
number the fit never read), the paper's value, the posterior predictive mean and
90% interval, the two-sided predictive p and the verdict (``predicted`` when p >=
0.10).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: the lines around the table in README.md
START, END = "<!-- predictive:start -->", "<!-- predictive:end -->"


def markdown(figdir: Path) -> str:
    """The table (Markdown, one row per row of ``figdir/predictive.csv``), with the
    registry's ``where`` of each cell.

    Raises:
        FileNotFoundError: when there is no ``predictive.csv`` in ``figdir``.
    """
    from experiments.claims.registry import REGISTRY
    from experiments.claims.report import g3
    from experiments.output import read_csv

    path = Path(figdir) / "predictive.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no {path}; run `ctxsim claims --posterior` first")
    rows = read_csv(path)
    need = ["cell", "role", "paper", "mean", "lo", "hi", "p", "verdict"]
    lacking = [c for c in need if rows and c not in rows[0]]
    if lacking:
        raise ValueError(f"{path}: no column {', '.join(lacking)} (expected the "
                         "predictive.csv of `ctxsim claims --posterior`)")
    where = {c.id: c.where for c in REGISTRY.cells()}
    lines = ["| paper number | where | role | paper | predictive mean [90%] | p | "
             "verdict |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| `{r['cell']}` | {where.get(r['cell'], '?')} | {r['role']} | "
                     f"{g3(r['paper'])} | {g3(r['mean'])} [{g3(r['lo'])}, "
                     f"{g3(r['hi'])}] | {float(r['p']):.2f} | {r['verdict']} |")
    return "\n".join(lines) + "\n"


def run_table(prog: str, description: str, name: str, table, argv=None) -> int:
    """A README table's command: print ``table(FIGDIR)`` (FIGDIR: the one optional
    argument, default this checkout's figures); exit 2 with one line when FIGDIR
    has no readable ``name``."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("figdir", nargs="?", type=Path,
                        default=Path(__file__).resolve().parents[3] / "figures",
                        help=f"directory holding {name} (default: this checkout's "
                             "figures)")
    args = parser.parse_args(argv)
    try:
        sys.stdout.write(table(args.figdir))
    except (OSError, ValueError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 2 with one line for a directory without a readable
    predictive.csv."""
    return run_table("python3 -m experiments.claims.posterior.table",
                     "print the README's table of what the fitted world predicts, "
                     "from FIGDIR/predictive.csv", "predictive.csv", markdown, argv)


if __name__ == "__main__":
    raise SystemExit(main())
