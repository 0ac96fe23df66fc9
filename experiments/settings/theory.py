"""The settings of the theory experiments: the eviction-game grid of Theorem 1 and
Proposition 2 (VISTA §2.6, Appendices B-E; THEORY.md §2-§3), the recovery game of
Proposition 1 (VISTA §2.5; THEORY.md §1) and the sorted-window game (THEORY.md §5).
Their grid keys are TOML-only (no option); ``--seed`` is the one option each adds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from experiments.arguments import float_in, nonnegative_int, positive_int
from experiments.settings import Settings, register, setting
from experiments.settings import kinds as k
from experiments.settings.checks import Check, ListOf

_PANEL = Check("a [log2_n, kappa] pair of integers",
               lambda v: isinstance(v, list) and len(v) == 2 and all(
                   isinstance(x, int) and not isinstance(x, bool) for x in v))


def _seed(default: int, help: str = "base random seed, an integer >= 0 ({default})"):
    return setting(default, None, help, toml=False, parse=nonnegative_int)


@register
@dataclass(frozen=True)
class Theorem1Settings(Settings):
    """``ctxsim run theorem1`` and ``ctxsim run proposition2`` (one grid)."""

    NAME: ClassVar[str] = "theorem1"
    HEADER: ClassVar[str] = """\
Grids of `ctxsim run theorem1` (VISTA §2.6, Theorem 1 and Proposition 2).
Every E[Z] uses the exact O(1) sampler, its SE the exact Var Z; content-channel
rates use the exact 2-D quadrature of sim/games/content_rate.py (no sampling)."""

    # the eviction game needs kappa >= 2 and n = 2^log2_n > kappa, at most 2^62
    kappas: tuple[int, ...] = setting((2, 4, 8, 16), ListOf(k.integer(2, k.KAPPA_MAX)),
                                      "kappa = L / l of the grid", option=None,
                                      quick=(2, 4))
    log2_n: tuple[int, ...] = setting(tuple(range(4, 21)), ListOf(k.integer(2, 62)),
                                      "log2 of the blocks n", option=None,
                                      quick=(4, 6, 8))
    sigmas: tuple[float, ...] = setting((0.25, 0.5, 1.0, 2.0, 4.0),
                                        ListOf(k.positive_number()),
                                        "content-channel noise sigma", option=None,
                                        quick=(0.5, 2.0))
    trials: int = setting(20000, k.COUNT, "E[Z] trials per point", option=None,
                          quick=4000, note="E[Z] trials per point: SE <= kappa / "
                          "(2 sqrt(trials)) = 0.35% of kappa")
    prop2_extra_log2_n: tuple[int, ...] = setting(
        (24, 28, 32, 36, 40), ListOf(k.integer(2, 62), empty=True),
        "log2 n of the content channel only", option=None, quick=(16, 24),
        note="content channel only, for the rise to kappa")
    panels: tuple[tuple[int, int], ...] = setting(
        ((10, 4), (10, 16), (16, 8), (20, 16)), ListOf(_PANEL),
        "(log2 n, kappa) shown in theorem1.png", option=None,
        quick=((6, 2), (8, 4)), note="(log2 n, kappa) shown in theorem1.png")
    seed: int = _seed(1)

    @classmethod
    def add_arguments(cls, parser, only=None) -> None:
        cls.add_run_arguments(parser, "output directory (default: figures)",
                              "small grid, the [quick] table (seconds; default: off, "
                              "the [default] table)")
        super().add_arguments(parser, only)

    @classmethod
    def check_config(cls, config: dict, source: str, given, section: str) -> None:
        """A grid with no point (every kappa >= n), Proposition 2's extra sizes at or
        below a kappa, a content channel too costly to integrate (c = ln kappa /
        sigma above :data:`~experiments.settings.kinds.CONTENT_C_MAX`), a panel that
        is no point of the grid.

        Raises:
            ConfigValueError: naming the key, where its value came from, and why.
        """
        from experiments.config import ConfigValueError, _where

        points = {(e, kk) for e in config["log2_n"] for kk in config["kappas"]
                  if 2**e > kk}
        if not points:
            raise ConfigValueError(f"config in {source}: no grid point has n = 2^log2_n "
                                   f"> kappa (log2_n {config['log2_n']}, kappas "
                                   f"{config['kappas']})")
        # Proposition 2's extra sizes are played at every kappa (no n <= kappa skipped)
        kmax = max(config["kappas"])
        for e in config["prop2_extra_log2_n"]:
            if 2**e <= kmax:
                raise ConfigValueError(
                    f"config key 'prop2_extra_log2_n' in "
                    f"{_where('prop2_extra_log2_n', source, given, section)}: "
                    f"{e} gives n = 2^{e} = {2**e}, not above kappa {kmax}; expected "
                    f"each with 2^log2_n > every kappa of {config['kappas']}")
        kmin_sigma = min(config["sigmas"])
        c = math.log(kmax) / kmin_sigma
        if c > k.CONTENT_C_MAX:
            raise ConfigValueError(
                f"config key 'sigmas' in {_where('sigmas', source, given, section)}: sigma "
                f"{kmin_sigma!r} with kappa {kmax} gives c = ln(kappa)/sigma = {c:.3g}, "
                f"above {k.CONTENT_C_MAX}; expected each sigma >= ln({kmax})/"
                f"{k.CONTENT_C_MAX} = {math.log(kmax) / k.CONTENT_C_MAX:.4g} (the exact "
                "content-rate quadrature costs about c^4: ~30 s per (kappa, sigma) at "
                f"c = {k.CONTENT_C_MAX}, hours or out of memory beyond)")
        for e, kk in config["panels"]:
            if (e, kk) not in points:
                where = _where("panels", source, given, section, ", to points of its grid")
                raise ConfigValueError(
                    f"config key 'panels' in {where}: [{e}, {kk}] is not a point of the "
                    f"grid (needs log2_n {e} in {config['log2_n']}, kappa {kk} in "
                    f"{config['kappas']}, and 2^{e} > {kk})")


def _count(default: int, help: str, quick=None, note: str | None = None):
    kw = {} if quick is None else {"quick": quick}
    return setting(default, k.COUNT, help, option=None, note=note or help, **kw)


@register
@dataclass(frozen=True)
class Proposition1Settings(Settings):
    """``ctxsim run proposition1``: lossy strategies against a recoverable archive
    (the recovery game T(N, k, B))."""

    NAME: ClassVar[str] = "proposition1"
    HEADER: ClassVar[str] = """\
