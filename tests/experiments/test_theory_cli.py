"""``ctxsim theory FILTER`` (issue 10, item 10): filters match names and printed
titles case-insensitively, no match exits non-zero, and a check that raises prints
its own line while the rest still run."""

from __future__ import annotations

import experiments.theory_report as report
from experiments.cli import main


def test_filter_matches_the_printed_title_case_insensitively(capsys):
    # "windowed LEDGER" appears in the title "Windowed ledger: rate and E[Z]"
    # and in the function name; "RATE AND E[Z]" only in the title
    assert main(["theory", "RATE AND E[Z]"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ok   Windowed ledger: rate and E[Z]")


def test_filter_matches_names_case_insensitively(capsys):
    assert main(["theory", "CHECK_BLIND_CLOSED"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("ok   Size-blind")


def test_no_match_exits_non_zero_with_one_line(capsys):
    assert main(["theory", "no-such-result"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert "no check matches" in captured.err


def test_a_check_that_raises_prints_its_line_and_the_rest_run(monkeypatch, capsys):
    monkeypatch.setattr(report, "CHECKS", ["tests.experiments.test_theory_cli:boom",
                                           "theory.blind:check_blind_closed_form"])
    assert main(["theory"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("ERROR tests.experiments.test_theory_cli:boom: ZeroDivisionError: "
                      "division by zero")
    assert out[1].startswith("ok   Size-blind")


def boom():
    return 1 / 0
