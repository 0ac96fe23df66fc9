"""JSON and JSONL files a command reads are taken with a UTF-8 byte-order mark (an
editor may save one): the ``--spec`` of contextevo, calibrate's answer cache, the
robustness.json beside the claims' CSVs, figure sidecars and calibration.json."""

from __future__ import annotations

import json

BOM = "\ufeff"


def _both(tmp_path, name, text):
    """``(plain path, path of the same text with a BOM)``."""
    plain, marked = tmp_path / f"plain-{name}", tmp_path / f"bom-{name}"
    plain.write_text(text, encoding="utf-8")
    marked.write_text(BOM + text, encoding="utf-8")
    return plain, marked


def test_a_spec_file_with_a_bom_loads_as_without(tmp_path):
    from sim.evolve.contextevo.spec import ProgramSpec, load_spec

    plain, marked = _both(tmp_path, "spec.json", ProgramSpec().to_json())
    assert load_spec(str(marked)) == load_spec(str(plain))


def test_the_answer_cache_keeps_its_first_answer_after_a_bom(tmp_path):
    from sim.agents.answer_cache import AnswerCache

    lines = "".join(json.dumps({"key": k, "answer": k.upper()}) + "\n" for k in "ab")
    plain, marked = _both(tmp_path, "cache.jsonl", lines)
    assert len(AnswerCache(marked)) == len(AnswerCache(plain)) == 2


def test_robustness_json_and_sidecars_with_a_bom_are_read(tmp_path):
    from experiments.claims.report import read_robustness
    from experiments.calibrated import measurements
    from experiments.figures_cli import committed_figures

    entry = {"Fig4-128K": {"holding_fraction": 0.5, "deciding_parameters": []}}
    (tmp_path / "robustness.json").write_text(BOM + json.dumps(entry), encoding="utf-8")
    assert read_robustness(tmp_path) == entry
    (tmp_path / "theorem1.png").write_bytes(b"")
    (tmp_path / "theorem1.json").write_text(BOM + json.dumps({"git_commit": "abc"}),
                                            encoding="utf-8")
    assert committed_figures(tmp_path)[0].commit == "abc"
    cal = tmp_path / "calibration.json"
    cal.write_text(BOM + json.dumps({"parameters": {"agent.p_index": {"value": 0.2}}}),
                   encoding="utf-8")
    assert measurements(cal) == {"agent.p_index": {"value": 0.2}}


def test_a_trajectory_with_a_bom_reads_as_without(tmp_path):
    """Both a JSON and a JSONL trajectory: the same messages with and without the
    mark (it was refused as "Unexpected UTF-8 BOM"); a BOM inside the text stays."""
    from sim.workspace.importers import read_trajectory

    msgs = [{"role": "user", "content": f"fix it {BOM}here"},
            {"role": "assistant", "content": "done"}]
    plain, marked = _both(tmp_path, "t.json", json.dumps(msgs))
    a, b = read_trajectory(plain), read_trajectory(marked)
    assert a.messages == b.messages and BOM in a.messages[0]["content"]
    lines = "\n".join(json.dumps(m) for m in msgs) + "\n"
    plain, marked = _both(tmp_path, "t.jsonl", lines)
    assert read_trajectory(plain).messages == read_trajectory(marked).messages
