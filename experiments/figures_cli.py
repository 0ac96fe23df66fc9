"""``ctxsim figures``: which committed figure is current, and redo one to check it.

Every figure ``figures/NAME.png`` has a JSON sidecar ``NAME.json``
(:func:`experiments.output.write_sidecar`) naming the commit it was made at and,
for runs started by ``ctxsim run``, the command line that redoes it. A figure is
*current* when no file it depends on changed between that commit and ``HEAD``:
the experiment's module and everything of ``sim/``, ``theory/`` and
``experiments/`` it imports, directly or not (:func:`import_closure`, read from the
source with :mod:`ast`, imports inside functions included), plus the shipped
configs and sample trajectories.

``ctxsim figures`` lists them; ``--check`` exits 1 when a figure that can be redone
without the real model is not current (a synthetic one, or a real-model one whose
answer file ships: :attr:`Figure.answers`); ``--verify NAME`` reruns NAME's command
into a temporary directory and compares its CSV files with the committed ones as
numbers (:mod:`experiments.csv_compare`: text exactly, numbers within their Monte Carlo
SE or 1e-9 relative; exit 1 on a difference, naming the cells, their values and the
tolerance); a figure whose answers ship is rerun replay-only
(:data:`experiments.answers.REPLAY_ONLY`), so a request its file lacks fails the check.

A figure made with a plugin program or agent (:mod:`sim.plugins`; its sidecar's
``plugins``) is marked ``[plugin: SPEC]``; it is current only while each plugin
loads here with the source hash recorded (else ``plugin changed`` or ``plugin
missing``). ``--verify`` reruns it when every plugin imports here (given each
plugin's directory on ``PYTHONPATH``), and a difference names what changed since; when
one does not import, one line names the spec, module and recorded sha256 (exit 2).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import pathlib
import subprocess
import sys
import tempfile

from experiments.arguments import UsageError
from experiments.import_closure import import_closure, imported_names  # noqa: F401
from experiments.output import ROOT

#: experiments that always need a real model
REAL_MODEL_EXPERIMENTS = frozenset({"perception", "presentation", "calibrate"})
#: data every figure may read besides its import closure (and its experiment's
#: shipped config, ``experiments/configs/NAME.toml``)
SHARED_INPUTS = ("sim/data",)


@dataclasses.dataclass(frozen=True)
class Figure:
    """One committed figure and what its sidecar says about it."""

    name: str                       #: file stem: ``figures/NAME.png``
    experiment: str | None          #: the ``ctxsim run`` name that makes it
    sidecar: dict | None            #: the parsed ``NAME.json`` (None: missing)

    @property
    def commit(self) -> str | None:
        """The git commit the figure was made at."""
        return (self.sidecar or {}).get("git_commit")

    @property
    def command(self) -> str | None:
        """The command line that redoes it (sidecars written since ``ctxsim figures``)."""
        return (self.sidecar or {}).get("command")

    @property
    def real_model(self) -> bool:
        """True if the figure needs the real model (not redone before a merge)."""
        config = (self.sidecar or {}).get("config") or {}
        return (self.experiment in REAL_MODEL_EXPERIMENTS or "_llm" in self.name
                or "llm" in (config.get("backend"), config.get("agent")))

    @property
    def answers(self) -> str | None:
        """The answer file its command asked the model through (``--cache PATH``, a
        repository path) when this checkout holds it: the figure replays from it
        without the model, asking only a request the file lacks
        (:mod:`experiments.answers`). None otherwise."""
        argv = [str(a) for a in (self.sidecar or {}).get("argv") or []]
        given = next((a.split("=", 1)[1] for a in argv if a.startswith("--cache=")), None)
        if given is None and "--cache" in argv[:-1]:
            given = argv[argv.index("--cache") + 1]
        if not given:
            return None
        path = (ROOT / given).resolve()
        if not path.is_file() or not path.is_relative_to(ROOT):
            return None
        return path.relative_to(ROOT).as_posix()

    @property
    def plugins(self) -> list[dict]:
        """The plugin programs and agents the run used (sidecar ``plugins``)."""
        found = (self.sidecar or {}).get("plugins")
        return [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []

    @property
    def inputs(self) -> list[str]:
        """Committed figures the run read (repository paths): the calibration of
        ``--profile calibrated|FILE`` or ``--calibrated-row`` (the sidecar's
        ``config.calibration``; its ``path``, else the default
        ``figures/calibration.json``), the posterior point of ``--profile
        posterior``. A new calibration changes a sweep's calibrated row as a code
        change would."""
        config = (self.sidecar or {}).get("config") or {}
        found = []
        for key, default in (("calibration", "figures/calibration.json"),
                             ("posterior", "figures/posterior.json")):
            record = config.get(key)
            if not isinstance(record, dict):
                continue
            path = pathlib.Path(str(record.get("path") or ROOT / default)).resolve()
            if path.is_relative_to(ROOT):   # a file outside the checkout has no history
                found.append(path.relative_to(ROOT).as_posix())
        return found

    @property
    def redo_seconds(self) -> float | None:
        """How long the run that made it took (wall seconds), if recorded."""
        record = self.sidecar or {}
        value = record.get("run_seconds", record.get("wall_seconds"))
        return float(value) if isinstance(value, (int, float)) else None


def figure_dir() -> pathlib.Path:
    """``./figures`` if the current directory has one, else this checkout's."""
    here = pathlib.Path("figures")
    return here if here.is_dir() else ROOT / "figures"


