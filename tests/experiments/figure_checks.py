"""Readability checks on a drawn matplotlib figure (issue 33): a series hidden under
another, legends too long to hold, a legend entry for bars of height 0, intervals
drawn, an axis that leaves out 0, tick labels without numbers, texts that overlap.
Each returns what it found, so a test can show what broke; tests/experiments/
test_figure_checks.py shows each one failing on a figure made to break it."""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.lines import Line2D

#: the most entries one legend may hold and still be read at a glance
MAX_LEGEND_ENTRIES = 10
#: display pixels within which two points count as the same place
TOLERANCE_PX = 1.0


def _renderer(fig):
    """A drawn renderer of ``fig``, on a fresh Agg canvas when the figure was closed
    (a closed figure keeps only matplotlib's base canvas, which cannot render)."""
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _draw_order(ax):
    """``ax``'s children in the order they are drawn (zorder, then insertion)."""
    children = ax.get_children()
    return sorted(children, key=lambda a: a.get_zorder())


def _series(ax) -> list[dict]:
    """Each drawn data series: display points, kind (``line``, ``marker`` or
    ``whisker``), width (line width or marker size, points) and whether it covers
    what lies under it (a solid line, a filled marker, a whisker)."""
    caps = {id(c) for cont in ax.containers if isinstance(cont, ErrorbarContainer)
            for c in cont.lines[1]}
    # an error bar's parts carry no label of their own: its container's stands for them
    owner = {id(part): cont.get_label() for cont in ax.containers
             if isinstance(cont, ErrorbarContainer)
             for part in [cont.lines[0], *cont.lines[2]] if part is not None}
    out = []
    for art in _draw_order(ax):
        if not art.get_visible():
            continue
        label = owner.get(id(art), art.get_label())
        if isinstance(art, Line2D) and id(art) not in caps and len(art.get_xydata()):
            pts = art.get_transform().transform(art.get_xydata())
            has_line = art.get_linestyle() not in ("None", "none", "", " ")
            has_marker = art.get_marker() not in ("None", "none", "", " ", None)
            if has_line:
                out.append(dict(artist=art, label=label, kind="line", pts=pts,
                                width=art.get_linewidth(), covers=art.get_linestyle() == "-"))
            elif has_marker:
                filled = art.get_markerfacecolor() not in ("none", "None")
                out.append(dict(artist=art, label=label, kind="marker", pts=pts,
                                width=art.get_markersize(), covers=filled))
        elif isinstance(art, PathCollection) and len(art.get_offsets()):
            pts = art.get_offset_transform().transform(art.get_offsets())
            out.append(dict(artist=art, label=label, kind="marker", pts=pts,
                            width=float(np.sqrt(np.max(art.get_sizes()))), covers=True))
        elif isinstance(art, LineCollection) and len(art.get_segments()):
            segs = [art.get_transform().transform(s) for s in art.get_segments()]
            out.append(dict(artist=art, label=label, kind="whisker",
                            pts=np.concatenate(segs), width=float(np.max(art.get_linewidths())),
                            covers=True))
    return out


def _covered(a: np.ndarray, b: np.ndarray) -> bool:
    """Every point of ``a`` lies within :data:`TOLERANCE_PX` of a point of ``b``."""
    d = np.abs(a[:, None, :] - b[None, :, :]).max(axis=2)
    return bool((d.min(axis=1) <= TOLERANCE_PX).all())


def hidden_series(ax) -> list[str]:
    """Labels of the series of ``ax`` drawn wholly under a later series of the same
    kind that covers (solid, filled) and is at least as wide: what a reader cannot
    see. Lines drawn thinner on top of thicker ones (the pressure figure's styles)
    stay visible and are not reported."""
    series = _series(ax)
    hidden = []
    for i, a in enumerate(series):
        for b in series[i + 1:]:
            if (b["kind"] == a["kind"] and b["covers"] and b["width"] >= a["width"]
                    and _covered(a["pts"], b["pts"])):
                hidden.append(a["label"])
                break
    return hidden


