"""VISTA's checkable claims ("LLM Agents Are Latent Context Managers", /work/shared/seeds
001_*): Theorem 1 and its corollaries, Propositions 1-2, Fig. 4, 6, 8, 10 and Tables
1, 2, 5.

The paper's numbers are transcribed once, into the tables below (the extracted text
lost the table bodies; every number here is from the running text, section given),
and each claim takes its cells from them.
"""

from __future__ import annotations

from experiments.claims.checks.vista import (AblationGap, AblationRatio, Footprint,
                                             PairedEpisodes, PairedGrowth, PairedTie,
                                             PerceptionAccuracy, PerceptionGain,
                                             PerceptionMedian, Rank, VisibleSlopes,
                                             WindowGap, WindowPeak)
from experiments.claims.checks.vista_theory import (BoundRows, LedgerEndpoint, LimitToOne,
                                                    Prop1Rows, QuadratureRows, TheoryRows,
                                                    UpperBoundRows)
from experiments.claims.records import Cell, CellValues, Claim, Paper, PaperNumber, Role

P = Paper.VISTA
#: the paper's main LOCA-Bench setting (§3.1, §3.3)
LOCA = "LOCA-Bench, 75 tasks, Gemini-3-Flash, budget 128K"
#: the ablations' setting (§3.7; experiments/vista/ablations.py: 256K growth)
FIG8_AT = "LOCA-Bench, 75 tasks, Gemini-3-Flash (Fig. 8)"

#: §3.3 / Fig. 4 / Table 1: solved (%) at 8K and 128K context growth; mean tokens per task
FIG4 = {"vista_8k": 86.7, "react_8k": 84.0, "vista_128k": 50.7, "react_128k": 22.7,
        "vista_tokens": 2.86e6, "react_tokens": 3.51e6}
#: §3.3 / Fig. 6: BrowseComp-Plus accuracy (%) at W = 12K
FIG6 = {"vista": 58.0, "baseline": 52.0}
#: §3.7 / Fig. 8: solved of 75; archive and recovery events (Fig. 8b)
FIG8 = {"vista": 38, "no_archive": 27, "no_dashboard": 28, "vista_archives": 69,
        "vista_recoveries": 105, "no_dashboard_archives": 255,
        "no_dashboard_recoveries": 57}
#: §3.2 / Table 2: cache-aware dollars per task
TABLE2 = {"vista": 0.93, "active_compression": 1.02, "claude_code": 1.05, "react": 1.26}
#: §4 / Table 5 and App. I: median relative size error with/without the ledger;
#: pairwise accuracy "toward perfect" (read as >= 0.9: the paper gives no number)
TABLE5 = {"blind_total_lo": 0.43, "blind_total_hi": 0.84, "ledger_total": 0.0,
          "ledger_block_lo": 0.0, "ledger_block_hi": 0.02, "pairwise_lo": 0.9,
          "pairwise_hi": 1.0}
#: §4 / Fig. 10: dashboard peak (tokens) near N blocks, visible-set slopes around the bend
FIG10 = {"peak": 340, "peak_n": 62, "early_slope": 0.72, "late_slope": 0.33, "bend_n": 62}
#: §3.6 / Table 1: GAIA accuracy (%)
TABLE1_GAIA = {"vista": 73.3, "claude_code": 73.9}

FIT, PREDICT = Role.FIT, Role.PREDICT
#: The fit/predict split of every cell above (issue 30), declared before any posterior
#: is computed. FIT: what the baselines did (ReAct, Active Context Compression, Claude
#: Code, the strongest BrowseComp-Plus baseline) and what Table 5 measured of the
#: agent's perception (a property of the model, with or without the dashboard), the
#: observations a world of the baselines' mechanisms is fitted to. PREDICT: every
#: number of VISTA and its ablations (Fig. 4's and Fig. 6's VISTA cells, Fig. 8's
#: solved counts and event counts, Table 2's $0.93, Fig. 10's footprint, GAIA's 73.3):
#: a world fitted to the FIT cells either predicts them or it does not.
ROLES: dict[str, dict[str, Role]] = {
    "FIG4": {"vista_8k": PREDICT, "react_8k": FIT, "vista_128k": PREDICT,
             "react_128k": FIT, "vista_tokens": PREDICT, "react_tokens": FIT},
    "FIG6": {"vista": PREDICT, "baseline": FIT},
    "FIG8": dict.fromkeys(FIG8, PREDICT),
    "TABLE2": {"vista": PREDICT, "active_compression": FIT, "claude_code": FIT,
               "react": FIT},
    "TABLE5": dict.fromkeys(TABLE5, FIT),
    "FIG10": dict.fromkeys(FIG10, PREDICT),
    "TABLE1_GAIA": {"vista": PREDICT, "claude_code": FIT},
}
#: the tables by name, and where in the paper each is from
TABLES: dict[str, tuple[dict, str]] = {
    "FIG4": (FIG4, "§3.3 Fig. 4 / Table 1"), "FIG6": (FIG6, "§3.3 Fig. 6"),
    "FIG8": (FIG8, "§3.7 Fig. 8"), "TABLE2": (TABLE2, "§3.2 Table 2"),
    "TABLE5": (TABLE5, "§4 Table 5, App. I"), "FIG10": (FIG10, "§4 Fig. 10"),
    "TABLE1_GAIA": (TABLE1_GAIA, "§3.6 Table 1"),
}


