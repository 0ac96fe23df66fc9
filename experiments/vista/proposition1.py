"""``ctxsim run proposition1``: lossy strategies against a recoverable archive.

Writes ``proposition1.csv``, ``proposition1.png`` and ``proposition1.json``:

* panel ``budget``: success probability against ``B/(Nk)`` for one ``(N, k)``, for
  every strategy (keep_blocks, keep_prefix, linear_hash, recoverable), simulated
  with the real encoders and in closed form, with the Fano bound ``B/(Nk) + 1/k``.
* panel ``separation``: along ``k = ceil(sqrt N)``, ``B = floor(c N log2 N)``, the
  lossy bound goes to 0 while the recoverable strategy stays at 1 (THEORY.md §1);
  simulated up to ``N = 2^sep_sim_max`` and continued to ``2^sep_max`` by the closed
  forms those simulations verify. The linear hash is left out here: one trial needs
  a ``B x Nk`` GF(2) matrix (about 2e6 bits already at N = 2^7), and its success is
  ``2^-k`` to within ``2^(B - (N-1)k)`` anyway.
* panel ``fixed_budget``: ``B`` and ``k`` fixed, ``N`` growing: the recoverable
  strategy drops to 0 once its handles no longer fit (at the integer threshold
  :func:`sim.games.recovery.recoverable_max_N`; the real-valued Lambert-W threshold
  ``N*`` of :func:`theory.proposition1.fixed_budget_threshold` is marked).

CSV columns: :data:`COLUMNS`. ``source`` is ``simulated`` or ``closed_form``; a
simulated row's ``seed`` reproduces it exactly with
:func:`sim.games.recovery.simulate` (or :func:`sim.games.recovery_strategies.evaluate`
with ``LinearHash()`` for the linear hash).
"""

from __future__ import annotations

import argparse
import math
import pathlib

import numpy as np

from experiments.output import new_figure, prepare_out, save_figure, write_csv, write_sidecar
from experiments.config import ConfigValueError
from sim.games.recovery import (exact_success, fano_bound, recoverable_max_N, simulate,
                                validate_game)
from sim.games.recovery_strategies import LinearHash, evaluate
from theory.proposition1 import fixed_budget_threshold

from experiments.settings.theory import Proposition1Settings

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = Proposition1Settings

COLUMNS = ["panel", "strategy", "N", "k", "B", "B_over_Nk", "success", "success_se", "bound",
           "trials", "seed", "source"]

STRATEGIES = ["keep_blocks", "keep_prefix", "linear_hash", "recoverable"]

#: the grids: the ``[default]`` and ``[quick]`` tables of
#: ``experiments/configs/proposition1.toml`` (``budget_B_step``: simulated B values are
#: multiples of it, plus Nk - 1; closed forms are evaluated at every B)
CONFIG = "proposition1"


def _row_seed(seed: int, *key: int) -> int:
    """A per-row integer seed derived from the base seed and the row's position."""
    return int(np.random.SeedSequence([seed, *key]).generate_state(1, np.uint32)[0])


def _row(panel, strategy, N, k, B, success, se, trials, seed, source):
    return {"panel": panel, "strategy": strategy, "N": N, "k": k, "B": B,
            "B_over_Nk": B / (N * k), "success": success, "success_se": se,
            "bound": fano_bound(N, k, B), "trials": trials, "seed": seed, "source": source}


def _simulate_row(panel, strategy, N, k, B, trials, seed, c0):
    if strategy == "linear_hash":
        ev = evaluate(LinearHash(resample=True), N, k, B, trials, seed)
        return _row(panel, strategy, N, k, B, ev.success, ev.se, trials, seed, "simulated")
    res = simulate(strategy, N, k, B, trials, seed, c0)
    return _row(panel, strategy, N, k, B, res.success, res.se, trials, seed, "simulated")


def _closed_row(panel, strategy, N, k, B, c0):
    return _row(panel, strategy, N, k, B, exact_success(strategy, N, k, B, c0), 0.0, 0, "",
                "closed_form")


