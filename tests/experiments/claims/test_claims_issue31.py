"""The claims registered for issue 31 ("every checkable number registered"): each new
check on small hand-made CSVs, reaching both verdicts and "not testable here" on a CSV
without the data (an older one, or a missing level); the new rules at their edges;
the rank correlation against scipy's; and the rows that say why they are not
testable."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from scipy import stats

from experiments.claims import rules
from experiments.claims.checks.base import share_outcome
from experiments.claims.judge import judge
from experiments.claims.records import Paper, Role, Verdict
from experiments.claims.registry import REGISTRY
from experiments.intervals import cluster_spearman_ci, spearman

R, D, NI, NR, NT = (Verdict.REPRODUCED, Verdict.DIRECTION, Verdict.NO_INTERVAL,
                    Verdict.NOT_REPRODUCED, Verdict.NOT_TESTABLE)


def _write(path, rows):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _v(d, cid):
    return judge(REGISTRY[cid], d)


def _check(d, cid):
    """The check's own verdict, before the judge caps a claim checked away from the
    paper's setting at "in direction only"."""
    return REGISTRY[cid].check.run(d, REGISTRY[cid]).verdict


def _episodes(path, spec, drop=()):
    """A per-episode CSV: ``spec`` is ``{(program, level): {column: [per task]}}``;
    task i of every program and level is the same (family, seed)."""
    rows = []
    for (prog, lev), cols in spec.items():
        n = len(next(iter(cols.values())))
        for i in range(n):
            r = {"level": lev, "program": prog, "task_id": f"loca/f{i % 5}/s{i}/{lev}",
                 "family": f"f{i % 5}", "seed": i}
            r.update({c: v[i] for c, v in cols.items()})
            rows.append({k: x for k, x in r.items() if k not in drop})
    _write(path, rows)


# -- VISTA Fig. 4: every level ------------------------------------------------------------
def test_fig4_levels_need_vista_above_react_at_that_level(tmp_path):
    f = tmp_path / "pressure_episodes.csv"
    _episodes(f, {("vista", 16000): {"solved": [1] * 40 + [0] * 35},
                  ("react", 16000): {"solved": [1] * 20 + [0] * 55}})
    assert _v(tmp_path, "Fig4-16K").verdict is R
    _episodes(f, {("vista", 16000): {"solved": [1] * 30 + [0] * 45},
                  ("react", 16000): {"solved": [1] * 30 + [0] * 45}})
    assert _v(tmp_path, "Fig4-16K").verdict is NR            # a tie is no gap
    res = _v(tmp_path, "Fig4-256K")                           # the level was not played
    assert res.verdict is NT and "level 256000" in res.note
    assert [c.id for c in REGISTRY.item("VISTA Fig. 4")][:2] == ["Fig4-8K", "Fig4-128K"]
    assert {"Fig4-16K", "Fig4-32K", "Fig4-64K", "Fig4-256K"} <= {
        c.id for c in REGISTRY.item("VISTA Fig. 4")}


# -- VISTA Fig. 8b: the absolute counts ---------------------------------------------------
def test_fig8b_counts_are_totals_over_75_tasks_within_the_factor(tmp_path):
    f = tmp_path / "ablations_episodes.csv"
    spec = {("vista", 128000): {"agent_archives": [1] * 69 + [0] * 6,
                                "recoveries": [2] * 30 + [1] * 45},          # 105
            ("vista_no_dashboard", 128000): {"agent_archives": [4] * 60 + [1] * 15,
                                             "recoveries": [1] * 57 + [0] * 18}}
    _episodes(f, spec)
    for cid in ("Fig8b-vista-archives", "Fig8b-vista-recoveries",
                "Fig8b-no-dashboard-archives", "Fig8b-no-dashboard-recoveries"):
        assert _v(tmp_path, cid).verdict is R, cid
    spec[("vista", 128000)]["recoveries"] = [1] * 6 + [0] * 69              # 6, not 105
    _episodes(f, spec)
    res = _v(tmp_path, "Fig8b-vista-recoveries")
    assert res.verdict is NR and res.ours.startswith("vista recoveries 6 per 75 tasks")
    # 150 tasks: the total is scaled to the paper's 75
    spec = {k: {c: v + v for c, v in cols.items()} for k, cols in spec.items()}
    _episodes(f, spec)
    assert "69 per 75 tasks" in _v(tmp_path, "Fig8b-vista-archives").ours
    _episodes(f, spec, drop=("recoveries",))                   # an older CSV
    assert _v(tmp_path, "Fig8b-vista-recoveries").verdict is NT
    assert _v(tmp_path, "Fig8b-vista-archives").verdict is R


