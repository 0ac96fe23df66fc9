"""Point labels that overlap neither each other nor the points: a greedy, deterministic
placement (each label takes the first of a fixed ring of offsets whose box is clear).

Written here rather than taken from ``adjustText``: that library moves labels
iteratively and promises fewer overlaps, not none; a figure test asserts none.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.text import Text

#: candidate offsets in points from the point, with their alignment: right, left,
#: above, below and the diagonals, then the same ring twice as far
_RING = ((6, 0, "left", "center"), (-6, 0, "right", "center"), (0, 7, "center", "bottom"),
         (0, -7, "center", "top"), (5, 5, "left", "bottom"), (-5, 5, "right", "bottom"),
         (5, -5, "left", "top"), (-5, -5, "right", "top"))
OFFSETS = _RING + tuple((2 * dx, 2 * dy, ha, va) for dx, dy, ha, va in _RING) + tuple(
    (4 * dx, 4 * dy, ha, va) for dx, dy, ha, va in _RING)


def _overlap(a, b) -> bool:
    return not (a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0)


def place_labels(ax, xy: Sequence[tuple[float, float]], texts: Sequence[str],
                 avoid: Sequence = (), prefer_clear: Sequence = (), fontsize: float = 8,
                 colours: Sequence = ()) -> list:
    """Annotate each point ``xy[i]`` (data coordinates) with ``texts[i]``, inside the
    axes, clear of the labels placed before it and of ``avoid`` (display-space
    ``Bbox``es: markers): at the first offset of :data:`OFFSETS` also clear of
    ``prefer_clear`` (e.g. error bars), else at the first offset clear of the rest,
    else at the last offset. Draws the figure first, so the layout is settled, and
    then turns the layout engine off (placing labels must not move the axes). A
    label beyond the first ring gets a thin leader line to its point;
    ``colours[i]`` colours label i (default black). Returns the annotations.

    Raises:
        ValueError: if ``xy`` and ``texts`` differ in length.
    """
    if len(xy) != len(texts):
        raise ValueError(f"{len(xy)} points but {len(texts)} labels")
    fig = ax.figure
    fig.canvas.draw()
    fig.set_layout_engine("none")  # the layout is settled; labels must not move it
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    placed, boxes = [], list(avoid)
    for i, ((x, y), text) in enumerate(zip(xy, texts)):
        colour = colours[i] if i < len(colours) else "k"
        k = _first_clear(ax, renderer, frame, (x, y), text, fontsize,
                         [boxes + list(prefer_clear), boxes])
        dx, dy, ha, va = OFFSETS[k]
        leader = None if k < len(_RING) else dict(arrowstyle="-", lw=0.5, color=colour,
                                                  shrinkA=0, shrinkB=4)
        ann = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                          ha=ha, va=va, fontsize=fontsize, annotation_clip=False,
                          color=colour, arrowprops=leader)
        boxes.append(text_box(ann, renderer))
        placed.append(ann)
    return placed


def text_box(ann, renderer):
    """The display box of an annotation's text alone (without its leader line)."""
    ann.update_positions(renderer)  # its offset resolved, as a draw would
    return Text.get_window_extent(ann, renderer)


def _first_clear(ax, renderer, frame, xy, text, fontsize, tiers) -> int:
    """Index into :data:`OFFSETS` of the first offset whose text box is inside
    ``frame`` and clear of every box of the first tier that has one; the last
    offset when no tier has."""
    probe = ax.annotate(text, xy, xytext=(0, 0), textcoords="offset points",
                        fontsize=fontsize, annotation_clip=False)
    try:
        for tier in tiers:
            for k, (dx, dy, ha, va) in enumerate(OFFSETS):
                probe.set_position((dx, dy))
                probe.set_ha(ha)
                probe.set_va(va)
                box = text_box(probe, renderer)
                inside = (frame.x0 <= box.x0 and box.x1 <= frame.x1
                          and frame.y0 <= box.y0 and box.y1 <= frame.y1)
                if inside and not any(_overlap(box, b) for b in tier):
                    return k
        return len(OFFSETS) - 1
    finally:
        probe.remove()
