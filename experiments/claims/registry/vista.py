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
from experiments.claims.records import Claim, Paper, PaperNumber

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


def _pick(table: dict, **labels: str) -> dict:
    """``{label: table[key]}``: the cells a claim uses, under the labels its check reads."""
    return {label: table[key] for label, key in labels.items()}


def _theory(id, item, where, statement, text, module, command, csv, columns, check):
    return Claim(id=id, paper=P, item=item, where=where, statement=statement,
                 number=PaperNumber(text, unit="tokens / bits",
                                    setting="any n, kappa, size law (distribution-free)"),
                 module=module, command=command, figure=csv.replace(".csv", ".png"),
                 csv=csv, columns=columns, check=check,
                 checked_at="the experiment's (n, kappa, sigma) grid")


T1 = ("experiments.vista.theorem1", "ctxsim run theorem1", "theorem1.csv")
P2 = ("experiments.vista.proposition2", "ctxsim run proposition2", "proposition2.csv")

CLAIMS: tuple[Claim, ...] = (
    _theory("T1-sum", "Thm. 1", "§2.6 Thm. 1 (sum form), App. B",
            "E[Z] >= sum_t [1 - (I+1)/log2(n/t)]_+ for every channel",
            "a lower bound on E[Z]", *T1, ("EZ", "EZ_se", "bound_sum"),
            BoundRows("bound_sum")),
    _theory("T1-affine", "Thm. 1", "§2.6 Thm. 1, eq. 12 (affine floor)",
            "E[Z] >= kappa [1 - (I+1)/nu]_+, nu = log2(n/kappa)",
            "a lower bound on E[Z]", *T1, ("EZ", "EZ_se", "bound_affine"),
            BoundRows("bound_affine")),
    _theory("T1-ledger", "Thm. 1", "§2.6 Cor. (endpoints)",
            "a full size ledger identifies the bulky block: I = log2 n, Z = 0",
            "I = log2 n, E[Z] = 0", *T1, ("rate_bits", "EZ", "channel=ledger"),
            LedgerEndpoint()),
    _theory("T1-blind", "Thm. 1", "§2.6 Cor. (endpoints)",
            "size-blind random order: E[Z] = kappa - kappa(kappa+1)/(2n)",
            "closed form", *T1, ("EZ", "EZ_theory", "channel=blind"), TheoryRows("blind")),
    _theory("T1-list", "Thm. 1", "App. D (achievability, list channel)",
            "list channel of rate r: E[Z] = kappa - kappa(kappa+1)/(2m), m = n 2^-r",
            "closed form", *T1, ("EZ", "EZ_theory", "channel=list"), TheoryRows("list")),
    _theory("T1-window", "Thm. 1", "THEORY.md §2 (windowed ledger; our extension)",
            "a ledger capped to w rows: E[Z] = (1-w/n)[kappa - kappa(kappa+1)/(2(n-w))]",
            "closed form", *T1, ("EZ", "EZ_theory", "channel=windowed"),
            TheoryRows("windowed")),
    _theory("P2-bound", "Prop. 2", "§2.6 Prop. 2, App. C",
            "content-only rate I <= (ln 2)(log2 kappa)^2 / sigma^2 bits",
            "an upper bound, constant in n", *P2, ("rate_bits", "paper_bound_bits"),
            UpperBoundRows("paper_bound_bits")),
    _theory("P2-centroid", "Prop. 2", "THEORY.md §3 (centroid bound; our extension)",
            "I <= (1-1/n)(ln kappa)^2/(2 sigma^2 ln 2) bits (about half the paper's)",
            "an upper bound", *P2, ("rate_bits", "centroid_bound_bits"),
            UpperBoundRows("centroid_bound_bits")),
    _theory("P2-limit", "Prop. 2", "§2.6 Prop. 2 (consequence)",
            "for fixed kappa, sigma the content agent over-archives: E[Z]/kappa -> 1",
            "E[Z]/kappa -> 1 as n grows", *P2, ("EZ_over_kappa", "paper_bound_bits",
                                                "threshold_bits"),
            LimitToOne(LIMIT_THRESHOLD)),
    _theory("P2-quadrature", "Prop. 2", "THEORY.md §3 (semi-analytic E[Z])",
            "E[Z] of the Bayes order = a one-dimensional quadrature", "quadrature", *P2,
            ("EZ", "EZ_quadrature", "EZ_se"), QuadratureRows()),
    _theory("P1-lossy", "Prop. 1", "§2.6 Prop. 1, App. A",
            "a lossy compressor keeping B bits answers all later queries with "
            "probability at most the bound", "success <= bound",
            "experiments.vista.proposition1", "ctxsim run proposition1", "proposition1.csv",
            ("success", "success_se", "bound"), Prop1Rows()),
    # -- Fig. 4 / Table 1: pressure sweep ----------------------------------------------
    Claim("Fig4-8K", P, "Fig. 4", "§3.3 (8K growth)",
          "at 8K the methods are essentially tied (VISTA 86.7 vs ReAct 84.0)",
          PaperNumber("86.7 vs 84.0", _pick(FIG4, vista="vista_8k", react="react_8k"),
                      "%", LOCA + ", 8K growth"),
          "experiments.vista.pressure", "ctxsim run pressure", "pressure.png",
          "pressure_episodes.csv", ("solved",),
          PairedTie("pressure_episodes.csv", "solved", "vista", "react", 8000, TIE_MARGIN),
          "synthetic LOCA-like tasks, 8K growth, budget 128K"),
    Claim("Fig4-128K", P, "Fig. 4", "§3.3, Table 1 (128K growth)",
          "by 128K the gap is 50.7 versus 22.7 (VISTA vs ReAct)",
          PaperNumber("50.7 vs 22.7", _pick(FIG4, vista="vista_128k", react="react_128k"),
                      "%", LOCA + ", 128K growth"),
          "experiments.vista.pressure", "ctxsim run pressure", "pressure.png",
          "pressure_episodes.csv", ("solved",),
          PairedEpisodes("pressure_episodes.csv", "solved", "vista", "react", 128000,
                         labels=("vista", "react"), scale=0.01, comparable=True,
                         unit=0.01, unit_name="%"),
          "synthetic LOCA-like tasks, 128K growth, budget 128K"),
    Claim("Fig4-decline", P, "Fig. 4", "§3.3 (8K -> 128K growth)",
          "VISTA's accuracy declines under pressure: 86.7 at 8K to 50.7 at 128K",
          PaperNumber("86.7 -> 50.7", _pick(FIG4, at128="vista_128k", at8="vista_8k"),
                      "%", LOCA + ", 8K and 128K growth"),
          "experiments.vista.pressure", "ctxsim run pressure", "pressure.png",
          "pressure_episodes.csv", ("solved",),
          PairedEpisodes("pressure_episodes.csv", "solved", "vista", "vista", 128000,
                         b_level=8000, labels=("at128", "at8"), scale=0.01,
                         comparable=True, unit=0.01, unit_name="%"),
          "synthetic LOCA-like tasks at 128K vs 8K growth (same tasks paired)"),
    Claim("Fig4-gap-grows", P, "Fig. 4", "§3.3 (8K -> 128K growth)",
          "the methods are close at low pressure, but the gap opens as distractor "
          "volume grows (2.7 points at 8K, 28.0 at 128K)",
          PaperNumber("+2.7 -> +28.0 points", _pick(FIG4, a_lo="vista_8k", b_lo="react_8k",
                                                    a_hi="vista_128k",
                                                    b_hi="react_128k"),
                      "%", LOCA + ", 8K and 128K growth"),
          "experiments.vista.pressure", "ctxsim run pressure", "pressure.png",
          "pressure_episodes.csv", ("solved",),
          PairedGrowth("pressure_episodes.csv", "solved", "vista", "react", 128000, 8000),
          "synthetic LOCA-like tasks at 8K and 128K growth (same tasks paired)"),
    Claim("Fig4-tokens", P, "Fig. 4", "§3.3 (128K growth)",
          "VISTA also spends fewer average tokens (2.86M vs 3.51M for ReAct)",
          PaperNumber("2.86M vs 3.51M", _pick(FIG4, vista="vista_tokens",
                                               react="react_tokens"),
                      "tokens per task", LOCA + ", 128K growth"),
          "experiments.vista.pressure", "ctxsim run pressure", "pressure.png",
          "pressure_episodes.csv", ("total_tokens",),
          PairedEpisodes("pressure_episodes.csv", "total_tokens", "vista", "react", 128000,
                         labels=("vista", "react"), unit=1e6, unit_name="M tokens"),
          "synthetic LOCA-like tasks, 128K growth (synthetic tokens: sign only)"),
    Claim("Tab1-vs-auto-archive", P, "Table 1", "§3.2 Table 1 (LOCA-Bench)",
          "VISTA solves more LOCA-Bench tasks than Auto-Archive + Recover (VISTA's "
          "50.7% is the best of Table 1)",
          PaperNumber("VISTA 50.7%, the best row; Auto-Archive + Recover's cell was lost "
                      "in the text extraction", _pick(FIG4, vista="vista_128k"), "%",
                      LOCA + ", 128K growth"),
          "experiments.vista.pressure", "ctxsim run pressure", "pressure.png",
          "pressure_episodes.csv", ("solved",),
          PairedEpisodes("pressure_episodes.csv", "solved", "vista", "auto_archive",
                         128000, sign=1, unit=0.01, unit_name="%"),
          "synthetic LOCA-like tasks, 128K growth"),
    # -- Fig. 6: window sweep -----------------------------------------------------------
    Claim("Fig6-12K", P, "Fig. 6", "§3.3, Table 1 (W = 12K)",
          "at W = 12K VISTA reaches 58.0% vs 52.0% for the strongest baseline",
          PaperNumber("58.0 vs 52.0", FIG6, "%", "BrowseComp-Plus, W = 12K"),
          "experiments.vista.window", "ctxsim run window", "window.png", "window.csv",
          ("accuracy", "acc_diff_vs_vista", "acc_diff_lo", "acc_diff_hi"),
          WindowGap(12000, ("vista", "baseline")),
          "synthetic retrieval-then-synthesis tasks, W = 12K; ReAct as the baseline"),
    Claim("Fig6-active", P, "Fig. 6", "§3.3",
          "VISTA uses less active context than ReAct ...",
          PaperNumber("lower mean active context", setting="BrowseComp-Plus, W = 12K"),
          "experiments.vista.window", "ctxsim run window", "window.png",
          "window_episodes.csv", ("mean_active",),
          PairedEpisodes("window_episodes.csv", "mean_active", "vista", "react", 12000,
                         sign=-1, unit=1e3, unit_name="K tokens"),
          "synthetic retrieval tasks, W = 12K"),
    Claim("Fig6-cumulative", P, "Fig. 6", "§3.3",
          "... though more cumulative API tokens (it survives longer)",
          PaperNumber("higher total tokens", setting="BrowseComp-Plus, W = 12K"),
          "experiments.vista.window", "ctxsim run window", "window.png",
          "window_episodes.csv", ("total_tokens",),
          PairedEpisodes("window_episodes.csv", "total_tokens", "vista", "react", 12000,
                         sign=1, unit=1e3, unit_name="K tokens"),
          "synthetic retrieval tasks, W = 12K"),
    Claim("Fig6-peak", P, "Fig. 6", "§3.3",
          "tiny windows make the dashboard costly, large ones let ReAct keep the "
          "evidence: the gain peaks in the middle",
          PaperNumber("interior maximum of the gain", setting="BrowseComp-Plus, W swept"),
          "experiments.vista.window", "ctxsim run window", "window.png", "window.csv",
          ("accuracy", "acc_diff_vs_vista", "acc_diff_lo", "acc_diff_hi"), WindowPeak(),
          "synthetic retrieval tasks, W = 4K-64K"),
    # -- Fig. 8: ablations ---------------------------------------------------------------
    Claim("Fig8a-no-archive", P, "Fig. 8", "§3.7 Fig. 8a",
          "removing archive is costly: 27/75 vs the full 38/75",
          PaperNumber("27 vs 38 of 75", _pick(FIG8, ablation="no_archive", full="vista"),
                      "tasks of 75", FIG8_AT),
          "experiments.vista.ablations", "ctxsim run ablations", "ablations.png",
          "ablations.csv", ("solved_diff_vs_vista", "solved_diff_lo", "solved_diff_hi"),
          AblationGap("vista_no_archive", ("ablation", "full")),
          "synthetic LOCA-like tasks (the ablations' grid)"),
    Claim("Fig8a-no-dashboard", P, "Fig. 8", "§3.7 Fig. 8a",
          "removing the dashboard is costly: 28/75 vs the full 38/75",
          PaperNumber("28 vs 38 of 75", _pick(FIG8, ablation="no_dashboard", full="vista"),
                      "tasks of 75", FIG8_AT),
          "experiments.vista.ablations", "ctxsim run ablations", "ablations.png",
          "ablations.csv", ("solved_diff_vs_vista", "solved_diff_lo", "solved_diff_hi"),
          AblationGap("vista_no_dashboard", ("ablation", "full")),
          "synthetic LOCA-like tasks (the ablations' grid)"),
    Claim("Fig8a-no-recover", P, "Fig. 8", "§3.7 Fig. 8a",
          "removing a capability is costly: hiding payload paths (no-recover) falls below "
          "the full 38/75",
          PaperNumber("below 38/75 (the bar's value was lost in the text extraction)",
                      _pick(FIG8, full="vista"), "tasks of 75", FIG8_AT),
          "experiments.vista.ablations", "ctxsim run ablations", "ablations.png",
          "ablations.csv", ("solved_diff_vs_vista", "solved_diff_lo", "solved_diff_hi"),
          AblationGap("vista_no_recover"),
          "synthetic LOCA-like tasks (the ablations' grid)"),
    Claim("Fig8a-fixed-archive", P, "Fig. 8", "§3.7 Fig. 8a",
          "removing a capability is costly: a fixed archive rule in place of the agent's "
          "choice falls below the full 38/75",
          PaperNumber("below 38/75 (the bar's value was lost in the text extraction)",
                      _pick(FIG8, full="vista"), "tasks of 75", FIG8_AT),
          "experiments.vista.ablations", "ctxsim run ablations", "ablations.png",
          "ablations.csv", ("solved_diff_vs_vista", "solved_diff_lo", "solved_diff_hi"),
          AblationGap("vista_fixed_archive"),
          "synthetic LOCA-like tasks (the ablations' grid)"),
    Claim("Fig8a-interface", P, "Fig. 8", "§3.7 Fig. 8a",
          "the reworded and status-board variants stay within a point or two of the full "
          "38/75", PaperNumber("within 1-2 of 38/75", _pick(FIG8, full="vista"),
                               "tasks of 75", FIG8_AT),
          "experiments.vista.ablations", "ctxsim run ablations", "ablations.png",
          "ablations.csv", ("solved",), None, "-",
          why="needs a real model: a synthetic agent reads neither the protocol's wording "
              "nor the board's layout"),
    Claim("Fig8b-archives", P, "Fig. 8", "§3.7 Fig. 8b",
          "without the dashboard the agent archives far more: 255 vs 69 events",
          PaperNumber("255 / 69 = 3.70x", _pick(FIG8, without="no_dashboard_archives",
                                                with_="vista_archives"), "events", FIG8_AT),
          "experiments.vista.ablations", "ctxsim run ablations", "ablations.png",
          "ablations_episodes.csv", ("agent_archives",),
          AblationRatio("agent_archives", ("without", "with_"), factor=RATIO_FACTOR),
          "synthetic LOCA-like tasks (the ablations' grid)"),
    Claim("Fig8b-recoveries", P, "Fig. 8", "§3.7 Fig. 8b",
          "without the dashboard the agent recovers less: 57 vs 105 events",
          PaperNumber("57 / 105 = 0.54x", _pick(FIG8, without="no_dashboard_recoveries",
                                                with_="vista_recoveries"), "events", FIG8_AT),
          "experiments.vista.ablations", "ctxsim run ablations", "ablations.png",
          "ablations_episodes.csv", ("recoveries",),
          AblationRatio("recoveries", ("without", "with_"), factor=RATIO_FACTOR),
          "synthetic LOCA-like tasks (the ablations' grid)"),
    # -- Table 2: cost ---------------------------------------------------------------------
    Claim("Tab2-cheapest", P, "Table 2", "§3.2 Table 2",
          "VISTA remains the least expensive at $0.93 per task",
          PaperNumber("first by cost ($0.93 vs $1.02 ACC, $1.05 Claude Code, $1.26 ReAct)",
                      TABLE2, "$ per task", LOCA + ", Gemini-3-Flash pricing"),
          "experiments.vista.cost", "ctxsim run cost", "cost.png", "cost_episodes.csv",
          ("cost_usd",), Rank("cost_episodes.csv", "cost_usd", "vista", lowest=True),
          "synthetic LOCA-like tasks at 128K, the paper's prices"),
    Claim("Tab2-vs-react", P, "Table 2", "§3.2 Table 2",
          "VISTA costs less per task than ReAct ($0.93 vs $1.26)",
          PaperNumber("$0.93 vs $1.26", _pick(TABLE2, vista="vista", react="react"),
                      "$ per task", LOCA + ", Gemini-3-Flash pricing"),
          "experiments.vista.cost", "ctxsim run cost", "cost.png", "cost_episodes.csv",
          ("cost_usd",),
          PairedEpisodes("cost_episodes.csv", "cost_usd", "vista", "react", None,
                         labels=("vista", "react"), unit_name=" $"),
          "synthetic LOCA-like tasks at 128K (synthetic dollars: sign only)"),
    Claim("Tab2-vs-acc", P, "Table 2", "§3.2 Table 2",
          "VISTA costs less per task than Active Context Compression ($0.93 vs $1.02)",
          PaperNumber("$0.93 vs $1.02", _pick(TABLE2, vista="vista",
                                              acc="active_compression"),
                      "$ per task", LOCA + ", Gemini-3-Flash pricing"),
          "experiments.vista.cost", "ctxsim run cost", "cost.png", "cost_episodes.csv",
          ("cost_usd",),
          PairedEpisodes("cost_episodes.csv", "cost_usd", "vista", "active_compression",
                         None, labels=("vista", "acc"), unit_name=" $"),
          "synthetic LOCA-like tasks at 128K (synthetic dollars: sign only)"),
    Claim("Tab2-accuracy", P, "Table 2", "§3.2 Table 2",
          "... while achieving the highest accuracy",
          PaperNumber("first by accuracy", setting=LOCA),
          "experiments.vista.cost", "ctxsim run cost", "cost.png", "cost_episodes.csv",
          ("solved",), Rank("cost_episodes.csv", "solved", "vista", lowest=False),
          "synthetic LOCA-like tasks at 128K"),
    # -- Table 5: perception probe (a small real model) ---------------------------------
    Claim("Tab5-blind", P, "Table 5", "§4 Table 5",
          "without the dashboard every backbone misjudges size: median relative "
          "total-size error 0.43-0.84",
          PaperNumber("0.43-0.84", _pick(TABLE5, lo="blind_total_lo", hi="blind_total_hi"),
                      "relative error", "first archive moment of real LOCA-Bench runs, "
                      "four hosted backbones"),
          "experiments.vista.perception", "ctxsim run perception", "perception.png",
          "perception.csv", ("rel_error", "quantity=total", "condition=-dash"),
          PerceptionMedian("-dash", "total"),
          "a small local model on replayed trajectories", at_paper_setting=False),
    Claim("Tab5-ledger", P, "Table 5", "§4 Table 5",
          "the factual ledger reduces total-size error to zero",
          PaperNumber("0", _pick(TABLE5, lo="ledger_total", hi="ledger_total"),
                      "relative error", "four hosted backbones"),
          "experiments.vista.perception", "ctxsim run perception", "perception.png",
          "perception.csv", ("rel_error", "quantity=total", "condition=+dash"),
          PerceptionMedian("+dash", "total"),
          "a small local model on replayed trajectories", at_paper_setting=False),
    Claim("Tab5-block-ledger", P, "Table 5", "§4 Table 5",
          "with the ledger, block-size error falls to 0-0.02",
          PaperNumber("0-0.02", _pick(TABLE5, lo="ledger_block_lo", hi="ledger_block_hi"),
                      "relative error", "four hosted backbones"),
          "experiments.vista.perception", "ctxsim run perception", "perception.png",
          "perception.csv", ("rel_error", "quantity=block", "condition=+dash"),
          PerceptionMedian("+dash", "block"),
          "a small local model on replayed trajectories", at_paper_setting=False),
    Claim("Tab5-pairwise", P, "Table 5", "§4 Table 5, App. I",
          "with the ledger, pairwise size discrimination (pairs within 2x) is near "
          "perfect",
          PaperNumber("'toward perfect' (no number in the text; read as >= 0.9)",
                      _pick(TABLE5, lo="pairwise_lo", hi="pairwise_hi"), "accuracy",
                      "four hosted backbones"),
          "experiments.vista.perception", "ctxsim run perception", "perception.png",
          "perception.csv", ("correct", "quantity=pairwise", "condition=+dash"),
          PerceptionAccuracy("+dash"),
          "a small local model on replayed trajectories", at_paper_setting=False),
    Claim("Tab5-pairwise-gain", P, "Table 5", "§4 Table 5",
          "the ledger lifts pairwise size accuracy",
          PaperNumber("+dash above -dash", setting="four hosted backbones"),
          "experiments.vista.perception", "ctxsim run perception", "perception.png",
          "perception.csv", ("correct", "quantity=pairwise"), PerceptionGain(),
          "a small local model on replayed trajectories", at_paper_setting=False),
    # -- Fig. 10: dashboard overhead -----------------------------------------------------
    Claim("Fig10-footprint", P, "Fig. 10", "§4 Fig. 10a",
          "the dashboard's net footprint peaks near N ~ 62 blocks at roughly 340 tokens "
          "and then declines",
          PaperNumber("peak ~340 tokens near N ~ 62, then declining",
                      _pick(FIG10, peak="peak", peak_n="peak_n"), "tokens",
                      "three n = 30 BrowseComp-Plus runs, deepseek-v4-pro, W = 12,288"),
          "experiments.vista.overhead", "ctxsim run overhead", "overhead.png",
          "overhead.csv", ("dashboard_tokens", "registered", "setting=W=12288",
                           "dashboard=ledger"),
          Footprint("W=12288", factor=PEAK_FACTOR),
          "the longest replayed trajectory at W = 12,288 (not the paper's runs)",
          at_paper_setting=False),
    Claim("Fig10-visible", P, "Fig. 10", "§4 Fig. 10b",
          "the visible set grows sublinearly, its fitted slope bending from 0.72 to 0.33 "
          "near N ~ 62",
          PaperNumber("log-log slope 0.72 then 0.33, bend near N ~ 62",
                      _pick(FIG10, early_slope="early_slope", late_slope="late_slope",
                            bend_n="bend_n"), "log-log slope",
                      "three n = 30 BrowseComp-Plus runs, W = 12,288"),
          "experiments.vista.overhead", "ctxsim run overhead", "overhead.png",
          "overhead.csv", ("visible", "registered", "setting=W=12288",
                           "dashboard=ledger"),
          VisibleSlopes("W=12288", tol=SLOPE_TOL),
          "the longest replayed trajectory at W = 12,288 (not the paper's runs)",
          at_paper_setting=False),
    # -- not testable here -------------------------------------------------------------
    Claim("Sec3.4-backbones", P, "§3.4", "§3.4",
          "the same untrained layer improves all four tested backbones",
          PaperNumber("4 of 4 backbones", setting="LOCA-Bench 128K, four hosted models"),
          "-", "-", "-", "-", (), None, "-",
          why="needs real backbones (four hosted models)"),
    Claim("Tab1-GAIA", P, "Table 1", "§3.2 Table 1",
          "on GAIA VISTA remains competitive (73.3% vs 73.9% Claude Code)",
          PaperNumber("73.3 vs 73.9", {"vista": 73.3, "claude_code": 73.9}, "%", "GAIA"),
          "-", "-", "-", "-", (), None, "-",
          why="no GAIA-like task generator in the package"),
)
