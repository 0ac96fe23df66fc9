"""What one ``ctxsim run contextevo`` is made of, from its settings
(:class:`experiments.settings.contextevo.ContextEvoSettings`): the start specs, the
task sets, the back-end and the loop's :class:`~sim.evolve.contextevo.loop.EvolveConfig`
(ContextEvo §4-5)."""

from __future__ import annotations

import dataclasses

NAME = "contextevo"


def settings_of(args):
    """The :class:`~experiments.settings.contextevo.ContextEvoSettings` an argparse
    Namespace asks for (options over ``--config FILE`` over the table of
    :meth:`~experiments.settings.contextevo.ContextEvoSettings.section_of`).

    Raises:
        ConfigValueError: naming a bad or unknown key of ``--config`` (exit 2).
        UsageError: ``--spec`` with ``--start``, or ``--ef-seeds 1`` (exit 2).
    """
    from experiments.settings import settings_for

    cls = settings_for(NAME)
    return cls.from_args(args, cls.section_of(args))


def starts(s) -> list:
    """The start specs settings ``s`` name.

    Raises:
        KeyError: naming the known programs, for an unknown ``start``.
        SpecError: for a malformed ``spec`` file.
    """
    from sim.evolve.contextevo.compile import spec_of
    from sim.evolve.contextevo.spec import load_spec

    if s.spec:
        return [load_spec(s.spec)]
    if s.start:
        return [spec_of(s.start)]
    if s.backend == "llm":
        return [spec_of("react")]
    return [spec_of("react"), spec_of("masking")]


def tasksets(s) -> list:
    """The LOCA-like (default 128K growth, budget 128K) and BrowseComp-like (default
    W = 16K) sets of settings ``s``; with the llm back-end only the LOCA-like set
    (under ``--quick`` at 8K growth with budget 6K: short trajectories, few pages per
    case)."""
    from sim.evolve.contextevo.loop import browse_taskset, loca_taskset

    loca = loca_taskset(s.loca_growth, s.loca_budget, s.families, s.seeds, s.seed)
    if s.backend == "llm":
        return [loca]
    return [loca, browse_taskset(s.browse_window, s.queries, s.browse_seeds, s.seed)]


def make_backend(s, client=None):
    """The back-end settings ``s`` name (the llm one needs ``client``)."""
    from sim.evolve.contextevo.backends import LLMBackend, SyntheticBackend

    if s.backend == "llm":
        return LLMBackend(client, max_calls=s.llm_calls, context_tokens=4096)
    return SyntheticBackend(s.seed, s.mislabel)


def exposed(s) -> tuple:
    """The surfaces the editor may change (every one when ``s.surfaces`` is None)."""
    from sim.evolve.contextevo.spec import SURFACES

    return tuple(s.surfaces) if s.surfaces else SURFACES


def split_options(s) -> dict:
    """The split's :class:`~sim.evolve.contextevo.loop.EvolveConfig` keywords:
    ``held_out_families`` (None by default: whole families, this project's choice,
    issue 32; 0: ContextEvo App. A's per-task split) and ``held_in_fraction`` when
    given (else the paper's 76/174)."""
    kw = {"held_out_families": s.held_out_families}
    if s.held_in_fraction is not None:
        kw["held_in_fraction"] = s.held_in_fraction
    return kw


def _split_flags(s) -> str:
    """The options that chose the split, as typed (the default's words if none)."""
    from experiments.settings.contextevo import _plain_families

    given = []
    if s.held_in_fraction is not None:
        given.append(f"--held-in-fraction {s.held_in_fraction!r}")
    if s.held_out_families is not None:
        given.append(f"--held-out-families {_plain_families(s.held_out_families)}")
    return " ".join(given) or "the default split (whole families, 76/174 held in)"


