"""Writing experiment results: CSV tables, PNG figures and a JSON sidecar.

Every experiment writes ``NAME.csv`` (plain ``csv`` module), ``NAME.png``
(matplotlib, Agg backend) and ``NAME.json`` recording the package version, git
commit, the full configuration and the seed, so any figure can be traced to the
code and parameters that made it. A run started by ``ctxsim run`` (see
:func:`recording_run`) also records the experiment, the command line that redoes
it (``command``, ``argv``), whether the code differed from the commit
(``git_dirty``) and, once the run is over, its wall time (``run_seconds``), so
``ctxsim figures`` can tell which figures are current and ``--verify`` can redo
one. A run with a plugin program or agent (:mod:`sim.plugins`) records each under
``plugins``: its spec, module, distribution version and source sha256. JSON is strict: a NaN or infinite number in a
sidecar is written as null and its key path listed under ``non_finite_as_null``
(an infinite median of invalid answers stays visible as such), so no JSON output
holds NaN or Infinity.

:func:`output_set` makes a run's files land as a set: they are written into a
staging directory beside ``--out`` and renamed into place only when the run
succeeds, so an interrupted run (Ctrl-C), one that fails late, or two runs into one
``--out`` never leave a CSV of one run beside a PNG or JSON of another.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import fcntl
import json
import os
import pathlib
import platform
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from experiments.arguments import UsageError


#: the checkout holding this package (its git work tree when run from a clone)
ROOT = pathlib.Path(__file__).resolve().parents[1]
#: the source folders whose state decides a figure (data folders excluded)
CODE_DIRS = ("sim", "theory", "experiments")


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                             timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def git_commit() -> str | None:
    """The current git commit of the source tree, or None outside a checkout."""
    return _git("rev-parse", "HEAD") or None


def git_dirty() -> bool | None:
    """Whether the code under :data:`CODE_DIRS` differs from the commit (None
    outside a checkout): a figure made from a dirty tree is not the commit's."""
    status = _git("status", "--porcelain", "--untracked-files=no", "--", *CODE_DIRS)
    return None if status is None else bool(status)


#: the run being recorded (set by :func:`recording_run`), or None
_RUN: dict | None = None


def command_line(experiment: str, argv: Sequence[str], out: str) -> str:
    """The shell line that redoes a run: ``ctxsim run EXPERIMENT ARGV --out OUT``."""
    import shlex

    return shlex.join(["ctxsim", "run", experiment, *argv, "--out", str(out)])


