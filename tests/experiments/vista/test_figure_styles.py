"""Pressure and window figures (issue 10, item 13): every line is in a legend, no
two series share colour and dash pattern, reference lines come from the data."""

from __future__ import annotations

import matplotlib.colors as mcolors
import pytest

from experiments.cli import run_command
from experiments.vista.pressure import REFERENCE, line_style
from sim.policies import PROGRAMS


def _capture(monkeypatch, module):
    figs = []

    def keep(fig, path):
        figs.append(fig)
        path.write_bytes(b"")
        return path

    monkeypatch.setattr(module, "save_figure", keep)
    return figs


def _check(fig):
    """Every line's label is in a legend of the figure (panels share the programs'
    legend), and within a panel no two lines share colour and dash pattern."""
    shown = {t.get_text() for ax in fig.axes if ax.get_legend()
             for t in ax.get_legend().get_texts()}
    for ax in fig.axes:
        styles = set()
        for line in ax.get_lines():
            assert line.get_label() in shown, (ax.get_title(), line.get_label())
            style = (mcolors.to_hex(line.get_color()), line.get_linestyle())
            assert style not in styles, (ax.get_title(), line.get_label(), style)
            styles.add(style)


def test_pressure_figure_lines_are_all_in_legends(monkeypatch, tmp_path):
    import experiments.vista.pressure as pressure

    figs = _capture(monkeypatch, pressure)
    run_command(["run", "pressure", "--levels", "8000", "--families", "1", "--seeds",
                 "1", "--budget", "96000", "--no-progress", "--out", str(tmp_path)])
    _check(figs[0])
    labels = [line.get_label() for line in figs[0].axes[0].get_lines()]
    assert "budget B = 96K" in labels  # the budget given, not a hard-coded one


def test_window_figure_depth_line_comes_from_the_task_generator(monkeypatch, tmp_path):
    import experiments.vista.window as window
    from sim.tasks.browse import MEDIAN_DEPTH

    figs = _capture(monkeypatch, window)
    run_command(["run", "window", "--windows", "8000", "--queries", "1",
                 "--no-progress", "--out", str(tmp_path)])
    ax = figs[0].axes[0]
    depth = [line for line in ax.get_lines() if "gold" in line.get_label()]
    assert len(depth) == 1 and depth[0].get_xdata()[0] == MEDIAN_DEPTH / 1e3
    legend = {t.get_text() for t in ax.get_legend().get_texts()}
    assert all(line.get_label() in legend for line in ax.get_lines())


def test_no_two_programs_share_colour_and_dash_and_none_is_the_reference_style():
    styles = []
    for i, name in enumerate(list(PROGRAMS) * 2):  # more programs than colours
        s = line_style(name, i)
        styles.append((mcolors.to_hex(s["color"]), s.get("ls", "-")))
    first = styles[:len(PROGRAMS)]
    assert len(set(first)) == len(first)
    assert (mcolors.to_hex(REFERENCE["color"]), REFERENCE["ls"]) not in styles


@pytest.mark.parametrize("i", range(36))
def test_styles_are_unique_for_36_series(i):
    me = line_style("p", i)
    for j in range(i):
        other = line_style("p", j)
        assert (me["color"], me["ls"]) != (other["color"], other["ls"])


def _errorbar_segments(ax):
    from matplotlib.collections import LineCollection

    return [seg for c in ax.collections if isinstance(c, LineCollection)
            for seg in c.get_segments()]


def test_pressure_figure_draws_the_paired_intervals_and_names_the_world(monkeypatch,
                                                                        tmp_path):
    import experiments.vista.pressure as pressure

    figs = _capture(monkeypatch, pressure)
    run_command(["run", "pressure", "--levels", "8000", "--families", "2", "--seeds",
                 "1", "--programs", "react", "vista", "--world", "agent.sigma=0.8",
                 "--no-progress", "--out", str(tmp_path)])
    ax = figs[0].axes[0]
    segs = _errorbar_segments(ax)
    assert len(segs) == 1  # react's interval; vista has none against itself
    assert all(0 <= y <= 100 for seg in segs for _, y in seg)
    assert "world: agent.sigma=0.8" in ax.get_title()


