"""The scorecard files: ``claims.md`` (a table a reader scans) and ``claims.json``
(one object per claim), with a robustness column read from ``robustness.json``
(written by ``ctxsim claims --robustness``) and a "predicted from the baselines"
column read from ``predictive.json`` (written by ``ctxsim claims --posterior``),
each when it exists.

``predictive.json`` holds ``{"cells": {cell id: {"role", "paper", "mean", "lo",
"hi", "p", "verdict", ...}}}`` (issue 30, item 4): a claim's column lists each of its
paper numbers the posterior predictive check simulated, ``predict`` ones with their
90% interval and predictive p, ``fit`` ones marked as fitted (the posterior was
conditioned on them, so matching them predicts nothing).

``robustness.json`` maps claim ids (at the top level or under ``"claims"``) to
``{"effect": {"sign_share": {"value", "lo", "hi"}, ...}, "deciding_parameters":
[...]}`` (issue 30); a file from before issue 30 has ``{"holding_fraction": f,
"holding_lo": lo, "holding_hi": hi}`` instead (or ``"interval": [lo, hi]``), and
the parameters may be ``"deciding"``, each a name or ``{"name": ...}``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from experiments.claims.records import VERDICT_ORDER, Result

ROBUSTNESS = "robustness.json"
PREDICTIVE = "predictive.json"
NOT_RUN = "not run"


def _read_object(path: Path, key: str, expected: str) -> dict[str, dict] | None:
    """The object of objects in JSON file ``path`` (under ``key`` when the file has
    it); ``None`` if the file is absent.

    Raises:
        ValueError: naming the file and ``expected``, if it is not such an object.
    """
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # a BOM is no error
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from exc
    if isinstance(data, dict) and isinstance(data.get(key), dict):
        data = data[key]
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{path}: expected {expected}")
    return data


def read_robustness(figdir: Path) -> dict[str, dict] | None:
    """The per-claim entries of ``figdir/robustness.json``; ``None`` if absent.

    Raises:
        ValueError: naming the file, if it is not a JSON object of objects.
    """
    return _read_object(Path(figdir) / ROBUSTNESS, "claims",
                        "an object mapping claim ids to objects with holding_fraction "
                        "and deciding_parameters")


def read_predictive(figdir: Path) -> dict[str, dict] | None:
    """The per-cell entries of ``figdir/predictive.json``; ``None`` if absent.

    Raises:
        ValueError: naming the file, if it is not a JSON object of objects.
    """
    return _read_object(Path(figdir) / PREDICTIVE, "cells",
                        "an object whose 'cells' map cell ids to objects with role, "
                        "paper, lo, hi and p")


def g3(x) -> str:
    """A number as the scorecard and the README's tables print it: 3 significant
    digits (``format(x, ".3g")``)."""
    return f"{float(x):.3g}"


def predictive_cell(claim, cells: dict[str, dict] | None) -> str:
    """One claim's "predicted from the baselines" text: per paper number of the claim
    that the predictive check simulated, ``label paper vs [lo, hi] (p P, verdict)``
    for a ``predict`` number; for a ``fit`` one the same with ``fitted`` and
    ``reached`` or ``not reached`` (the posterior was conditioned on it: a miss says
    the world cannot produce it)."""
    if cells is None:
        return NOT_RUN
    parts = []
    for label, cell in claim.number.cells.items():
        e = cells.get(cell.id)
        if e is None:
            continue
        where = f"{label} {g3(e['paper'])} vs [{g3(e['lo'])}, {g3(e['hi'])}]"
        if e.get("role") == "fit":
            reached = "reached" if e.get("verdict") == "predicted" else "not reached"
            parts.append(f"{where} (fitted, p {float(e['p']):.2f}, {reached})")
            continue
        parts.append(f"{where} (p {float(e['p']):.2f}, {e.get('verdict', '?')})")
    return "; ".join(parts) if parts else "not simulated"


def robustness_cell(entry: dict | None, have_file: bool) -> str:
    """One claim's robustness as text: the share of the prior where its expected
    effect has the claimed sign, with its interval (issue 30; an older file's
    verdict-count ``holding_fraction`` is shown as what it was, power), and the
    parameters that decide it."""
    if not have_file:
        return NOT_RUN
    if entry is None:
        return "not analysed"
    share = (entry.get("effect") or {}).get("sign_share")
    if isinstance(share, dict) and share.get("value") is not None:
        text = f"sign in {float(share['value']):.2f} of the prior"
        lo, hi = share.get("lo"), share.get("hi")
    elif entry.get("holding_fraction") is not None:
        f = entry["holding_fraction"]
        if isinstance(f, dict):
            f, lo, hi = f.get("value"), f.get("lo"), f.get("hi")
        else:
            lo, hi = entry.get("holding_lo"), entry.get("holding_hi")
            if lo is None and isinstance(entry.get("interval"), (list, tuple)):
                lo, hi = entry["interval"][:2]
        text = f"holds in {float(f):.2f}"
    else:
        return "not analysed"
    if lo is not None and hi is not None:
        text += f" [{float(lo):.2f}, {float(hi):.2f}]"
    params = entry.get("deciding_parameters", entry.get("deciding")) or []
    names = [p.get("name", p.get("parameter", "?")) if isinstance(p, dict) else str(p)
             for p in params]
    return text + (f"; decided by {', '.join(names)}" if names else "")


def rows(results: list[Result], robustness: dict | None,
         predictive: dict | None = None) -> list[dict]:
    """JSON rows: each result's fields plus its robustness and "predicted from the
    baselines" texts."""
    out = []
    for r in results:
        d = r.as_dict()
        d["robustness"] = robustness_cell((robustness or {}).get(r.claim.id),
                                          robustness is not None)
        d["predicted"] = predictive_cell(r.claim, predictive)
        out.append(d)
    return out