def check_splits(s, sets) -> dict:
    """Task-set name -> its :class:`~sim.evolve.split.Split` under settings ``s``
    (:func:`sim.evolve.split.split_families`, the loop's own call), checked before
    any episode runs.

    Raises:
        UsageError: (exit 2) naming the options, when a name of
            ``--held-out-families`` is no family of any task set, when a task set
            cannot be split (a side without a task or family, no named family of
            it), or when its held-in side keeps fewer than the judge's
            ``MIN_SUPPORT`` tasks (a hypothesis needs that many failed held-in
            cases, so the loop could never change the spec).
    """
    from experiments.arguments import UsageError
    from sim.evolve.contextevo.judge import MIN_SUPPORT
    from sim.evolve.split import PAPER_HELD_IN_FRACTION, split_families
    from sim.tasks.families import family_of

    what = _split_flags(s)
    if isinstance(s.held_out_families, tuple):
        known = sorted({family_of(n) for ts in sets for n in ts.names})
        unknown = [f for f in s.held_out_families if f not in known]
        if unknown:
            raise UsageError(f"{what}: {unknown} name no family of the task sets; "
                             f"families: {', '.join(known)}")
    kw = split_options(s)
    out = {}
    for ts in sets:
        try:
            sp = split_families(ts.names, kw["held_out_families"],
                                kw.get("held_in_fraction", PAPER_HELD_IN_FRACTION))
        except ValueError as exc:
            raise UsageError(f"{what} cannot split the {len(ts.names)} tasks of "
                             f"{ts.name}: {exc}") from None
        if len(sp.held_in) < MIN_SUPPORT:
            raise UsageError(f"{what} leaves {len(sp.held_in)} held-in task(s) of "
                             f"{ts.name}; the loop needs at least {MIN_SUPPORT} (a "
                             f"hypothesis needs {MIN_SUPPORT} failed held-in cases)")
        out[ts.name] = sp
    return out


def shared_families(split) -> list[str]:
    """The families with tasks on both sides of ``split`` (a
    :class:`sim.evolve.split.Split`), sorted."""
    from sim.tasks.families import family_of

    return sorted({family_of(n) for n in split.held_in}
                  & {family_of(n) for n in split.held_out})


def split_record(s, splits: dict) -> dict:
    """The sidecar's record of the split: the rule, the options and, per task set,
    the families held out whole and the tasks and families on each side."""
    from sim.evolve.split import PAPER_HELD_IN_FRACTION, PAPER_SEED
    from sim.tasks.families import family_of

    by = {}
    for name, sp in splits.items():
        fam_in = sorted({family_of(n) for n in sp.held_in})
        fam_out = sorted({family_of(n) for n in sp.held_out})
        by[name] = {"held_in": len(sp.held_in), "held_out": len(sp.held_out),
                    "held_out_families": list(sp.held_out_families),
                    "families_held_in": len(fam_in), "families_held_out": len(fam_out),
                    "families_on_both_sides": shared_families(sp)}
    per_task = s.held_out_families == 0
    return {"rule": ("split_tasks: sorted task names shuffled by random.Random(15), the "
                     "first round(held_in_fraction * tasks) held in (ContextEvo App. A)"
                     if per_task else
                     "split_families: sorted family names shuffled by random.Random(15), "
                     "the first held in, every task of the rest held out (ours, issue "
                     "32; the paper splits tasks)"),
            "unit": "tasks" if per_task else "families",
            "held_out_families": (list(s.held_out_families)
                                  if isinstance(s.held_out_families, tuple)
                                  else s.held_out_families),
            "held_in_fraction": s.held_in_fraction or PAPER_HELD_IN_FRACTION,
            "seed": PAPER_SEED, "by_setting": by}


def evolve_config(s, **over):
    """The loop's config under settings ``s``, with ``over`` (a variant's switches)."""
    from sim.evolve.contextevo.loop import EvolveConfig

    kw = {"iterations": s.iterations, "candidates": s.candidates,
          "hypotheses": s.hypotheses, "seed": s.seed, "exposed": exposed(s), **split_options(s)}
    if s.backend == "synthetic":
        kw["reference_mislabel"] = 0.0  # attribution also scored at mislabel 0
    return EvolveConfig(**{**kw, **over})


def progress_printer(args):
    """``print`` for the loop's progress lines, or a no-op under ``--no-progress``."""
    return (lambda line: None) if getattr(args, "no_progress", False) else print


def with_seed(s, seed: int):
    """Settings ``s`` at another base seed."""
    return dataclasses.replace(s, seed=seed)
