"""The settings of VISTA's agent-level experiments (VISTA §3.3-§3.7, Appendix):
the four synthetic sweeps (pressure, window, ablations, cost), the dashboard
overhead replay and the real-model probes (perception, presentation, pressure's
``--agent llm`` variant). Each default is declared once here; the fields declared
``paper=True`` are the paper's setting, which a sweep's sidecar compares its run
against (:meth:`experiments.settings.Settings.paper_setting`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from experiments.arguments import (MAX_TOKENS, TOKENS_HELP, base_url, nonnegative_int,
                                   positive_int, positive_tokens)
from experiments.settings import Settings, answers, register, setting
from experiments.settings import kinds as k
from experiments.settings import sweeps as s
from experiments.settings.checks import ListOf

from sim.policies import MAIN_PROGRAMS  # noqa: E402 - the main comparison's programs
from sim.tasks.browse import WINDOWS  # noqa: E402 - VISTA Fig. 6's windows
from sim.tasks.loca import GROWTH_LEVELS  # noqa: E402 - VISTA Fig. 4's growth levels


@register
@dataclass(frozen=True)
class PressureSettings(s.SweepSettings):
    """``ctxsim run pressure``: accuracy per program per growth level (VISTA §3.3,
    Fig. 4, Table 9)."""

    NAME: ClassVar[str] = "pressure"
    HEADER: ClassVar[str] = """\
Grids of `ctxsim run pressure` (VISTA §3.3, Fig. 4, Appendix Table 9): accuracy per
context program per context-growth level at a fixed budget. [default] is the paper's
setting (sim.tasks.loca GROWTH_LEVELS, 15 families x 5 seeds = 75 tasks, budget 128K);
[quick] (used with --quick) overrides some of its keys. Options given on the command
line win over both, and over a --config FILE."""
    PAPER_SOURCE: ClassVar[str] = ("VISTA §3.3, Fig. 4, Table 9: 75 LOCA-Bench tasks, "
                                   "8K-256K growth, 128K budget")

    levels: tuple[int, ...] = setting(
        GROWTH_LEVELS, ListOf(k.GROWTH),
        "context-growth levels: tool-result tokens per task, each in "
        f"1,000..{MAX_TOKENS:,} ({TOKENS_HELP}; {{default}})", unit="tokens",
        quick=(8_000, 256_000), metavar="TOKENS", paper=True,
        note="tool-result tokens per task", source="VISTA §3.3, sim.tasks.loca GROWTH_LEVELS")
    programs: tuple[str, ...] = s.programs(
        MAIN_PROGRAMS + ("vista_bounded_ledger",),
        quick=("react", "masking", "summarization", "vista"))
    budget: int = s.budget(paper=True)
    families: int = s.families(quick=8, paper=True)
    seeds: int = s.seeds(quick=1, paper=True)


@register
@dataclass(frozen=True)
class WindowSettings(s.SweepSettings):
    """``ctxsim run window``: retrieval-then-synthesis accuracy against the window W,
    budget = W (VISTA §3.3, Fig. 6)."""

    NAME: ClassVar[str] = "window"
    HEADER: ClassVar[str] = """\
Grids of `ctxsim run window` (VISTA §3.3, Fig. 6): retrieval-then-synthesis accuracy
against the window W, swept with budget = W (sim.tasks.browse WINDOWS). [quick] (used
with --quick) overrides some keys of [default]; command-line options win over both,
and over a --config FILE."""
    PAPER_SOURCE: ClassVar[str] = ("VISTA §3.3, Fig. 6: W swept with budget = W; the "
                                   "headline W = 12K, below the ~17K median "
                                   "first-retrieval depth")

    windows: tuple[int, ...] = setting(
        WINDOWS, ListOf(k.TOKENS),
        f"windows W in tokens, each in 1..{MAX_TOKENS:,} and also the context budget "
        f"({TOKENS_HELP}; {{default}})", unit="tokens", quick=(4_000, 16_000, 64_000),
        metavar="TOKENS", paper=True, note="W in tokens, also the budget")
    programs: tuple[str, ...] = s.programs(("react", "vista"))
    queries: int = setting(50, k.COUNT, "BrowseComp-like queries per window ({default})",
                           quick=16, metavar="N", parse=positive_int,
                           note="BrowseComp-like queries per window")
    seeds: int = s.seeds(1, per="query")


@register
@dataclass(frozen=True)
class AblationsSettings(s.SweepSettings):
    """``ctxsim run ablations``: VISTA's mechanism ablations at one growth level
    (VISTA §3.7, Fig. 8)."""

    NAME: ClassVar[str] = "ablations"
    HEADER: ClassVar[str] = """\
