"""The text a check's ProofRecord carries, against a committed copy (issue 38).

Mutation testing edits the record's title, source, statement and step names as it
edits any string; the checks' pass/fail tests cannot see those edits, and
``ctxsim theory`` prints them. Each check-running test compares the record with
``data/records.json``: title, source (which must cite THEORY.md or a paper),
statement as sympy prints it, every step's description and every spot check's name
and point count (the evidence strings, sympy's own printing of intermediate
expressions, are left out).

After an intended change to a check's text, rewrite the copy with
``python3 -m tests.theory.record_texts`` and review its diff.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).with_name("data") / "records.json"


def texts(record) -> dict:
    """The comparable text of a ProofRecord."""
    return {"result": record.result, "source": record.source,
            "statement": str(record.statement),
            "steps": [s.description for s in record.steps],
            "numeric": {name: n for name, (n, _, _) in record.numeric.items()}}


def assert_texts(spec: str, record) -> None:
    """``record`` (of check ``spec``, "module:function") reads as the committed copy."""
    want = json.loads(DATA.read_text())
    assert spec in want, f"{spec} has no committed text: run python3 -m tests.theory.record_texts"
    assert texts(record) == want[spec], spec
    assert any(s in record.source for s in ("THEORY.md §", "VISTA", "ContextEvo")), \
        record.source


def main() -> None:
    from experiments.theory_report import CHECKS, load

    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps({spec: texts(load(spec)()) for spec in CHECKS},
                               indent=1, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
