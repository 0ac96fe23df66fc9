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

    cfg = ablations.SETTINGS.from_record(
        json.loads((FIGURES / "ablations.json").read_text())["config"])
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

    cfg = ablations.SETTINGS.from_record(
        json.loads((FIGURES / "ablations.json").read_text())["config"])
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
    import experiments.contextevo.figure as ce
    from experiments.claims.registry.contextevo import TABLE5_HELD_OUT as H

    ce.figure(_rows("contextevo.csv"), tmp_path / "c.png", "synthetic")
    a, b, _ = saved[-1].axes
    assert a.get_ylim()[1] == 1.0
    assert any("held-out" in t.get_text() for t in a.get_xticklabels())
    notes = [t for t in b.texts if "held-out" in t.get_text()]
    # the registry holds percent; the notes print fractions to three places
    drop = (H["no_review"] - H["full"]) / 100
    assert sorted(t.get_text() for t in notes) == sorted([
        f"paper: held-out {drop:+.3f}",
        f"paper: held-out {H['full'] / 100:.3f} -> {H['no_replay'] / 100:.3f}"])
    inside = b.get_window_extent()
    for t in notes:
        box = t.get_window_extent()
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1, t.get_text()


def test_contextevo_empty_seed_panel_gives_the_reason_of_its_run(tmp_path, saved):
    import experiments.contextevo.figure as ce

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
    import experiments.contextevo.figure as ce

    ce.figure(_rows("contextevo_llm.csv"), tmp_path / "c.png", "llm")
    title = saved[-1].axes[1].get_title()
    assert title.startswith("(b) the paper's Table 5 ablations only")
    # n named under the group: held-in | held-out | all (issue 33)
    [tick] = [t.get_text() for t in saved[-1].axes[0].get_xticklabels()]
    assert "n = 7 | 8 | 15 tasks" in tick
    ce.figure(_rows("contextevo.csv"), tmp_path / "d.png", "synthetic")
    assert saved[-1].axes[1].get_title().startswith("(b) ablations and evidence-free")


def test_robustness_cells_print_their_shade_with_unique_names_and_st_clipped():
    from types import SimpleNamespace

    from experiments.claims.robustness.analysis import OTHERS, Factor
    from experiments.claims.robustness.figure import figure

    factors = [Factor("agent.x", 0, 1), Factor("task.x", 0, 1), Factor("browse.y", 0, 1)]
    an = SimpleNamespace(factors=factors, groups=["agent.x", OTHERS, OTHERS],
                         screened=["agent.x"])
    sob = {"agent.x": {"ST": 0.4, "flagged": False}, OTHERS: {"ST": 1.3, "flagged": True}}
    entries = {"c1": dict(sobol=sob, decided_by=None,
                          effect={"sign_share": {"value": 0.9, "lo": 0.8, "hi": 0.95}},
                          power={"value": 0.2, "lo": 0.1, "hi": 0.3, "tasks": 45},
                          direction_fraction=0.6)}
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
    # a flagged index (interval outside [0, 1]) is printed in grey italics, not bold
    [flag] = [t for t in ax.texts if t.get_text() == ">1"]
    assert flag.get_fontstyle() == "italic" and flag.get_fontweight() == "normal"
    [ok] = [t for t in ax.texts if t.get_text() == "0.40"]
    assert ok.get_fontstyle() == "normal" and ok.get_fontweight() == "bold"
    # the side panel: the sign share (a point) over the power (a grey bar)
    bx = fig.axes[1]
    assert [p.get_width() for p in bx.patches] == [pytest.approx(0.2)]
    assert "0.90" in {t.get_text() for t in bx.texts}
    assert "45-task study" in " ".join(t.get_text() for t in bx.get_legend().get_texts())


# --- issue 33: the figures that needed a second look ---------------------------------