def legend_sizes(fig) -> list[int]:
    """Entries of each legend of ``fig`` (axes legends and figure legends)."""
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
    return [len(lg.get_texts()) for lg in legends]


def zero_bar_legend_entries(ax) -> list[str]:
    """Legend labels of ``ax`` whose bars all have height (or width) 0: an entry that
    points at nothing drawn."""
    legend = ax.get_legend()
    if legend is None:
        return []
    labels = {t.get_text() for t in legend.get_texts()}
    out = []
    for cont in ax.containers:
        if isinstance(cont, BarContainer) and cont.get_label() in labels:
            sizes = [p.get_height() if cont.orientation == "vertical" else p.get_width()
                     for p in cont.patches]
            if all(np.nan_to_num(s) == 0 for s in sizes):
                out.append(cont.get_label())
    return out


def intervals(ax) -> list[ErrorbarContainer]:
    """The error bars of ``ax`` that draw a whisker of non-zero length somewhere."""
    out = []
    for cont in ax.containers:
        if isinstance(cont, ErrorbarContainer) and cont.lines[2]:
            segs = [s for c in cont.lines[2] for s in c.get_segments()]
            if segs:
                out.append(cont)
    return out


def whisker_spans(cont: ErrorbarContainer, axis: str) -> list[tuple[float, float]]:
    """(low, high) in data units of each whisker of ``cont`` along ``axis``."""
    k = 0 if axis == "x" else 1
    spans = []
    for c in cont.lines[2]:
        for s in c.get_segments():
            s = np.asarray(s)
            if abs(s[0, 1 - k] - s[1, 1 - k]) < 1e-12 and s[0, k] != s[1, k]:
                spans.append((float(min(s[:, k])), float(max(s[:, k]))))
            elif abs(s[0, 1 - k] - s[1, 1 - k]) < 1e-12:
                spans.append((float(s[0, k]), float(s[0, k])))
    return spans


def excludes_zero(ax, axis: str) -> bool:
    """True when the limits of ``ax``'s ``axis`` ("x" or "y") leave out 0."""
    lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
    return not min(lo, hi) <= 0 <= max(lo, hi)


def numeric_ticks(ax, axis: str) -> list[float]:
    """The tick labels of ``ax``'s ``axis`` that read as numbers (matplotlib's minus
    sign and thousands commas allowed), as numbers."""
    _renderer(ax.figure)
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    out = []
    for t in labels:
        text = t.get_text().replace("\u2212", "-").replace(",", "")
        try:
            out.append(float(text))
        except ValueError:
            pass
    return out


def tickless_axes(fig) -> list[str]:
    """Names ("title: x") of the visible axes of ``fig`` with an axis that shows no
    tick label at all."""
    _renderer(fig)
    out = []
    for ax in fig.axes:
        if not ax.axison:
            continue
        for axis, labels in (("x", ax.get_xticklabels()), ("y", ax.get_yticklabels())):
            if not any(t.get_text().strip() for t in labels):
                out.append(f"{ax.get_title()!r}: {axis}")
    return out


def overlapping_texts(ax, ticks: bool = True) -> list[tuple[str, str]]:
    """Pairs of non-empty texts of ``ax`` (its texts and annotations, and its tick
    labels when ``ticks``) whose boxes overlap."""
    renderer = _renderer(ax.figure)
    texts = [t for t in ax.texts if t.get_text().strip() and t.get_visible()]
    if ticks:
        texts += [t for t in ax.get_xticklabels() + ax.get_yticklabels()
                  if t.get_text().strip()]
    boxes = [text_box(t, renderer) for t in texts]
    pairs = []
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            if not (a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0):
                pairs.append((texts[i].get_text(), texts[j].get_text()))
    return pairs


def text_box(t, renderer):
    """The box of a text (an annotation's without its leader line)."""
    from experiments.labels import text_box as annotation_box
    from matplotlib.text import Annotation, Text

    return annotation_box(t, renderer) if isinstance(t, Annotation) else \
        Text.get_window_extent(t, renderer)
