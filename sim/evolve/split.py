"""The fixed held-in / held-out task split of ContextEvo and Evo-Harness.

ContextEvo App. A (BrowseComp-Plus hard174): ``random.Random(15)`` is applied to the
sorted task names; the first 76 of 174 are held in (evolution), the remaining 98 held
out (evaluation only). Both loops use this one helper so a task never changes side
between them.

The family hold-out (:func:`split_families`) is this project's choice (issue 32), not
the paper's: the paper's split shuffles individual tasks, so on task sets with several
instances per family (the LOCA-like 15 families x seeds, the BrowseComp-like queries x
instance seeds) held-in and held-out would share families and "held out" would mean
"other instances of families seen in evolution". :func:`split_families` applies the
paper's rule to the sorted family names instead: ``random.Random(seed)`` shuffles them,
the first ``round(fraction * families)`` are held in, and every task of the others is
held out, so no family has tasks on both sides.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Iterable

from sim.tasks.families import family_of

#: the paper's BrowseComp-Plus split: 76 held-in of 174
PAPER_HELD_IN_FRACTION = 76 / 174
PAPER_SEED = 15
#: ``held_out`` of :func:`split_families` for the paper's per-task split (no family
#: held out whole: :func:`split_tasks`)
PER_TASK = 0


@dataclass(frozen=True)
class Split:
    """A held-in / held-out partition of task names.

    Attributes:
        held_in: task names the loop may read (evolution set), in shuffled order
            (sorted under :func:`split_families`' family hold-out).
        held_out: task names reserved for evaluating the frozen result.
        seed: the ``random.Random`` seed used.
        held_out_families: the families held out whole, sorted (empty when tasks,
            not families, were split).
    """

    held_in: tuple[str, ...]
    held_out: tuple[str, ...]
    seed: int
    held_out_families: tuple[str, ...] = ()

    def side(self, name: str) -> str:
        """``"held_in"`` or ``"held_out"`` for ``name``.

        Raises:
            KeyError: naming ``name`` when it is in neither side.
        """
        if name in self.held_in:
            return "held_in"
        if name in self.held_out:
            return "held_out"
        raise KeyError(f"task {name!r} is in neither side of the split")


def _checked(names: Iterable[str], seed) -> list[str]:
    """``names`` as a list, refused (naming the value) when empty, not distinct
    non-empty strings, or with a ``seed`` that is not an int."""
    names = list(names)
    if not names:
        raise ValueError("the task set is empty; the split needs at least 2 tasks")
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise ValueError(f"task names must be non-empty strings, got {bad[0]!r}")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"task names must be distinct; {dup!r} appears twice")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, got {seed!r}")
    return names


def split_tasks(names: Iterable[str], held_in_fraction: float = PAPER_HELD_IN_FRACTION,
                seed: int = PAPER_SEED, held_out_families: Iterable[str] = (),
                family_of: Callable[[str], str] = family_of) -> Split:
    """Split task names as ContextEvo App. A does: sort, shuffle with
    ``random.Random(seed)``, take the first ``round(fraction * n)`` as held in.

    Args:
        names: distinct task names (any order; the split depends only on the set).
        held_in_fraction: share of tasks held in, strictly between 0 and 1.
        seed: ``random.Random`` seed (the paper's is 15).
        held_out_families: families held out whole (issue 17): every task of these
            goes to the held-out side, so "held out" can mean unseen families; the
            other tasks are split as above (the fraction applies to them).
        family_of: a task name's family (default: the second ``/`` field of
            ``"<generator>/<family>/..."``).

    Returns:
        a :class:`Split`; with the defaults and 174 names, 76 held in and 98 held out.

    Raises:
        ValueError: for an empty task set, duplicate or non-string names, a fraction
            outside (0, 1), a held-out family no task belongs to, or a split that
            leaves either side empty (names the value).
    """
    names = _checked(names, seed)
    if isinstance(held_in_fraction, bool) or not isinstance(held_in_fraction, (int, float)) \
            or not 0.0 < held_in_fraction < 1.0:
        raise ValueError(f"held_in_fraction must be in (0, 1), got {held_in_fraction!r}")
    whole = set(held_out_families)
    if whole:
        families = {family_of(n) for n in names}
        missing = sorted(whole - families)
        if missing:
            raise ValueError(f"held_out_families {missing} match no task; families: "
                             f"{sorted(families)}")
        rest = [n for n in names if family_of(n) not in whole]
        if not rest:
            raise ValueError("held_out_families hold every task; the held-in side "
                             "would be empty")
        if len(rest) == 1:
            return Split(tuple(rest), tuple(sorted(n for n in names if n not in rest)),
                         seed, tuple(sorted(whole)))
        inner = split_tasks(rest, held_in_fraction, seed)
        out = inner.held_out + tuple(sorted(n for n in names
                                            if family_of(n) in whole))
        return Split(inner.held_in, out, seed, tuple(sorted(whole)))
    order = sorted(names)
    random.Random(seed).shuffle(order)
    k = round(held_in_fraction * len(order))
    if k == 0 or k == len(order):
        side = "held-in" if k == 0 else "held-out"
        raise ValueError(f"held_in_fraction={held_in_fraction!r} with {len(order)} tasks "
                         f"leaves the {side} side empty")
    return Split(tuple(order[:k]), tuple(order[k:]), seed)


def split_families(names: Iterable[str], held_out=None,
                   held_in_fraction: float = PAPER_HELD_IN_FRACTION,
                   seed: int = PAPER_SEED,
                   family_of: Callable[[str], str] = family_of) -> Split:
    """Hold out whole families (issue 32; ours, not ContextEvo App. A's per-task
    split): the sorted family names are shuffled with ``random.Random(seed)`` (the
    paper's rule, applied to families); the first ones are held in, every task of
    the rest held out, so no family has tasks on both sides. The draw depends only on
    the set of families, never on the order of ``names``.

    Args:
        names: distinct task names.
        held_out: which families go out whole: None, the share ``1 -
            held_in_fraction`` of them (``round(held_in_fraction * families)`` held
            in, as the paper rounds tasks); an int ``N >= 1``, N of them; a float in
            (0, 1), ``round(share * families)`` of them; a list/tuple/set of family
            names, those of them this task set has (a name it lacks is skipped, so one
            list can serve several task sets; at least one must match);
            :data:`PER_TASK` (0): no family whole, the paper's per-task split
            (:func:`split_tasks` with ``held_in_fraction`` and ``seed``).
        held_in_fraction: the held-in share (of families under ``held_out=None``, of
            tasks under :data:`PER_TASK`; otherwise unused).
        seed: ``random.Random`` seed (the paper's is 15).
        family_of: a task name's family (default: the second ``/`` field, the
            LOCA-like family or the BrowseComp-like query).

    Returns:
        a :class:`Split` whose ``held_out_families`` names the families held out.

    Raises:
        ValueError: naming the value, for a bad ``held_out``, names no family of the
            task set, a count or share leaving either side without a family, or the
            errors of :func:`split_tasks` (bad names, fraction or seed).
    """
    if isinstance(held_out, int) and not isinstance(held_out, bool) \
            and held_out == PER_TASK:
        return split_tasks(names, held_in_fraction, seed)
    names = _checked(names, seed)
    if held_out is None and (isinstance(held_in_fraction, bool) or not isinstance(
            held_in_fraction, (int, float)) or not 0.0 < held_in_fraction < 1.0):
        raise ValueError(f"held_in_fraction must be in (0, 1), got {held_in_fraction!r}")
    families = sorted({family_of(n) for n in names})
    n = len(families)
    if isinstance(held_out, (list, tuple, set, frozenset)):
        bad = [f for f in held_out if not isinstance(f, str) or not f]
        if bad or not held_out:
            raise ValueError(f"held_out families must be non-empty names, got "
                             f"{held_out!r}")
        out = sorted(set(held_out) & set(families))
        if not out:
            raise ValueError(f"held_out families {sorted(set(held_out))} match no "
                             f"task; families: {families}")
    else:
        if held_out is None:
            k_in = round(held_in_fraction * n)
        elif isinstance(held_out, bool) or not isinstance(held_out, (int, float)) or \
                held_out < 0 or isinstance(held_out, float) and not 0 < held_out < 1:
            raise ValueError(f"held_out must be None, 0, a count >= 1, a share in "
                             f"(0, 1) or family names, got {held_out!r}")
        else:
            k_in = n - (held_out if isinstance(held_out, int) else round(held_out * n))
        if not 0 < k_in < n:
            side = "held-in" if k_in <= 0 else "held-out"
            what = (f"held_in_fraction={held_in_fraction!r}" if held_out is None
                    else f"held_out={held_out!r}")
            raise ValueError(f"{what} with {n} families leaves the {side} side without "
                             "a family")
        order = list(families)
        random.Random(seed).shuffle(order)
        out = sorted(order[k_in:])
    if len(out) == n:
        raise ValueError(f"held_out families {out} are every family; the held-in side "
                         "would be empty")
    whole = set(out)
    return Split(tuple(sorted(x for x in names if family_of(x) not in whole)),
                 tuple(sorted(x for x in names if family_of(x) in whole)), seed,
                 tuple(out))
