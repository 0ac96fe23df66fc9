"""The README's tables of what the fitted world predicts and of each claim's
robustness are the committed predictive.csv's and robustness.csv's
(experiments.claims.posterior.table, experiments.claims.robustness.table, issue 30)."""

from pathlib import Path

import pytest

from experiments.claims.posterior.table import END, START, markdown
from experiments.claims.robustness import table as robustness_table

ROOT = Path(__file__).resolve().parents[1]


def test_readme_table_is_the_committed_predictive_csv():
    text = (ROOT / "README.md").read_text()
    assert text.count(START) == 1 and text.count(END) == 1
    block = text.split(START, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    assert block == markdown(ROOT / "figures"), (
        "README's predictive table is stale: paste the output of "
        "`python3 -m experiments.claims.posterior.table`")


def test_table_rows_come_from_the_csv(tmp_path):
    from experiments.output import write_csv

    write_csv(tmp_path / "predictive.csv", ["cell", "role", "paper", "mean", "lo", "hi",
                                            "p", "verdict"],
              [{"cell": "FIG4:vista_128k", "role": "predict", "paper": 50.7,
                "mean": 31.04, "lo": 20.0, "hi": 42.66, "p": 0.0333,
                "verdict": "not predicted"},
               {"cell": "NOPE:x", "role": "fit", "paper": 1, "mean": 1, "lo": 0.5,
                "hi": 1.5, "p": 1.0, "verdict": "predicted"}])
    rows = markdown(tmp_path).splitlines()
    assert len(rows) == 4
    assert rows[2].startswith("| `FIG4:vista_128k` | ") and rows[2].endswith(
        "| predict | 50.7 | 31 [20, 42.7] | 0.03 | not predicted |")
    assert "| `NOPE:x` | ? | fit |" in rows[3]   # a cell the registry lacks
    with pytest.raises(FileNotFoundError, match="claims --posterior"):
        markdown(tmp_path / "none")


def test_table_command_says_one_line_and_exits_2(tmp_path, capsys):
    from experiments.claims.posterior.table import main
    from experiments.output import write_csv

    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no " in err and "predictive.csv" in err and err.count("\n") == 1
    write_csv(tmp_path / "predictive.csv", ["cell", "role"], [{"cell": "x", "role": "fit"}])
    assert main([str(tmp_path)]) == 2
    assert "no column paper" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["a", "b"])   # one directory at most


def test_readme_robustness_table_is_the_committed_robustness_csv():
    t = robustness_table
    text = (ROOT / "README.md").read_text()
    assert text.count(t.START) == 1 and text.count(t.END) == 1
    block = text.split(t.START, 1)[1].split(t.END, 1)[0].strip("\n") + "\n"
    assert block == t.markdown(ROOT / "figures"), (
        "README's robustness table is stale: paste the output of "
        "`python3 -m experiments.claims.robustness.table`")


def test_robustness_table_has_one_row_per_claim_and_dashes_for_no_size(tmp_path):
    from experiments.output import write_csv

    base = {"sign_share": 0.774, "sign_lo": 0.5, "sign_hi": 0.9, "tolerance_share": "",
            "tolerance_lo": "", "tolerance_hi": "", "mean_effect": 0.02535,
            "mean_lo": 0.0072, "mean_hi": 0.0444, "paper_effect": "", "decided_by": "",
            "power_reproduced": 0.013}
    write_csv(tmp_path / "robustness.csv", robustness_table.NEED + ["parameter"],
              [{**base, "claim": "A", "parameter": "x"},
               {**base, "claim": "A", "parameter": "y"},
               {**base, "claim": "B", "parameter": "x", "tolerance_share": 0.1,
                "tolerance_lo": 0.03, "tolerance_hi": 0.2, "paper_effect": -0.1333,
                "decided_by": "agent.ctx_drop_max"}])
    rows = robustness_table.markdown(tmp_path).splitlines()
    assert rows[2:] == [
        "| A | 0.77 [0.50, 0.90] | - | 0.0254 [0.0072, 0.0444] | - | - | 0.01 |",
        "| B | 0.77 [0.50, 0.90] | 0.10 [0.03, 0.20] | 0.0254 [0.0072, 0.0444] | -0.133 "
        "| `agent.ctx_drop_max` | 0.01 |"]
    assert robustness_table.main([str(tmp_path / "none")]) == 2
    write_csv(tmp_path / "robustness.csv", ["claim"], [{"claim": "A"}])
    with pytest.raises(ValueError, match="no column sign_share"):
        robustness_table.markdown(tmp_path)
