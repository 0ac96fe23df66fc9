"""The README's table of what the fitted world predicts is the committed
predictive.csv's (experiments.claims.posterior.table, issue 30)."""

from pathlib import Path

import pytest

from experiments.claims.posterior.table import END, START, markdown

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
