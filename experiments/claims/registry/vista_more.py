"""VISTA's claims registered for issue 31 ("every checkable number registered"):
the gap at every Fig. 4 level, Fig. 8b's absolute counts, Fig. 9's rescue structure,
Fig. 10's fixed overhead, Table 5's "uncorrelated with truth", the steps per task of
App. Table 7, and the not-testable rows for Tables 3-4 and Fig. 7. The other VISTA
claims are in :mod:`experiments.claims.registry.vista` (two modules: each under 500
lines); the numbers of both are in :mod:`experiments.claims.registry.vista_tables`.
"""

from __future__ import annotations

from experiments.claims.checks.vista import PairedEpisodes
from experiments.claims.checks.vista_counts import (BlindCorrelation, FixedOverhead,
                                                    PerTaskTotal, RescueLoop)
from experiments.claims.records import Claim, PaperNumber
from experiments.claims.registry.vista_tables import (FIG8, FIG8_AT, FIG9, FIG10, LOCA, P,
                                                      RATIO_FACTOR, TABLE7, pick)

# The judge's tolerances (ours, not the paper's), each with its reason:
#: Fig. 8b's counts and App. Table 7's steps are from one 75-task run of a real model:
#: our total within the same 1.5x as Fig. 8b's ratios counts as the same number
COUNT_FACTOR = RATIO_FACTOR
#: the fixed overhead is a harness's system prompt plus tool schemas (the paper's, in
#: cl100k_base; ours, in our counter): the same size within that factor again
OVERHEAD_FACTOR = RATIO_FACTOR
#: "essentially uncorrelated": the absolute Spearman rho below 0.3, the edge of a "small"
#: correlation by Cohen's convention (Statistical Power Analysis, 1988, §3.2)
CORR_MARGIN = 0.3
#: the Fig. 4 growth levels whose cells the text does not give (Appendix Table 9's
#: body was lost in the extraction; 8K and 128K are in experiments.claims.registry.vista)
FIG4_OTHER_LEVELS = (16_000, 32_000, 64_000, 256_000)

_PRESSURE = dict(module="experiments.vista.pressure", command="ctxsim run pressure",
                 figure="pressure.png", csv="pressure_episodes.csv")
_ABL = dict(module="experiments.vista.ablations", command="ctxsim run ablations",
            figure="ablations.png", csv="ablations_episodes.csv")
_PERCEPTION = dict(module="experiments.vista.perception", command="ctxsim run perception",
                   figure="perception.png", csv="perception.csv")
_NONE = dict(module="-", command="-", figure="-", csv="-", columns=(), check=None,
             checked_at="-")


def _level(level: int) -> Claim:
    k = f"{level // 1000}K"
    return Claim(id=f"Fig4-{k}", paper=P, item="Fig. 4", where=f"§3.3 Fig. 4 ({k} growth)",
                 statement=f"the gap opens as distractor volume grows: VISTA above ReAct at "
                           f"{k} (read from 'close at low pressure, but the gap opens'; the "
                           f"8K tie and 128K gap are Fig4-8K and Fig4-128K)",
                 number=PaperNumber("VISTA above ReAct (the cell is in Appendix Table 9, "
                                    "lost in the text extraction)", setting=f"{LOCA}, {k} "
                                                                            "growth"),
                 **_PRESSURE, columns=("solved",),
                 check=PairedEpisodes("pressure_episodes.csv", "solved", "vista", "react",
                                      level, sign=1, unit=0.01, unit_name="%"),
                 checked_at=f"synthetic LOCA-like tasks, {k} growth, budget 128K")


def _count(*, id, program, column, label, key, what):
    return Claim(id=id, paper=P, item="Fig. 8", where="§3.7 Fig. 8b",
                 statement=f"{what}: {FIG8[key]} events over the 75 tasks",
                 number=PaperNumber(f"{FIG8[key]} of 75 tasks", pick(FIG8, **{label: key}),
                                    "events per 75 tasks", FIG8_AT),
                 **_ABL, columns=("program", "task_id", column),
                 check=PerTaskTotal("ablations_episodes.csv", column, program, label,
                                    per=75, factor=COUNT_FACTOR),
                 checked_at="synthetic LOCA-like tasks (the ablations' grid), total per 75 "
                            "tasks")


