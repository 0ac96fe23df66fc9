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


def _marker_boxes(ax, collection):
    """Display-space boxes of a scatter's markers (side sqrt(s) points)."""
    from matplotlib.transforms import Bbox

    half = collection.get_sizes()[0] ** 0.5 / 2 * ax.figure.dpi / 72
    return [Bbox([[x - half, y - half], [x + half, y + half]])
            for x, y in ax.transData.transform(collection.get_offsets())]


def test_ablations_labels_touch_neither_each_other_nor_the_paper_marks():
    import experiments.vista.ablations as ablations

    cfg = json.loads((FIGURES / "ablations.json").read_text())["config"]
    fig = ablations._figure(_rows("ablations.csv"), cfg)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes[:2]:
        texts = [t for t in ax.texts if t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in texts]
        marks = [b for c in ax.collections if len(c.get_offsets())
                 for b in _marker_boxes(ax, c)]
        assert len(texts) >= 9  # one per variant: a count or "needs a real model"
        for i, a in enumerate(boxes):
            assert not any(_overlaps(a, b) for b in boxes[i + 1:]), texts[i].get_text()
            assert not any(_overlaps(a, m) for m in marks), texts[i].get_text()


@pytest.mark.parametrize("share, paper, expected", [
    (0.32, 0.507, (0.0, True)),     # tall bar: label inside at its base
    (0.05, 0.36, (0.36, False)),    # short bar, paper higher: above the diamond
    (0.10, "", (0.10, False)),      # short bar, no paper count: above the bar
    (0.10, 0.02, (0.10, False)),    # paper under the bar's top: above the bar
])
def test_ablations_label_anchor(share, paper, expected):
    from experiments.vista.ablations import label_anchor

    y, inside, pad = label_anchor(share, paper)
    assert (y, inside) == expected and pad > 0


def test_contextevo_axis_ends_at_1_and_the_paper_notes_sit_inside_panel_b(tmp_path, saved):
    import experiments.contextevo.experiment as ce
    from experiments.contextevo.paper import PAPER_HELD_OUT_NOTES

    ce.figure(_rows("contextevo.csv"), tmp_path / "c.png", "synthetic")
    a, b, _ = saved[-1].axes
    assert a.get_ylim()[1] == 1.0
    assert any("held-out" in t.get_text() for t in a.get_xticklabels())
    notes = [t for t in b.texts if "held-out" in t.get_text()]
    assert sorted(t.get_text() for t in notes) == sorted(
        f"paper: {v}" for v in PAPER_HELD_OUT_NOTES.values())
    inside = b.get_window_extent()
    for t in notes:
        box = t.get_window_extent()
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1, t.get_text()


def test_contextevo_empty_seed_panel_gives_the_reason_of_its_run(tmp_path, saved):
    import experiments.contextevo.experiment as ce

    ce.figure(_rows("contextevo_llm.csv"), tmp_path / "c.png", "llm")
    [why] = [t.get_text() for t in saved[-1].axes[2].texts]
    assert "llm back-end" in why and "--ef-seeds" not in why
    full = [r for r in _rows("contextevo.csv") if r["variant"] == "full"]
    assert "--no-ablations" in ce.seeds_not_run(full, "synthetic")
    assert "--ef-seeds 0" in ce.seeds_not_run(_rows("contextevo.csv"), "synthetic")


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
