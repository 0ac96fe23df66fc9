"""``ctxsim run sorted_window`` writes its CSV/PNG/JSON and its endpoints agree:
w = 0 is the content-only agent, w = n the full ledger, draw for draw."""

from experiments.cli import run_command
from experiments.output import read_csv


def test_sorted_window_run_endpoints(tmp_path):
    assert run_command(["run", "sorted_window", "--out", str(tmp_path), "--trials", "300",
                        "--n", "40", "--rhos", "0.5", "--windows", "0", "2", "40"]) == 0
    rows = {int(r["w"]): r for r in read_csv(tmp_path / "sorted_window.csv")}
    assert set(rows) == {0, 2, 40}
    assert float(rows[0]["EZ"]) == float(rows[0]["EZ_content"])
    assert float(rows[40]["EZ"]) == float(rows[40]["EZ_full_ledger"])
    assert float(rows[40]["P_equal_full"]) == 1.0
    assert float(rows[0]["EZ"]) >= float(rows[2]["EZ"]) >= float(rows[40]["EZ"])
    assert float(rows[0]["EZ_blind"]) > float(rows[0]["EZ"])
    assert (tmp_path / "sorted_window.png").stat().st_size > 0
    assert (tmp_path / "sorted_window.json").is_file()