def separation_point(N: int, c: float) -> tuple[int, int]:
    """``(k, B)`` on the separation curve: ``k = ceil(sqrt N)``, ``B = floor(c N log2 N)``."""
    return math.isqrt(N - 1) + 1, int(math.floor(c * N * math.log2(N)))


def fixed_budget_grid(B: int, k: int, fixed_max: int, c0: float) -> list[int]:
    """N values of the fixed-budget panel (budget ``B`` bits, ``k`` bits per block,
    N up to ``2^fixed_max``, handle cost ``c0``): quarter-octaves with ``N k > B``,
    plus the last feasible N and the next one, so the drop is resolved exactly."""
    ns = {round(2 ** (j / 4)) for j in range(4, 4 * fixed_max + 1)}
    n_max = recoverable_max_N(k, B, c0)
    ns |= {n_max, n_max + 1}
    return sorted(n for n in ns if n * k > B)


def check_grid(config: dict, source: str = "the shipped config") -> None:
    """Refuse a grid whose keys disagree (``sep_min <= sep_sim_max <= sep_max``,
    ``fixed_sim_max <= fixed_max``, ``fixed_k < fixed_B``) or whose panels reach a
    point that is no recovery game T(N, k, B) (N >= 2, k >= 1, 0 <= B < N k), before
    anything is computed.

    Raises:
        ConfigValueError: naming the keys, ``source`` and the bad value or point.
    """
    def refuse(keys, what):
        raise ConfigValueError(f"config key{'s' if len(keys) > 1 else ''} "
                               f"{', '.join(map(repr, keys))} in {source}: {what}")

    def game(keys, where, N, k, B):
        try:
            validate_game(N, k, B)
        except ValueError as exc:
            reason = str(exc)
        else:
            return
        refuse(keys, f"{where} is no recovery game: {reason}")

    for a, b in (("sep_min", "sep_sim_max"), ("sep_sim_max", "sep_max")):
        if config[a] > config[b]:
            refuse((b,), f"got {config[b]!r}; expected at least {a} = {config[a]!r}")
    if config["fixed_sim_max"] > config["fixed_max"]:
        refuse(("fixed_sim_max",), f"got {config['fixed_sim_max']!r}; expected at most "
                                   f"fixed_max = {config['fixed_max']!r}")
    game(("budget_N", "budget_k"), f"the budget panel's N = {config['budget_N']}, "
         f"k = {config['budget_k']}", config["budget_N"], config["budget_k"], 0)
    for j in range(config["sep_min"], config["sep_max"] + 1):
        k, B = separation_point(2**j, config["c"])
        game(("sep_min", "sep_max", "c"), f"the separation point N = 2^{j} (k = {k}, "
             f"B = {B})", 2**j, k, B)
    keys = ("fixed_B", "fixed_k", "fixed_max", "c0")
    try:
        ns = fixed_budget_grid(config["fixed_B"], config["fixed_k"], config["fixed_max"],
                               config["c0"])
    except ValueError as exc:
        ns, reason = None, str(exc)
    if ns is None:
        refuse(keys, f"the fixed-budget panel has no grid: {reason}")
    if not ns:
        refuse(keys, f"the fixed-budget panel has no N up to 2^{config['fixed_max']} "
                     f"with N k > B = {config['fixed_B']}")
    for n in ns:
        game(keys, f"the fixed-budget point N = {n} (k = {config['fixed_k']}, "
             f"B = {config['fixed_B']})", n, config["fixed_k"], config["fixed_B"])
    # the panel marks N* = exp(W((B - k) ln 2 / c0)), which exists only for B > k
    if config["fixed_k"] >= config["fixed_B"]:
        refuse(("fixed_k", "fixed_B"), f"fixed_k = {config['fixed_k']} is not below "
               f"fixed_B = {config['fixed_B']}; expected fixed_k < fixed_B (the "
               "fixed-budget threshold N* needs B > k)")


