"""The settings of ``ctxsim run contextevo`` (ContextEvo §4-6, Tables 2 and 5): the
task sets (the TOML keys of configs/contextevo.toml) and the loop's options, each
declared once here with its default (no default is left in argparse).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from experiments.arguments import (Distinct, base_url, float_in, fraction,
                                   nonnegative_int, positive_int)
from experiments.settings import Settings, answers, register, setting
from experiments.settings import kinds as k


def _builtin_programs() -> list[str]:
    # built-in programs only: ContextEvo edits a program's spec in its grammar, which
    # a plugin class (sim.plugins) does not have
    from sim.policies import PROGRAMS

    return list(PROGRAMS)


def _surfaces() -> tuple[str, ...]:
    from sim.evolve.contextevo.spec import SURFACES

    return SURFACES


class _Lazy:
    """argparse ``choices`` read when a value is checked (a registry)."""

    def __init__(self, names):
        self.names = names

    def __contains__(self, item) -> bool:
        return item in self.names()

    def __iter__(self):
        return iter(self.names())


def _start_help() -> str:
    return ("start from this built-in program only (default: react and masking; not a "
            "plugin: ContextEvo edits a built-in program's spec); valid: "
            + ", ".join(_builtin_programs()))


def _surfaces_help() -> str:
    return ("surfaces the harness adapter exposes to the editor; edits to others are "
            "discarded and counted (default: all): " + ", ".join(_surfaces()))


#: how a --held-out-families value may be written, for its message
_FAMILIES_WANTED = ("0 (the per-task split), a count >= 1, a share in (0, 1) or "
                    "distinct family names a,b,...")
_FAMILY_NAME = re.compile(r"[A-Za-z0-9_]+")


def _held_out_families(text: str):
    """The argparse ``type`` of ``--held-out-families``: ``"0"`` -> 0 (the per-task
    split), ``"3"`` -> 3 families, ``"0.25"`` -> a share, ``"crm_dedupe,q3"`` -> a
    tuple of names (:func:`sim.evolve.split.split_families`' ``held_out``)."""
    import argparse

    bad = argparse.ArgumentTypeError(f"expected {_FAMILIES_WANTED}, got {text!r}")
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    if re.fullmatch(r"[0-9]*\.[0-9]+", text):
        if not 0.0 < float(text) < 1.0:
            raise bad
        return float(text)
    names = tuple(text.split(","))
    # a name is a family's identifier (LOCA-like ``crm_dedupe``, BrowseComp-like ``q3``)
    if not all(_FAMILY_NAME.fullmatch(n) and not n.isdigit() for n in names) \
            or len(set(names)) != len(names):
        raise bad
    return names


def _plain_families(value) -> str:
    """A ``--held-out-families`` value as it is written on the command line."""
    return ",".join(value) if isinstance(value, (list, tuple)) else str(value)


def _opt(default, help: str, **kw):
    """A command-line-only setting (no TOML key)."""
    return setting(default, None, help, toml=False, **kw)


@register
@dataclass(frozen=True)
class ContextEvoSettings(Settings):
    """``ctxsim run contextevo``: the task sets and the evolution loop's options.

    The split: ContextEvo App. A shuffles the sorted task names with
    ``random.Random(15)`` and holds in 76 of 174 (``held_in_fraction``); holding out
    whole families by default (``held_out_families``, the same rule applied to the
    families, :func:`sim.evolve.split.split_families`) is this project's choice
    (issue 32), not the paper's, so that held-out tasks come from families evolution
    never saw; ``--held-out-families 0`` is the paper's per-task split."""

    NAME: ClassVar[str] = "contextevo"
    HEADER: ClassVar[str] = """\
Task sets of `ctxsim run contextevo` (ContextEvo, Table 5): LOCA-like tasks at one
growth level and budget, and BrowseComp-like tasks at one window. [quick] is used
with --quick; [llm_quick] with --backend llm --quick (react solves about half at 8K
growth under a 6K budget, so both reward groups exist for the screens). The llm
back-end runs only the LOCA-like set. Each table overrides keys of [default]."""

    # -- the task sets (TOML keys; no options) ------------------------------------
    loca_growth: int = setting(128_000, k.GROWTH, "tool-result tokens per LOCA-like task",
                               unit="tokens", option=None, tables={"llm_quick": 8_000},
                               note="tool-result tokens per LOCA-like task",
                               source="ContextEvo §5 (LHTB-46 at 128K)")
    loca_budget: int = setting(128_000, k.TOKENS, "context budget of the LOCA-like tasks",
                               unit="tokens", option=None, tables={"llm_quick": 6_000},
                               note="context budget of the LOCA-like tasks, tokens")
    families: int = setting(15, k.families, "LOCA-like task families", option=None,
                            note="LOCA-like task families, 1..15")
    seeds: int = setting(5, k.COUNT, "task instances per family", option=None, quick=2,
                         tables={"llm_quick": 1}, note="task instances per family")
    browse_window: int = setting(16_000, k.TOKENS, "window W (= budget) of the "
                                 "BrowseComp-like tasks", unit="tokens", option=None,
                                 note="window W (= budget) of the BrowseComp-like "
                                      "tasks, tokens")
    queries: int = setting(25, k.COUNT, "BrowseComp-like queries", option=None, quick=15,
                           note="BrowseComp-like queries")
    browse_seeds: int = setting(2, k.COUNT, "task instances per query", option=None,
                                quick=1, note="task instances per query")
    # -- the loop (options only) --------------------------------------------------
    backend: str = _opt("synthetic", "annotator/editor back-end ({default})",
                        choices=("synthetic", "llm"))
    start: str | None = _opt(None, _start_help, metavar="PROGRAM",
                             choices=_Lazy(_builtin_programs))
    spec: str | None = _opt(None, "start from a ProgramSpec JSON file instead "
                            "(default: none)", metavar="FILE")
    seed: int = _opt(0, "base seed: task instances, agent draws and the synthetic "
                     "back-end's mislabels (the split seed stays 15, the paper's; "
                     "{default})", parse=nonnegative_int)
    iterations: int = _opt(2, "evolution iterations ({default})", parse=positive_int)
    candidates: int = _opt(3, "candidate changesets evaluated per iteration ({default})",
                           parse=positive_int)
    hypotheses: int = _opt(3, "the judge's strongest hypotheses whose moves ContextEvo's "
                           "candidates come from, per iteration, before untried grammar "
                           "moves (ours, a guess; {default})", parse=positive_int)
    held_in_fraction: float | None = _opt(
        None, "share held in: of each task set's families (the default split), or of "
        "its tasks under --held-out-families 0 (default: 76/174, the paper's split)",
        metavar="F", parse=float_in(0.0, 1.0, lo_open=True, hi_open=True),
        source="ContextEvo §4: 76 of 174 tasks held in")
    # whole families out, so "held out" means unseen families (issue 32); ours: the
    # paper's split (App. A) shuffles tasks, so its held-out tasks share families
    held_out_families: int | float | tuple[str, ...] | None = _opt(
        None, "families held out whole, drawn by random.Random(15) from the sorted "
        "families of each task set (LOCA-like: the 15 families; BrowseComp-like: the "
        "queries), every other family held in (ours, issue 32; the paper splits tasks): "
        "a count N, a share F in (0, 1), or names a,b (each task set holds out those it "
        "has); 0: the paper's per-task split (App. A), whose two sides share families; "
        "default: whole families, 1 - --held-in-fraction of them (98/174: 8 of 15 "
        "LOCA-like families held out)", metavar="N|F|NAMES",
        parse=_held_out_families, source="ours (issue 32); ContextEvo App. A splits tasks")
    mislabel: float = _opt(0.2, "synthetic back-end mislabel rate ({default})",
                           parse=fraction)
    no_ablations: bool = _opt(False, "skip the ablations and baselines (the llm back-end "
                              "always skips them; default: off)", action="store_true")
    surfaces: tuple[str, ...] | None = _opt(
        None, _surfaces_help, metavar="SURFACE",
        argparse={"nargs": "+", "choices": _Lazy(_surfaces), "action": Distinct})
    ef_seeds: int = _opt(5, "seeds of the ContextEvo vs evidence-free comparison from "
                         "the first start on both task sets (0: skip; at least 2 "
                         "otherwise; the llm back-end skips it; {default})",
                         parse=nonnegative_int)
    llm_calls: int = _opt(150, "model-call budget of the llm back-end ({default})",
                          parse=positive_int)
    base_url: str | None = _opt(None, "OpenAI-compatible endpoint (default: the embedded "
                                "model, served locally for the run)", parse=base_url)
    model: str | None = _opt(None, "model name at --base-url (default: the endpoint's)")
    cache: str | None = answers.cache("contextevo", "--backend llm: ")
    no_cache: bool = answers.no_cache("--backend llm: ")

    #: the table --quick reads with --backend llm (:meth:`section_of`)
    TABLE_WHEN: ClassVar[dict[str, str]] = {"llm_quick": "with --backend llm"}

    @classmethod
    def section_of(cls, args) -> str:
        """The table ``args`` ask for: ``[llm_quick]`` under ``--backend llm --quick``,
        ``[quick]`` under ``--quick``, else ``[default]``."""
        if not getattr(args, "quick", False):
            return "default"
        return "llm_quick" if getattr(args, "backend", None) == "llm" else "quick"

    @classmethod
    def finish(cls, values: dict, args) -> dict:
        """Refuses ``--spec`` with ``--start``, ``--ef-seeds 1``, and
        ``--held-in-fraction`` with a count, share or names of ``--held-out-families``
        (which then set the sizes alone), and ``--cache``/``--no-cache`` without
        ``--backend llm`` (exit 2)."""
        from experiments.arguments import UsageError

        answers.check(values, values["backend"] == "llm", "--backend llm")
        if values["spec"] and values["start"]:
            raise UsageError(f"--spec {values['spec']!r} and --start {values['start']!r} "
                             "both name the start; give one")
        if values["ef_seeds"] == 1:
            raise UsageError("--ef-seeds must be 0 or at least 2 (an interval over seeds "
                             "needs two), got 1")
        fams = values["held_out_families"]
        if values["held_in_fraction"] is not None and fams not in (None, 0):
            raise UsageError(f"--held-in-fraction {values['held_in_fraction']!r} and "
                             f"--held-out-families {_plain_families(fams)} both set the "
                             "split's sizes; give one")
        return values
