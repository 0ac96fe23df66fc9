"""``ctxsim run overhead`` at low resolution (VISTA Fig. 10 smoke test): the values
the figure shows, on the bundled trajectories."""

from __future__ import annotations

import json

from experiments.cli import main
from experiments.output import read_csv
from experiments.overhead import trace
from sim.tasks.replay import trajectory_files


def test_unbounded_ledger_has_one_row_per_block_and_grows():
    path = [f for f in trajectory_files() if f.name.startswith("sweagent_marshmallow")][0]
    recs = trace(path, None, max_blocks=20)
    assert [r["registered"] for r in recs] == list(range(1, 21))
    assert all(r["ledger_rows"] == r["registered"] == r["visible"] for r in recs)
    tokens = [r["dashboard_tokens"] for r in recs]
    assert all(b > a for a, b in zip(tokens, tokens[1:]))
    assert 15 <= (tokens[-1] - tokens[0]) / 19 <= 40  # tokens per ledger row


def test_budgeted_replay_archives_and_bounds_the_ledger():
    path = [f for f in trajectory_files() if f.name.startswith("pi_")][0]
    recs = trace(path, 12_288, max_blocks=150)
    last = recs[-1]
    assert last["archives"] > 0 and last["ledger_rows"] < last["registered"]
    assert last["visible"] < last["registered"]


def test_overhead_command_writes_figure_and_sidecar(tmp_path):
    assert main(["run", "overhead", "--out", str(tmp_path), "--max-blocks", "30",
                 "--quick"]) == 0
    rows = read_csv(tmp_path / "overhead.csv")
    assert {r["setting"] for r in rows} == {"unbounded", "W=12288"}
    side = json.loads((tmp_path / "overhead.json").read_text())
    assert side["config"]["max_blocks"] == 30 and side["model"] is None
    assert (tmp_path / "overhead.png").stat().st_size > 10_000
