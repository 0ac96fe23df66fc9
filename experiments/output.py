"""Writing experiment results: CSV tables, PNG figures and a JSON sidecar.

Every experiment writes ``NAME.csv`` (plain ``csv`` module), ``NAME.png``
(matplotlib, Agg backend) and ``NAME.json`` recording the package version, git
commit, the full configuration and the seed, so any figure can be traced to the
code and parameters that made it. JSON is strict: a NaN or infinite number in a
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


def git_commit() -> str | None:
    """The current git commit of the source tree, or None outside a checkout."""
    here = pathlib.Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


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
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "config": _jsonable(config),
    }
    if extra:
        record.update(_jsonable(extra))
    found: list[str] = []
    record = _finite(record, "", found)
    if found:
        record["non_finite_as_null"] = found
    path.write_text(dumps_strict(record) + "\n")
    return path


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


def prepare_out(out: str | pathlib.Path) -> pathlib.Path:
    """Create (if needed) and return the output directory.

    Raises:
        ValueError: for an empty ``out`` (it would mean the current directory).
        NotADirectoryError: naming ``out`` if it exists and is not a directory.
    """
    if not str(out).strip():
        raise ValueError("--out is empty; name an output directory (e.g. --out figures)")
    path = pathlib.Path(out)
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(f"--out {str(out)!r} is a file; expected a directory")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise NotADirectoryError(f"--out {str(out)!r}: {str(parent)!r} is a file")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PermissionError(f"cannot create --out {str(out)!r}: "
                              f"{exc.strerror or exc}") from None
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

    Raises:
        ValueError: empty ``out``.
        NotADirectoryError: ``out`` (or a parent) is a file.
        PermissionError: ``out`` or its parent is not writable (named).
    """
    path = prepare_out(out)
    try:
        probe = tempfile.NamedTemporaryFile(dir=path, prefix=STAGING_PREFIX)
        probe.close()
        staging = pathlib.Path(tempfile.mkdtemp(
            dir=path.absolute().parent, prefix=f"{STAGING_PREFIX}{path.name}-"))
    except OSError as exc:
        raise PermissionError(f"--out {str(out)!r} is not writable: "
                              f"{exc.strerror or exc}") from None
    try:
        yield staging
        _move_set(staging, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _move_set(staging: pathlib.Path, out: pathlib.Path) -> None:
    fd = os.open(out, os.O_RDONLY)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a concurrent run's set moves before or after
        for src in sorted(staging.rglob("*")):
            if src.is_file():
                dst = out / src.relative_to(staging)
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dst)
        os.fsync(fd)
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


def save_figure(fig, path: pathlib.Path) -> pathlib.Path:
    """Save ``fig`` as PNG at 150 dpi and close it."""
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return path
