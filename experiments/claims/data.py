"""Reading the experiments' CSVs for the checks: a missing file, column or row is
:class:`MissingData` (the judge turns it into "not testable here", naming what is
missing); nothing is ever filled in."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable, Mapping


class MissingData(LookupError):
    """The CSV, column or row a claim needs is not there (the message names it)."""


def read(figdir: Path, name: str, columns: Iterable[str] = ()) -> list[dict]:
    """The rows of ``figdir/name`` as dicts of strings.

    Raises:
        MissingData: if the file is absent or lacks one of ``columns``.
    """
    path = Path(figdir) / name
    if not path.exists():
        raise MissingData(f"{path} is missing (run the claim's command)")
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
        header = reader.fieldnames or []
    need(header, columns, name)
    return rows


def need(header: Iterable[str], columns: Iterable[str], name: str) -> None:
    """Raise :class:`MissingData` naming every column of ``columns`` not in ``header``."""
    have = set(header)
    missing = [c for c in columns if c not in have]
    if missing:
        raise MissingData(f"{name} has no column {', '.join(missing)}")


def num(x) -> float:
    """A CSV cell as a float (``nan`` for an empty cell)."""
    return float(x) if x not in ("", None) else float("nan")


def select(rows: list[dict], where: Mapping[str, object]) -> list[dict]:
    """The rows whose cells equal ``where`` (compared as strings)."""
    return [r for r in rows if all(r.get(k) == str(v) for k, v in where.items())]


def one(rows: list[dict], where: Mapping[str, object], name: str) -> dict:
    """The single row matching ``where``.

    Raises:
        MissingData: if none or several match.
    """
    hit = select(rows, where)
    if len(hit) != 1:
        raise MissingData(f"{name}: {len(hit)} rows match {dict(where)} (expected 1)")
    return hit[0]