def test_window_gain_bars_have_intervals_and_a_marker_even_at_zero(monkeypatch, tmp_path):
    import experiments.vista.window as window

    figs = _capture(monkeypatch, window)
    run_command(["run", "window", "--windows", "8000", "64000", "--queries", "2",
                 "--no-progress", "--out", str(tmp_path)])
    ax = figs[0].axes[1]
    assert len(_errorbar_segments(ax)) == 2  # one interval per window
    marks = [c for c in ax.collections if c.get_offsets().shape == (2, 2)]
    heights = sorted(p.get_height() for p in ax.patches)
    assert marks and sorted(marks[0].get_offsets()[:, 1]) == heights
    assert "world" not in figs[0].axes[0].get_title()  # the default world


def test_cost_axis_stays_within_0_100_percent_and_names_the_budget(monkeypatch, tmp_path):
    import experiments.vista.cost as cost

    figs = _capture(monkeypatch, cost)
    run_command(["run", "cost", "--families", "1", "--seeds", "1", "--growth", "64000",
                 "--budget", "8000", "--programs", "react", "--no-progress", "--out",
                 str(tmp_path)])
    ax = figs[0].axes[0]
    assert ax.get_ylim() == (0.0, 100.0)
    assert "budget 8K" in ax.get_title()


def test_sorted_window_ticks_are_plain_and_reference_styles_are_in_the_legend(
        monkeypatch, tmp_path):
    import experiments.output as output

    figs = _capture(monkeypatch, output)  # sorted_window imports it when it runs
    run_command(["run", "sorted_window", "--quick", "--trials", "200", "--no-progress",
                 "--out", str(tmp_path)])
    fig = figs[0]
    fig.canvas.draw()
    ax1, ax2 = fig.axes[:2]
    ticks = [t.get_text() for ax in (ax1,) for t in
             ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
    assert ticks and not any("10^" in t or "times" in t for t in ticks)
    legend = {t.get_text() for t in ax1.get_legend().get_texts()}
    assert {"content-only", "blind"} <= legend
    one = [ln for ln in ax2.get_lines() if ln.get_label().startswith("E[Z] = 1")]
    assert one and ax2.get_ylim()[0] < 1 < ax2.get_ylim()[1]


def test_overhead_reference_lines_differ_and_legends_sit_below_the_panels(monkeypatch,
                                                                        tmp_path):
    import experiments.output as output

    figs = _capture(monkeypatch, output)  # overhead imports it when it runs
    run_command(["run", "overhead", "--quick", "--max-blocks", "20", "--no-progress",
                 "--out", str(tmp_path)])
    fig = figs[0]
    fig.canvas.draw()
    ax1, ax2 = fig.axes[:2]
    refs = {ln.get_label(): ln for ln in ax1.get_lines()
            if "cap" in ln.get_label() or "VISTA Fig. 10" in ln.get_label()}
    assert len(refs) == 2
    a, b = refs.values()
    assert (mcolors.to_hex(a.get_color()), a.get_linestyle()) != (
        mcolors.to_hex(b.get_color()), b.get_linestyle())
    trajectory_colours = {mcolors.to_hex(ln.get_color()) for ln in ax2.get_lines()}
    assert not {mcolors.to_hex(ln.get_color()) for ln in refs.values()} & trajectory_colours
    for ax in (ax1, ax2):
        assert ax.get_legend().get_window_extent().y1 <= ax.get_window_extent().y0


def test_proposition1_every_panel_has_a_legend_and_its_y_range_holds_the_data(
        monkeypatch, tmp_path):
    import experiments.vista.proposition1 as proposition1

    figs = _capture(monkeypatch, proposition1)
    run_command(["run", "proposition1", "--quick", "--out", str(tmp_path)])
    for ax in figs[0].axes:
        assert ax.get_legend() is not None, ax.get_title()
        lo, hi = ax.get_ylim()
        ys = [y for line in ax.get_lines() for y in line.get_ydata()]
        assert ys and lo <= min(ys) and max(ys) <= hi, ax.get_title()