def cell(name: str, key: str) -> Cell:
    """The cell ``key`` of table ``name`` with its role.

    Raises:
        KeyError: naming the table or key, for an unknown one.
    """
    if name not in TABLES:
        raise KeyError(f"no table {name!r}; tables: {sorted(TABLES)}")
    table, where = TABLES[name]
    if key not in table:
        raise KeyError(f"table {name} has no cell {key!r}; cells: {sorted(table)}")
    return Cell(f"{name}:{key}", table[key], ROLES[name][key], where)

# The judge's tolerances (ours, not the paper's), each with its reason:
#: "essentially tied" at 8K: the paper's difference is 2.7 points on 75 tasks, whose
#: binomial SE alone is ~4 points; a tie holds if our interval stays within +-10 points
TIE_MARGIN = 0.10
#: Fig. 10's numbers are read off a figure ("roughly 340", "near 62"): a peak within
#: 2x and slopes within 0.2 of the paper's count as the same number
PEAK_FACTOR = 2.0
SLOPE_TOL = 0.2
#: Fig. 8b's counts are from one 75-task run of a real model: a ratio within 1.5x
RATIO_FACTOR = 1.5
#: Prop. 2's limit E[Z]/kappa -> 1 counts as reached at 0.9 at the largest n
LIMIT_THRESHOLD = 0.9


def fig8_counts() -> dict[str, dict[str, int]]:
    """Fig. 8 as ``ctxsim run ablations`` sets it beside its rows:
    ``{variant: {"solved" | "archives" | "recoveries": count}}`` (of 75 tasks; the
    counts of :data:`FIG8`, held once here)."""
    return {"vista": {"solved": FIG8["vista"], "archives": FIG8["vista_archives"],
                      "recoveries": FIG8["vista_recoveries"]},
            "vista_no_archive": {"solved": FIG8["no_archive"]},
            "vista_no_dashboard": {"solved": FIG8["no_dashboard"],
                                   "archives": FIG8["no_dashboard_archives"],
                                   "recoveries": FIG8["no_dashboard_recoveries"]}}


def _pick(table: dict, **labels: str) -> CellValues:
    """``{label: table[key]}``: the cells a claim uses, under the labels its check
    reads, each with its :class:`~experiments.claims.records.Cell` (role included)."""
    name = next(n for n, (t, _) in TABLES.items() if t is table)
    return CellValues({label: cell(name, key) for label, key in labels.items()})


def _theory(*, id, item, where, statement, text, module, command, csv, columns, check):
    return Claim(id=id, paper=P, item=item, where=where, statement=statement,
                 number=PaperNumber(text, unit="tokens / bits",
                                    setting="any n, kappa, size law (distribution-free)"),
                 module=module, command=command, figure=csv.replace(".csv", ".png"),
                 csv=csv, columns=columns, check=check,
                 checked_at="the experiment's (n, kappa, sigma) grid")


T1 = dict(module="experiments.vista.theorem1", command="ctxsim run theorem1",
          csv="theorem1.csv")
P2 = dict(module="experiments.vista.proposition2", command="ctxsim run proposition2",
          csv="proposition2.csv")