# -- VISTA Fig. 9: the rescue structure -----------------------------------------------------
def _rescues(f, recovered, drop=()):
    """20 tasks VISTA solves and ReAct fails (16 with an archive, ``recovered`` of them
    with a recovery), 10 both solve (archives and recoveries: not rescues)."""
    arch = [1] * 16 + [0] * 4 + [1] * 10
    rec = [1] * recovered + [0] * (20 - recovered) + [1] * 10
    _episodes(f, {("vista", 128000): {"solved": [1] * 30, "agent_archives": arch,
                                      "recoveries": rec},
                  ("react", 128000): {"solved": [0] * 20 + [1] * 10,
                                      "agent_archives": [0] * 30, "recoveries": [0] * 30}},
              drop)


def test_fig9_share_of_archiving_rescues_that_recover(tmp_path):
    f = tmp_path / "pressure_episodes.csv"
    _rescues(f, 8)
    res = _v(tmp_path, "Fig9-rescue-loop")
    assert res.verdict is R and "8 of 16" in res.ours and "20 rescued" in res.ours
    _rescues(f, 0)
    assert _v(tmp_path, "Fig9-rescue-loop").verdict is NR
    _rescues(f, 16)                                            # every one: not 8 of 16
    assert _v(tmp_path, "Fig9-rescue-loop").verdict is NR
    _rescues(f, 8, drop=("recoveries",))
    res = _v(tmp_path, "Fig9-rescue-loop")
    assert res.verdict is NT and "recoveries" in res.note


def test_a_share_of_nothing_is_not_reproduced_and_the_paper_range_is_its_wilson():
    out = share_outcome(0, 0, 8, 16, "x")
    assert out.verdict is NR and "0 of 0" in out.ours
    # the paper's 8 of 16: Wilson [0.28, 0.72]; 0.30 inside, 0.25 outside
    assert share_outcome(3, 10, 8, 16, "x").verdict is R
    assert share_outcome(25, 100, 8, 16, "x").verdict is NR


# -- VISTA Fig. 10: the fixed overhead --------------------------------------------------------
def _overhead(f, values, setting="W=12288"):
    _write(f, [{"trajectory": f"t{i % 2}", "dashboard": "ledger", "setting": setting,
                "registered": i + 1, "fixed_overhead": v} for i, v in enumerate(values)])


def test_fig10_fixed_overhead_is_constant_and_near_the_papers(tmp_path):
    f = tmp_path / "overhead.csv"
    _overhead(f, [492] * 6)
    assert _check(tmp_path, "Fig10-fixed-overhead") is R
    assert _v(tmp_path, "Fig10-fixed-overhead").verdict is D   # not the paper's runs
    _overhead(f, [492] * 5 + [500])
    assert _v(tmp_path, "Fig10-fixed-overhead").verdict is NR  # not constant
    _overhead(f, [2000] * 6)
    assert _check(tmp_path, "Fig10-fixed-overhead") is D       # constant, another size
    _overhead(f, [492] * 6, setting="unbounded")
    assert _v(tmp_path, "Fig10-fixed-overhead").verdict is NT


# -- VISTA Table 5: estimates uncorrelated with truth without the dashboard --------------------
def _perception(f, estimate, snapshots=40, per=5, seed=0, drop=()):
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(snapshots):
        for b in range(per):
            t = float(rng.integers(10, 5000))
            rows.append({"snapshot": f"s{s}", "condition": "-dash", "quantity": "block",
                         "item": f"B{b}", "truth": t, "estimate": estimate(t, rng),
                         "rel_error": 0.5, "correct": ""})
    _write(f, [{k: v for k, v in r.items() if k not in drop} for r in rows])


def test_table5_blind_correlation_near_zero(tmp_path):
    f = tmp_path / "perception.csv"
    _perception(f, lambda t, rng: float(rng.integers(10, 5000)))    # independent guesses
    assert _check(tmp_path, "Tab5-blind-uncorrelated-block") is R
    assert _v(tmp_path, "Tab5-blind-uncorrelated-block").verdict is D  # a small model
    _perception(f, lambda t, rng: t * float(rng.uniform(0.5, 2.0)))  # tracks the truth
    res = _v(tmp_path, "Tab5-blind-uncorrelated-block")
    with open(f, newline="") as fh:                        # scipy on the file itself
        pairs = [(float(r["truth"]), float(r["estimate"])) for r in csv.DictReader(fh)]
    want = stats.spearmanr(*zip(*pairs)).statistic
    assert want > 0.5 and res.verdict is NR and f"rho {want:+.3f}" in res.ours
    # no total-size rows, and a file without estimates: nothing to correlate
    assert _v(tmp_path, "Tab5-blind-uncorrelated-total").verdict is NT
    _perception(f, lambda t, rng: t, drop=("estimate",))
    assert _v(tmp_path, "Tab5-blind-uncorrelated-block").verdict is NT