def build_rows(config, seed: int) -> list[dict]:
    """Every CSV row of the three panels (simulations and closed forms)."""
    rows: list[dict] = []
    c0 = config.c0
    N, k = config.budget_N, config.budget_k
    sim_B = sorted(set(range(0, N * k, config.budget_B_step)) | {N * k - 1})
    for si, strategy in enumerate(STRATEGIES):
        trials = (config.linear_hash_trials if strategy == "linear_hash"
                  else config.budget_trials)
        for B in range(N * k):
            rows.append(_closed_row("budget", strategy, N, k, B, c0))
        for bi, B in enumerate(sim_B):
            rows.append(_simulate_row("budget", strategy, N, k, B, trials,
                                      _row_seed(seed, 0, si, bi), c0))
    for si, strategy in enumerate(["keep_blocks", "keep_prefix", "recoverable"]):
        for j in range(config.sep_min, config.sep_max + 1):
            n = 2 ** j
            kk, B = separation_point(n, config.c)
            rows.append(_closed_row("separation", strategy, n, kk, B, c0))
            if j <= config.sep_sim_max:
                rows.append(_simulate_row("separation", strategy, n, kk, B,
                                          config.sep_trials, _row_seed(seed, 1, si, j), c0))
    B, kk = config.fixed_B, config.fixed_k
    for si, strategy in enumerate(["keep_blocks", "keep_prefix", "recoverable"]):
        for ni, n in enumerate(fixed_budget_grid(B, kk, config.fixed_max, c0)):
            rows.append(_closed_row("fixed_budget", strategy, n, kk, B, c0))
            if n <= 2 ** config.fixed_sim_max:
                rows.append(_simulate_row("fixed_budget", strategy, n, kk, B,
                                          config.fixed_trials, _row_seed(seed, 2, si, ni), c0))
    return rows


_COLORS = {"keep_blocks": "tab:blue", "keep_prefix": "tab:orange", "linear_hash": "tab:green",
           "recoverable": "tab:red"}
_LABELS = {"keep_blocks": "keep floor(B/k) blocks", "keep_prefix": "keep floor(B/N)-bit prefixes",
           "linear_hash": "random linear hash", "recoverable": "recoverable archive (handles)"}


def _series(rows, panel, strategy, source, x):
    sel = [r for r in rows if r["panel"] == panel and r["strategy"] == strategy
           and r["source"] == source]
    sel.sort(key=lambda r: float(r[x]))
    return (np.array([float(r[x]) for r in sel]), np.array([float(r["success"]) for r in sel]),
            np.array([float(r["success_se"]) for r in sel]))


