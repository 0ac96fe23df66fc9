"""``ctxsim run overhead`` at low resolution (VISTA Fig. 10 smoke test): the values
the figure shows, on the bundled trajectories."""

from __future__ import annotations

import json

from experiments.cli import main
from experiments.output import read_csv
from experiments.vista.overhead import trace
from sim.tasks.trajectory_tasks import trajectory_files


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


def test_bounded_ledger_stays_under_its_cap_where_the_full_one_grows():
    path = [f for f in trajectory_files() if f.name.startswith("pi_")][0]
    full = trace(path, None, max_blocks=120)
    bounded = trace(path, None, max_blocks=120, dashboard="bounded_ledger:400")
    assert max(r["dashboard_tokens"] for r in bounded) <= 400 < full[-1]["dashboard_tokens"]
    assert bounded[-1]["ledger_rows"] < full[-1]["ledger_rows"] == 120
    # identical replays (no budget): the same stream, only the dashboard differs
    assert [r["visible"] for r in bounded] == [r["visible"] for r in full]


def test_overhead_rows_name_both_dashboards(tmp_path):
    assert main(["run", "overhead", "--out", str(tmp_path), "--max-blocks", "15",
                 "--dashboard-tokens", "300"]) == 0
    rows = read_csv(tmp_path / "overhead.csv")
    assert {r["dashboard"] for r in rows} == {"ledger", "bounded_ledger:300"}
    assert all(int(r["dashboard_tokens"]) <= 300 for r in rows
               if r["dashboard"] != "ledger")