Grids of `ctxsim run proposition1` (VISTA §2.5, Proposition 1; THEORY.md §1).
Simulated B values of the budget panel are multiples of budget_B_step (plus Nk - 1);
closed forms are evaluated at every B."""

    budget_N: int = _count(16, "blocks of the budget panel")
    budget_k: int = _count(8, "bits per block of the budget panel")
    budget_B_step: int = _count(8, "simulated budgets: every budget_B_step-th bit", 16)
    budget_trials: int = _count(20000, "trials per simulated point (keep_blocks, "
                                "keep_prefix, recoverable)", 2000)
    linear_hash_trials: int = _count(3000, "trials per simulated point of the random "
                                     "linear hash", 300)
    c: float = setting(1.5, k.positive_number(), "separation curve: B = floor(c N log2 N), "
                       "k = ceil(sqrt N)", option=None,
                       note="separation curve: B = floor(c N log2 N), k = ceil(sqrt N)")
    c0: float = setting(1.0, k.number_in(1.0, math.inf, "a finite number >= 1 (a handle "
                                         "needs at least ceil(log2 N) bits)"),
                        "handle cost: a handle takes ceil(c0 log2 N) bits", option=None,
                        note="handle cost: a handle takes ceil(c0 log2 N) bits")
    sep_min: int = _count(7, "separation panel: N = 2^sep_min ...")
    sep_sim_max: int = _count(12, "... simulated up to 2^sep_sim_max ...", 10)
    sep_max: int = _count(20, "... closed forms up to 2^sep_max")
    sep_trials: int = _count(4000, "trials per simulated separation point", 1000)
    fixed_B: int = _count(32768, "fixed-budget panel: budget (bits) ...")
    fixed_k: int = _count(32, "... and bits per block")
    fixed_sim_max: float = setting(12.0, k.positive_number(), "simulated up to "
                                   "N = 2^fixed_sim_max", option=None, quick=11.5,
                                   note="simulated up to N = 2^fixed_sim_max")
    fixed_max: int = _count(20, "closed forms up to N = 2^fixed_max")
    fixed_trials: int = _count(4000, "trials per simulated fixed-budget point", 500)
    seed: int = _seed(1)

    @classmethod
    def add_arguments(cls, parser, only=None) -> None:
        cls.add_run_arguments(parser, "output directory (default: figures)",
                              "small grid: the [quick] table of "
                              "experiments/configs/proposition1.toml (seconds; default: "
                              "off, the [default] table)")
        super().add_arguments(parser, only)

    @classmethod
    def check_config(cls, config: dict, source: str, given, section: str) -> None:
        """The keys' agreement and the games' feasibility
        (:func:`experiments.vista.proposition1.check_grid`)."""
        from experiments.vista.proposition1 import check_grid

        check_grid(config, source)


@register
@dataclass(frozen=True)
class SortedWindowSettings(Settings):
    """``ctxsim run sorted_window``: the bounded ledger as a sorted window
    (THEORY.md §5)."""

    NAME: ClassVar[str] = "sorted_window"
    HEADER: ClassVar[str] = """\
