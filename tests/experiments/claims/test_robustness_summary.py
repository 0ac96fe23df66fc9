"""What ``robustness.json`` says about a claim
(:mod:`experiments.claims.robustness.summary`), on hand-made indices on both sides of
each threshold."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.claims.robustness.analysis import (OTHERS, Analysis, Factor,
                                                   MorrisRow, SobolRow, step)
from experiments.claims.robustness.summary import (FLIP_MIN, S1_ALONE, ST_MIN,
                                                  claim_entry, csv_rows, decided_by,
                                                  deciding)

EPS = 1e-6


def morris_row(flip: float) -> MorrisRow:
    return MorrisRow(mu_star=flip / step(), sigma=0.1, mu_star_conf=0.05)


def sobol_row(s1: float, st: float) -> SobolRow:
    return SobolRow(S1=s1, S1_conf=0.05, ST=st, ST_conf=0.05)


def analysis(flips: dict, sobol: dict | None, samples: int = 2) -> Analysis:
    factors = [Factor(n, 0.0, 1.0) for n in ("a", "b", "c")]
    groups = ["a", "b", OTHERS]
    n = samples * (len(set(groups)) + 2)
    return Analysis(factors, ["x"], np.zeros((4, 3)), {"x": np.zeros(4)},
                    {"x": {k: morris_row(v) for k, v in flips.items()}}, ["a", "b"],
                    groups, np.zeros((n, 3)), {"x": np.zeros(n)}, {"x": sobol},
                    {"x": (0.5, 0.1, 0.9)}, samples, 1, 0)


def test_a_screened_parameter_decides_from_st_at_the_threshold():
    an = analysis({"a": 0.0, "b": 0.0, "c": 0.0},
                  {"a": sobol_row(0.2, ST_MIN), "b": sobol_row(0.0, ST_MIN - EPS),
                   OTHERS: sobol_row(0.0, 0.0)})
    assert [d["name"] for d in deciding(an, "x")] == ["a"]
    assert deciding(an, "x")[0]["by"] == "sobol"


def test_deciders_are_ordered_by_st():
    an = analysis({"a": 0.0, "b": 0.0, "c": 0.0},
                  {"a": sobol_row(0.1, 0.2), "b": sobol_row(0.3, 0.6),
                   OTHERS: sobol_row(0.0, 0.0)})
    assert [d["name"] for d in deciding(an, "x")] == ["b", "a"]


def test_an_unscreened_parameter_decides_from_its_flip_rate():
    sob = {"a": sobol_row(0.0, 0.0), "b": sobol_row(0.0, 0.0),
           OTHERS: sobol_row(0.4, 0.6)}
    on = deciding(analysis({"a": 0.9, "b": 0.9, "c": FLIP_MIN}, sob), "x")
    # a and b were in the Sobol' stage with ST 0: their Morris flips do not count
    assert [(d["name"], d["by"]) for d in on] == [("c", "morris")]
    assert on[0]["flip_rate"] == pytest.approx(FLIP_MIN)
    off = deciding(analysis({"a": 0.0, "b": 0.0, "c": FLIP_MIN - EPS}, sob), "x")
    assert off == []


def test_without_variance_in_the_sobol_stage_morris_decides():
    an = analysis({"a": 0.5, "b": FLIP_MIN - EPS, "c": 0.2}, None)
    assert [d["name"] for d in deciding(an, "x")] == ["a", "c"]
    assert decided_by(an, "x") is None


def test_one_parameter_decides_alone_from_s1():
    base = {"b": sobol_row(0.1, 0.2), OTHERS: sobol_row(0.0, 0.0)}
    flips = {"a": 0.0, "b": 0.0, "c": 0.0}
    assert decided_by(analysis(flips, {"a": sobol_row(S1_ALONE, 0.7), **base}), "x") == "a"
    assert decided_by(analysis(flips, {"a": sobol_row(S1_ALONE - EPS, 0.7), **base}),
                      "x") is None
    # a larger first-order share elsewhere (noise past a sum of 1): nobody alone
    assert decided_by(analysis(flips, {"a": sobol_row(0.7, 0.8), "b": sobol_row(0.0, 0.0),
                                       OTHERS: sobol_row(0.7, 0.8)}), "x") is None
    # the others group is not a parameter: it never decides alone
    assert decided_by(analysis(flips, {"a": sobol_row(0.1, 0.1), "b": sobol_row(0.0, 0.0),
                                       OTHERS: sobol_row(0.9, 0.9)}), "x") is None


def test_claim_entry_counts_verdicts_on_the_base_points_only():
    an = analysis({"a": 0.0, "b": 0.0, "c": 0.0}, None, samples=2)
    # blocks of 5 (A, AB_a, AB_b, AB_others, B): base rows 0, 4, 5, 9
    words = ["not reproduced"] * 10
    for i, w in zip((0, 4, 5, 9), ("reproduced", "reproduced in direction only",
                                   "no interval", "reproduced")):
        words[i] = w
    verdicts = [{"x": w} for w in words]
    e = claim_entry(an, "x", verdicts, "reproduced")
    assert e["verdicts"] == {"no interval": 1, "reproduced": 2,
                             "reproduced in direction only": 1}
    assert e["points"] == 4 and e["direction_fraction"] == 0.75
    assert (e["holding_fraction"], e["holding_lo"], e["holding_hi"]) == (0.5, 0.1, 0.9)
    assert e["verdict_at_default"] == "reproduced" and e["sobol"] is None


def test_csv_rows_give_every_parameter_and_the_others_group():
    an = analysis({"a": 0.2, "b": 0.0, "c": 0.3},
                  {"a": sobol_row(0.6, 0.7), "b": sobol_row(0.0, 0.0),
                   OTHERS: sobol_row(0.2, 0.3)})
    e = claim_entry(an, "x", [{"x": "reproduced"}] * 10, None)
    rows = csv_rows(an, {"x": e}, {"x": "VISTA Fig. 4"})
    assert [r["parameter"] for r in rows] == ["a", "b", "c", OTHERS]
    assert [r["screened"] for r in rows] == [1, 1, 0, 0]
    assert rows[0]["ST"] == 0.7 and rows[2]["ST"] == "" and rows[3]["ST"] == 0.3
    assert rows[3]["mu_star"] == "" and rows[0]["decided_by"] == "a"
    assert all(r["item"] == "VISTA Fig. 4" for r in rows)
