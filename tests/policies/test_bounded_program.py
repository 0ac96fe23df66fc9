"""VISTA with the bounded ledger (issue 14): the view lists only the rows the dashboard
shows, with the remainder aggregate, and the request's dashboard stays under its cap."""

from sim.agents import SyntheticAgent
from sim.harness import run_episode
from sim.program_context import ProgramContext
from sim.policies import make_program
from sim.tasks.loca import loca_task


def test_view_carries_the_shown_rows_and_the_remainder(monkeypatch):
    views = []
    orig = ProgramContext.view

    def spy(self):
        view, req = orig(self)
        dash = self.ws.assembler.dashboard
        views.append((view, req, dash.shown, dash.remainder))
        return view, req

    monkeypatch.setattr(ProgramContext, "view", spy)
    task = loca_task(1, 0, 64_000)
    r = run_episode(task, make_program("vista_bounded_ledger", dashboard_tokens=250),
                    SyntheticAgent("medium"), budget=32_000, seed=5)
    assert r.requests == len(views) and r.mean_dashboard <= 250
    hidden_some = False
    for view, req, shown, remainder in views:
        assert req.dashboard <= 250 and view.used_tokens == req.total
        assert {row.id for row in view.ledger} == {i for i in shown if i[0] == "B"}
        assert view.ledger_remainder == remainder
        live = sum(1 for b in view.entries if b.id.startswith(("B", "G")))
        assert len(shown) + remainder[0] == live
        hidden_some |= view.ledger_remainder[0] > 0
    assert hidden_some


def test_full_ledger_view_has_no_remainder(monkeypatch):
    views = []
    orig = ProgramContext.view
    monkeypatch.setattr(ProgramContext, "view",
                        lambda self: views.append(orig(self)) or views[-1])
    run_episode(loca_task(0, 0, 8_000), make_program("vista"), SyntheticAgent("medium"),
                budget=32_000, seed=1)
    assert views and all(v.ledger_remainder is None and v.ledger for v, _ in views)


def test_sweeps_take_a_dashboard_token_cap(capsys):
    import pytest

    from experiments.cli import build_parser
    from experiments.sweep import dashboard_knobs

    for exp in ("pressure", "ablations", "window", "cost"):
        argv = ["run", exp, "--dashboard-tokens", "333"]
        assert build_parser(argv).parse_args(argv).dashboard_tokens == 333
    argv = ["run", "pressure", "--dashboard-tokens", "20"]
    with pytest.raises(SystemExit):
        build_parser(argv).parse_args(argv)
    err = capsys.readouterr().err
    assert "dashboard token cap 20 cannot hold" in err and "need at least" in err
    assert dashboard_knobs("vista_bounded_ledger", 333) == {"dashboard_tokens": 333}
    assert dashboard_knobs("vista", 333) == {}
    assert make_program("vista_bounded_ledger", **dashboard_knobs(
        "vista_bounded_ledger", 333)).dashboard == "bounded_ledger:333"
