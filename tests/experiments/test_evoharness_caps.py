"""``python -m experiments.evoharness.caps`` (issue 32, robustness to the cap
fraction): its pure parts and its usage errors, each refused in one line before any
grid runs (a new user's run computed for a minute and then died on ``--out``)."""

import argparse
import time

import pytest

from experiments.evoharness import caps


@pytest.mark.parametrize("paper,want", [("Table 3: topic-only below full", "<0"),
                                        ("Table 4: standard above self", ">0"),
                                        ("Fig. 5: online at least train-split", ">0"),
                                        ("curation: ADD-only against the budgeted", "")])
def test_stated_direction_is_read_from_the_papers_words(paper, want):
    assert caps.stated(paper) == want


@pytest.mark.parametrize("lo,hi,paper,resolved,holds", [
    (-0.2, -0.01, "x below y", "<0", "yes"), (0.01, 0.2, "x below y", ">0", "no"),
    (-0.1, 0.1, "x above y", "0 inside", "no"), (0.0, 0.1, "x above y", "0 inside", "no"),
    (0.01, 0.1, "x against y", ">0", "")])
def test_a_row_resolves_only_an_interval_that_excludes_zero(lo, hi, paper, resolved, holds):
    r = caps.row(0.25, {"profile": "medium", "arm": "a", "reference": "b", "paper": paper,
                        "diff": (lo + hi) / 2, "lo": lo, "hi": hi})
    assert (r["resolved"], r["holds"], r["cap_fraction"]) == (resolved, holds, 0.25)


def test_fractions_parse_and_refuse_empty_repeated_and_out_of_range():
    assert caps._fractions("0.15, 0.25,0.5") == (0.15, 0.25, 0.5)
    for bad, named in [("", "no cap fraction"), ("0.25,0.25", "0.25 given twice"),
                       ("0", "0"), ("1.5", "1.5")]:
        with pytest.raises(argparse.ArgumentTypeError, match=named):
            caps._fractions(bad)


@pytest.mark.parametrize("argv", [["--out", "/proc/no/such"], ["--out", ""]])
def test_a_bad_out_is_refused_before_any_grid(argv, monkeypatch, capsys):
    monkeypatch.setattr(caps, "sweep", lambda *a: pytest.fail("a grid ran"))
    start = time.perf_counter()
    assert caps.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and time.perf_counter() - start < 5


def test_a_failed_sweep_leaves_no_new_directory(tmp_path, monkeypatch):
    def boom(*a):
        raise RuntimeError("grid failed")
    monkeypatch.setattr(caps, "sweep", boom)
    with pytest.raises(RuntimeError):
        caps.main(["--out", str(tmp_path / "new" / "dir")])
    assert not (tmp_path / "new").exists()