def strip_out(argv: Sequence[str]) -> list[str]:
    """``argv`` without its ``--out DIR`` / ``--out=DIR`` options (the one option a
    rerun replaces)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--out":
            skip = True
        elif not arg.startswith("--out="):
            kept.append(arg)
    return kept


@contextlib.contextmanager
def recording_run(experiment: str, argv: Sequence[str], out: str) -> Iterator[dict]:
    """Record ``experiment``'s command line in every sidecar written inside the block.

    Args:
        experiment: the name ``ctxsim run`` knows it by (``theorem1``).
        argv: its options as typed (``--out`` is removed and given as ``out``).
        out: the output directory named on the command line.

    Yields the record (``experiment``, ``argv``, ``command``) that
    :func:`write_sidecar` adds to each sidecar.
    """
    global _RUN
    argv = strip_out(argv)
    previous, _RUN = _RUN, {"experiment": experiment, "argv": list(argv),
                            "command": command_line(experiment, argv, out)}
    try:
        yield _RUN
    finally:
        _RUN = previous


def add_run_seconds(directory: pathlib.Path, seconds: float) -> None:
    """Add ``run_seconds`` (the whole run's wall time: how long a redo takes) to
    every sidecar :func:`write_sidecar` wrote under ``directory``."""
    for path in sorted(directory.rglob("*.json")):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and "ctxsim_version" in record:
            record["run_seconds"] = round(float(seconds), 1)
            path.write_text(dumps_strict(record) + "\n")


def _jsonable(value):
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, pathlib.Path):
        return str(value)
    return value


def write_sidecar(path: pathlib.Path, config: Mapping, extra: Mapping | None = None
                  ) -> pathlib.Path:
    """Write a JSON sidecar with version, commit, platform and ``config``."""
    from sim import __version__

    record = {
        "ctxsim_version": __version__,
        "git_commit": git_commit(),
        "git_dirty": git_dirty(),
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "config": _jsonable(config),
    }
    if _RUN is not None:
        record.update(_RUN)
    if _names_programs(config):   # only then is sim.plugins (and sim.policies) imported
        from sim.plugins import provenance

        plugins = provenance(config)
        if plugins:   # module, version and source hash of each plugin program / agent
            record["plugins"] = plugins
    if extra:
        record.update(_jsonable(extra))
    found: list[str] = []
    record = _finite(record, "", found)
    if found:
        record["non_finite_as_null"] = found
    path.write_text(dumps_strict(record) + "\n")
    return path


def _names_programs(value) -> bool:
    """Whether a configuration has a key that may name a program or an agent
    (:data:`sim.plugin_spec.PLUGIN_KEYS`; that module imports nothing heavy)."""
    from sim.plugin_spec import PLUGIN_KEYS

    if isinstance(value, Mapping):
        return any(k in PLUGIN_KEYS or _names_programs(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_names_programs(v) for v in value)
    return False


def _finite(value, where: str, found: list[str]):
    """``value`` with every NaN/infinite float replaced by None; their key paths
    (with the value, e.g. ``summary.-dash.total.median_rel_error=inf``) go to
    ``found``."""
    if isinstance(value, float) and not np.isfinite(value):
        found.append(f"{where}={value}")
        return None
    if isinstance(value, dict):
        return {k: _finite(v, f"{where}.{k}" if where else str(k), found)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v, f"{where}[{i}]", found) for i, v in enumerate(value)]
    return value


def dumps_strict(record) -> str:
    """``record`` as indented JSON; NaN or Infinity anywhere raises ``ValueError``
    naming the key path (strict JSON parsers reject them)."""
    try:
        return json.dumps(record, indent=2, sort_keys=True, allow_nan=False)
    except ValueError:
        raise ValueError(f"JSON output holds NaN or Infinity at "
                         f"{_non_finite(record) or '?'}") from None


def _non_finite(value, where: str = "") -> str | None:
    if isinstance(value, float) and not np.isfinite(value):
        return where or "<top>"
    items = value.items() if isinstance(value, Mapping) else enumerate(value) \
        if isinstance(value, (list, tuple)) else ()
    for k, v in items:
        found = _non_finite(v, f"{where}.{k}" if where else str(k))
        if found:
            return found
    return None


def write_csv(path: pathlib.Path, columns: Sequence[str], rows: Iterable[Mapping]
              ) -> pathlib.Path:
    """Write ``rows`` (mappings keyed by ``columns``) as a CSV with a header.

    Raises:
        KeyError: if a row lacks one of ``columns``.
    """
    with open(path, "w", newline="") as fh:
        # "\n", not the csv module's default "\r\n": plain text files on every platform.
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_jsonable(row[c]) for c in columns])
    return path


def read_csv(path: pathlib.Path) -> list[dict[str, str]]:
    """Read a CSV written by :func:`write_csv` into a list of dicts (strings)."""
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


class OutDirError(UsageError):
    """``--out`` cannot hold the run's files (exit status 2: nothing was computed)."""


def _first_missing(path: pathlib.Path) -> pathlib.Path | None:
    """The outermost directory of ``path`` that does not exist yet (None if it does)."""
    missing = None
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing = candidate
    return missing


def prepare_out(out: str | pathlib.Path) -> pathlib.Path:
    """Create (if needed) and return the output directory.

    Raises:
        OutDirError: for an empty ``out`` (it would mean the current directory), an
            ``out`` that is (or lies under) a file, or one that cannot be created;
            the message names ``out`` and the reason.
    """
    if not str(out).strip():
        raise OutDirError("--out is empty; name an output directory (e.g. --out figures)")
    path = pathlib.Path(out)
    if path.exists() and not path.is_dir():
        raise OutDirError(f"--out {str(out)!r} is a file; expected a directory")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise OutDirError(f"--out {str(out)!r}: {str(parent)!r} is a file; "
                              f"expected a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutDirError(f"--out {str(out)!r} cannot be created ({exc.strerror or exc}); "
                          f"name a directory you can write to") from None
    return path


#: prefix of staging directories (beside --out; a run killed by SIGKILL leaves one)
STAGING_PREFIX = ".ctxsim-staging-"


@contextlib.contextmanager
def output_set(out: str | pathlib.Path) -> Iterator[pathlib.Path]:
    """A staging directory for one run's outputs, moved into ``out`` as a set.

    Before any computing, ``out`` is created and checked writable (a probe file in
    it, and the staging directory in its parent: the same file system, so the
    final renames are atomic). The body writes into the yielded directory. On
    success every file is renamed into ``out`` under an exclusive lock on ``out``
    (another run finishing at once waits) with SIGINT held back, so ``out`` holds
    one run's complete set. On any exception (KeyboardInterrupt included) the
    staging directory is removed and ``out`` keeps what it had.

    A failed run also removes the directories it created for ``out`` if they are
    still empty.

    Raises:
        OutDirError: ``out`` is empty, is (or lies under) a file, or it or its
            parent is not writable (named, with the reason).
    """
    with out_dir(out) as path:
        try:
            probe = tempfile.NamedTemporaryFile(dir=path, prefix=STAGING_PREFIX)
            probe.close()
            staging = pathlib.Path(tempfile.mkdtemp(
                dir=path.absolute().parent, prefix=f"{STAGING_PREFIX}{path.name}-"))
        except OSError as exc:
            raise OutDirError(f"--out {str(out)!r} is not writable "
                              f"({exc.strerror or exc})") from None
        try:
            yield staging
            _move_set(staging, path)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


@contextlib.contextmanager
def out_dir(out: str | pathlib.Path) -> Iterator[pathlib.Path]:
    """:func:`prepare_out` for a block that writes into ``out``: checked and created
    before the block's work, and the directories it created removed again if the
    block fails and they are still empty (a failed run leaves no trace).

    Raises:
        OutDirError: see :func:`prepare_out`.
    """
    created = _first_missing(pathlib.Path(out)) if str(out).strip() else None
    path = prepare_out(out)
    try:
        yield path
    except BaseException:
        _remove_empty(path, created)
        raise


def _remove_empty(path: pathlib.Path, created: pathlib.Path | None) -> None:
    """Remove the directories this run created for ``path`` (up to ``created``) if
    a failed run left them empty: a failed run leaves no trace in the file system."""
    if created is None:
        return
    for directory in (path, *path.parents):
        try:
            directory.rmdir()   # only ever removes an empty directory
        except OSError:
            return
        if directory == created:
            return


def _fsync_dir(directory: pathlib.Path) -> None:
    dfd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _move_set(staging: pathlib.Path, out: pathlib.Path) -> None:
    fd = os.open(out, os.O_RDONLY)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a concurrent run's set moves before or after
        touched: set[pathlib.Path] = set()
        for src in sorted(staging.rglob("*")):
            if src.is_file():
                dst = out / src.relative_to(staging)
                for parent in reversed(dst.relative_to(out).parents[:-1]):
                    sub = out / parent
                    if not sub.is_dir():  # a new directory: durable in its parent
                        sub.mkdir()
                        touched.add(sub.parent)
                os.replace(src, dst)
                touched.add(dst.parent)
        # every rename (and new directory) is durable only once the directory that
        # holds the new name is (issue 34): fsync each, ``out`` last
        for directory in sorted(touched - {out}, key=lambda p: -len(p.parts)):
            _fsync_dir(directory)
        os.fsync(fd)
        _fsync_dir(out.absolute().parent)  # ``out`` itself, if this run made it
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def new_figure(*args, **kwargs):
    """``matplotlib.pyplot.subplots`` on the non-interactive Agg backend, with a
    constrained layout unless another is asked for."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    kwargs.setdefault("layout", "constrained")
    return plt.subplots(*args, **kwargs)


def save_figure(fig, path: pathlib.Path, *, tight: bool = True) -> pathlib.Path:
    """Save ``fig`` as PNG at 150 dpi and close it.

    ``tight``: crop to the drawn artists (``bbox_inches="tight"``), which draws the
    figure twice (once to measure, once to render). A figure made by
    :func:`new_figure` with its constrained layout, whose legends and titles sit
    inside the figure (``loc="outside ..."``), needs no crop: ``tight=False`` draws
    it once."""
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=150, bbox_inches="tight" if tight else None)
    plt.close(fig)
    return path
