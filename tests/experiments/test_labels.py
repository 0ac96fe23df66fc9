"""experiments.labels.place_labels: labels of a tight cluster of points end up clear
of each other, of the markers and inside the axes; bad input is refused."""

from __future__ import annotations

import pytest
from matplotlib.transforms import Bbox

from experiments.labels import place_labels, text_box
from experiments.output import new_figure


def test_a_tight_cluster_gets_labels_clear_of_each_other_and_the_points():
    fig, ax = new_figure(figsize=(4, 3))
    xy = [(0.50, 0.50), (0.51, 0.50), (0.50, 0.51), (0.52, 0.52), (0.49, 0.49)]
    ax.scatter(*zip(*xy), s=40)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    fig.canvas.draw()
    half = 40 ** 0.5 / 2 * fig.dpi / 72
    marks = [Bbox([[x - half, y - half], [x + half, y + half]])
             for x, y in ax.transData.transform(xy)]
    anns = place_labels(ax, xy, [f"program_{i}" for i in range(len(xy))], avoid=marks)
    renderer = fig.canvas.get_renderer()
    boxes = [text_box(a, renderer) for a in anns]
    frame = ax.get_window_extent(renderer)
    for i, b in enumerate(boxes):
        assert frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 <= b.y1 <= frame.y1
        assert not any(b.overlaps(m) for m in marks)
        assert not any(b.overlaps(o) for o in boxes[i + 1:])
    # the far ones carry a leader line back to their point
    assert any(a.arrow_patch is not None for a in anns)


def test_points_and_labels_of_different_lengths_are_refused():
    fig, ax = new_figure()
    with pytest.raises(ValueError, match="2 points but 1 labels"):
        place_labels(ax, [(0, 0), (1, 1)], ["one"])
