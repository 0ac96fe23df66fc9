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


def test_the_shipped_answers_are_the_models_answers_now(tmp_path):
    """Issue 37: the committed run's answer cache (figures/calibration_answers.jsonl.gz)
    replays what the embedded model answers fresh: the recovery probe's first two
    decisions, asked with the shipped answers (every request a hit) and again with
    none (every request asked), give the same rows."""
    import argparse
    import dataclasses
    import shutil

    from experiments.answers import _client, answer_file
    from experiments.calibrate import probes as P
    from experiments.endpoint import endpoint
    from experiments.output import ROOT
    from sim.agents.answer_cache import AnswerCache, CachedClient

    shipped = ROOT / "figures" / "calibration_answers.jsonl.gz"
    copy = tmp_path / shipped.name   # answer_file writes back: never the shipped file
    shutil.copy(shipped, copy)
    args = argparse.Namespace(base_url=None, model=None, seed=0, n_ctx=4096,
                              n_threads=None)
    cs = P.cases(2, 0)
    with endpoint(args) as (settings, _), answer_file(copy) as answers:
        # the run's own settings (experiments.calibrate.run)
        settings = dataclasses.replace(settings, max_repairs=0, max_tokens=160,
                                       temperature=0.0)
        cached = CachedClient(_client(settings), AnswerCache(answers))
        fresh = CachedClient(_client(settings), AnswerCache(None))
        replayed = P.probe_recovery(cached, cs, 0)
        asked = P.probe_recovery(fresh, cs, 0)
    assert cached.cache.hits == 2 and cached.ledger.requests == 0
    assert fresh.cache.hits == 0 and fresh.ledger.requests == 2
    assert replayed == asked


def test_a_users_endpoint_is_profiled_and_a_sweep_runs_at_its_profile(tmp_path):
    """Issue 37: ``ctxsim run calibrate --base-url URL --model NAME`` profiles any
    OpenAI-compatible endpoint (here the embedded model's own server, as a user's
    would be) and writes the profile file; ``--profile FILE`` runs a sweep at it."""
    import json

    from experiments.cli import run_command
    from experiments.output import read_csv

    with ls.local_server(n_ctx=4096) as info:
        assert run_command(["run", "calibrate", "--quick", "--base-url", info.base_url,
                            "--model", info.model, "--probes", "index", "recovery",
                            "--no-cache", "--no-progress",
                            "--out", str(tmp_path / "mine")]) == 0
    profile = tmp_path / "mine" / "calibration.json"
    rec = json.loads(profile.read_text())
    assert rec["server"] == "external" and rec["base_url"] == info.base_url
    assert rec["model"] == info.model and rec["model_calls"] > 0
    measured = {k: v["estimate"] for k, v in rec["parameters"].items()
                if v["estimate"] is not None}
    assert set(measured) <= {"agent.p_index", "agent.p_find_target"} and measured
    out = tmp_path / "sweep"
    assert run_command(["run", "pressure", "--quick", "--levels", "8000", "--families",
                        "1", "--seeds", "1", "--programs", "vista", "--profile",
                        str(profile), "--no-progress", "--out", str(out)]) == 0
    side = json.loads((out / "pressure.json").read_text())
    assert side["config"]["calibration"]["values"] == measured
    assert {k: v for k, v in side["config"]["world"].items() if k in measured} == measured
    assert read_csv(out / "pressure.csv")