Grids of `ctxsim run sorted_window` (THEORY.md §5: the eviction game with a bounded
ledger). [quick] (used with --quick) overrides some keys of [default]; command-line
options win over both, and over a --config FILE."""

    seed: int = _seed(0, "base random seed ({default})")
    n: int = setting(100, k.integer(1, k.MAX_BLOCKS), f"blocks in the working set, "
                     f"1..{k.MAX_BLOCKS:,} ({{default}})", metavar="BLOCKS",
                     note="blocks in the working set")
    rhos: tuple[float, ...] = setting(
        (0.25, 0.5, 0.75), ListOf(k.number_in(0.0, 1.0, "a number in (0, 1]",
                                              lo_open=True)),
        "excess as a fraction of the total size, each in (0, 1] ({default})",
        metavar="RHO", note="excess as a fraction of the total size, each in (0, 1]")
    sigma: float = setting(1.0, k.positive_number(float_in(0.0)),
                           "content-channel noise of unlisted blocks ({default}, the "
                           "medium agent profile)",
                           note="content-channel noise of unlisted blocks (medium profile)")
    trials: int = setting(20_000, k.COUNT, "trials per point ({default})", quick=2_000,
                          parse=positive_int, note="trials per point")
    windows: tuple[int, ...] = setting(
        (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 100),
        ListOf(k.integer(0, k.MAX_BLOCKS, nonnegative_int)), "listed rows w ({default})",
        quick=(0, 1, 2, 4, 8, 16, 100), metavar="W", note="listed rows w")
    # panel (b)'s two-point game needs kappa >= 2 (and < n)
    kappa: int = setting(8, k.integer(2), "large blocks of panel (b)'s Theorem 1 "
                         "two-point game", option=None,
                         note="large blocks of panel (b)'s Theorem 1 two-point game")

    @classmethod
    def add_arguments(cls, parser, only=None) -> None:
        trials = cls.overrides("quick")["trials"]
        cls.add_run_arguments(parser, quick_help=f"small, fast version: {trials:,} "
                              "trials and fewer windows (explicit options win; "
                              "default: off)")
        super().add_arguments(parser, only)

    @classmethod
    def finish(cls, values: dict, args) -> dict:
        """Refuse a ``--n`` too small for panel (b)'s Theorem 1 game, or a window
        above n.

        Raises:
            UsageError: naming the option (or the config's key) and the bound (exit 2).
        """
        from experiments.arguments import UsageError

        # panel (b) plays the two-point game (kappa large blocks) for windows 0..2 kappa
        least = 2 * values["kappa"] + 1
        if values["n"] < least:
            raise UsageError(f"--n {values['n']}: expected at least {least} blocks "
                             f"(panel (b)'s Theorem 1 game lists up to {least - 1} rows)")
        # at most n rows can be listed: a larger w would write rows labelled with a w
        # the game never played (it lists all n, the full ledger)
        wider = [w for w in values["windows"] if w > values["n"]]
        if wider:
            windows = ("--windows" if getattr(args, "windows", None) is not None
                       else "the config's windows")
            n = "--n" if getattr(args, "n", None) is not None else "the config's n"
            raise UsageError(f"{windows}: w = {wider[0]} is more listed rows than the "
                             f"n = {values['n']} blocks ({n}); expected each w <= "
                             f"{values['n']} (w = n: the full ledger)")
        return values