#: figures whose maker is not named like them: the file name -> the ``ctxsim run``
#: experiment (calibration) or the command and the module that make it (robustness,
#: posterior and predictive)
OTHER_MAKERS = {"calibration": "calibrate", "robustness": "claims --robustness",
                "posterior": "claims --posterior", "predictive": "claims --posterior"}
#: makers that are not ``ctxsim run`` experiments -> their module
MAKER_MODULES = {"claims --robustness": "experiments.claims.robustness.run",
                 "claims --posterior": "experiments.claims.posterior.run"}


def experiment_of(name: str, sidecar: dict | None) -> str | None:
    """The experiment that makes figure ``name``: the sidecar's ``experiment``, else
    :data:`OTHER_MAKERS`, else the longest experiment name that ``name`` is or starts
    with (``pressure_llm`` -> ``pressure``)."""
    from experiments.cli import EXPERIMENTS

    if name in OTHER_MAKERS:
        return OTHER_MAKERS[name]
    if sidecar and sidecar.get("experiment") in EXPERIMENTS:
        return sidecar["experiment"]
    matches = [e for e in EXPERIMENTS if name == e or name.startswith(e + "_")]
    return max(matches, key=len) if matches else None


def committed_figures(directory: pathlib.Path | None = None) -> list[Figure]:
    """Every ``*.png`` under ``directory`` (default :func:`figure_dir`), sorted by name."""
    directory = figure_dir() if directory is None else pathlib.Path(directory)
    figures = []
    for png in sorted(directory.glob("*.png")):
        sidecar_path = png.with_suffix(".json")
        try:
            sidecar = json.loads(sidecar_path.read_text(encoding="utf-8-sig"))  # BOM ok
        except (OSError, ValueError):
            sidecar = None
        figures.append(Figure(png.stem, experiment_of(png.stem, sidecar), sidecar))
    return figures


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def dependencies(experiment: str) -> list[str]:
    """The repository paths figure-making ``experiment`` depends on: its module's
    :func:`import_closure`, its shipped config and :data:`SHARED_INPUTS`."""
    from experiments.cli import EXPERIMENTS

    if experiment in MAKER_MODULES:
        return [*import_closure(MAKER_MODULES[experiment]), *SHARED_INPUTS]
    if experiment not in EXPERIMENTS:
        raise UsageError(f"unknown experiment {experiment!r}; known: {sorted(EXPERIMENTS)}")
    return [*import_closure(EXPERIMENTS[experiment][0]),
            f"experiments/configs/{experiment}.toml", *SHARED_INPUTS]


