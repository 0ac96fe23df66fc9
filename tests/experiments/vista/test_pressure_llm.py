"""``ctxsim run pressure --agent llm`` against a scripted endpoint (no model): the
sweep runs every program through the harness and writes its table and sidecar."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from experiments.cli import main  # noqa: E402
from experiments.output import read_csv  # noqa: E402
from tests.agents.test_llm_agent import FakeServer, completion, oracle  # noqa: E402


def test_pressure_llm_quick_with_a_scripted_model(tmp_path):
    srv = FakeServer([oracle])
    try:
        assert main(["run", "pressure", "--agent", "llm", "--quick", "--base-url", srv.url,
                     "--model", "m", "--llm-families", "2", "--llm-growth", "3000",
                     "--llm-budgets", "6000", "--out", str(tmp_path)]) == 0
    finally:
        srv.close()
    table = {r["program"]: r for r in read_csv(tmp_path / "pressure_llm.csv")}
    assert set(table) == {"vista", "react", "masking"}
    assert table["vista"]["solved"] == "2" and table["vista"]["invalid"] == "0"
    side = json.loads((tmp_path / "pressure_llm.json").read_text())
    assert side["model"] == "m" and side["server"] == "external"
    assert side["config"]["llm_budgets"] == [6000] and side["config"]["llm_growth"] == 3000


def test_a_model_that_never_answers_validly_counts_invalid(tmp_path):
    srv = FakeServer([completion("I think we should look at B3")])
    try:
        main(["run", "pressure", "--agent", "llm", "--quick", "--base-url", srv.url,
              "--llm-families", "1", "--llm-growth", "2000", "--llm-budgets", "3000",
              "--out", str(tmp_path)])
    finally:
        srv.close()
    rows = read_csv(tmp_path / "pressure_llm_episodes.csv")
    assert all(r["invalid"] == "1" and r["solved"] == "0" for r in rows)
    assert "not valid JSON" in rows[0]["error"]
