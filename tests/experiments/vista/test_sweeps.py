"""Quick versions of the four sweeps run in a temp dir (seed 0, medium agent) and show
the qualitative orderings their figures plot."""

import argparse
import concurrent.futures as cf

from experiments.vista import ablations, cost, pressure, window
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
    # tied at 8K; at 256K VISTA loses to no baseline and beats ReAct (the quick run's
    # 8 tasks a level tie summarization under the empirical size law: the ordering
    # with its interval is the full sweep's, in the scorecard)
    assert abs(_acc(rows, "vista", 8000) - _acc(rows, "react", 8000)) <= 0.15
    for base in ("react", "masking", "summarization"):
        assert _acc(rows, "vista", 256000) >= _acc(rows, base, 256000)
    assert _acc(rows, "vista", 256000) > _acc(rows, "react", 256000)
    # each row's paired difference is its accuracy less VISTA's, inside its interval
    for r in rows:
        d = float(r["acc_diff_vs_vista"])
        assert abs(d - (float(r["accuracy"]) - _acc(rows, "vista", int(r["level"])))) < 1e-9
        assert float(r["acc_diff_lo"]) <= d <= float(r["acc_diff_hi"])


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
    gain = {w: _acc(rows, "vista", w) - _acc(rows, "react", w)
            for w in (4000, 16000, 64000)}
    # VISTA - ReAct peaks in the middle (seed 0): at 4K the overhead, the dashboard
    # and the synthesis working set do not fit; at 64K little is evicted. Under the
    # uncertain agent of issue 17 (incomplete index, long-context degradation) the
    # peak is smaller than with a certain index: a finding of this world, not a margin
    assert gain[16000] > gain[4000] and gain[16000] > gain[64000]
    assert abs(gain[64000]) <= 0.15 and abs(gain[4000]) <= 0.15
    assert all(float(r["mean_dashboard"]) > 0 for r in rows if r["program"] == "vista")


def test_ablations_quick(tmp_path):
    args = _args(ablations, tmp_path)
    args.programs = ["vista", "vista_no_dashboard", "vista_no_recover", "vista_reworded"]
    ablations.run(args)
    rows = {r["program"]: r for r in read_csv(tmp_path / "ablations.csv")}
    full, blind = rows["vista"], rows["vista_no_dashboard"]
    # the mechanism: without exact sizes the same agent frees in smaller, more
    # frequent archive calls (its batch follows from its size uncertainty)
    assert int(blind["archive_calls"]) > 2 * int(full["archive_calls"])
    assert (int(blind["archived_blocks"]) / int(blind["archive_calls"])
            < int(full["archived_blocks"]) / int(full["archive_calls"]))
    # without recovery nothing is read back; on a task where full VISTA read nothing
    # back, hiding the handles changes only the placeholders' tokens, never a
    # decision: the same outcome and archive calls (whether recovery pays at 128K is
    # a finding)
    assert int(rows["vista_no_recover"]["recoveries"]) == 0
    eps = read_csv(tmp_path / "ablations_episodes.csv")
    by = {(r["program"], r["task_id"]): r for r in eps}
    same = [t for (p, t), r in by.items() if p == "vista" and r["recoveries"] == "0"
            and r["offload_reads"] == "0"]
    assert same
    for t in same:
        a, b = by[("vista", t)], by[("vista_no_recover", t)]
        assert (a["solved"], a["agent_archives"], a["agent_archived_blocks"],
                a["requests"]) == (b["solved"], b["agent_archives"],
                                   b["agent_archived_blocks"], b["requests"]), t
    # the paired difference is the difference of the solved counts (same tasks)
    for prog in ("vista_no_dashboard", "vista_no_recover"):
        d = float(rows[prog]["solved_diff_vs_vista"])
        assert d == int(rows[prog]["solved"]) - int(full["solved"])
        assert float(rows[prog]["solved_diff_lo"]) <= d <= float(rows[prog]["solved_diff_hi"])
    assert int(full["recoveries"]) >= int(full["recovery_targets"])
    assert full["paper_archives"] == "69" and blind["paper_recoveries"] == "57"
    # a variant a synthetic agent cannot perceive is not reported as a result
    reworded = rows["vista_reworded"]
    assert reworded["result"].startswith("needs a real model")
    assert reworded["solved"] == "" and reworded["archive_calls"] == ""


class InlineExecutor(cf.Executor):
    """A minimal Executor (stands in for a Dask Client): runs each call on submit."""

    def __init__(self):
        self.calls = 0

    def submit(self, fn, /, *args, **kwargs):
        self.calls += 1
        fut = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - hand it to the caller
            fut.set_exception(exc)
        return fut


class ForeignFuture:
    """A future that is not a concurrent.futures.Future (like Dask's)."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


class ForeignClient:
    """Only ``submit`` returning a foreign future, as a Dask Client offers."""

    def submit(self, fn, *args):
        return ForeignFuture(fn(*args))


def test_sweep_accepts_any_executor_with_identical_rows():
    from experiments.settings.vista import CostSettings
    from experiments.sweep import loca_specs, run_sweep

    specs = loca_specs(CostSettings(growth=32_000, programs=("react", "vista"),
                                    budget=16_000, families=3, seeds=1,
                                    dashboard_tokens=None))
    ref = run_sweep(specs, progress=False)
    ex = InlineExecutor()
    assert run_sweep(specs, executor=ex, progress=False) == ref and ex.calls == len(specs)
    assert run_sweep(specs, executor=ForeignClient(), progress=False) == ref


def test_cost_quick(tmp_path):
    cost.run(_args(cost, tmp_path))
    rows = {r["program"]: r for r in read_csv(tmp_path / "cost.csv")}
    assert float(rows["vista"]["cost_usd"]) < float(rows["react"]["cost_usd"])
    assert float(rows["react"]["cache_hit"]) < float(rows["vista"]["cache_hit"])
