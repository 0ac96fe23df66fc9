"""``ctxsim claims`` on CSVs that are there but cannot serve: a cell that is not a
number, a file that is not the command's CSV, an empty or undecodable file, or CSVs
with no rows. Each stops with one line naming the file (and the column, line and
value of a cell) and writes nothing; a CSV only from an older version of its command
(some columns missing) still makes its claims "not testable here"."""

from __future__ import annotations

import csv
import shutil

import pytest

from experiments.claims.cli import SHIPPED_FIGURES
from experiments.cli import main

EPISODES = "pressure_episodes.csv"


def _claims(figs, out, capsys) -> tuple[int, str, str]:
    status = main(["claims", "--figures", str(figs), "--out", str(out)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.strip()


@pytest.fixture
def figs(tmp_path, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    d = tmp_path / "figs"
    d.mkdir()
    shutil.copy(SHIPPED_FIGURES / EPISODES, d)
    return d


def test_a_cell_that_is_not_a_number_names_file_column_line_and_value(figs, tmp_path,
                                                                      capsys):
    with open(figs / EPISODES, newline="") as fh:
        rows = list(csv.DictReader(fh))
    hit = next(i for i, r in enumerate(rows)
               if r["program"] == "vista" and r["level"] == "128000")
    rows[hit]["solved"] = "abc"
    with open(figs / EPISODES, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    out = tmp_path / "out"
    status, stdout, err = _claims(figs, out, capsys)
    assert status == 2 and stdout == ""
    assert err == (f"ctxsim claims: error: {figs / EPISODES}: column 'solved', line "
                   f"{hit + 2}: 'abc' is not a number")
    assert not out.exists()   # judged before --out is made


@pytest.mark.parametrize("content, named", [
    (b"garbage,,,\n", "has none of the columns 'program', 'task_id', 'solved' that a "
                      "claim reads (its header: 'garbage', '', '', '')"),
    (b"", "is empty: no header row"),
    (b"\xff\xfe\x00level\n", "is not a readable CSV ('utf-8' codec can't decode"),
])
def test_a_file_that_is_not_the_commands_csv_stops_the_command(figs, tmp_path, capsys,
                                                               content, named):
    shutil.copy(SHIPPED_FIGURES / "theorem1.csv", figs)   # judged claims beside it
    (figs / EPISODES).write_bytes(content)
    out = tmp_path / "out"
    status, stdout, err = _claims(figs, out, capsys)
    assert status == 2 and stdout == "" and "\n" not in err
    assert err.startswith(f"ctxsim claims: error: {figs / EPISODES} {named}")
    assert not out.exists()


def test_csvs_with_no_rows_are_named_as_there_but_empty(figs, tmp_path, capsys):
    header = (SHIPPED_FIGURES / EPISODES).read_text().splitlines()[0]
    (figs / EPISODES).write_text(header + "\n")
    (figs / "theorem1.csv").write_text("")
    out = tmp_path / "out"
    status, stdout, err = _claims(figs, out, capsys)
    assert status == 1 and stdout == "" and "\n" not in err
    assert err.startswith(f"ctxsim claims: error: --figures {str(figs)!r} holds "
                          f"{EPISODES}, theorem1.csv, but with no rows below the header")
    assert not out.exists()


def test_a_csv_no_claim_reads_is_named(tmp_path, capsys):
    figs = tmp_path / "figs"
    figs.mkdir()
    shutil.copy(SHIPPED_FIGURES / "pressure.csv", figs)   # the table; claims read episodes
    status, _, err = _claims(figs, tmp_path / "out", capsys)
    assert status == 1
    assert ("holds none of the CSVs the claims read (it holds pressure.csv, which no "
            "claim reads)") in err


def test_a_csv_only_a_check_names_counts_as_data(tmp_path, capsys):
    """contextevo_seeds.csv is read by the evidence-free check, not named as a
    claim's CSV: with it alone the claims are judged, not refused as no data."""
    figs = tmp_path / "figs"
    figs.mkdir()
    shutil.copy(SHIPPED_FIGURES / "contextevo_seeds.csv", figs)
    status, stdout, _ = _claims(figs, tmp_path / "out", capsys)
    assert status == 0
    line = next(x for x in stdout.splitlines()
                if x.startswith("CE-diagnosis-vs-evidence-free "))
    assert "not testable here" not in line


def test_the_committed_csv_and_one_from_an_older_version_are_judged(figs, tmp_path,
                                                                   capsys):
    status, stdout, _ = _claims(figs, tmp_path / "out", capsys)
    assert status == 0 and "Fig4-128K " in stdout
    # an older pressure_episodes.csv without total_tokens: that claim is not testable
    with open(figs / EPISODES, newline="") as fh:
        rows = [{k: v for k, v in r.items() if k != "total_tokens"}
                for r in csv.DictReader(fh)]
    with open(figs / EPISODES, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    status, stdout, _ = _claims(figs, tmp_path / "out2", capsys)
    assert status == 0
    tokens = next(x for x in stdout.splitlines() if x.startswith("Fig4-tokens "))
    assert "not testable here" in tokens
    judged = next(x for x in stdout.splitlines() if x.startswith("Fig4-128K "))
    assert "not testable here" not in judged
