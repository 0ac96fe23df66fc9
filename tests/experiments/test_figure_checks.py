"""The readability checks of figure_checks.py fail on figures made to break them and
pass on their repaired twins (a check that cannot fail checks nothing)."""

from __future__ import annotations

import pytest

from experiments.output import new_figure
from tests.experiments import figure_checks as fc


@pytest.fixture
def ax():
    import matplotlib.pyplot as plt

    fig, ax = new_figure()
    yield ax
    plt.close(fig)


def test_a_marker_under_an_equal_one_is_hidden_and_side_by_side_is_not(ax):
    ax.errorbar(1.0, 0.2, yerr=0.1, fmt="o", label="baseline")
    ax.errorbar(1.0, 0.2, yerr=0.1, fmt="o", label="context-policy")
    ax.errorbar(2.0, 0.2, yerr=0.1, fmt="o", label="skill-only")
    hidden = fc.hidden_series(ax)
    assert "baseline" in hidden and "skill-only" not in hidden
    assert "context-policy" not in hidden  # drawn last: seen


def test_a_thinner_line_on_a_thicker_one_is_not_hidden_and_a_wider_one_hides(ax):
    ax.plot([0, 1, 2], [0, 1, 1], lw=3, label="a")
    ax.plot([0, 1, 2], [0, 1, 1], lw=1.5, label="b")  # nested inside a: both seen
    assert fc.hidden_series(ax) == []
    ax.plot([0, 1, 2], [0, 1, 1], lw=3, label="c")  # covers a and b
    assert set(fc.hidden_series(ax)) == {"a", "b"}


def test_a_dotted_line_does_not_hide_the_solid_one_under_it(ax):
    ax.plot([0, 1], [0, 1], label="solid")
    ax.plot([0, 1], [0, 1], ls=":", lw=3, label="dotted")
    assert fc.hidden_series(ax) == []


def test_scatter_points_on_the_same_place_hide_the_first(ax):
    ax.scatter([1], [1], s=40, label="under")
    ax.scatter([1], [1], s=40, label="over")
    ax.scatter([2], [1], s=40, label="apart")
    assert fc.hidden_series(ax) == ["under"]


def test_legend_sizes_count_every_entry():
    fig, ax = new_figure()
    for i in range(22):
        ax.plot([0, 1], [i, i], label=f"s{i}")
    ax.legend()
    assert fc.legend_sizes(fig) == [22] and 22 > fc.MAX_LEGEND_ENTRIES
    fig2, ax2 = new_figure()
    ax2.plot([0, 1], [0, 1], label="one")
    ax2.legend()
    assert fc.legend_sizes(fig2) == [1]


def test_a_legend_entry_for_bars_of_height_0_is_found(ax):
    ax.bar([0], [0.6], label="vista")
    ax.bar([1], [0.0], label="react")
    ax.barh([2], [0.0], label="masking")
    ax.legend()
    assert sorted(fc.zero_bar_legend_entries(ax)) == ["masking", "react"]


def test_intervals_count_only_whiskers_of_some_length(ax):
    ax.errorbar([0], [1], yerr=[[0.2], [0.3]], fmt="o")
    ax.errorbar([1], [1], fmt="o")  # no error given: no interval
    assert len(fc.intervals(ax)) == 1
    [cont] = fc.intervals(ax)
    assert fc.whisker_spans(cont, "y") == [(pytest.approx(0.8), pytest.approx(1.3))]


def test_an_axis_that_leaves_out_zero_is_found(ax):
    ax.plot([3010, 3016], [0.2, 0.3])
    assert fc.excludes_zero(ax, "x")
    ax.set_xlim(0, None)
    assert not fc.excludes_zero(ax, "x")


def test_numeric_ticks_read_numbers_only():
    fig, (a, b) = new_figure(1, 2)
    a.set_xticks([0, 1], ["prior low", "prior high"])
    assert fc.numeric_ticks(a, "x") == []
    b.set_xticks([-0.5, 0, 1])
    assert fc.numeric_ticks(b, "x") == [-0.5, 0.0, 1.0]  # matplotlib's minus sign too


def test_an_axis_with_no_tick_labels_is_found():
    fig, ax = new_figure()
    ax.plot([0, 1], [0, 1])
    assert fc.tickless_axes(fig) == []
    ax.set_yticks([])
    assert fc.tickless_axes(fig) == ["'': y"]


def test_overlapping_texts_are_found(ax):
    ax.text(0.5, 0.5, "clearing")
    ax.text(0.5, 0.5, "skeleton")
    ax.annotate("apart", (0.1, 0.1))
    assert fc.overlapping_texts(ax, ticks=False) == [("clearing", "skeleton")]