Grids of `ctxsim run ablations` (VISTA §3.7, Fig. 8): VISTA's mechanism ablations on
the LOCA-like suite at one growth level (128K growth, 128K budget: the paper's 38/75
is its 128K result). [quick] (used with --quick) overrides some keys of [default];
command-line options win over both, and over a --config FILE."""
    PAPER_SOURCE: ClassVar[str] = ("VISTA §3.7, Fig. 8: full VISTA 38/75 = 50.7%, its "
                                   "128K LOCA-Bench result (§3.3), 128K budget")

    programs: tuple[str, ...] = s.programs(
        ("vista", "vista_no_archive", "vista_no_dashboard", "vista_no_recover",
         "vista_fixed_archive", "vista_reworded", "vista_status_board",
         "vista_bounded_ledger"), quick=("vista", "vista_no_dashboard", "vista_no_recover"))
    growth: int = s.growth(paper=True)
    budget: int = s.budget(paper=True)
    families: int = s.families(quick=8, paper=True)
    seeds: int = s.seeds(quick=1, paper=True)


@register
@dataclass(frozen=True)
class CostSettings(s.SweepSettings):
    """``ctxsim run cost``: cache-aware dollar cost per task per program (VISTA
    Table 2)."""

    NAME: ClassVar[str] = "cost"
    HEADER: ClassVar[str] = """\
