"""The fixed held-in / held-out task split of ContextEvo and Evo-Harness.

ContextEvo App. A (BrowseComp-Plus hard174): ``random.Random(15)`` is applied to the
sorted task names; the first 76 of 174 are held in (evolution), the remaining 98 held
out (evaluation only). Both loops use this one helper so a task never changes side
between them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Iterable

from sim.tasks.families import family_of

#: the paper's BrowseComp-Plus split: 76 held-in of 174
PAPER_HELD_IN_FRACTION = 76 / 174
PAPER_SEED = 15


@dataclass(frozen=True)
class Split:
    """A held-in / held-out partition of task names.

    Attributes:
        held_in: task names the loop may read (evolution set), in shuffled order.
        held_out: task names reserved for evaluating the frozen result.
        seed: the ``random.Random`` seed used.
    """

    held_in: tuple[str, ...]
    held_out: tuple[str, ...]
    seed: int

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
    names = list(names)
    if not names:
        raise ValueError("the task set is empty; the split needs at least 2 tasks")
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise ValueError(f"task names must be non-empty strings, got {bad[0]!r}")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"task names must be distinct; {dup!r} appears twice")
    if isinstance(held_in_fraction, bool) or not isinstance(held_in_fraction, (int, float)) \
            or not 0.0 < held_in_fraction < 1.0:
        raise ValueError(f"held_in_fraction must be in (0, 1), got {held_in_fraction!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, got {seed!r}")
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
                         seed)
        inner = split_tasks(rest, held_in_fraction, seed)
        out = inner.held_out + tuple(sorted(n for n in names
                                            if family_of(n) in whole))
        return Split(inner.held_in, out, seed)
    order = sorted(names)
    random.Random(seed).shuffle(order)
    k = round(held_in_fraction * len(order))
    if k == 0 or k == len(order):
        side = "held-in" if k == 0 else "held-out"
        raise ValueError(f"held_in_fraction={held_in_fraction!r} with {len(order)} tasks "
                         f"leaves the {side} side empty")
    return Split(tuple(order[:k]), tuple(order[k:]), seed)
