"""The top-level index (:class:`TopLevel`) against a plain reference: a dict of
position -> id listed in sorted order, after random adds and removes (at the end, as
registration and an undone what-if do, and anywhere, as archive and restore do),
iterating between steps so the kept order is both reused and made again."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sim.workspace.toplevel import TopLevel

_step = st.tuples(st.sampled_from(["add_end", "add", "remove_end", "remove", "look"]),
                  st.integers(0, 40))


@settings(max_examples=400, deadline=None)
@given(steps=st.lists(_step, max_size=60))
def test_order_equals_the_sorted_reference(steps):
    top, ref = TopLevel(), {}
    for kind, n in steps:
        if kind == "add_end":
            key = max(ref, default=0) + 1 + n
            top.add(key, f"B{key}")
            ref[key] = f"B{key}"
        elif kind == "add" and n not in ref:
            top.add(n, f"G{n}")
            ref[n] = f"G{n}"
        elif kind == "remove_end" and ref:
            key = max(ref)
            top.remove(key)
            del ref[key]
        elif kind == "remove":
            top.remove(n)  # absent keys are ignored
            ref.pop(n, None)
        else:
            assert list(top) == [ref[k] for k in sorted(ref)]
        assert len(top) == len(ref)
    assert list(top) == [ref[k] for k in sorted(ref)]
