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


def test_no_match_is_known_without_running_a_check(monkeypatch, capsys):
    def ran(spec):
        raise AssertionError(f"ran {spec}")

    monkeypatch.setattr(report, "load", ran)
    assert main(["theory", "no-such-result"]) == 2
    assert "no check matches" in capsys.readouterr().err


def test_every_check_title_is_readable_from_its_source():
    # the static titles are those the checks print (a check whose title were computed
    # would make a non-matching filter run it)
    for spec in report.CHECKS:
        assert report.static_title(spec), spec
    assert report.static_title("theory.blind:check_blind_closed_form") == \
        report.load("theory.blind:check_blind_closed_form")().result


def test_numeric_summary_states_the_error_against_its_tolerance():
    from theory.proof import ProofRecord

    rec = ProofRecord("r", "s", "x")
    rec.numeric["monte carlo (in SE)"] = (10, 1.9, 5.0)
    rec.numeric["identity"] = (5, 1e-15, 1e-12)
    line = report.numeric_summary(rec)
    assert line == ("15 numeric points within tolerance (worst 38% of its tolerance: "
                    "1.9 <= 5, in 'monte carlo (in SE)')")


def test_counts_are_pluralised_by_their_number(capsys):
    assert [report.counted(n, "symbolic step") for n in (0, 1, 8)] == [
        "0 symbolic steps", "1 symbolic step", "8 symbolic steps"]
    # a check with one symbolic step (it printed "1 symbolic steps")
    assert main(["theory", "rate anchors"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert ": 1 symbolic step, " in line and " numeric points within" in line