def test_near_zero_rule_edges():
    assert rules.near_zero_verdict(0.1, -0.2, 0.3, 0.3) is R          # the edge is in
    assert rules.near_zero_verdict(0.1, -0.2, 0.31, 0.3) is D
    assert rules.near_zero_verdict(0.1, None, None, 0.3) is NI
    assert rules.near_zero_verdict(0.3, 0.2, 0.3, 0.3) is NR          # the point on it
    assert rules.near_zero_verdict(-0.5, -0.6, -0.4, 0.3) is NR
    assert rules.near_zero_verdict(math.nan, None, None, 0.3) is NR
    with pytest.raises(ValueError, match="margin"):
        rules.near_zero_verdict(0.0, -0.1, 0.1, 0.0)


def test_constant_rule_edges():
    assert rules.constant_verdict(0, 492, 492, 1.5) is R
    assert rules.constant_verdict(0, 738, 492, 1.5) is R              # 492 * 1.5
    assert rules.constant_verdict(0, 739, 492, 1.5) is D
    assert rules.constant_verdict(1, 492, 492, 1.5) is NR
    with pytest.raises(ValueError, match="spread"):
        rules.constant_verdict(-1, 492, 492, 1.5)


def test_spearman_is_scipys_and_the_cluster_interval_covers_it():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 20, 60).astype(float)                          # ties included
    y = x + rng.normal(0, 8, 60)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))
    clusters = [list(zip(x[i:i + 6], y[i:i + 6])) for i in range(0, 60, 6)]
    rho, lo, hi = cluster_spearman_ci(clusters)
    assert rho == pytest.approx(spearman(x, y)) and lo < rho < hi
    with pytest.raises(ValueError, match="3 pairs"):
        cluster_spearman_ci([[(1, 2), (2, 3)]])
    with pytest.raises(ValueError, match=r"\(x, y\) pairs"):
        cluster_spearman_ci([[1, 2, 3]])


# -- VISTA App. Table 7: steps per task -----------------------------------------------------------
def test_steps_per_task_against_the_papers_36_4(tmp_path):
    f = tmp_path / "pressure_episodes.csv"
    _episodes(f, {("vista", 128000): {"requests": [30, 40] * 30, "solved": [1] * 60}})
    res = _v(tmp_path, "Tab7-steps")
    assert res.verdict is R and "35 per task" in res.ours
    _episodes(f, {("vista", 128000): {"requests": [100] * 60, "solved": [1] * 60}})
    assert _v(tmp_path, "Tab7-steps").verdict is NR
    _episodes(f, {("vista", 128000): {"solved": [1] * 60, "total_tokens": [1] * 60}})
    assert _v(tmp_path, "Tab7-steps").verdict is NT                    # no requests column


# -- ContextEvo Table 4 and §6.1 ------------------------------------------------------------------
def _table4(tmp_path, evolved, start=19, pressure_start=19):
    rows = [{"setting": "loca128k", "start": "react", "variant": "full", "stage": st,
             "split": "all", "n": 75, "accuracy": round(k / 75, 4)}
            for st, k in (("start", start), ("iter2", evolved))]
    _write(tmp_path / "contextevo.csv", rows)
    _write(tmp_path / "pressure.csv",
           [{"level": 128000, "program": p, "n": 75, "solved": k} for p, k in
            (("react", pressure_start), ("summarization", 19), ("active_compression", 23))])


def test_contextevo_table4_above_the_compression_stand_ins(tmp_path):
    _table4(tmp_path, 50)
    res = _v(tmp_path, "CE-Tab4-compression")
    assert res.verdict is R and "evolved 50/75" in res.ours
    _table4(tmp_path, 30)                                  # above both, not resolved
    assert _v(tmp_path, "CE-Tab4-compression").verdict is D
    _table4(tmp_path, 20)                                  # below active_compression
    assert _v(tmp_path, "CE-Tab4-compression").verdict is NR
    _table4(tmp_path, 50, pressure_start=25)               # not the same tasks
    res = _v(tmp_path, "CE-Tab4-compression")
    assert res.verdict is NT and "did not play the same tasks" in res.note