def changed_since(commit: str, files: list[str]) -> list[str] | None:
    """The paths among ``files`` that differ between
    ``commit`` and ``HEAD`` (a file added or moved since counts as changed), or
    None if ``commit`` is not in this repository."""
    if not commit or _git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        return None
    diff = _git("diff", "--name-only", commit, "HEAD", "--", *files)
    if diff.returncode != 0:
        return None
    return sorted(line for line in diff.stdout.splitlines() if line)


@dataclasses.dataclass(frozen=True)
class Status:
    """Whether a figure is current at HEAD."""

    figure: Figure
    #: current | code changed | plugin missing | plugin changed | dirty | unknown commit
    #: | no sidecar
    state: str
    changed: tuple[str, ...] = ()   #: the dependency files that changed since its commit

    @property
    def current(self) -> bool:
        """True when no file the figure depends on changed since its commit."""
        return self.state == "current"


def status(figure: Figure) -> Status:
    """Compare ``figure``'s commit with HEAD over its import closure and the
    committed figures it read (:attr:`Figure.inputs`)."""
    if figure.sidecar is None:
        return Status(figure, "no sidecar")
    if figure.experiment is None:
        return Status(figure, "unknown experiment")
    changed = changed_since(figure.commit or "",
                            [*dependencies(figure.experiment), *figure.inputs])
    if changed is None:
        return Status(figure, "unknown commit")
    if changed:
        return Status(figure, "code changed", tuple(changed))
    from sim.plugins import changed as plugin_changed

    for plugin in figure.plugins:   # its code is outside the checkout: its own hash
        now = plugin_changed(plugin)
        if now is not None and not now:
            continue
        files = [str(f) for f in plugin.get("files") or []]
        noun = "file" if len(files) == 1 else "files"
        what = f"{plugin.get('spec')}, {noun} {', '.join(files)}" if files \
            else str(plugin.get("spec"))
        return Status(figure, "plugin missing" if now is None else "plugin changed",
                      (what,))
    if figure.sidecar.get("git_dirty"):
        return Status(figure, "dirty")   # made from uncommitted code
    return Status(figure, "current")


