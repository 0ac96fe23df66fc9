"""The README's table of each claim's robustness as an effect (issue 30, item 1):
``python3 -m experiments.claims.robustness.table [FIGDIR]`` prints it from
``robustness.csv``, and ``tests/test_readme_predictive.py`` checks that the README's
copy is the current file's.

One row per claim (the CSV holds one row per claim and parameter; the claim's
columns repeat): the share of the prior where the expected effect has the claimed
sign, the share within the tolerance of the paper's number ("-" where the check
compares no size), the prior mean of the effect, the paper's effect, the deciding
parameter ("-" when none passes the evidence and null-family gates) and ``power``.
"""

from __future__ import annotations

from pathlib import Path

from experiments.claims.posterior.table import run_table

#: the lines around the table in README.md
START, END = "<!-- robustness:start -->", "<!-- robustness:end -->"
NEED = ["claim", "sign_share", "sign_lo", "sign_hi", "tolerance_share", "tolerance_lo",
        "tolerance_hi", "mean_effect", "mean_lo", "mean_hi", "paper_effect",
        "decided_by", "power_reproduced"]


def markdown(figdir: Path) -> str:
    """The table (Markdown, one row per claim of ``figdir/robustness.csv``, in the
    file's order).

    Raises:
        FileNotFoundError: when there is no ``robustness.csv`` in ``figdir``.
        ValueError: when it lacks a column the table reads.
    """
    from experiments.claims.report import g3
    from experiments.output import read_csv

    path = Path(figdir) / "robustness.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no {path}; run `ctxsim claims --robustness` first")
    rows = read_csv(path)
    lacking = [c for c in NEED if rows and c not in rows[0]]
    if lacking:
        raise ValueError(f"{path}: no column {', '.join(lacking)} (expected the "
                         "robustness.csv of `ctxsim claims --robustness`)")

    def share(r, col):
        return f"{float(r[col]):.2f}"

    def interval(r, col, lo, hi, fmt):
        return f"{fmt(r, col)} [{fmt(r, lo)}, {fmt(r, hi)}]"

    def number(r, col):
        return g3(r[col])

    lines = ["| claim | sign share [95%] | within tolerance [95%] | mean effect [95%] | "
             "paper | deciding | power |", "| --- | --- | --- | --- | --- | --- | --- |"]
    seen = set()
    for r in rows:
        if r["claim"] in seen:
            continue
        seen.add(r["claim"])
        tol = (interval(r, "tolerance_share", "tolerance_lo", "tolerance_hi", share)
               if r["tolerance_share"] != "" else "-")
        paper = g3(r["paper_effect"]) if r["paper_effect"] != "" else "-"
        decided = f"`{r['decided_by']}`" if r["decided_by"] else "-"
        lines.append(f"| {r['claim']} | {interval(r, 'sign_share', 'sign_lo', 'sign_hi', share)}"
                     f" | {tol} | {interval(r, 'mean_effect', 'mean_lo', 'mean_hi', number)}"
                     f" | {paper} | {decided} | {share(r, 'power_reproduced')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 2 with one line for a directory without a readable
    robustness.csv."""
    return run_table("python3 -m experiments.claims.robustness.table",
                     "print the README's table of each claim's robustness as an "
                     "effect, from FIGDIR/robustness.csv", "robustness.csv", markdown,
                     argv)


if __name__ == "__main__":
    raise SystemExit(main())
