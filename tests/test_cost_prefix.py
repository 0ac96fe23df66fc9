"""sim.cost.record_request's cached prefix against the plain loop it replaced (the
segments before the first that differs from the previous request's, summed): equal
for random pairs of segment lists, including shorter, longer and identical ones."""

from __future__ import annotations

import types

import hypothesis.strategies as st
from hypothesis import given, settings

from sim.cost import EpisodeResult, record_request

SEGMENTS = st.dictionaries(st.sampled_from([f"B{i}" for i in range(8)]),
                           st.integers(0, 50), max_size=8)


def _plain_cached(prev, keys):
    cached = 0
    for a, b in zip(prev, keys):
        if a != b:
            break
        cached += b[1] if isinstance(b[1], int) else 0
    return cached


@settings(max_examples=300)
@given(SEGMENTS, SEGMENTS, st.integers(0, 9), st.integers(0, 9), st.booleans())
def test_cached_prefix_equals_the_plain_loop(first, second, o1, o2, extend):
    if extend:  # the common case: the next request appends to the last one
        second = {**first, **second}
    r = EpisodeResult("t", "p", solved=False)
    req1 = types.SimpleNamespace(item_tokens=first, overhead=o1, total=10**6, dashboard=0)
    req2 = types.SimpleNamespace(item_tokens=second, overhead=o2, total=10**6, dashboard=0)
    prev = record_request(r, req1, [], "")
    assert r.cached_tokens == 0
    keys = record_request(r, req2, prev, "")
    assert keys == [("overhead", o2)] + list(second.items())
    assert r.cached_tokens == _plain_cached(prev, keys)
