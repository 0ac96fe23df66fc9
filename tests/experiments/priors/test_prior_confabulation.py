"""``agent.p_confabulate`` re-derived from SimpleQA Table 3 (issue 31)."""

import pytest

from experiments.priors import outward, table_header
from experiments.priors.confabulation import (confabulation_rates, f_score,
                                              p_confabulate_range, simpleqa_rows)
from sim.world import TABLE


def test_transcription_reproduces_the_tables_own_f_scores():
    rows = simpleqa_rows()
    assert len(rows) == 6
    for r in rows:
        # three shares of the questions, each rounded to 0.1
        assert r["correct"] + r["not_attempted"] + r["incorrect"] == pytest.approx(
            100, abs=0.15), r["model"]
        # F = 2c / (2c + 2i + n) (Appendix B), independent of the harmonic-mean form
        c, i, n = r["correct"], r["incorrect"], r["not_attempted"]
        assert f_score(c, i) == pytest.approx(100 * 2 * c / (2 * c + 2 * i + n), abs=0.1)
        # the printed F-score (one decimal) from the printed rates (one decimal each)
        assert abs(f_score(c, i) - r["f_score"]) < 0.1, r["model"]
    assert "Table 3" in table_header("simpleqa") and "arXiv:2411.04368" in \
        table_header("simpleqa")


def test_declared_range_spans_the_models():
    rates = confabulation_rates()
    assert rates["Claude-3-haiku"] == pytest.approx(19.6 / (19.6 + 75.3))
    assert rates["GPT-4o-mini"] == pytest.approx(90.5 / (90.5 + 0.9))
    lo, hi = p_confabulate_range()
    assert (lo, hi) == (min(rates.values()), max(rates.values()))
    row = TABLE["agent.p_confabulate"]
    assert (row.low, row.high) == outward(lo, hi, 3) == (0.206, 0.991)
    assert row.low < row.default < row.high and not row.source.startswith("guess")
    # the old prior's top (0.9) sits below two of the six models
    assert sum(v > 0.9 for v in rates.values()) == 2