CLAIMS: tuple[Claim, ...] = (
    _theory(id="T1-sum", item="Thm. 1", where="§2.6 Thm. 1 (sum form), App. B",
            statement="E[Z] >= sum_t [1 - (I+1)/log2(n/t)]_+ for every channel",
            text="a lower bound on E[Z]", **T1, columns=("EZ", "EZ_se", "bound_sum"),
            check=BoundRows("bound_sum")),
    _theory(id="T1-affine", item="Thm. 1", where="§2.6 Thm. 1, eq. 12 (affine floor)",
            statement="E[Z] >= kappa [1 - (I+1)/nu]_+, nu = log2(n/kappa)",
            text="a lower bound on E[Z]", **T1, columns=("EZ", "EZ_se", "bound_affine"),
            check=BoundRows("bound_affine")),
    _theory(id="T1-ledger", item="Thm. 1", where="§2.6 Cor. (endpoints)",
            statement="a full size ledger identifies the bulky block: I = log2 n, Z = 0",
            text="I = log2 n, E[Z] = 0", **T1,
            columns=("rate_bits", "EZ", "channel=ledger"), check=LedgerEndpoint()),
    _theory(id="T1-blind", item="Thm. 1", where="§2.6 Cor. (endpoints)",
            statement="size-blind random order: E[Z] = kappa - kappa(kappa+1)/(2n)",
            text="closed form", **T1, columns=("EZ", "EZ_theory", "channel=blind"),
            check=TheoryRows("blind")),
    _theory(id="T1-list", item="Thm. 1", where="App. D (achievability, list channel)",
            statement="list channel of rate r: E[Z] = kappa - kappa(kappa+1)/(2m), m = n "
                      "2^-r",
            text="closed form", **T1, columns=("EZ", "EZ_theory", "channel=list"),
            check=TheoryRows("list")),
    _theory(id="T1-window", item="Thm. 1",
            where="THEORY.md §2 (windowed ledger; our extension)",
            statement="a ledger capped to w rows: E[Z] = (1-w/n)[kappa - "
                      "kappa(kappa+1)/(2(n-w))]",
            text="closed form", **T1, columns=("EZ", "EZ_theory", "channel=windowed"),
            check=TheoryRows("windowed")),
    _theory(id="P2-bound", item="Prop. 2", where="§2.6 Prop. 2, App. C",
            statement="content-only rate I <= (ln 2)(log2 kappa)^2 / sigma^2 bits",
            text="an upper bound, constant in n", **P2,
            columns=("rate_bits", "paper_bound_bits"),
            check=UpperBoundRows("paper_bound_bits")),
    _theory(id="P2-centroid", item="Prop. 2",
            where="THEORY.md §3 (centroid bound; our extension)",
            statement="I <= (1-1/n)(ln kappa)^2/(2 sigma^2 ln 2) bits (about half the "
                      "paper's)",
            text="an upper bound", **P2, columns=("rate_bits", "centroid_bound_bits"),
            check=UpperBoundRows("centroid_bound_bits")),
    _theory(id="P2-limit", item="Prop. 2", where="§2.6 Prop. 2 (consequence)",
            statement="for fixed kappa, sigma the content agent over-archives: E[Z]/kappa "
                      "-> 1",
            text="E[Z]/kappa -> 1 as n grows", **P2,
            columns=("EZ_over_kappa", "paper_bound_bits",
                     "threshold_bits"), check=LimitToOne(LIMIT_THRESHOLD)),
    _theory(id="P2-quadrature", item="Prop. 2", where="THEORY.md §3 (semi-analytic E[Z])",
            statement="E[Z] of the Bayes order = a one-dimensional quadrature",
            text="quadrature", **P2, columns=("EZ", "EZ_quadrature", "EZ_se"),
            check=QuadratureRows()),
    _theory(id="P1-lossy", item="Prop. 1", where="§2.6 Prop. 1, App. A",
            statement="a lossy compressor keeping B bits answers all later queries with "
                      "probability at most the bound", text="success <= bound",
            module="experiments.vista.proposition1", command="ctxsim run proposition1",
            csv="proposition1.csv", columns=("success", "success_se", "bound"),
            check=Prop1Rows()),
    # -- Fig. 4 / Table 1: pressure sweep ----------------------------------------------
    Claim(id="Fig4-8K", paper=P, item="Fig. 4", where="§3.3 (8K growth)",
          statement="at 8K the methods are essentially tied (VISTA 86.7 vs ReAct 84.0)",
          number=PaperNumber("86.7 vs 84.0", _pick(FIG4, vista="vista_8k", react="react_8k"),
                             "%", LOCA + ", 8K growth"),
          module="experiments.vista.pressure", command="ctxsim run pressure",
          figure="pressure.png", csv="pressure_episodes.csv", columns=("solved",),
          check=PairedTie("pressure_episodes.csv", "solved", "vista", "react", 8000, TIE_MARGIN),
          checked_at="synthetic LOCA-like tasks, 8K growth, budget 128K"),
    Claim(id="Fig4-128K", paper=P, item="Fig. 4", where="§3.3, Table 1 (128K growth)",
          statement="by 128K the gap is 50.7 versus 22.7 (VISTA vs ReAct)",
          number=PaperNumber("50.7 vs 22.7", _pick(FIG4, vista="vista_128k", react="react_128k"),
                             "%", LOCA + ", 128K growth"),
          module="experiments.vista.pressure", command="ctxsim run pressure",
          figure="pressure.png", csv="pressure_episodes.csv", columns=("solved",),
          check=PairedEpisodes("pressure_episodes.csv", "solved", "vista", "react", 128000,
                               labels=("vista", "react"), scale=0.01, comparable=True,
                               unit=0.01, unit_name="%"),
          checked_at="synthetic LOCA-like tasks, 128K growth, budget 128K"),
    Claim(id="Fig4-decline", paper=P, item="Fig. 4", where="§3.3 (8K -> 128K growth)",
          statement="VISTA's accuracy declines under pressure: 86.7 at 8K to 50.7 at 128K",
          number=PaperNumber("86.7 -> 50.7", _pick(FIG4, at128="vista_128k", at8="vista_8k"),
                             "%", LOCA + ", 8K and 128K growth"),
          module="experiments.vista.pressure", command="ctxsim run pressure",
          figure="pressure.png", csv="pressure_episodes.csv", columns=("solved",),
          check=PairedEpisodes("pressure_episodes.csv", "solved", "vista", "vista", 128000,
                               b_level=8000, labels=("at128", "at8"), scale=0.01,
                               comparable=True, unit=0.01, unit_name="%"),
          checked_at="synthetic LOCA-like tasks at 128K vs 8K growth (same tasks paired)"),
    Claim(id="Fig4-gap-grows", paper=P, item="Fig. 4", where="§3.3 (8K -> 128K growth)",
          statement="the methods are close at low pressure, but the gap opens as "
                    "distractor volume grows (2.7 points at 8K, 28.0 at 128K)",
          number=PaperNumber("+2.7 -> +28.0 points", _pick(FIG4, a_lo="vista_8k", b_lo="react_8k",
                                                           a_hi="vista_128k",
                                                           b_hi="react_128k"),
                             "%", LOCA + ", 8K and 128K growth"),
          module="experiments.vista.pressure", command="ctxsim run pressure",
          figure="pressure.png", csv="pressure_episodes.csv", columns=("solved",),
          check=PairedGrowth("pressure_episodes.csv", "solved", "vista", "react", 128000, 8000),
          checked_at="synthetic LOCA-like tasks at 8K and 128K growth (same tasks paired)"),
    Claim(id="Fig4-tokens", paper=P, item="Fig. 4", where="§3.3 (128K growth)",
          statement="VISTA also spends fewer average tokens (2.86M vs 3.51M for ReAct)",
          number=PaperNumber("2.86M vs 3.51M", _pick(FIG4, vista="vista_tokens",
                                                      react="react_tokens"),
                             "tokens per task", LOCA + ", 128K growth"),
          module="experiments.vista.pressure", command="ctxsim run pressure",
          figure="pressure.png", csv="pressure_episodes.csv", columns=("total_tokens",),
          check=PairedEpisodes("pressure_episodes.csv", "total_tokens", "vista", "react", 128000,
                               labels=("vista", "react"), unit=1e6, unit_name="M tokens"),
          checked_at="synthetic LOCA-like tasks, 128K growth (synthetic tokens: sign only)"),
    Claim(id="Tab1-vs-auto-archive", paper=P, item="Table 1",
          where="§3.2 Table 1 (LOCA-Bench)",
          statement="VISTA solves more LOCA-Bench tasks than Auto-Archive + Recover "
                    "(VISTA's 50.7% is the best of Table 1)",
          number=PaperNumber("VISTA 50.7%, the best row; Auto-Archive + Recover's cell was lost "
                             "in the text extraction", _pick(FIG4, vista="vista_128k"), "%",
                             LOCA + ", 128K growth"), module="experiments.vista.pressure",
          command="ctxsim run pressure", figure="pressure.png", csv="pressure_episodes.csv",
          columns=("solved",),
          check=PairedEpisodes("pressure_episodes.csv", "solved", "vista", "auto_archive",
                               128000, sign=1, unit=0.01, unit_name="%"),
          checked_at="synthetic LOCA-like tasks, 128K growth"),
    # -- Fig. 6: window sweep -----------------------------------------------------------
    Claim(id="Fig6-12K", paper=P, item="Fig. 6", where="§3.3, Table 1 (W = 12K)",
          statement="at W = 12K VISTA reaches 58.0% vs 52.0% for the strongest baseline",
          number=PaperNumber("58.0 vs 52.0", _pick(FIG6, vista="vista", baseline="baseline"), "%", "BrowseComp-Plus, W = 12K"),
          module="experiments.vista.window", command="ctxsim run window",
          figure="window.png", csv="window.csv",
          columns=("accuracy", "acc_diff_vs_vista", "acc_diff_lo", "acc_diff_hi"),
          check=WindowGap(12000, ("vista", "baseline")),
          checked_at="synthetic retrieval-then-synthesis tasks, W = 12K; ReAct as the "
                     "baseline"),
    Claim(id="Fig6-active", paper=P, item="Fig. 6", where="§3.3",
          statement="VISTA uses less active context than ReAct ...",
          number=PaperNumber("lower mean active context", setting="BrowseComp-Plus, W = 12K"),
          module="experiments.vista.window", command="ctxsim run window",
          figure="window.png", csv="window_episodes.csv", columns=("mean_active",),
          check=PairedEpisodes("window_episodes.csv", "mean_active", "vista", "react", 12000,
                               sign=-1, unit=1e3, unit_name="K tokens"),
          checked_at="synthetic retrieval tasks, W = 12K"),
    Claim(id="Fig6-cumulative", paper=P, item="Fig. 6", where="§3.3",
          statement="... though more cumulative API tokens (it survives longer)",
          number=PaperNumber("higher total tokens", setting="BrowseComp-Plus, W = 12K"),
          module="experiments.vista.window", command="ctxsim run window",
          figure="window.png", csv="window_episodes.csv", columns=("total_tokens",),
          check=PairedEpisodes("window_episodes.csv", "total_tokens", "vista", "react", 12000,
                               sign=1, unit=1e3, unit_name="K tokens"),
          checked_at="synthetic retrieval tasks, W = 12K"),
    Claim(id="Fig6-peak", paper=P, item="Fig. 6", where="§3.3",
          statement="tiny windows make the dashboard costly, large ones let ReAct keep the "
                    "evidence: the gain peaks in the middle",
          number=PaperNumber("interior maximum of the gain", setting="BrowseComp-Plus, W "
                                                                     "swept"),
          module="experiments.vista.window", command="ctxsim run window",
          figure="window.png", csv="window.csv",
          columns=("accuracy", "acc_diff_vs_vista", "acc_diff_lo", "acc_diff_hi"),
          check=WindowPeak(), checked_at="synthetic retrieval tasks, W = 4K-64K"),
    # -- Fig. 8: ablations ---------------------------------------------------------------
    Claim(id="Fig8a-no-archive", paper=P, item="Fig. 8", where="§3.7 Fig. 8a",
          statement="removing archive is costly: 27/75 vs the full 38/75",
          number=PaperNumber("27 vs 38 of 75", _pick(FIG8, ablation="no_archive", full="vista"),
                             "tasks of 75", FIG8_AT), module="experiments.vista.ablations",
          command="ctxsim run ablations", figure="ablations.png", csv="ablations.csv",
          columns=("solved_diff_vs_vista", "solved_diff_lo", "solved_diff_hi"),
          check=AblationGap("vista_no_archive", ("ablation", "full")),
          checked_at="synthetic LOCA-like tasks (the ablations' grid)"),
    Claim(id="Fig8a-no-dashboard", paper=P, item="Fig. 8", where="§3.7 Fig. 8a",
          statement="removing the dashboard is costly: 28/75 vs the full 38/75",
          number=PaperNumber("28 vs 38 of 75", _pick(FIG8, ablation="no_dashboard", full="vista"),
                             "tasks of 75", FIG8_AT), module="experiments.vista.ablations",
          command="ctxsim run ablations", figure="ablations.png", csv="ablations.csv",
          columns=("solved_diff_vs_vista", "solved_diff_lo", "solved_diff_hi"),
          check=AblationGap("vista_no_dashboard", ("ablation", "full")),
          checked_at="synthetic LOCA-like tasks (the ablations' grid)"),
    Claim(id="Fig8a-no-recover", paper=P, item="Fig. 8", where="§3.7 Fig. 8a",
          statement="removing a capability is costly: hiding payload paths (no-recover) "
                    "falls below the full 38/75",
          number=PaperNumber("below 38/75 (the bar's value was lost in the text extraction)",
                             _pick(FIG8, full="vista"), "tasks of 75", FIG8_AT),
          module="experiments.vista.ablations", command="ctxsim run ablations",
          figure="ablations.png", csv="ablations.csv",
          columns=("solved_diff_vs_vista", "solved_diff_lo", "solved_diff_hi"),
          check=AblationGap("vista_no_recover"),
          checked_at="synthetic LOCA-like tasks (the ablations' grid)"),
    Claim(id="Fig8a-fixed-archive", paper=P, item="Fig. 8", where="§3.7 Fig. 8a",
          statement="removing a capability is costly: a fixed archive rule in place of the "
                    "agent's choice falls below the full 38/75",
          number=PaperNumber("below 38/75 (the bar's value was lost in the text extraction)",
                             _pick(FIG8, full="vista"), "tasks of 75", FIG8_AT),
          module="experiments.vista.ablations", command="ctxsim run ablations",
          figure="ablations.png", csv="ablations.csv",
          columns=("solved_diff_vs_vista", "solved_diff_lo", "solved_diff_hi"),
          check=AblationGap("vista_fixed_archive"),
          checked_at="synthetic LOCA-like tasks (the ablations' grid)"),
    Claim(id="Fig8a-interface", paper=P, item="Fig. 8", where="§3.7 Fig. 8a",
          statement="the reworded and status-board variants stay within a point or two of "
                    "the full 38/75",
          number=PaperNumber("within 1-2 of 38/75", _pick(FIG8, full="vista"),
                             "tasks of 75", FIG8_AT), module="experiments.vista.ablations",
          command="ctxsim run ablations", figure="ablations.png", csv="ablations.csv",
          columns=("solved",), check=None, checked_at="-",
          why="needs a real model: a synthetic agent reads neither the protocol's wording "
              "nor the board's layout"),
    Claim(id="Fig8b-archives", paper=P, item="Fig. 8", where="§3.7 Fig. 8b",
          statement="without the dashboard the agent archives far more: 255 vs 69 events",
          number=PaperNumber("255 / 69 = 3.70x", _pick(FIG8, without="no_dashboard_archives",
                                                       with_="vista_archives"), "events", FIG8_AT),
          module="experiments.vista.ablations", command="ctxsim run ablations",
          figure="ablations.png", csv="ablations_episodes.csv", columns=("agent_archives",),
          check=AblationRatio("agent_archives", ("without", "with_"), factor=RATIO_FACTOR),
          checked_at="synthetic LOCA-like tasks (the ablations' grid)"),
    Claim(id="Fig8b-recoveries", paper=P, item="Fig. 8", where="§3.7 Fig. 8b",
          statement="without the dashboard the agent recovers less: 57 vs 105 events",
          number=PaperNumber("57 / 105 = 0.54x", _pick(FIG8, without="no_dashboard_recoveries",
                                                       with_="vista_recoveries"), "events", FIG8_AT),
          module="experiments.vista.ablations", command="ctxsim run ablations",
          figure="ablations.png", csv="ablations_episodes.csv", columns=("recoveries",),
          check=AblationRatio("recoveries", ("without", "with_"), factor=RATIO_FACTOR),
          checked_at="synthetic LOCA-like tasks (the ablations' grid)"),
    # -- Table 2: cost ---------------------------------------------------------------------
    Claim(id="Tab2-cheapest", paper=P, item="Table 2", where="§3.2 Table 2",
          statement="VISTA remains the least expensive at $0.93 per task",
          number=PaperNumber("first by cost ($0.93 vs $1.02 ACC, $1.05 Claude Code, $1.26 ReAct)",
                             _pick(TABLE2, **{k: k for k in TABLE2}), "$ per task",
                             LOCA + ", Gemini-3-Flash pricing"),
          module="experiments.vista.cost", command="ctxsim run cost", figure="cost.png",
          csv="cost_episodes.csv", columns=("cost_usd",),
          check=Rank("cost_episodes.csv", "cost_usd", "vista", lowest=True),
          checked_at="synthetic LOCA-like tasks at 128K, the paper's prices"),
    Claim(id="Tab2-vs-react", paper=P, item="Table 2", where="§3.2 Table 2",
          statement="VISTA costs less per task than ReAct ($0.93 vs $1.26)",
          number=PaperNumber("$0.93 vs $1.26", _pick(TABLE2, vista="vista", react="react"),
                             "$ per task", LOCA + ", Gemini-3-Flash pricing"),
          module="experiments.vista.cost", command="ctxsim run cost", figure="cost.png",
          csv="cost_episodes.csv", columns=("cost_usd",),
          check=PairedEpisodes("cost_episodes.csv", "cost_usd", "vista", "react", None,
                               labels=("vista", "react"), unit_name=" $"),
          checked_at="synthetic LOCA-like tasks at 128K (synthetic dollars: sign only)"),
    Claim(id="Tab2-vs-acc", paper=P, item="Table 2", where="§3.2 Table 2",
          statement="VISTA costs less per task than Active Context Compression ($0.93 vs "
                    "$1.02)",
          number=PaperNumber("$0.93 vs $1.02", _pick(TABLE2, vista="vista",
                                                     acc="active_compression"),
                             "$ per task", LOCA + ", Gemini-3-Flash pricing"),
          module="experiments.vista.cost", command="ctxsim run cost", figure="cost.png",
          csv="cost_episodes.csv", columns=("cost_usd",),
          check=PairedEpisodes("cost_episodes.csv", "cost_usd", "vista", "active_compression",
                               None, labels=("vista", "acc"), unit_name=" $"),
          checked_at="synthetic LOCA-like tasks at 128K (synthetic dollars: sign only)"),
    Claim(id="Tab2-accuracy", paper=P, item="Table 2", where="§3.2 Table 2",
          statement="... while achieving the highest accuracy",
          number=PaperNumber("first by accuracy", setting=LOCA),
          module="experiments.vista.cost", command="ctxsim run cost", figure="cost.png",
          csv="cost_episodes.csv", columns=("solved",),
          check=Rank("cost_episodes.csv", "solved", "vista", lowest=False),
          checked_at="synthetic LOCA-like tasks at 128K"),
    # -- Table 5: perception probe (a small real model) ---------------------------------
    Claim(id="Tab5-blind", paper=P, item="Table 5", where="§4 Table 5",
          statement="without the dashboard every backbone misjudges size: median relative "
                    "total-size error 0.43-0.84",
          number=PaperNumber("0.43-0.84", _pick(TABLE5, lo="blind_total_lo", hi="blind_total_hi"),
                             "relative error", "first archive moment of real LOCA-Bench runs, "
                             "four hosted backbones"),
          module="experiments.vista.perception", command="ctxsim run perception",
          figure="perception.png", csv="perception.csv",
          columns=("rel_error", "quantity=total", "condition=-dash"),
          check=PerceptionMedian("-dash", "total"),
          checked_at="a small local model on replayed trajectories", at_paper_setting=False),
    Claim(id="Tab5-ledger", paper=P, item="Table 5", where="§4 Table 5",
          statement="the factual ledger reduces total-size error to zero",
          number=PaperNumber("0", _pick(TABLE5, lo="ledger_total", hi="ledger_total"),
                             "relative error", "four hosted backbones"),
          module="experiments.vista.perception", command="ctxsim run perception",
          figure="perception.png", csv="perception.csv",
          columns=("rel_error", "quantity=total", "condition=+dash"),
          check=PerceptionMedian("+dash", "total"),
          checked_at="a small local model on replayed trajectories", at_paper_setting=False),
    Claim(id="Tab5-block-ledger", paper=P, item="Table 5", where="§4 Table 5",
          statement="with the ledger, block-size error falls to 0-0.02",
          number=PaperNumber("0-0.02", _pick(TABLE5, lo="ledger_block_lo", hi="ledger_block_hi"),
                             "relative error", "four hosted backbones"),
          module="experiments.vista.perception", command="ctxsim run perception",
          figure="perception.png", csv="perception.csv",
          columns=("rel_error", "quantity=block", "condition=+dash"),
          check=PerceptionMedian("+dash", "block"),
          checked_at="a small local model on replayed trajectories", at_paper_setting=False),
    Claim(id="Tab5-pairwise", paper=P, item="Table 5", where="§4 Table 5, App. I",
          statement="with the ledger, pairwise size discrimination (pairs within 2x) is "
                    "near perfect",
          number=PaperNumber("'toward perfect' (no number in the text; read as >= 0.9)",
                             _pick(TABLE5, lo="pairwise_lo", hi="pairwise_hi"), "accuracy",
                             "four hosted backbones"),
          module="experiments.vista.perception", command="ctxsim run perception",
          figure="perception.png", csv="perception.csv",
          columns=("correct", "quantity=pairwise", "condition=+dash"),
          check=PerceptionAccuracy("+dash"),
          checked_at="a small local model on replayed trajectories", at_paper_setting=False),
    Claim(id="Tab5-pairwise-gain", paper=P, item="Table 5", where="§4 Table 5",
          statement="the ledger lifts pairwise size accuracy",
          number=PaperNumber("+dash above -dash", setting="four hosted backbones"),
          module="experiments.vista.perception", command="ctxsim run perception",
          figure="perception.png", csv="perception.csv",
          columns=("correct", "quantity=pairwise"), check=PerceptionGain(),
          checked_at="a small local model on replayed trajectories", at_paper_setting=False),
    # -- Fig. 10: dashboard overhead -----------------------------------------------------
    Claim(id="Fig10-footprint", paper=P, item="Fig. 10", where="§4 Fig. 10a",
          statement="the dashboard's net footprint peaks near N ~ 62 blocks at roughly 340 "
                    "tokens and then declines",
          number=PaperNumber("peak ~340 tokens near N ~ 62, then declining",
                             _pick(FIG10, peak="peak", peak_n="peak_n"), "tokens",
                             "three n = 30 BrowseComp-Plus runs, deepseek-v4-pro, W = 12,288"),
          module="experiments.vista.overhead", command="ctxsim run overhead",
          figure="overhead.png", csv="overhead.csv",
          columns=("dashboard_tokens", "registered", "setting=W=12288",
                   "dashboard=ledger"), check=Footprint("W=12288", factor=PEAK_FACTOR),
          checked_at="the longest replayed trajectory at W = 12,288 (not the paper's runs)",
          at_paper_setting=False),
    Claim(id="Fig10-visible", paper=P, item="Fig. 10", where="§4 Fig. 10b",
          statement="the visible set grows sublinearly, its fitted slope bending from 0.72 "
                    "to 0.33 near N ~ 62",
          number=PaperNumber("log-log slope 0.72 then 0.33, bend near N ~ 62",
                             _pick(FIG10, early_slope="early_slope", late_slope="late_slope",
                                   bend_n="bend_n"), "log-log slope",
                             "three n = 30 BrowseComp-Plus runs, W = 12,288"),
          module="experiments.vista.overhead", command="ctxsim run overhead",
          figure="overhead.png", csv="overhead.csv",
          columns=("visible", "registered", "setting=W=12288",
                   "dashboard=ledger"), check=VisibleSlopes("W=12288", tol=SLOPE_TOL),
          checked_at="the longest replayed trajectory at W = 12,288 (not the paper's runs)",
          at_paper_setting=False),
    # -- not testable here -------------------------------------------------------------
    Claim(id="Sec3.4-backbones", paper=P, item="§3.4", where="§3.4",
          statement="the same untrained layer improves all four tested backbones",
          number=PaperNumber("4 of 4 backbones", setting="LOCA-Bench 128K, four hosted "
                                                         "models"),
          module="-", command="-", figure="-", csv="-", columns=(), check=None,
          checked_at="-", why="needs real backbones (four hosted models)"),
    Claim(id="Tab1-GAIA", paper=P, item="Table 1", where="§3.2 Table 1",
          statement="on GAIA VISTA remains competitive (73.3% vs 73.9% Claude Code)",
          number=PaperNumber("73.3 vs 73.9", _pick(TABLE1_GAIA, vista="vista",
                                                        claude_code="claude_code"), "%", "GAIA"),
          module="-", command="-", figure="-", csv="-", columns=(), check=None,
          checked_at="-", why="no GAIA-like task generator in the package"),
)
