"""Quick versions of the four sweeps run in a temp dir (seed 0, medium agent) and show
the qualitative orderings their figures plot."""

import argparse
import concurrent.futures as cf

from experiments import ablations, cost, pressure, window
from experiments.output import read_csv


def _args(module, tmp_path, **extra):
    p = argparse.ArgumentParser()
    module.add_arguments(p)
    a = p.parse_args(["--quick", "--out", str(tmp_path), "--no-progress"])
    for k, v in extra.items():
        setattr(a, k, v)
    return a


def _acc(rows, program, level=None):
    for r in rows:
        if r["program"] == program and (level is None or int(r["level"]) == level):
            return float(r["accuracy"])
    raise KeyError(program)


def test_pressure_quick(tmp_path):
    paths = pressure.run(_args(pressure, tmp_path))
    assert {p.suffix for p in paths} == {".csv", ".png", ".json"}
    rows = read_csv(tmp_path / "pressure.csv")
    # tied at 8K, VISTA ahead of every baseline at 256K
    assert abs(_acc(rows, "vista", 8000) - _acc(rows, "react", 8000)) <= 0.15
    for base in ("react", "masking", "summarization"):
        assert _acc(rows, "vista", 256000) > _acc(rows, base, 256000)


def test_pressure_same_rows_for_any_jobs(tmp_path):
    a = _args(pressure, tmp_path / "a", levels=[32_000], families=3)
    a.quick = False
    a.seeds, a.programs = 1, ["react", "vista"]
    pressure.run(a)
    b = _args(pressure, tmp_path / "b", levels=[32_000], families=3)
    b.quick = False
    b.seeds, b.programs = 1, ["react", "vista"]
    with cf.ThreadPoolExecutor(2) as ex:
        pressure.run(b, executor=ex)
    assert read_csv(tmp_path / "a" / "pressure_episodes.csv") == \
        read_csv(tmp_path / "b" / "pressure_episodes.csv")


def test_window_quick(tmp_path):
    window.run(_args(window, tmp_path))
    rows = read_csv(tmp_path / "window.csv")
    # a loose window lets ReAct keep the gold document; a tight one does not
    assert _acc(rows, "react", 64000) > _acc(rows, "react", 12000)
    assert _acc(rows, "vista", 12000) > _acc(rows, "react", 12000)


def test_ablations_quick(tmp_path):
    ablations.run(_args(ablations, tmp_path))
    rows = {r["program"]: r for r in read_csv(tmp_path / "ablations.csv")}
    full, blind = rows["vista"], rows["vista_no_dashboard"]
    # without the dashboard: many more archives (Fig. 8b signature)
    assert float(blind["archives"]) > 2 * float(full["archives"])
    assert int(full["solved"]) >= int(rows["vista_no_recover"]["solved"])


def test_cost_quick(tmp_path):
    cost.run(_args(cost, tmp_path))
    rows = {r["program"]: r for r in read_csv(tmp_path / "cost.csv")}
    assert float(rows["vista"]["cost_usd"]) < float(rows["react"]["cost_usd"])
    assert float(rows["react"]["cache_hit"]) < float(rows["vista"]["cache_hit"])
