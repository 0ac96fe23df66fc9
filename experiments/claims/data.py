"""Reading the experiments' CSVs for the checks: a missing file, column or row is
:class:`MissingData` (the judge turns it into "not testable here", naming what is
missing); nothing is ever filled in. A file that is there but cannot serve (not a
readable CSV, empty, none of the columns the claim reads, a cell that is not a
number) is :class:`BadData`: an input error (``ctxsim claims`` exits 2 naming the
file, the column and the value), not a verdict."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable, Mapping

from experiments.arguments import UsageError


class MissingData(LookupError):
    """The CSV, column or row a claim needs is not there (the message names it)."""


class BadData(UsageError):
    """A CSV is there but cannot be read as the claims need it (the message names the
    file and, for a cell, its column, line and value); exit status 2."""


class Cell(str):
    """A CSV cell: a string that knows where it was read, so a cell that is not a
    number names its file, column and line when a check converts it (``float()``,
    ``int()``, :func:`num`), wherever in the check that happens."""

    def __new__(cls, text: str, path: Path, column: str, line: int):
        cell = super().__new__(cls, text)
        cell.where = (path, column, line)
        return cell

    def _bad(self, what: str) -> BadData:
        path, column, line = self.where
        return BadData(f"{path}: column {column!r}, line {line}: {str(self)!r} is not "
                       f"{what}")

    def __float__(self) -> float:
        try:
            return float(str(self))
        except ValueError:
            raise self._bad("a number") from None

    def __int__(self) -> int:
        try:
            return int(str(self))
        except ValueError:
            raise self._bad("an integer") from None


def read(figdir: Path, name: str, columns: Iterable[str] = ()) -> list[dict]:
    """The rows of ``figdir/name`` as dicts of strings (:class:`Cell`).

    Raises:
        MissingData: if the file is absent.
        MissingData: if it lacks some of ``columns`` (:func:`need`).
        BadData: if it is not a readable CSV, is empty, or has none of ``columns``.
    """
    path = Path(figdir) / name
    if not path.exists():
        raise MissingData(f"{path} is missing (run the claim's command)")
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            # each row with the line it ends on (the header is line 1), for messages
            rows = [(reader.line_num, row) for row in reader]
            header = reader.fieldnames or []
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise BadData(f"{path} is not a readable CSV ({exc})") from None
    if not header:
        raise BadData(f"{path} is empty: no header row (rerun the claim's command)")
    need(header, columns, path)
    return [{k: Cell(v, path, k, line) if isinstance(v, str) else v
             for k, v in row.items()} for line, row in rows]


def need(header: Iterable[str], columns: Iterable[str], path) -> None:
    """Check that ``header`` has every column of ``columns``.

    Raises:
        BadData: naming ``path``, the columns and the header, when it has none of
            them: the file is not the CSV the claim's command writes (damaged, or
            another file under its name), which no verdict can say.
        MissingData: naming the missing columns when it has some of them (a CSV
            from a version of the command that did not write them yet: "not
            testable here" for this claim, the others are judged).
    """
    have = set(header)
    columns = list(dict.fromkeys(columns))
    missing = [c for c in columns if c not in have]
    if missing and len(missing) == len(columns):
        raise BadData(f"{path} has none of the columns {', '.join(map(repr, missing))} "
                      f"that a claim reads (its header: {', '.join(map(repr, header))})")
    if missing:
        raise MissingData(f"{Path(path).name} has no column {', '.join(missing)}")


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


def has_rows(path: Path) -> bool:
    """Whether the CSV at ``path`` has a row below its header; True also for a file
    that cannot be read (:func:`read` then names what is wrong with it)."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            return next(reader, None) is not None and next(reader, None) is not None
    except (OSError, UnicodeDecodeError, csv.Error):
        return True