CLAIMS: tuple[Claim, ...] = tuple(_level(x) for x in FIG4_OTHER_LEVELS) + (
    # -- Fig. 8b: the absolute counts (their ratios: Fig8b-archives, Fig8b-recoveries) --
    _count(id="Fig8b-vista-archives", program="vista", column="agent_archives",
           label="archives", key="vista_archives",
           what="the full system spends 69 archives"),
    _count(id="Fig8b-vista-recoveries", program="vista", column="recoveries",
           label="recoveries", key="vista_recoveries",
           what="the full system spends 105 recoveries"),
    _count(id="Fig8b-no-dashboard-archives", program="vista_no_dashboard",
           column="agent_archives", label="archives", key="no_dashboard_archives",
           what="without the dashboard the agent issues 255 archives"),
    _count(id="Fig8b-no-dashboard-recoveries", program="vista_no_dashboard",
           column="recoveries", label="recoveries", key="no_dashboard_recoveries",
           what="without the dashboard the agent issues only 57 recoveries"),
    # -- Fig. 9: the rescue structure -------------------------------------------------------
    Claim(id="Fig9-rescue-loop", paper=P, item="Fig. 9", where="§4 Fig. 9",
          statement="across rescued tasks, the full archive-then-recover loop appears in 8 "
                    "of the 16 cases where VISTA archives at least one block",
          number=PaperNumber("8 of 16", pick(FIG9, recovered="rescue_recovered",
                                              archived="rescue_archived"),
                             "tasks", "LOCA-Bench 128K, VISTA's rescues over a matched "
                                      "baseline"),
          **_PRESSURE, columns=("solved", "agent_archives", "recoveries"),
          check=RescueLoop(128_000),
          checked_at="synthetic LOCA-like tasks, 128K growth: rescued = VISTA solves and "
                     "ReAct fails the same task"),
    # -- Fig. 10: the fixed overhead --------------------------------------------------------
    Claim(id="Fig10-fixed-overhead", paper=P, item="Fig. 10", where="§4 Fig. 10",
          statement="each turn logs a fixed overhead of tool schemas plus system prompt: a "
                    "constant 492 tokens across every query",
          number=PaperNumber("492 tokens on every query", pick(FIG10,
                                                              fixed_overhead="fixed_overhead"),
                             "tokens", "three n = 30 BrowseComp-Plus runs, W = 12,288, "
                                       "cl100k_base"),
          module="experiments.vista.overhead", command="ctxsim run overhead",
          figure="overhead.png", csv="overhead.csv",
          columns=("fixed_overhead", "setting=W=12288", "dashboard=ledger"),
          check=FixedOverhead("W=12288", factor=OVERHEAD_FACTOR),
          checked_at="every request of the replayed trajectories at W = 12,288 (our "
                     "harness's prompt, not the paper's runs)", at_paper_setting=False),
    # -- Table 5: without the dashboard, estimates uncorrelated with truth -----------------
    Claim(id="Tab5-blind-uncorrelated-block", paper=P, item="Table 5", where="§4 Table 5",
          statement="without the dashboard every backbone misjudges size, with estimates "
                    "essentially uncorrelated with truth (block sizes)",
          number=PaperNumber("'essentially uncorrelated' (no number in the text)",
                             setting="first archive moment of real LOCA-Bench runs, four "
                                     "hosted backbones"),
          **_PERCEPTION,
          columns=("truth", "estimate", "quantity=block", "condition=-dash"),
          check=BlindCorrelation("block", CORR_MARGIN),
          checked_at="a small local model on replayed trajectories", at_paper_setting=False),
    Claim(id="Tab5-blind-uncorrelated-total", paper=P, item="Table 5", where="§4 Table 5",
          statement="without the dashboard every backbone misjudges size, with estimates "
                    "essentially uncorrelated with truth (total transcript size)",
          number=PaperNumber("'essentially uncorrelated' (no number in the text)",
                             setting="first archive moment of real LOCA-Bench runs, four "
                                     "hosted backbones"),
          **_PERCEPTION, columns=("truth", "estimate", "quantity=total", "condition=-dash"),
          check=BlindCorrelation("total", CORR_MARGIN),
          checked_at="a small local model on replayed trajectories", at_paper_setting=False),
    # -- App. Table 7: steps per task ---------------------------------------------------------
    Claim(id="Tab7-steps", paper=P, item="Table 7", where="§3.2, App. Table 7 (cost ledger)",
          statement="VISTA uses 2.86M tokens and 36.4 steps per task",
          number=PaperNumber("36.4 steps per task", pick(TABLE7, steps="vista_steps"),
                             "steps (model requests) per task", LOCA + ", 128K growth"),
          **_PRESSURE, columns=("program", "task_id", "requests"),
          check=PerTaskTotal("pressure_episodes.csv", "requests", "vista", "steps",
                             level=128_000, per=1, factor=COUNT_FACTOR),
          checked_at="synthetic LOCA-like tasks, 128K growth (a step = one model request)"),
    # -- not testable here ---------------------------------------------------------------
    Claim(id="Tab3-RL", paper=P, item="Table 3", where="§3.5 Table 3",
          statement="our RL variant exceeds context-tool GRPO in and out of distribution; "
                    "zero-shot nearly matches OOD post-training",
          number=PaperNumber("RL > context-tool GRPO (ID and OOD)",
                             setting="Qwen3-8B post-trained on BrowseComp-Plus / GAIA"),
          **_NONE, why="needs RL post-training of a real model (Qwen3-8B, GRPO): the "
                       "synthetic agent has fixed parameters and no trainable policy"),
    Claim(id="Fig7-RL-dynamics", paper=P, item="Fig. 7", where="§3.5 Fig. 7",
          statement="during RL, hard examples use more context-tool calls than easy ones, "
                    "and tool use rises with validation reward and self-perception",
          number=PaperNumber("curves over training steps (no number in the text)",
                             setting="Table 3's RL runs, Qwen3-8B"),
          **_NONE, why="the curves are training dynamics of Table 3's RL runs: no model is "
                       "trained here, so there is no training step to plot against"),
    Claim(id="Tab4-AMA", paper=P, item="Table 4", where="§3.6 Table 4",
          statement="as replayed trajectory memory on AMA-Bench, VISTA leads on F1 and stays "
                    "within about two points of the AMA agent's judge accuracy at about a "
                    "quarter of its runtime",
          number=PaperNumber("best F1; judge accuracy within ~2 points of the AMA agent",
                             setting="AMA-Bench, 208 episodes"),
          **_NONE, why="needs AMA-Bench's questions, reference answers and judge model: the "
                       "package's replayed trajectories carry no questions to answer, so F1 "
                       "and judge accuracy cannot be scored"),
)