def plot(rows: list[dict], meta: dict, path: pathlib.Path) -> dict[str, tuple[np.ndarray, ...]]:
    """Draw the three panels from CSV-like ``rows`` (values may be strings).

    Args:
        meta: ``budget_N``, ``budget_k``, ``c``, ``c0``, ``fixed_B``, ``fixed_k``,
            ``fixed_N_star``, ``fixed_N_max``.

    Returns:
        ``{"panel/strategy/source": (x, y)}`` (and ``"panel/bound"``) for every
        line and marker series drawn, so tests can check what the figure shows.
    """
    drawn: dict[str, tuple[np.ndarray, ...]] = {}
    fig, axes = new_figure(1, 3, figsize=(17, 5.2))
    panels = [("budget", "B_over_Nk"), ("separation", "N"), ("fixed_budget", "N")]
    for ax, (panel, x) in zip(axes, panels):
        for strategy in STRATEGIES:
            xc, yc, _ = _series(rows, panel, strategy, "closed_form", x)
            if xc.size == 0:
                continue
            step = "post" if panel == "budget" else None
            if step:
                ax.step(xc, yc, where=step, color=_COLORS[strategy], lw=1.4,
                        label=_LABELS[strategy])
            else:
                ax.plot(xc, yc, color=_COLORS[strategy], lw=1.4, label=_LABELS[strategy])
            drawn[f"{panel}/{strategy}/closed_form"] = (xc, yc)
            xs, ys, es = _series(rows, panel, strategy, "simulated", x)
            if xs.size:
                ax.errorbar(xs, ys, yerr=4 * es, fmt="o", ms=4, mfc="white",
                            color=_COLORS[strategy], capsize=2, lw=0.8)
                drawn[f"{panel}/{strategy}/simulated"] = (xs, ys)
        bsel = sorted({(float(r[x]), float(r["bound"])) for r in rows if r["panel"] == panel})
        bx, by = np.array([p[0] for p in bsel]), np.array([p[1] for p in bsel])
        ax.plot(bx, by, "k--", lw=1.3, label="lossy bound B/(Nk) + 1/k")
        drawn[f"{panel}/bound"] = (bx, by)
        # up to the highest series drawn: the lossy bound exceeds 1 at large B/(Nk)
        top = max([1.0] + [float(np.max(v[1])) for k, v in drawn.items()
                           if k.startswith(panel + "/") and len(v[1])])
        ax.set_ylim(-0.03, top + 0.05)
        ax.set_ylabel("P(exact reproduction of the target block)")
        ax.grid(alpha=0.3)
    axes[0].set_xlabel("B / (N k)")
    axes[0].set_title(f"T(N={meta['budget_N']}, k={meta['budget_k']}, B): lossy vs recoverable"
                      f"\n(lines: closed forms; circles: simulated, bars 4 SE)", fontsize=10)
    axes[0].legend(fontsize=8, loc="upper left")
    for ax in axes[1:]:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N (blocks)")
    axes[1].set_title(f"separation: k = ceil(sqrt N), B = floor({meta['c']:g} N log2 N), "
                      f"c0 = {meta['c0']:g}\n(circles simulated to N = 2^{meta['sep_sim_max']}, "
                      f"lines closed forms)", fontsize=10)
    axes[2].set_title(f"fixed budget B = {meta['fixed_B']} bits, k = {meta['fixed_k']}: "
                      f"handles stop fitting\n(last feasible N = {meta['fixed_N_max']}, "
                      f"N* = {meta['fixed_N_star']:.0f})", fontsize=10)
    axes[2].axvline(meta["fixed_N_star"], color="grey", ls=":", lw=1.2,
                    label="N* = exp(W((B-k) ln2 / c0))")
    axes[1].legend(fontsize=8, loc="center right")  # below the handles line at 1
    axes[2].legend(fontsize=8, loc="upper right")
    save_figure(fig, path)
    return drawn


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ctxsim run proposition1``
    (:class:`~experiments.settings.theory.Proposition1Settings`)."""
    # --no-progress is taken like every experiment's; this one prints no progress
    Proposition1Settings.add_arguments(parser)


def run(args: argparse.Namespace) -> list[pathlib.Path]:
    """Run the grid and write proposition1.{csv,png,json}; returns the paths."""
    config = Proposition1Settings.from_args(args)   # checked (check_grid) when loaded
    out = prepare_out(args.out)
    rows = build_rows(config, config.seed)
    meta = {**config.record(),
            "fixed_N_star": fixed_budget_threshold(config.fixed_B, config.fixed_k,
                                                   config.c0),
            "fixed_N_max": recoverable_max_N(config.fixed_k, config.fixed_B, config.c0)}
    paths = [write_csv(out / "proposition1.csv", COLUMNS, rows)]
    plot(rows, meta, out / "proposition1.png")
    paths.append(out / "proposition1.png")
    paths.append(write_sidecar(out / "proposition1.json",
                               {"grid": "quick" if args.quick else "default",
                                **config.record()},
                               {"rows": len(rows), "columns": COLUMNS,
                                "fixed_N_star": meta["fixed_N_star"],
                                "fixed_N_max": meta["fixed_N_max"]}))
    return paths
