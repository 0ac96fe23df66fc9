"""The shared task split (ContextEvo App. A)."""

import random

import pytest
from hypothesis import given, strategies as st

from sim.evolve.split import split_tasks


def test_paper_split_sizes_and_rule():
    names = [f"q{i:03d}" for i in range(174)]
    s = split_tasks(reversed(names))
    assert (len(s.held_in), len(s.held_out)) == (76, 98)
    # independent route: the rule as the paper states it
    order = sorted(names)
    random.Random(15).shuffle(order)
    assert s.held_in == tuple(order[:76]) and s.held_out == tuple(order[76:])


@given(st.sets(st.text(min_size=1, max_size=5), min_size=2, max_size=60),
       st.floats(0.05, 0.95), st.integers(0, 2**31))
def test_partition_and_order_independence(names, frac, seed):
    try:
        s = split_tasks(sorted(names), frac, seed)
    except ValueError as e:
        assert "empty" in str(e)
        return
    assert set(s.held_in) | set(s.held_out) == set(names)
    assert not set(s.held_in) & set(s.held_out)
    assert s == split_tasks(sorted(names, reverse=True), frac, seed)


@pytest.mark.parametrize("names, frac, match", [
    ([], 0.5, "empty"),
    (["a"], 0.5, "empty"),
    (["a", "a"], 0.5, "twice"),
    (["a", "b"], 1.0, "held_in_fraction"),
    (["a", "b"], 0.0, "held_in_fraction"),
    (["a", "b", 3], 0.5, "3"),
    (["a", "b", "c"], 0.01, "held-in side empty"),
])
def test_bad_input_names_the_value(names, frac, match):
    with pytest.raises(ValueError, match=match):
        split_tasks(names, frac)
