"""The claims scorecard: verdict rules on hand-made numbers and CSVs (a verdict
changes only when the data changes), and the command on the committed figures."""

import csv
import json
import math
from pathlib import Path

import pytest

from experiments import claims
from experiments.claims import (DIRECTION, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED,
                                gap_verdict, limit_verdict, newcombe, peak_verdict,
                                rank_verdict, ratio_verdict, slope_verdict, tie_verdict,
                                wilson)
from experiments.claims_registry import CLAIMS

ROOT = Path(__file__).resolve().parents[2]


def test_gap_verdict():
    assert gap_verdict(0.28, 0.28, 0.17, 0.39) == REPRODUCED
    assert gap_verdict(0.06, 0.60, 0.45, 0.72) == DIRECTION        # window at 12K
    assert gap_verdict(0.28, 0.10, -0.02, 0.20) == NOT_REPRODUCED  # interval has 0
    assert gap_verdict(0.28, -0.2, -0.3, -0.1) == NOT_REPRODUCED   # opposite sign
    assert gap_verdict(-0.15, -0.2, -0.3, -0.1) == REPRODUCED
    assert gap_verdict(-0.65, -0.1, -0.2, -0.05, comparable=False) == DIRECTION
    with pytest.raises(ValueError):
        gap_verdict(0.0, 0.1, 0.0, 0.2)


def test_other_rules():
    assert tie_verdict(-0.05, 0.04, 0.1) == REPRODUCED
    assert tie_verdict(-0.05, 0.14, 0.1) == NOT_REPRODUCED
    assert rank_verdict(1) == REPRODUCED and rank_verdict(7) == NOT_REPRODUCED
    assert ratio_verdict(255 / 69, 4.0) == REPRODUCED
    assert ratio_verdict(255 / 69, 9.6) == DIRECTION
    assert ratio_verdict(57 / 105, 1.5) == NOT_REPRODUCED
    assert ratio_verdict(57 / 105, math.inf) == NOT_REPRODUCED
    assert limit_verdict([0.95, 1.0], [True, True], 0.9) == REPRODUCED
    assert limit_verdict([0.5, 1.0], [True, True], 0.9) == DIRECTION
    assert limit_verdict([0.5, 1.0], [False, True], 0.9) == NOT_REPRODUCED
    g = {4: (0.0, -0.05, 0.05), 12: (0.6, 0.45, 0.72), 64: (-0.02, -0.1, 0.06)}
    assert peak_verdict(g) == REPRODUCED
    assert peak_verdict({**g, 12: (0.1, 0.0, 0.2)}) == DIRECTION
    assert peak_verdict({**g, 64: (0.7, 0.6, 0.8)}) == NOT_REPRODUCED
    assert slope_verdict(0.3, 0.33, 300, 340) == REPRODUCED
    assert slope_verdict(-0.3, 0.33, 3127, 340) == DIRECTION
    assert slope_verdict(1.0, 0.33, 300, 340) == NOT_REPRODUCED


def test_intervals_against_known_values():
    # Wilson's interval for 0/10 and Newcombe's for two halves (Newcombe 1998,
    # Table II example 1: 56/70 - 48/80 -> 0.2 [0.0524, 0.3339])
    lo, hi = wilson(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.2775, abs=1e-4)
    d, lo, hi = newcombe(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.0524, abs=1e-4) and hi == pytest.approx(0.3339, abs=1e-4)


def _write(path, rows):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _pressure(tmp_path, vista, react, level=128000):
    rows = []
    for prog, solved in (("vista", vista), ("react", react)):
        rows += [{"level": level, "program": prog, "task_id": f"t{i}", "solved": s,
                  "total_tokens": 1000 + 10 * i - (100 if prog == "vista" else 0)}
                 for i, s in enumerate(solved)]
    _write(tmp_path / "pressure_episodes.csv", rows)


def test_verdict_follows_the_data_only(tmp_path):
    claim = next(c for c in CLAIMS if c["id"] == "Fig4-128K")
    _pressure(tmp_path, [1] * 38 + [0] * 37, [1] * 17 + [0] * 58)   # the paper's counts
    first = claims.evaluate(tmp_path, [claim])[0]
    assert first["verdict"] == REPRODUCED
    assert claims.evaluate(tmp_path, [claim])[0] == first          # same data, same row
    _pressure(tmp_path, [1] * 75, [1] * 10 + [0] * 65)
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == DIRECTION
    _pressure(tmp_path, [1] * 20 + [0] * 55, [1] * 20 + [0] * 55)
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == NOT_REPRODUCED
    tokens = next(c for c in CLAIMS if c["id"] == "Fig4-tokens")
    assert claims.evaluate(tmp_path, [tokens])[0]["verdict"] == DIRECTION


def test_cost_rank_and_missing_data(tmp_path):
    claim = next(c for c in CLAIMS if c["id"] == "Tab2-cheapest")
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == NOT_TESTABLE
    _write(tmp_path / "cost.csv", [{"program": p, "cost_usd": c, "accuracy": 0.5}
                                   for p, c in (("react", 0.3), ("vista", 0.2))])
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == REPRODUCED
    _write(tmp_path / "cost.csv", [{"program": p, "cost_usd": c, "accuracy": 0.5}
                                   for p, c in (("react", 0.1), ("vista", 0.2))])
    row = claims.evaluate(tmp_path, [claim])[0]
    assert row["verdict"] == NOT_REPRODUCED and "vista 2 of 2" in row["ours"]
    # a tie shares first place, whatever the row order
    acc = next(c for c in CLAIMS if c["id"] == "Tab2-accuracy")
    _write(tmp_path / "cost.csv", [{"program": p, "cost_usd": 0.1, "accuracy": a}
                                   for p, a in (("auto", 0.84), ("vista", 0.84),
                                                ("react", 0.5))])
    row = claims.evaluate(tmp_path, [acc])[0]
    assert row["verdict"] == REPRODUCED and "tied with auto" in row["ours"]