def _where(figdir: Path, out: Path) -> str:
    """How claims.md names the directory its CSVs came from: relative to claims.md,
    so the file does not carry the machine's absolute path (issue 33)."""
    if Path(figdir).resolve() == Path(out).resolve():
        return "the CSVs in this directory"
    try:
        shown = os.path.relpath(Path(figdir).resolve(), Path(out).resolve())
    except ValueError:  # another drive (Windows): no relative path exists
        return f"the CSVs in `{Path(figdir).resolve()}`"
    return f"the CSVs in `{shown}` (relative to this file)"


def _cell(s) -> str:
    return str(s).replace("|", "/").replace("\n", " ")


def to_markdown(table: list[dict], figdir: Path, out: Path) -> str:
    """The scorecard as Markdown: provenance, verdict counts, one row per claim."""
    counts: dict[str, int] = {}
    for r in table:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    lines = ["# Claims scorecard", "",
             f"Generated by `ctxsim claims` from {_where(figdir, out)}; claims in "
             "`experiments/claims/registry/`, verdict rules in "
             "`experiments/claims/rules.py`.", "",
             ", ".join(f"{v}: {counts[str(v)]}" for v in VERDICT_ORDER
                       if str(v) in counts), "",
             "| id | paper item | claim (paper's number; paper's setting) | checked at | "
             "source: module / CSV: columns | rule | ours | interval | verdict | "
             "robustness | predicted from the baselines |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in table:
        verdict = r["verdict"] + (f" ({r['note']})" if r["note"] else "")
        setting = f"; {r['paper_setting']}" if r["paper_setting"] else ""
        lines.append("| " + " | ".join(_cell(x) for x in (
            r["id"], f"{r['item']} ({r['where']})",
            f"{r['statement']} ({r['paper_value']}{setting})",
            r["checked_at"] + ("" if r["at_paper_setting"] else " (not the paper's setting)"),
            f"`{r['command']}` ({r['module']}) {r['csv']}: {', '.join(r['columns'])}",
            r["rule"], r["ours"], r["ci"], verdict, r["robustness"],
            r["predicted"])) + " |")
    return "\n".join(lines) + "\n"


def write(results: list[Result], figdir: Path, out: Path) -> tuple[Path, Path]:
    """Write ``out/claims.md`` and ``out/claims.json``; return their paths."""
    table = rows(results, read_robustness(figdir), read_predictive(figdir))
    md, js = Path(out) / "claims.md", Path(out) / "claims.json"
    md.write_text(to_markdown(table, figdir, out))
    js.write_text(json.dumps(table, indent=2) + "\n")
    return md, js
