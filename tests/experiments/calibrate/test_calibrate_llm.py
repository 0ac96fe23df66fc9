"""The calibration's quick probes end to end with the embedded real model (marker
``llm``; deselected by default, ``pytest -m llm`` runs it, and it skips with a reason
when llama-cpp-python or the model parts are missing). About 20 requests; a few
minutes on 2 CPUs."""

from __future__ import annotations

import json
import math

import pytest

from sim.agents import llm_server as ls

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(not ls.llama_cpp_installed(),
                       reason=f"llama-cpp-python[server] not installed ({ls.BUILD_HINT})"),
    pytest.mark.skipif(not ls.parts_installed(),
                       reason=f"model parts not installed ({ls.BUILD_HINT})"),
]


def test_quick_calibration_with_the_embedded_model(tmp_path):
    from experiments.cli import run_command
    from experiments.output import read_csv

    assert run_command(["run", "calibrate", "--quick", "--out", str(tmp_path),
                        "--no-cache", "--no-progress"]) == 0
    rec = json.loads((tmp_path / "calibration.json").read_text())
    assert rec["model"] == ls.MODEL_NAME
    calls = sum(p["model_calls"] for p in rec["probes"].values())
    assert calls == rec["model_calls"] > 0 and rec["prompt_tokens"] > 0
    # every decision is in the trials, scored or counted as a parse failure
    trials = [t for t in rec["trials"] if "outcome" in t]
    assert all(t["outcome"] for t in trials)
    for r in read_csv(tmp_path / "calibration.csv"):
        if r["estimate"] not in ("", "nan"):
            assert float(r["low"]) <= float(r["estimate"]) <= float(r["high"]) or \
                math.isnan(float(r["estimate"]))
    assert set(rec["parameters"]) >= {"agent.p_index", "agent.p_confabulate",
                                      "agent.p_row_read", "agent.sigma"}