from tests.experiments import figure_checks as fc  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    """The figures these tests draw and keep (not saved) are closed after each."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _evoharness_inputs():
    import dataclasses

    from experiments.settings.evoharness import GridConfig

    side = json.loads((FIGURES / "evoharness.json").read_text())
    fields = {f.name for f in dataclasses.fields(GridConfig)}
    cfg = GridConfig(**{k: tuple(v) if isinstance(v, list) else v
                        for k, v in side["config"].items() if k in fields})
    from sim.evolve.evoharness.online import UpdateRecord

    traces = {k: ([UpdateRecord(**t) for t in v["trace"]], v["caps"])
              for k, v in side["harness_trace"].items()}
    return (_rows("evoharness.csv"), traces, _rows("evoharness_policy.csv"), cfg,
            _rows("evoharness_policy_pairs.csv"))


def _evoharness_figure(traces=None):
    from experiments.evoharness.figure import figure

    tab, committed, prow, cfg, ppairs = _evoharness_inputs()
    fig = figure(tab, traces or committed, prow, cfg, ppairs)
    fig.canvas.draw()
    return fig, prow, ppairs


def test_evoharness_policy_arms_are_all_seen_with_their_paired_differences():
    fig, prow, ppairs = _evoharness_figure()
    _, _, reward, tokens = fig.axes
    # no arm may hide another, whether or not the committed run has arms that tie
    # (the run before the empirical size law had two tied pairs; this one has none)
    assert len(prow) == 4
    for ax in (reward, tokens):
        assert fc.hidden_series(ax) == [], ax.get_title()
        assert fc.overlapping_texts(ax) == [], ax.get_title()
    assert len(fc.intervals(reward)) == len(prow)
    # tokens from 0: a 0.2% difference drawn as small as it is
    assert not fc.excludes_zero(tokens, "y") and not fc.excludes_zero(reward, "y")
    ticks = {t.get_text().split("\n")[0]: t.get_text() for t in tokens.get_xticklabels()}
    for p in ppairs:
        if p["reference"] == "baseline" and p["measure"] == "mean_tokens":
            # one decimal below 100K tokens, none above (figure._k)
            k = [f"{v / 1e3:+.1f}K" if abs(v) < 1e5 else f"{v / 1e3:+.0f}K"
                 for v in (p["lo"], p["hi"])]
            assert f"[{k[0]}, {k[1]}]" in ticks[p["arm"]]
    rticks = {t.get_text().split("\n")[0]: t.get_text() for t in reward.get_xticklabels()}
    for p in ppairs:
        if p["reference"] == "baseline" and p["measure"] == "reward":
            assert f"{p['diff']:+.3f}" in rticks[p["arm"]]
            assert f"[{p['lo']:+.3f}, {p['hi']:+.3f}]" in rticks[p["arm"]]


def test_evoharness_legends_are_short_and_identical_traces_stay_visible():
    _, committed, _, _, _ = _evoharness_inputs()
    first, (tr, caps) = next(iter(committed.items()))
    twins = {first: (tr, caps), "twin/medium": (list(tr), dict(caps))}
    fig, _, _ = _evoharness_figure(twins)
    assert fc.hidden_series(fig.axes[1]) == []
    fig, _, _ = _evoharness_figure()
    assert max(fc.legend_sizes(fig)) <= fc.MAX_LEGEND_ENTRIES
    # one entry per traced arm plus the two line styles, each arm's caps in its entry
    texts = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    assert len(texts) == len(committed) + 2 and "tokens / cap" in texts
    assert fc.hidden_series(fig.axes[1]) == []


def _cost_figure():
    import experiments.vista.cost as cost

    cfg = cost.SETTINGS.from_record(json.loads((FIGURES / "cost.json").read_text())["config"])
    fig = cost.figure(_rows("cost.csv"), _rows("cost_episodes.csv"), cfg)
    fig.canvas.draw()
    return fig


def test_cost_every_program_has_its_paired_intervals_around_its_point():
    from experiments.paired import paired_differences

    fig = _cost_figure()
    ax = fig.axes[0]
    table = _rows("cost.csv")
    bars = fc.intervals(ax)
    assert len(bars) == len(table) - 1  # vista has no interval against itself
    acc = paired_differences(_rows("cost_episodes.csv"), "vista", by=())
    vista = next(r for r in table if r["program"] == "vista")
    for cont in bars:
        [(xlo, xhi)] = fc.whisker_spans(cont, "x")
        [(ylo, yhi)] = fc.whisker_spans(cont, "y")
        # the program whose point the whiskers cross
        [r] = [t for t in table if t["program"] != "vista" and xlo <= t["cost_usd"] <= xhi
               and ylo <= 100 * t["accuracy"] <= yhi
               and xlo == pytest.approx(vista["cost_usd"] + t["cost_diff_lo"], abs=1e-6)]
        d = acc[(r["program"],)]
        # independent route: the whisker is vista's value plus the interval
        assert xhi == pytest.approx(vista["cost_usd"] + r["cost_diff_hi"], abs=1e-6)
        assert ylo == pytest.approx(100 * (vista["accuracy"] + d[1]), abs=1e-6)
        assert yhi == pytest.approx(100 * (vista["accuracy"] + d[2]), abs=1e-6)
    assert not fc.excludes_zero(ax, "x") and ax.get_ylim() == (0.0, 100.0)
    assert ax.get_xlim()[1] >= max(s[1] for c in bars for s in fc.whisker_spans(c, "x"))


def test_cost_labels_touch_neither_each_other_nor_the_points():
    fig = _cost_figure()
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    labels = [t for t in ax.texts if t.get_text()]
    assert sorted(t.get_text() for t in labels) == sorted(r["program"] for r in
                                                          _rows("cost.csv"))
    assert fc.overlapping_texts(ax, ticks=False) == []
    from matplotlib.collections import PathCollection

    marks = [b for c in ax.collections if isinstance(c, PathCollection)
             for b in _marker_boxes(ax, c)]
    assert len(marks) == len(labels)
    frame = ax.get_window_extent(renderer)
    for t in labels:
        box = fc.text_box(t, renderer)
        assert not any(_overlaps(box, m) for m in marks), t.get_text()
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, t.get_text()


def test_contextevo_panel_b_draws_each_bars_paired_interval(tmp_path, saved):
    import experiments.contextevo.figure as ce

    rows = _rows("contextevo.csv")
    ce.figure(rows, tmp_path / "c.png", "synthetic")
    a, b, _ = saved[-1].axes
    last = {r["setting"]: r["stage"] for r in rows if r["variant"] == "full"}
    ours = [r for r in rows if r["split"] == "all" and r["start"] == "react"
            and r["stage"] == last[r["setting"]]]
    spans = sorted(s for c in fc.intervals(b) for s in fc.whisker_spans(c, "x"))
    # every final-iteration bar of ours (full against start, the rest against full)
    assert len(spans) == len(ours)
    full = {r["setting"]: r["accuracy"] for r in ours if r["variant"] == "full"}
    start = {r["setting"]: r["accuracy"] for r in rows if r["variant"] == "full" and
             r["split"] == "all" and r["stage"] == "start" and r["start"] == "react"}
    # independent route: the reference's own bar plus the interval, clipped to [0, 1]
    want = sorted((max(0.0, start[r["setting"]] + r["diff_lo"]),
                   min(1.0, start[r["setting"]] + r["diff_hi"])) if r["variant"] == "full"
                  else (max(0.0, full[r["setting"]] + r["full_lo"]),
                        min(1.0, full[r["setting"]] + r["full_hi"])) for r in ours)
    # 2e-4: the CSV rounds accuracy and differences to 4 places
    assert spans == [(pytest.approx(lo, abs=2e-4), pytest.approx(hi, abs=2e-4))
                     for lo, hi in want]
    assert min(lo for lo, _ in spans) == 0.0  # one interval reaches below 0: clipped
    # panel (a): every iteration's bar has its interval from start; n on each group
    stages = [r for r in rows if r["variant"] == "full" and r["stage"] != "start"]
    assert sum(len(fc.whisker_spans(c, "y")) for c in a.containers
               if c in fc.intervals(a)) + sum(
        1 for r in stages if r["diff_lo"] == r["diff_hi"] == r["diff_vs_start"]) >= len(stages)
    assert all("n = " in t.get_text() for t in a.get_xticklabels())


def test_pressure_llm_names_n_draws_intervals_and_gives_zero_bars_no_legend():
    from experiments.intervals import Z_ROUNDED, wilson
    from experiments.vista.pressure_llm import figure

    table = _rows("pressure_llm.csv")
    fig = figure(table, "m", 4000)
    fig.canvas.draw()
    ax, dx = fig.axes
    assert any(r["solved"] == 0 for r in table)  # the committed run has empty bars
    assert fc.zero_bar_legend_entries(ax) == [] and ax.get_legend() is None
    assert [t.get_text() for t in ax.get_xticklabels()] == [r["program"] for r in table]
    assert "n = 3 tasks per bar" in ax.get_title() and "n = 3" in dx.get_title()
    spans = sorted(s for c in fc.intervals(ax) for s in fc.whisker_spans(c, "y"))
    want = sorted((r["ci_low"], r["ci_high"]) for r in table)
    assert spans == [(pytest.approx(lo), pytest.approx(hi)) for lo, hi in want]
    for r in table:  # the CSV's interval is Wilson's (z = 1.96 there, rounded to 3 places)
        _, lo, hi = wilson(r["solved"], r["n"], z=Z_ROUNDED)
        assert (r["ci_low"], r["ci_high"]) == (round(lo, 3), round(hi, 3))
    # a bar of height 0 still has a mark at 0 across its width
    flat = [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [0.0, 0.0]]
    assert len(flat) == sum(r["solved"] == 0 for r in table)
    # (b): each program's difference from vista with an interval holding it
    diffs = fc.intervals(dx)
    assert len(diffs) == len(table) - 1
    vista = next(r for r in table if r["program"] == "vista")
    for cont in diffs:
        [(lo, hi)] = fc.whisker_spans(cont, "x")
        d = cont.lines[0].get_xdata()[0]
        assert lo < d < hi and -1 <= lo and hi <= 1
        assert any(d == pytest.approx(r["accuracy"] - vista["accuracy"]) for r in table)
    assert fc.overlapping_texts(ax) == [] and fc.overlapping_texts(dx) == []


def test_evoharness_llm_names_n_and_draws_the_difference_with_its_interval():
    from experiments.evoharness.llm_run import LLM_ARMS, figure

    rows = _rows("evoharness_llm.csv")
    fig = figure(rows, "m")
    fig.canvas.draw()
    ax, bx = fig.axes
    assert "n = 3 tasks per arm" in ax.get_title()
    assert len(fc.intervals(ax)) == len(LLM_ARMS)
    k = {a: sum(r["solved"] for r in rows if r["arm"] == a) for a in LLM_ARMS}
    assert sorted(t.get_text() for t in ax.texts) == sorted(f"{k[a]}/3" for a in LLM_ARMS)
    assert "Newcombe 95%" in ax.get_title() and "[" in ax.get_title()
    for a in (ax, bx):
        assert fc.zero_bar_legend_entries(a) == []
        assert fc.hidden_series(a) == []
    assert ax.get_legend() is None


def test_calibration_axes_carry_numbers_and_the_flat_panel_says_why(tmp_path, saved):
    from experiments.calibrate import plot

    side = json.loads((FIGURES / "calibration.json").read_text())
    trials = {"context": [t for t in side["trials"] if t["probe"] == "context"]}
    plot(_rows("calibration.csv"), trials, tmp_path / "c.png", side["model"])
    [fig] = saved
    a1, a2, a3 = fig.axes
    # every probe with a proportion has its rows in the middle panel (the
    # confabulate rows' own interval method once dropped them)
    assert {t.get_text().split(":")[0] for t in a2.get_yticklabels()} == {
        "index", "confabulate", "recovery", "dashboard"}
    assert len(fc.numeric_ticks(a1, "x")) >= 2
    assert fc.tickless_axes(fig) == []
    texts = [t.get_text() for t in a1.texts]
    # the prior's numbers on its row, read from the world table (issue 31 moved them)
    from sim.world import TABLE

    def k(v):
        return f"{v / 1000:g}K"

    p = TABLE["agent.ctx_half_tokens"]
    assert any(k(p.low) in t for t in texts) and any(k(p.high) in t for t in texts), texts
    assert sum("not identified" in t for t in texts) == 3
    assert not any(t.startswith("nan") for t in texts)
    assert [t.get_text() for t in a3.texts] == ["1/2"] * 4   # the four lengths
    why = " ".join(a3.get_xlabel().split())
    assert "no fitted curve: not identified, misses already at the shortest length" in why
    assert fc.overlapping_texts(a1, ticks=False) == []
