"""Independent numeric routes for the spot checks: literal enumeration, no closed forms.

These play the eviction game of THEORY.md §2 block by block (sizes, the stopping
rule "stop as soon as freed size >= L"), enumerate every random choice with exact
:class:`fractions.Fraction` weights, and compute mutual information from a joint pmf.
They are deliberately slow and small (n <= 8) so they share no algebra with the
formulas they check.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np


def eviction_Z(order, bulky: int, kappa: int) -> int:
    """Play one eviction: archive ``order`` until freed size >= L; return Z.

    Sizes in units of a load-bearing block (l = 1, L = kappa). Z counts archived
    load-bearing blocks. Raises ValueError if the order runs out first.
    """
    freed = archived_load_bearing = 0
    for block in order:
        if block == bulky:
            freed += kappa
        else:
            freed += 1
            archived_load_bearing += 1
        if freed >= kappa:
            return archived_load_bearing
    raise ValueError("order exhausted before freeing L")


def _average_over_orders(first: list[int], rest: list[int], bulky: int, kappa: int) -> Fraction:
    """Mean Z over all orders of ``first`` (uniformly random), followed by ``rest``."""
    perms = list(itertools.permutations(first))
    total = sum(eviction_Z(list(p) + rest, bulky, kappa) for p in perms)
    return Fraction(total, len(perms))


def list_channel_EZ(n: int, m: int, kappa: int) -> Fraction:
    """Exact E[Z] of the list channel: Y a uniform m-subset containing J*, archived in
    random order, then the remaining blocks (in index order)."""
    total, count = Fraction(0), 0
    for bulky in range(n):
        others = [j for j in range(n) if j != bulky]
        for extra in itertools.combinations(others, m - 1):
            listed = [bulky, *extra]
            rest = [j for j in range(n) if j not in listed]
            total += _average_over_orders(listed, rest, bulky, kappa)
            count += 1
    return total / count


def windowed_EZ(n: int, w: int, kappa: int) -> Fraction:
    """Exact E[Z] of the windowed ledger: Y shows exact sizes of a uniform w-subset W.

    If J* is in W it is archived first; otherwise the unlisted blocks are archived
    in random order (the listed ones are known load-bearing and kept).
    """
    total, count = Fraction(0), 0
    for bulky in range(n):
        for window in itertools.combinations(range(n), w):
            if bulky in window:
                z = Fraction(eviction_Z([bulky], bulky, kappa))
            else:
                unlisted = [j for j in range(n) if j not in window]
                z = _average_over_orders(unlisted, [], bulky, kappa)
            total += z
            count += 1
    return total / count


def mutual_information_bits(joint: np.ndarray) -> float:
    """I(X; Y) in bits of a joint pmf matrix (rows x, columns y)."""
    joint = np.asarray(joint, dtype=float)
    px = joint.sum(axis=1, keepdims=True)
    py = joint.sum(axis=0, keepdims=True)
    nz = joint > 0
    return float(np.sum(joint[nz] * np.log2(joint[nz] / (px @ py)[nz])))


def list_channel_joint(n: int, m: int) -> np.ndarray:
    """Joint pmf of (J*, Y) for the list channel: rows J*, columns the m-subsets."""
    subsets = list(itertools.combinations(range(n), m))
    joint = np.zeros((n, len(subsets)))
    for col, subset in enumerate(subsets):
        for j in subset:
            joint[j, col] = 1.0
    return joint / joint.sum()


def windowed_joint(n: int, w: int) -> np.ndarray:
    """Joint pmf of (J*, Y) for the windowed ledger.

    Y = (W, the listed block that is bulky, or None if none is).
    """
    outcomes: dict[tuple, int] = {}
    rows = []
    for bulky in range(n):
        for window in itertools.combinations(range(n), w):
            y = (window, bulky if bulky in window else None)
            rows.append((bulky, outcomes.setdefault(y, len(outcomes))))
    joint = np.zeros((n, len(outcomes)))
    for bulky, col in rows:
        joint[bulky, col] += 1.0
    return joint / joint.sum()


def channel_stats(channel: np.ndarray, m: int) -> tuple[float, float]:
    """For J* ~ Uniform and P(y | j) = ``channel[j, y]``: (I in bits, the largest
    P(J* in L) over lists L of size m that are functions of Y (MAP list))."""
    joint = np.asarray(channel, dtype=float) / channel.shape[0]
    top_m = -np.sort(-joint, axis=0)[:m]        # best m rows in each column
    return mutual_information_bits(joint), float(top_m.sum())
