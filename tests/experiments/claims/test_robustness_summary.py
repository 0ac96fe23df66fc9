"""What ``robustness.json`` says about a claim
(:mod:`experiments.claims.robustness.summary`), on hand-made indices on both sides of
each threshold: the deciding parameters come from the indices of the claim's
*effect* (output ``effect:x``), a flagged index never decides, and the verdict
count is reported as power."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.claims.robustness.analysis import (OTHERS, Analysis, Factor,
                                                   MorrisRow, SobolRow)
from experiments.claims.robustness.summary import (S1_ALONE, ST_MIN, claim_entry,
                                                  csv_rows, decided_by, deciding,
                                                  flagged)

EPS = 1e-6
EFFECT = "effect:x"


def sobol_row(s1: float, st: float, conf: float = 0.05) -> SobolRow:
    return SobolRow(S1=s1, S1_conf=conf, ST=st, ST_conf=conf)


def analysis(sobol: dict | None, samples: int = 2) -> Analysis:
    factors = [Factor(n, 0.0, 1.0) for n in ("a", "b", "c")]
    groups = ["a", "b", OTHERS]
    n = samples * (len(set(groups)) + 2)
    mor = {k: MorrisRow(0.3, 0.1, 0.05) for k in ("a", "b", "c")}
    return Analysis(factors, ["x", EFFECT], np.zeros((4, 3)),
                    {"x": np.zeros(4), EFFECT: np.zeros(4)}, {"x": mor, EFFECT: mor},
                    ["a", "b"], groups, np.zeros((n, 3)),
                    {"x": np.zeros(n), EFFECT: np.zeros(n)}, {"x": None, EFFECT: sobol},
                    {"x": (0.5, 0.1, 0.9)}, samples, 1, 0)


EFFECT_SUMMARY = {"scale": "difference", "paper": 0.1, "tolerance": 0.05,
                  "claimed": [0.0, None], "at_default": {"value": 0.2, "se": 0.05, "n": 45},
                  "points": 10, "dropped": 0,
                  "sign_share": {"value": 0.9, "lo": 0.8, "hi": 0.95},
                  "tolerance_share": {"value": 0.3, "lo": 0.2, "hi": 0.4},
                  "mean": {"value": 0.12, "lo": 0.1, "hi": 0.14},
                  "spread": {"value": 0.05, "lo": 0.04, "hi": 0.06},
                  "cv": {"z_sd": 1.0, "coverage": 0.95, "rmse": 0.05, "folds": 5}}


@pytest.mark.parametrize("value,conf,out", [
    (0.5, 0.5, False), (0.5, 0.5 + EPS, True), (0.0, 0.0, False), (1.0, 0.0, False),
    (-EPS, 0.0, True), (1.0 + EPS, 0.0, True), (0.3, float("nan"), True),
    (None, 0.1, True)])
def test_an_index_is_flagged_when_its_interval_leaves_zero_one(value, conf, out):
    assert flagged(value, conf) is out


def test_a_screened_parameter_decides_from_its_effect_st_at_the_threshold():
    an = analysis({"a": sobol_row(0.2, ST_MIN), "b": sobol_row(0.0, ST_MIN - EPS),
                   OTHERS: sobol_row(0.0, 0.0, 0.0)})
    assert [d["name"] for d in deciding(an, EFFECT)] == ["a"]


def test_a_flagged_index_never_decides():
    # ST 0.6 +- 0.5 leaves [0, 1] (the 1.18 +- 0.91 case): not a finding
    an = analysis({"a": sobol_row(0.2, 0.6, 0.5), "b": sobol_row(0.1, 0.3),
                   OTHERS: sobol_row(0.0, 0.0, 0.0)})
    assert [d["name"] for d in deciding(an, EFFECT)] == ["b"]
    assert decided_by(analysis({"a": sobol_row(0.8, 0.9, 0.3), "b": sobol_row(0.0, 0.1),
                                OTHERS: sobol_row(0.0, 0.0, 0.0)}), EFFECT) is None


def test_deciders_are_ordered_by_st_and_need_a_varying_effect():
    an = analysis({"a": sobol_row(0.1, 0.2), "b": sobol_row(0.3, 0.6),
                   OTHERS: sobol_row(0.0, 0.0, 0.0)})
    assert [d["name"] for d in deciding(an, EFFECT)] == ["b", "a"]
    assert deciding(analysis(None), EFFECT) == [] and decided_by(analysis(None),
                                                                 EFFECT) is None


def test_one_parameter_decides_alone_from_s1():
    base = {"b": sobol_row(0.1, 0.2), OTHERS: sobol_row(0.0, 0.0, 0.0)}
    assert decided_by(analysis({"a": sobol_row(S1_ALONE, 0.7), **base}), EFFECT) == "a"
    assert decided_by(analysis({"a": sobol_row(S1_ALONE - EPS, 0.7), **base}),
                      EFFECT) is None
    # the others group is not a parameter: it never decides alone
    assert decided_by(analysis({"a": sobol_row(0.1, 0.1), "b": sobol_row(0.0, 0.0),
                                OTHERS: sobol_row(0.9, 0.9)}), EFFECT) is None


def test_claim_entry_counts_power_on_the_base_points_only():
    an = analysis(None, samples=2)
    # blocks of 5 (A, AB_a, AB_b, AB_others, B): base rows 0, 4, 5, 9
    words = ["not reproduced"] * 10
    for i, w in zip((0, 4, 5, 9), ("reproduced", "reproduced in direction only",
                                   "no interval", "reproduced")):
        words[i] = w
    e = claim_entry(an, "x", [{"x": w} for w in words], "reproduced", EFFECT_SUMMARY, 45)
    assert e["verdicts"] == {"no interval": 1, "reproduced": 2,
                             "reproduced in direction only": 1}
    assert e["points"] == 4 and e["direction_fraction"] == 0.75
    p = e["power"]
    assert (p["value"], p["lo"], p["hi"], p["tasks"]) == (0.5, 0.1, 0.9, 45)
    assert "45-task study" in p["what"] and e["effect"] is EFFECT_SUMMARY
    assert e["verdict_at_default"] == "reproduced" and e["sobol"] is None


def test_csv_rows_give_every_parameter_the_others_group_and_the_shares():
    an = analysis({"a": sobol_row(0.6, 0.7), "b": sobol_row(0.0, 0.0, 0.0),
                   OTHERS: sobol_row(0.2, 0.3, 0.5)})
    e = claim_entry(an, "x", [{"x": "reproduced"}] * 10, None, EFFECT_SUMMARY, 45)
    rows = csv_rows(an, {"x": e}, {"x": "VISTA Fig. 4"})
    assert [r["parameter"] for r in rows] == ["a", "b", "c", OTHERS]
    assert [r["screened"] for r in rows] == [1, 1, 0, 0]
    assert rows[0]["ST"] == 0.7 and rows[2]["ST"] == "" and rows[3]["ST"] == 0.3
    assert [r["flagged"] for r in rows] == [0, 0, "", 1]
    assert rows[3]["mu_star"] == "" and rows[0]["decided_by"] == "a"
    r = rows[0]
    assert (r["sign_share"], r["sign_lo"], r["sign_hi"]) == (0.9, 0.8, 0.95)
    assert (r["tolerance_share"], r["mean_effect"], r["power_reproduced"],
            r["power_tasks"]) == (0.3, 0.12, 0.5, 45)
    assert all(r["item"] == "VISTA Fig. 4" for r in rows)


def test_a_decider_must_beat_every_parameter_the_claims_episodes_never_read():
    from experiments.claims.robustness.summary import null_floor, null_prefix

    # a LOCA-like claim's null is the BrowseComp-like family, a window claim's the
    # LOCA-like task family; an id the registry lacks has none
    assert null_prefix("Fig4-128K") == "browse." and null_prefix("Fig6-12K") == "task."
    assert null_prefix("not-a-claim") is None
    sob = {"a": sobol_row(0.3, 0.5, 0.1), "b": sobol_row(0.1, 0.3, 0.05),
           "browse.x": sobol_row(0.1, 0.25, 0.05), OTHERS: sobol_row(0.0, 0.0, 0.0)}
    an = analysis(sob)
    an.groups[:] = ["a", "b", "browse.x", OTHERS]
    assert null_floor(sob, "browse.") == pytest.approx(0.30)
    assert null_floor(sob, None) == 0.0
    # b's interval [0.25, 0.35] does not clear the null's 0.30; a's [0.4, 0.6] does;
    # the null parameter itself is never named
    assert [d["name"] for d in deciding(an, EFFECT, "browse.")] == ["a"]
    assert [d["name"] for d in deciding(an, EFFECT)] == ["a", "b", "browse.x"]
    # at equality the decider does not beat the null
    sob["b"] = sobol_row(0.1, 0.35, 0.05)
    assert [d["name"] for d in deciding(analysis(sob), EFFECT, "browse.")] == ["a"]
