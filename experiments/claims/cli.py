"""``ctxsim claims``: judge every claim of the registry from the CSVs in
``--figures`` and write ``claims.md`` and ``claims.json`` in ``--out`` (default: the
``--figures`` directory); runs in seconds (no simulation).

``ctxsim claims --robustness [--quick] [--samples N] [--jobs N | --scheduler
ADDRESS]`` first runs the global sensitivity analysis of the agent-level claims
over the world's priors (:mod:`experiments.claims.robustness`) and writes
``robustness.csv``/``.json``/``.png`` in ``--out``; when ``--out`` is the
``--figures`` directory the scorecard is then rewritten with its robustness
column."""

from __future__ import annotations

import sys
from pathlib import Path

from experiments.arguments import UsageError
from experiments.claims.data import has_rows
from experiments.claims.judge import judge_all
from experiments.claims.registry import REGISTRY
from experiments.claims.report import write

#: the committed figures of this checkout (the default ``--figures`` when there is no
#: ./figures), found from the package so the command works from any directory
SHIPPED_FIGURES = Path(__file__).resolve().parents[2] / "figures"


def add_arguments(parser) -> None:
    """``--figures DIR`` (where the CSVs are) and ``--out DIR``."""
    parser.add_argument("--figures", default=None,
                        help="directory holding the experiments' CSVs (default: "
                             "./figures if it exists, else this checkout's committed "
                             "figures)")
    parser.add_argument("--out", default=None,
                        help="where to write claims.md/claims.json (default: --figures)")
    from experiments.claims.robustness.run import add_arguments as robustness_arguments

    robustness_arguments(parser)
    from experiments.claims.posterior.run import add_arguments as posterior_arguments

    posterior_arguments(parser.add_argument_group(
        "posterior (--posterior; with --quick, --jobs, --scheduler, --seed, "
        "--no-progress above)"))


def figures_dir(figures: str | None) -> Path:
    """The directory the CSVs are read from.

    Raises:
        UsageError: if it is not a directory (exit 2).
    """
    if figures is not None:
        figdir = Path(figures)
    else:
        figdir = Path("figures") if Path("figures").is_dir() else SHIPPED_FIGURES
    if not figdir.is_dir():
        raise UsageError(f"--figures {str(figdir)!r} is not a directory (pass the "
                                "directory an experiment's --out wrote)")
    return figdir


def csvs_read(claims=REGISTRY) -> set[str]:
    """The CSV names ``claims``' checks read: each claim's ``csv`` and any other its
    check names (``EvidenceFree`` reads contextevo_seeds.csv)."""
    names = set()
    for c in claims:
        if c.check is not None:
            names |= {n for n in (c.csv, getattr(c.check, "csv", None))
                      if isinstance(n, str) and n.endswith(".csv")}
    return names


def no_data_line(figdir: Path, claims=REGISTRY) -> str | None:
    """The error line when ``figdir`` holds no rows of the CSVs ``claims`` read (every
    verdict would be "not testable here"): none of them is there (naming any other
    CSVs it holds), or those there have no row below the header. It names the
    directory and the commands that write them; ``None`` when one has rows (or
    cannot be read: the judge then names what is wrong with it)."""
    present = sorted(n for n in csvs_read(claims) if (figdir / n).is_file())
    if any(has_rows(figdir / n) for n in present):
        return None
    names = sorted({c.command.removeprefix("ctxsim run ").split()[0] for c in claims
                    if c.check is not None and c.command.startswith("ctxsim run ")})
    make = (f"make them with `ctxsim run NAME --out {str(figdir)!r}`, NAME one of "
            f"{', '.join(names)}")
    if present:
        return (f"ctxsim claims: error: --figures {str(figdir)!r} holds "
                f"{', '.join(present)}, but with no rows below the header (empty or a "
                f"header only); {make}")
    others = sorted(p.name for p in figdir.glob("*.csv"))
    held = (f" (it holds {', '.join(others)}, which no claim reads)" if others else "")
    return (f"ctxsim claims: error: --figures {str(figdir)!r} holds none of the CSVs "
            f"the claims read{held}; {make}")


def main(args) -> int:
    """Judge every claim, write ``claims.md`` and ``claims.json``, print one line
    per claim.

    Returns 0, or 1 (one line, :func:`no_data_line`, nothing written) when
    ``--figures`` holds none of the CSVs the claims read, unless ``--robustness``
    runs (its scorecard then shows the robustness column beside empty verdicts).

    Raises:
        UsageError: for a ``--figures`` that is not a directory, an ``--out`` that
            cannot be a directory (:class:`~experiments.output.OutDirError`),
            robustness options without ``--robustness``, ``--robustness`` with
            ``--posterior``, or a CSV there that cannot
            be read as the claims need it (:class:`~experiments.claims.data.BadData`:
            not a CSV, empty, a missing column, a cell that is not a number); exit 2,
            nothing written.
    """
    import contextlib

    from experiments.claims.robustness.run import check_options, select
    from experiments.output import out_dir

    figdir = figures_dir(args.figures)
    check_options(args)
    if args.out is not None and not str(args.out).strip():
        raise UsageError("--out is empty; give a directory for claims.md/claims.json")
    robust = getattr(args, "robustness", False)
    posterior = getattr(args, "posterior", False)
    if robust and posterior:
        # each is a long run with its own --quick sizes: one at a time
        raise UsageError("--robustness and --posterior are two analyses; run one "
                         "(the posterior reads the robustness reference table, so "
                         "run --robustness first when both are wanted)")
    # the analysis's settings (an unknown --claims or --params id, --jobs with
    # --scheduler, a bad --config) are checked before the scorecard's judging
    if robust:
        from experiments.claims.robustness.run import config as robustness_config

        select(args)
        robustness_config(args)
    if posterior:
        from experiments.claims.posterior.run import config as posterior_config

        posterior_config(args)
    no_data = None if robust or posterior else no_data_line(figdir)
    if no_data:
        print(no_data, file=sys.stderr)
        return 1
    # a CSV that cannot be read stops the command (BadData, exit 2) before the
    # robustness analysis runs, and removes the --out it created
    with out_dir(args.out) if args.out else contextlib.nullcontext(figdir) as out:
        results = judge_all(REGISTRY, figdir)
        if posterior:
            from experiments.claims.posterior.run import main as fit_posterior

            args.out = str(out)
            for path in fit_posterior(args):
                print(path)
            if out.resolve() != figdir.resolve() and not robust:
                # the scorecard reads predictive.json beside the CSVs, as it reads
                # robustness.json: one written elsewhere is not the figures' own
                print(f"the scorecard reads predictive.json beside the CSVs ({figdir}); "
                      f"not rewritten (--out {out} is not --figures)")
                return 0
        return _report(args, results, figdir, out, robust)


def _report(args, results, figdir: Path, out: Path, robust: bool) -> int:
    """Run the robustness analysis (``--robustness``), write the scorecard and print
    it; returns 0."""
    if robust:
        from experiments.claims.robustness.run import main as robustness

        args.out = str(out)
        for path in robustness(args):
            print(path)
        if out.resolve() != figdir.resolve():
            print(f"the scorecard reads robustness.json beside the CSVs ({figdir}); "
                  f"not rewritten (--out {out} is not --figures)")
            return 0
    md, js = write(results, figdir, out)
    for r in results:
        print(f"{r.claim.id:<30} {r.verdict.value:<30} {r.ours}")
    print(md)
    print(js)
    return 0