def test_invocation_gap_reads_the_skill_only_runs(tmp_path):
    f = tmp_path / "evoharness_policy.csv"

    def policy(read, n=44, with_column=True):
        row = {"arm": "skill-only", "program": "react", "n_tasks": n, "reward": 0.3}
        if with_column:
            row["runs_read_skill"] = read
        _write(f, [row])

    policy(20)
    assert _v(tmp_path, "CE-invocation-gap").verdict is R
    policy(44)                                             # every run reads: no gap
    assert _v(tmp_path, "CE-invocation-gap").verdict is NR
    policy(0, with_column=False)                           # the CSV before issue 31
    res = _v(tmp_path, "CE-invocation-gap")
    assert res.verdict is NT and "runs_read_skill" in res.note


def test_runs_read_skill_counts_runs_with_any_read():
    from experiments.evoharness.policy import runs_read_skill
    from sim.evolve.evoharness.online import TaskRecord

    rows = [TaskRecord(f"t{i}", "fam", 1, 100, 2, r, 0, 0) for i, r in
            enumerate((0, 1, 3, 0))]
    assert [x.skills_read for x in rows] == [0, 1, 3, 0]
    assert runs_read_skill(rows) == 2 and runs_read_skill([]) == 0


def test_contextevo_table5_held_in(tmp_path):
    def row(d, lo, hi, split="held_in"):
        _write(tmp_path / "contextevo.csv",
               [{"setting": "loca128k", "start": "react", "variant": "full", "stage":
                 "iter2", "split": split, "diff_vs_start": d, "diff_lo": lo,
                 "diff_hi": hi}])
    row(0.15, 0.03, 0.27)
    assert _v(tmp_path, "CE-Tab5-full-held-in").verdict is R
    row(-0.05, -0.1, 0.0)
    assert _v(tmp_path, "CE-Tab5-full-held-in").verdict is NR
    row(0.15, 0.03, 0.27, split="held_out")                # no held-in row
    assert _v(tmp_path, "CE-Tab5-full-held-in").verdict is NT


# -- the rows that are not testable, and the roles of the new VISTA numbers ----------------------
NOT_TESTABLE = ("Tab3-RL", "Fig7-RL-dynamics", "Tab4-AMA", "CE-Tab4-TACO", "CE-transfer",
                "EH-Tab4-crossover", "EH-Tab3-crossover", "EH-Tab2-PTE", "EH-Fig6-pairing")


def test_the_issues_claims_are_registered_and_untestable_rows_say_why(tmp_path):
    for cid in NOT_TESTABLE:
        c = REGISTRY[cid]
        assert c.check is None and len(c.why) > 40, cid
        res = judge(c, tmp_path)
        assert res.verdict is NT and res.note == c.why
    checked = ("Fig4-16K", "Fig4-32K", "Fig4-64K", "Fig4-256K", "Fig8b-vista-archives",
               "Fig8b-vista-recoveries", "Fig8b-no-dashboard-archives",
               "Fig8b-no-dashboard-recoveries", "Fig9-rescue-loop", "Fig10-fixed-overhead",
               "Tab5-blind-uncorrelated-block", "Tab5-blind-uncorrelated-total",
               "Tab7-steps", "CE-Tab4-compression", "CE-invocation-gap",
               "CE-Tab5-full-held-in")
    assert all(REGISTRY[c].check is not None for c in checked)
    # every new VISTA number is VISTA's own: predicted, never fitted
    for cid in ("Fig9-rescue-loop", "Fig10-fixed-overhead", "Tab7-steps"):
        cells = REGISTRY[cid].number.cells
        assert cells and all(x.role is Role.PREDICT for x in cells.values()), cid
    assert REGISTRY["Tab7-steps"].number["steps"] == 36.4
    assert REGISTRY["Fig10-fixed-overhead"].number["fixed_overhead"] == 492
    assert REGISTRY["Fig8b-no-dashboard-archives"].number["archives"] == 255
    assert REGISTRY["CE-invocation-gap"].paper is Paper.CONTEXTEVO
    assert REGISTRY["EH-Fig6-pairing"].number["sonnet_same"] == 55.3


def test_robustness_leaves_out_the_levels_it_does_not_play():
    from experiments.claims.robustness.model import agent_claims, played

    ids = {c.id for c in agent_claims()}
    assert not ids & {"Fig4-16K", "Fig4-32K", "Fig4-64K", "Fig4-256K"}
    # played, but their checks have no paired effect yet: left out, and said so
    from experiments.claims.robustness.effects import supported
    from experiments.claims.robustness.run import NOT_INCLUDED

    for cid in ("Fig9-rescue-loop", "Tab7-steps", "Fig8b-vista-recoveries"):
        assert played(REGISTRY[cid]) and not supported(REGISTRY[cid]) and cid not in ids
    assert "Fig. 9's rescue share" in NOT_INCLUDED
    assert played(REGISTRY["Fig4-decline"]) and not played(REGISTRY["Fig4-256K"])
