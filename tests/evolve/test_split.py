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


# -- the family hold-out (issue 32; ours, not the paper's) ---------------------------

from sim.evolve.split import PER_TASK, split_families  # noqa: E402


def _loca_names(families=15, seeds=5):
    from sim.tasks.families import family_spec

    return [f"loca/{family_spec(f).name}/s{s}/128000" for f in range(families)
            for s in range(seeds)]


def _browse_names(queries=25, seeds=2):
    return [f"browse/q{q}/s{s}" for q in range(queries) for s in range(seeds)]


def _fam(name):
    return name.split("/")[1]


@pytest.mark.parametrize("names", [_loca_names(), _loca_names(15, 2), _browse_names(),
                                   _browse_names(15, 2)])
def test_default_family_split_puts_each_family_on_one_side(names):
    s = split_families(names)
    fam_in, fam_out = {_fam(n) for n in s.held_in}, {_fam(n) for n in s.held_out}
    assert not fam_in & fam_out
    assert set(s.held_in) | set(s.held_out) == set(names)
    assert set(s.held_out_families) == fam_out
    # independent route: the paper's rule applied to the sorted families
    fams = sorted(fam_in | fam_out)
    random.Random(15).shuffle(fams)
    k = round(76 / 174 * len(fams))
    assert fam_in == set(fams[:k]) and fam_out == set(fams[k:])


def test_family_split_sizes_on_the_two_task_sets():
    loca, browse = split_families(_loca_names()), split_families(_browse_names())
    assert (len(loca.held_out_families), len(loca.held_in), len(loca.held_out)) == (8, 35, 40)
    assert (len(browse.held_out_families), len(browse.held_in), len(browse.held_out)) == \
        (14, 22, 28)


def test_per_task_split_is_still_reachable():
    names = _loca_names()
    old = split_families(names, PER_TASK)
    assert old == split_tasks(names) and old.held_out_families == ()
    # the per-task split puts some family on both sides: what issue 32 is about
    assert {_fam(n) for n in old.held_in} & {_fam(n) for n in old.held_out}
    assert split_families(names, 0, 0.5) == split_tasks(names, 0.5)


@given(st.permutations(_loca_names(6, 3) + _browse_names(4, 2)), st.integers(0, 2**31))
def test_family_choice_is_deterministic_and_independent_of_name_order(names, seed):
    ref = split_families(sorted(names), seed=seed)
    assert split_families(names, seed=seed) == ref
    assert split_families(names, 3, seed=seed) == split_families(sorted(names), 3, seed=seed)


def test_the_seed_chooses_the_families():
    names = _loca_names()
    draws = {split_families(names, seed=s).held_out_families for s in range(6)}
    assert len(draws) > 1
    assert split_families(names, seed=15) == split_families(names)


def test_count_share_and_names():
    names = _loca_names()
    three = split_families(names, 3)
    assert len(three.held_out_families) == 3 and len(three.held_out) == 15
    # a smaller count holds out a subset of a larger one (the tail of one shuffle)
    assert set(three.held_out_families) <= set(split_families(names).held_out_families)
    assert len(split_families(names, 0.2).held_out_families) == 3
    named = split_families(names, ("crm_dedupe", "q3"))   # q3: a BrowseComp-like name
    assert named.held_out_families == ("crm_dedupe",)
    assert {_fam(n) for n in named.held_out} == {"crm_dedupe"}


@pytest.mark.parametrize("held_out, match", [
    (-1, "got -1"), (1.5, "got 1.5"), (0.0, "got 0.0"), (True, "got True"),
    ("crm_dedupe", "got 'crm_dedupe'"), ((), "got ()"),
    (("nope",), r"\['nope'\] match no task"),
    (15, "held_out=15 with 15 families leaves the held-in side without a family"),
    (0.01, "held_out=0.01 with 15 families leaves the held-out side"),
])
def test_bad_family_hold_out_names_the_value(held_out, match):
    with pytest.raises(ValueError, match=match):
        split_families(_loca_names(), held_out)
    with pytest.raises(ValueError, match="held_in_fraction=0.999 with 15 families"):
        split_families(_loca_names(), None, 0.999)


def test_shared_families_lists_only_families_with_tasks_on_both_sides():
    from experiments.contextevo.setup import shared_families
    from sim.evolve.split import Split

    one_each = Split(("browse/q1/s0", "browse/q2/s0"), ("browse/q3/s0",), 15)
    assert shared_families(one_each) == []     # a per-task split of one task a query
    mixed = Split(("loca/a/s0/8000", "loca/b/s0/8000"),
                  ("loca/a/s1/8000", "loca/c/s0/8000"), 15)
    assert shared_families(mixed) == ["a"]