Grids of `ctxsim run cost` (VISTA Table 2): cache-aware dollar cost per task per
program on the LOCA-like suite at one growth level. [quick] (used with --quick)
overrides some keys of [default]; command-line options win over both, and over a
--config FILE."""
    PAPER_SOURCE: ClassVar[str] = ("VISTA Table 2: the main LOCA-Bench runs, 128K budget "
                                   "(Table 1: 50.7% vs 22.7% at 128K)")

    programs: tuple[str, ...] = s.programs(MAIN_PROGRAMS, quick=("react", "vista"))
    growth: int = s.growth(paper=True)
    budget: int = s.budget(paper=True)
    families: int = s.families(quick=6, paper=True)
    seeds: int = s.seeds(quick=1, paper=True)


@register
@dataclass(frozen=True)
class PressureLLMSettings(Settings):
    """``ctxsim run pressure --agent llm``: the small real-model sweep
    (:mod:`experiments.vista.pressure_llm`); its options are added to pressure's.
    Every option defaults to None on the command line, so one given without
    ``--agent llm`` is seen and refused."""

    NAME: ClassVar[str] = "pressure_llm"

    base_url: str | None = setting(None, None, "--agent llm: OpenAI-compatible endpoint "
                                   "(default: the embedded local model)", toml=False,
                                   parse=base_url)
    model: str | None = setting(None, None, "--agent llm: model name at --base-url "
                                "(default: $CTXSIM_LLM_MODEL or the endpoint's)",
                                toml=False)
    llm_budgets: tuple[int, ...] = setting(
        (2500, 5000), ListOf(k.TOKENS), f"--agent llm: budgets B in tokens, each "
        f"1..{MAX_TOKENS:,} ({TOKENS_HELP}; {{default}})", toml=False, quick=(2500,),
        metavar="TOKENS", unit="tokens")
    llm_growth: int = setting(4000, k.GROWTH, "--agent llm: context growth per task in "
                              f"tokens, 1,000..{MAX_TOKENS:,} ({TOKENS_HELP}; {{default}})",
                              toml=False, metavar="TOKENS", unit="tokens",
                              argparse={"default": None})
    llm_families: int = setting(4, k.families, "--agent llm: LOCA families, seed 0 each "
                                "({default})", toml=False, quick=3, metavar="N")
    cache: str | None = answers.cache("pressure_llm", "--agent llm: ")
    no_cache: bool = answers.no_cache("--agent llm: ", argparse={"default": None})

    finish = classmethod(answers.finish)


@register
@dataclass(frozen=True)
class OverheadSettings(Settings):
    """``ctxsim run overhead``: dashboard tokens against registered blocks on real
    trajectories (VISTA Fig. 10)."""

    NAME: ClassVar[str] = "overhead"

    budget: int = setting(12_288, None, "window W of the pressured setting, in tokens "
                          f"({TOKENS_HELP}; {{default}})", toml=False,
                          parse=positive_tokens, metavar="TOKENS", unit="tokens")
    max_blocks: int | None = setting(None, None, "stop each replay after this many "
                                     "registered blocks (default: whole trajectories; "
                                     "--quick: 200)", toml=False, quick=200,
                                     parse=positive_int, metavar="N")
    seed: int = setting(0, None, "unused: the replay is deterministic (default: 0)",
                        toml=False, parse=nonnegative_int)
    dashboard_tokens: int = setting(s.DASHBOARD_TOKENS, None, "token cap of the bounded "
                                    f"ledger ({TOKENS_HELP}; {{default}})", toml=False,
                                    parse=s.dashboard_cap, metavar="TOKENS",
                                    unit="tokens")


#: the shared options of the real-model probes
def _base_url():
    return setting(None, None, "OpenAI-compatible endpoint (default: embedded local "
                   "model)", toml=False, parse=base_url)


def _model():
    return setting(None, None, "model name at --base-url (default: $CTXSIM_LLM_MODEL or "
                   "the endpoint's)", toml=False)


def _seed():
    return setting(0, None, "random seed, an integer >= 0 ({default})", toml=False,
                   parse=nonnegative_int)


@register
@dataclass(frozen=True)
class PerceptionSettings(Settings):
    """``ctxsim run perception``: the dashboard perception probe with a real model
    (VISTA Table 5)."""

    NAME: ClassVar[str] = "perception"

    snapshots: int = setting(6, None, "workspace snapshots probed, >= 1 ({default})",
                             toml=False, quick=2, parse=positive_int, metavar="N")
    cap: int = setting(1600, None, f"snapshot cap in tokens, >= 1 ({TOKENS_HELP}; "
                       "{default})", toml=False, quick=800, parse=positive_tokens,
                       metavar="TOKENS", unit="tokens")
    pairs: int = setting(3, None, "pairwise questions per snapshot, >= 1 ({default})",
                         toml=False, parse=positive_int, metavar="N")
    base_url: str | None = _base_url()
    model: str | None = _model()
    seed: int = _seed()
    cache: str | None = answers.cache("perception")
    no_cache: bool = answers.no_cache()

    finish = classmethod(answers.finish)


def _conditions():
    from experiments.vista.presentation import ALL_CONDITIONS

    return ALL_CONDITIONS


class _Conditions:
    """argparse ``choices`` read when a value is checked."""

    def __contains__(self, item) -> bool:
        return item in _conditions()

    def __iter__(self):
        return iter(_conditions())


@register
@dataclass(frozen=True)
class PresentationSettings(Settings):
    """``ctxsim run presentation``: does the ledger's layout change a real model's
    archive choice?"""

    NAME: ClassVar[str] = "presentation"

    trials: int = setting(12, None, "trials per layout, >= 1 ({default})", toml=False,
                          quick=3, parse=positive_int, metavar="N")
    pairs: int = setting(4, None, "call/result pairs per ledger, >= 1 ({default})",
                         toml=False, parse=positive_int, metavar="N")
    base_url: str | None = _base_url()
    model: str | None = _model()
    seed: int = _seed()
    conditions: tuple[str, ...] = setting(
        ("ledger", "ledger_sorted", "sorted_unpinned", "status_board"), None,
        lambda: ("presentations to compare (default: the four of the study; valid: "
                 f"{', '.join(_conditions())}); other than the default, the outputs are "
                 "named presentation[_plain]_<conditions>"), toml=False,
        metavar="CONDITION", choices=_Conditions(),
        argparse={"nargs": "+"})
    plain_schema: bool = setting(False, None, "no example ids in the tool description "
                                 "(writes presentation_plain.*; default: off)",
                                 toml=False, action="store_true")
    cache: str | None = answers.cache("presentation")
    no_cache: bool = answers.no_cache()

    finish = classmethod(answers.finish)

