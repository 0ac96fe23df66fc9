"""The figures read at a glance (issue 24, item 4): no legend over the data, axes
that end where the quantity does, titles true of what is plotted."""

from __future__ import annotations

import json
import pathlib

import pytest

import experiments.output as output
from experiments import cli
from experiments.output import read_csv

FIGURES = pathlib.Path(__file__).resolve().parents[2] / "figures"


def _num(v):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def _rows(name):
    return [{k: _num(v) for k, v in r.items()} for r in read_csv(FIGURES / name)]


@pytest.fixture
def saved(monkeypatch):
    """The figures passed to save_figure (still saved, then kept for inspection)."""
    figs = []
    original = output.save_figure

    def keep(fig, path):
        fig.canvas.draw()
        figs.append(fig)
        return original(fig, path)

    monkeypatch.setattr(output, "save_figure", keep)
    return figs


def _overlaps(a, b) -> bool:
    return not (a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0)


def test_window_legend_does_not_cover_the_axes(tmp_path, monkeypatch, saved):
    import experiments.vista.window as window

    monkeypatch.setattr(window, "save_figure", output.save_figure)
    assert cli.main(["run", "window", "--windows", "8000", "16000", "--queries", "2",
                     "--no-progress", "--out", str(tmp_path)]) == 0
    [fig] = saved
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None
    assert not _overlaps(legend.get_window_extent(), ax.get_window_extent())


def test_ablations_axis_ends_at_a_share_of_1_with_its_legend_outside(tmp_path):
    import experiments.vista.ablations as ablations

    cfg = json.loads((FIGURES / "ablations.json").read_text())["config"]
    fig = ablations._figure(_rows("ablations.csv"), cfg)
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.get_ylim() == (0.0, 1.0)  # a solved share, the paper's too
    assert not _overlaps(ax.get_legend().get_window_extent(), ax.get_window_extent())
    # the paper's counts drawn as shares of its 75 tasks, on the bars' axis
    paper = [r["paper_solved"] / 75 for r in _rows("ablations.csv") if r["paper_solved"] != ""]
    marks = [c for c in ax.collections if len(c.get_offsets()) == len(paper)]
    assert paper and sorted(marks[0].get_offsets()[:, 1]) == pytest.approx(sorted(paper))


def test_proposition2_title_names_the_series_still_short_of_the_limit():
    from experiments.vista.proposition2 import _title

    rows = [dict(kappa=8, sigma=s, n=2**e, EZ_over_kappa=v) for s, e, v in
            [(0.25, 10, 0.0), (0.25, 40, 0.08), (1.0, 10, 0.5), (1.0, 40, 0.99)]]
    title = _title(rows)
    assert "-> 1 as n -> infinity" in title
    assert "1 of 2 series are above 0.9 by n = 2^40" in title
    assert title.endswith("still below it there: kappa=8 sigma=0.25")
    assert "every series is above 0.9" in _title(rows[2:])


def test_contextevo_llm_right_panel_says_it_shows_the_paper_only(tmp_path, saved):
    import experiments.contextevo.experiment as ce

    ce.figure(_rows("contextevo_llm.csv"), tmp_path / "c.png", "llm")
    title = saved[-1].axes[1].get_title()
    assert title.startswith("(b) the paper's Table 5 ablations only")
    ce.figure(_rows("contextevo.csv"), tmp_path / "d.png", "synthetic")
    assert saved[-1].axes[1].get_title().startswith("(b) ablations and evidence-free")


def test_robustness_cells_print_their_shade_with_unique_names_and_st_clipped():
    from types import SimpleNamespace

    from experiments.claims.robustness.analysis import OTHERS, Factor
    from experiments.claims.robustness.figure import figure

    factors = [Factor("agent.x", 0, 1), Factor("task.x", 0, 1), Factor("browse.y", 0, 1)]
    an = SimpleNamespace(factors=factors, groups=["agent.x", OTHERS, OTHERS],
                         screened=["agent.x"])
    sob = {"agent.x": {"ST": 0.4}, OTHERS: {"ST": 1.3}}
    entries = {"c1": dict(sobol=sob, decided_by=None, holding_fraction=0.5,
                          holding_lo=0.3, holding_hi=0.7, direction_fraction=0.6)}
    fig = figure(an, entries, "t")
    fig.canvas.draw()
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["agent.x", "task.x", "browse.y", OTHERS]
    cells = ax.get_images()[0].get_array()
    assert cells[0, 0] == pytest.approx(0.4) and cells[0, 3] == 1.0  # clipped
    texts = {t.get_text() for t in ax.texts}
    assert {"0.40", ">1", "–"} <= texts  # dash: no ST for a screened-out parameter
    assert "sampling error" in fig.get_supxlabel()