def test_theorem_rows_use_the_exact_variance_half_width(tmp_path):
    claim = next(c for c in CLAIMS if c["id"] == "T1-blind")
    base = {"channel": "blind", "n": 16, "kappa": 2, "EZ_theory": 1.8125, "trials": 20000}
    # SE 0.004 at 20,000 trials: half-width about 4.6-5 SE, so a miss of 0.0025 passes
    _write(tmp_path / "theorem1.csv", [{**base, "EZ": 1.81, "EZ_se": 0.004}])
    row = claims.evaluate(tmp_path, [claim])[0]
    assert row["verdict"] == REPRODUCED and "half-width" in row["note"]
    # a miss of 0.1125 = 28 SE is caught
    _write(tmp_path / "theorem1.csv", [{**base, "EZ": 1.70, "EZ_se": 0.004}])
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == NOT_REPRODUCED
    # SE = 0 means Var Z = 0: the row must equal its reference exactly
    _write(tmp_path / "theorem1.csv", [{**base, "EZ": 1.8125, "EZ_se": 0.0}])
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == REPRODUCED
    _write(tmp_path / "theorem1.csv", [{**base, "EZ": 1.80, "EZ_se": 0.0}])
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == NOT_REPRODUCED


def test_registry_is_complete():
    ids = [c["id"] for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c["check"] is None or c["check"] in claims.CHECKS, c["id"]
        assert c["check"] is not None or c.get("why"), c["id"]
    papers = {c["paper"] for c in CLAIMS}
    assert papers == {"VISTA", "ContextEvo", "Evo-Harness"}


def test_command_on_committed_figures(tmp_path):
    from experiments.cli import run_command

    assert run_command(["claims", "--figures", str(ROOT / "figures"),
                        "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "claims.json").read_text())
    assert [r["id"] for r in data] == [c["id"] for c in CLAIMS]
    verdict = {r["id"]: r["verdict"] for r in data}
    assert verdict["Tab2-cheapest"] == NOT_REPRODUCED   # VISTA is not the cheapest
    assert verdict["CE-cross"] == NOT_TESTABLE           # needs the real harnesses
    assert verdict["CE-Tab5-no-update"] != NOT_TESTABLE  # read from contextevo.csv
    assert "| id |" in (tmp_path / "claims.md").read_text()


def test_paired_sign_claims_read_episode_rows(tmp_path):
    claim = next(c for c in CLAIMS if c["id"] == "Tab2-vs-react")
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == NOT_TESTABLE  # no file
    rows = [{"level": 128000, "program": p, "task_id": f"t{i}",
             "cost_usd": 0.2 + 0.01 * i + (0.05 if p == "react" else 0.0)}
            for p in ("vista", "react") for i in range(30)]
    _write(tmp_path / "cost_episodes.csv", rows)
    # cheaper on every task: the paper's direction; dollars of synthetic tasks are
    # not comparable with the paper's, so direction is the best verdict
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == DIRECTION
    for r in rows:
        if r["program"] == "react":
            r["cost_usd"] -= 0.1
    _write(tmp_path / "cost_episodes.csv", rows)
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == NOT_REPRODUCED


def test_order_verdict_needs_the_interval_on_the_claimed_side():
    from experiments.claims import order_verdict

    assert order_verdict(1, 0.3, 0.1, 0.5) == REPRODUCED
    assert order_verdict(1, 0.3, -0.1, 0.5) == DIRECTION     # interval across zero
    assert order_verdict(1, 0.3) == DIRECTION                 # point estimates only
    assert order_verdict(1, -0.3, -0.5, -0.1) == NOT_REPRODUCED
    assert order_verdict(-1, -0.3, -0.5, -0.1) == REPRODUCED
    assert order_verdict(-1, 0.0, 0.0, 0.0) == NOT_REPRODUCED  # a tie is no ordering
    with pytest.raises(ValueError, match="sign"):
        order_verdict(0, 1.0)


def test_ordering_check_reads_one_row(tmp_path):
    claim = next(c for c in CLAIMS if c["id"] == "EH-self")
    base = {"arm": "online-self", "profile": "medium", "diff_lo": -0.2, "diff_hi": -0.01}
    _write(tmp_path / "evoharness.csv", [{**base, "diff_vs_no_evolve": -0.1}])
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] == REPRODUCED
    _write(tmp_path / "evoharness.csv", [{**base, "diff_vs_no_evolve": -0.1,
                                          "diff_hi": 0.05}])
    assert claims.evaluate(tmp_path, [claim])[0]["verdict"] != REPRODUCED
    # no matching row: not testable, naming the file
    _write(tmp_path / "evoharness.csv", [{**base, "profile": "strong",
                                          "diff_vs_no_evolve": -0.1}])
    row = claims.evaluate(tmp_path, [claim])[0]
    assert row["verdict"] == NOT_TESTABLE and "evoharness.csv" in row["note"]


def test_command_defaults_and_empty_out(tmp_path, monkeypatch):
    from experiments.cli import run_command

    monkeypatch.chdir(tmp_path)  # no ./figures here: the checkout's figures are used
    assert run_command(["claims", "--out", str(tmp_path / "c")]) == 0
    assert (tmp_path / "c" / "claims.md").is_file()
    with pytest.raises(ValueError, match="--out is empty"):
        run_command(["claims", "--out", ""])
    assert not (tmp_path / "claims.md").exists()
