"""sim.tracked against plain containers: after random sequences of every mutating
method, the container equals a plain dict or set given the same calls, and every key
whose presence or value differs from before the last drain is among the recorded
ones (a change that escaped the record would leave a stale view entry)."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import example, given, settings

from sim.tracked import TrackedDict, TrackedSet

KEYS = st.integers(0, 6)
DICT_OPS = st.one_of(
    st.tuples(st.just("setitem"), KEYS, st.integers()),
    st.tuples(st.just("delitem"), KEYS),
    st.tuples(st.just("pop"), KEYS),
    st.tuples(st.just("popitem")),
    st.tuples(st.just("setdefault"), KEYS, st.integers()),
    st.tuples(st.just("update"), st.dictionaries(KEYS, st.integers(), max_size=3)),
    st.tuples(st.just("ior"), st.dictionaries(KEYS, st.integers(), max_size=3)),
    st.tuples(st.just("clear")),
    st.tuples(st.just("drain")))
SET_OPS = st.one_of(
    st.tuples(st.sampled_from(["add", "discard", "remove"]), KEYS),
    st.tuples(st.just("pop")), st.tuples(st.just("clear")), st.tuples(st.just("drain")),
    st.tuples(st.sampled_from(["update", "difference_update", "intersection_update",
                               "symmetric_difference_update", "ior", "isub", "iand",
                               "ixor"]), st.sets(KEYS, max_size=4)))


def _dict_step(d, op):
    name, *args = op
    if name == "setitem":
        d[args[0]] = args[1]
    elif name == "delitem":
        del d[args[0]]
    elif name == "pop":
        d.pop(args[0], None)
    elif name == "ior":
        d |= args[0]
    else:
        getattr(d, name)(*args)


@settings(max_examples=400)  # cheap: a few ms for all
@example({1: 0, 2: 0}, [("drain",), ("popitem",), ("clear",)])
@given(st.dictionaries(KEYS, st.integers(), max_size=4), st.lists(DICT_OPS, max_size=25))
def test_tracked_dict_records_every_change(start, ops):
    tracked, plain = TrackedDict(start), dict(start)
    assert tracked.changed == set(start)  # a new container: every key is new
    base = {}
    for op in ops:
        if op[0] == "drain":
            tracked.drain()
            base = dict(plain)
            continue
        for d in (tracked, plain):
            try:
                _dict_step(d, op)
            except KeyError:
                pass
        assert tracked == plain
        differ = {k for k in set(base) | set(plain) if base.get(k, base) != plain.get(k, base)}
        assert differ <= tracked.changed


@settings(max_examples=400)
@example({1, 2, 3}, [("drain",), ("intersection_update", {1}), ("drain",), ("iand", {4}),
                     ("drain",), ("ixor", {5}), ("drain",), ("isub", {5}), ("pop",)])
@given(st.sets(KEYS, max_size=4), st.lists(SET_OPS, max_size=25))
def test_tracked_set_records_every_change(start, ops):
    tracked, plain = TrackedSet(start), set(start)
    assert tracked.changed == start
    base = set()
    for op in ops:
        name, *args = op
        if name == "drain":
            tracked.drain()
            base = set(plain)
            continue
        for s in (tracked, plain):
            try:
                if name in ("ior", "isub", "iand", "ixor"):
                    s2 = getattr(s, f"__{name}__")(*args)
                    assert s2 is s
                else:
                    getattr(s, name)(*args)
            except KeyError:
                pass
        assert tracked == plain
        assert base ^ plain <= tracked.changed