def _made(figure: Figure) -> str:
    made = (figure.sidecar or {}).get("created_utc") or ""
    try:
        return _dt.datetime.fromisoformat(made).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return "?"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options: --dir, --check, --json, --verify NAME."""
    parser.add_argument("--dir", default=None, metavar="DIR",
                        help="the figure directory (default: ./figures if present, else "
                             "this checkout's figures/)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a figure that can be redone without the "
                             "real model (a synthetic one, or one whose answer file "
                             "ships) is not current at HEAD (default: off, list only)")
    parser.add_argument("--json", action="store_true",
                        help="print the list as JSON (default: off, a table)")
    parser.add_argument("--verify", default=None, metavar="NAME",
                        help="rerun figure NAME from its sidecar's command into a "
                             "temporary directory and compare its CSV files (text "
                             "exactly, numbers within their Monte Carlo SE or 1e-9 "
                             "relative; exit 1 on a difference; exit 2, naming the "
                             "module and recorded sha256, when a plugin it was made "
                             "with does not import here; default: none)")


def main(args: argparse.Namespace) -> int:
    """List the figures (exit 0; with ``--check`` 1 if one redone without the model is
    stale) or verify one (exit 0 same CSVs, 1 different)."""
    directory = pathlib.Path(args.dir) if args.dir else figure_dir()
    if not directory.is_dir():
        raise UsageError(f"--dir {str(directory)!r} is not a directory")
    if args.verify:
        return verify(args.verify, directory)
    statuses = [status(f) for f in committed_figures(directory)]
    if args.json:
        print(json.dumps([{
            "name": s.figure.name, "experiment": s.figure.experiment,
            "commit": s.figure.commit, "made_utc": (s.figure.sidecar or {}).get(
                "created_utc"), "state": s.state, "changed": list(s.changed),
            "real_model": s.figure.real_model, "answers": s.figure.answers,
            "redo_seconds": s.figure.redo_seconds,
            "plugins": [p.get("spec") for p in s.figure.plugins],
            "command": s.figure.command} for s in statuses], indent=2))
    else:
        _print_table(statuses, directory)
    # a real-model figure whose answers ship is redone without the model, so it counts
    stale = [s for s in statuses if not s.current
             and (not s.figure.real_model or s.figure.answers)]
    if args.check:
        skipped = [s.figure.name for s in statuses if not s.current and s not in stale]
        if stale:
            print("ctxsim figures --check: not current: "
                  + ", ".join(s.figure.name for s in stale), file=sys.stderr)
        if skipped:
            print("ctxsim figures --check: not counted (stale, but redoing them needs "
                  "the real model: no answer file ships): " + ", ".join(skipped),
                  file=sys.stderr)
    return 1 if args.check and stale else 0


def _print_table(statuses: list[Status], directory: pathlib.Path) -> None:
    head = _git("rev-parse", "--short", "HEAD").stdout.strip() or "?"
    print(f"figures in {directory} against HEAD {head}; a figure is current when no "
          f"code it imports changed since its commit")
    width = max([len(s.figure.name) for s in statuses] + [4])
    print(f"{'name':<{width}}  commit    made (UTC)        redo     state")
    for s in statuses:
        f = s.figure
        redo = f"{f.redo_seconds:.0f} s" if f.redo_seconds is not None else "?"
        state = s.state
        if s.changed and s.state.startswith("plugin"):   # "spec, file f.py"
            state += f" ({'; '.join(s.changed)})"
        elif s.changed:
            shown = ", ".join(s.changed[:3])
            more = f" +{len(s.changed) - 3}" if len(s.changed) > 3 else ""
            noun = "file" if len(s.changed) == 1 else "files"
            state += f" ({len(s.changed)} {noun}: {shown}{more})"
        if f.real_model:
            state += " [real model" + (f"; answers in {f.answers}]" if f.answers else "]")
        if f.plugins:
            state += f" [plugin: {', '.join(str(p.get('spec')) for p in f.plugins)}]"
        print(f"{f.name:<{width}}  {(f.commit or '?')[:8]:<8}  {_made(f):<16}  "
              f"{redo:>7}  {state}")
    n_current = sum(s.current for s in statuses)
    print(f"{n_current} of {len(statuses)} current")


def verify(name: str, directory: pathlib.Path) -> int:
    """Rerun figure ``name`` from its sidecar's ``argv`` into a temporary directory
    and compare each CSV it writes with the one in ``directory``.

    Returns 0 if every CSV is equal (:func:`experiments.csv_compare.compare_csv`:
    text exactly, numbers within tolerance), 1 otherwise (the differing cells are
    printed: the first few with their values and tolerance, and their counts), or
    when the rerun does not write the figure's own ``NAME.csv`` that ``directory``
    holds (a rerun writing only some other CSV of the directory is no check of it).

    Raises:
        UsageError: no such figure, its sidecar names no command (made before
            sidecars recorded one), or a plugin it was made with does not load here
            (its spec, module and recorded sha256 named; exit 2).
    """
    figures = {f.name: f for f in committed_figures(directory)}
    if name not in figures:
        raise UsageError(f"no figure {name!r} in {directory}; known: {sorted(figures)}")
    figure = figures[name]
    argv = (figure.sidecar or {}).get("argv")
    if figure.experiment is None or not isinstance(argv, list):
        raise UsageError(f"{directory / (name + '.json')} names no command (it was made "
                         f"before sidecars recorded one); regenerate it with "
                         f"ctxsim run {figure.experiment or '...'} to verify it later")
    from sim.plugins import missing

    for plugin in figure.plugins:
        why = missing(plugin)
        if why:
            raise UsageError(f"cannot rerun {name}: {why}")
    if figure.redo_seconds:
        needs = (f", replaying its answers from {figure.answers}" if figure.answers
                 else ", needs the real model" if figure.real_model else "")
        print(f"ctxsim figures: rerunning {name} (took {figure.redo_seconds:.0f} s when "
              f"made{needs})", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ctxsim-verify-") as tmp:
        out = pathlib.Path(tmp) / "out"
        proc = subprocess.run(
            [sys.executable, "-m", "experiments.cli", "run", figure.experiment, *argv,
             "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
            env=_rerun_environment(figure.plugins, replay_only=bool(figure.answers)))
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
            print(f"ctxsim figures: the rerun of {name} failed (exit {proc.returncode}): "
                  f"{tail}", file=sys.stderr)
            return 1
        differ, close = [], []
        compared = 0
        own = f"{name}.csv"   # the figure's own table: its rerun must write it again
        if (directory / own).exists() and not (out / own).exists():
            differ.append(f"{own}: committed, but the rerun did not write it (it "
                          f"wrote {sorted(p.name for p in out.glob('*.csv')) or 'no CSV'})")
        for fresh in sorted(out.glob("*.csv")):
            committed = directory / fresh.name
            if not committed.exists():
                continue
            compared += 1
            differ += _csv_differences(committed, fresh, close)
    if differ:
        st = status(figure)   # what moved since it was made: a plugin, or the package
        since = "" if st.current else f" ({st.state} since it was made" + (
            f": {', '.join(st.changed[:3])}{' ...' * (len(st.changed) > 3)})"
            if st.changed else ")")
        print(f"ctxsim figures: {name} differs from its rerun at HEAD{since}:", *differ,
              sep="\n  ")
        return 1
    if compared == 0:
        print(f"ctxsim figures: the rerun of {name} wrote no CSV that {directory} holds",
              file=sys.stderr)
        return 1
    same = "identical" if not close else "equal within tolerance (" + "; ".join(close) + ")"
    print(f"{name}: {compared} CSV file(s) {same} to a rerun of "
          f"`{figure.command or name}`")
    return 0


def _rerun_environment(plugins: list[dict], replay_only: bool = False) -> dict[str, str]:
    """The environment of a rerun: this one, with ``PYTHONPATH`` extended by the
    directory each plugin imports from here (:func:`sim.plugins.sidecar.import_root`)
    unless it is a site directory. The rerun runs in the checkout, so a plugin this
    process found only through its own ``sys.path`` (a module in the current
    directory, under ``python -m``) would not import there. Call after
    :func:`sim.plugins.missing` found every plugin loadable (they are imported).
    ``replay_only`` sets :data:`experiments.answers.REPLAY_ONLY`: a figure whose
    answers ship is checked against them, and a request they lack fails the rerun
    instead of starting the model (for hours) and adding to the committed file."""
    import os
    import site

    from sim.plugins.sidecar import import_root

    sites = {str(pathlib.Path(p).resolve()) for p in
             [*site.getsitepackages(), site.getusersitepackages()]}
    env = dict(os.environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    for plugin in plugins:
        root = import_root(str(plugin.get("module") or ""))
        if root and root not in sites and root not in paths:
            paths.append(root)
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    if replay_only:
        from experiments.answers import REPLAY_ONLY

        env[REPLAY_ONLY] = "1"
    return env


def _csv_differences(committed: pathlib.Path, fresh: pathlib.Path,
                     close: list[str]) -> list[str]:
    """The report lines of one CSV's comparison (:func:`experiments.csv_compare.
    compare_csv`), each prefixed with the file name; a file equal only within
    tolerance adds a line to ``close`` (how many cells, the largest relative
    difference)."""
    from experiments.csv_compare import REL_TOL, compare_csv

    result = compare_csv(committed, fresh)
    if result.equal and result.within:
        others = result.within - result.errors_within
        parts = [f"{others} estimate(s) and other numbers, largest relative difference "
                 f"{result.largest_relative:.2g}"] if others else []
        if result.errors_within:
            parts.append(f"{result.errors_within} standard error(s), within "
                         f"{REL_TOL:g} relative in their estimates' units")
        close.append(f"{fresh.name}: {result.within} numeric cell(s) differ in text: "
                     + "; ".join(parts))
    return [f"{fresh.name}: {line}" for line in result.report()]
