"""Writing experiment results: CSV tables, PNG figures and a JSON sidecar.

Every experiment writes ``NAME.csv`` (plain ``csv`` module), ``NAME.png``
(matplotlib, Agg backend) and ``NAME.json`` recording the package version, git
commit, the full configuration and the seed, so any figure can be traced to the
code and parameters that made it.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import pathlib
import platform
import subprocess
from collections.abc import Iterable, Mapping, Sequence

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
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return path


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
        NotADirectoryError: naming ``out`` if it exists and is not a directory.
    """
    path = pathlib.Path(out)
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(f"--out {str(out)!r} is a file; expected a directory")
    path.mkdir(parents=True, exist_ok=True)
    return path


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
