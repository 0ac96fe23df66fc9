"""The per-part timing of bench_episodes --breakdown (experiments.bench.breakdown):
exclusive time per part against a scripted clock, the callables restored, the
shares' arithmetic and its refusals."""

from __future__ import annotations

import types
from collections import Counter

import pytest

from experiments.bench import breakdown
from experiments.bench.breakdown import OTHER, PARTS, shares, timed


class Clock:
    """A clock that moves only when told: each call reads the time."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_time_is_charged_to_the_innermost_part(monkeypatch):
    clock = Clock()
    mod = types.ModuleType("fake_parts")

    def inner():
        clock.now += 3

    def outer():
        clock.now += 5
        mod.inner()
        clock.now += 2
        mod.inner()

    mod.inner, mod.outer = inner, outer
    monkeypatch.setitem(__import__("sys").modules, "fake_parts", mod)
    parts = {"out": ("fake_parts:outer",), "in": ("fake_parts:inner",)}
    with timed(parts, clock=clock) as seconds:
        mod.outer()
        mod.inner()
    assert seconds == Counter({"out": 7, "in": 9})
    assert mod.inner is inner and mod.outer is outer  # restored


def test_methods_are_restored_even_when_the_block_raises():
    from sim.workspace.workspace import Workspace

    before = Workspace.__dict__["assemble"]
    with pytest.raises(RuntimeError, match="stop"):
        with timed():
            assert Workspace.__dict__["assemble"] is not before
            raise RuntimeError("stop")
    assert Workspace.__dict__["assemble"] is before


def test_a_missing_target_is_named_and_nothing_stays_patched():
    from sim.workspace.workspace import Workspace

    before = Workspace.__dict__["assemble"]
    with pytest.raises(AttributeError, match="no_such_method"):
        with timed({"a": ("sim.workspace.workspace:Workspace.assemble",),
                    "b": ("sim.workspace.workspace:Workspace.no_such_method",)}):
            pass
    assert Workspace.__dict__["assemble"] is before


def test_every_part_resolves():
    for targets in PARTS.values():
        for target in targets:
            owner, name = breakdown._resolve(target)
            assert callable(getattr(owner, name)), target


def test_shares_sum_to_one_with_the_rest_as_other():
    got = shares(Counter({"assembly": 2.0, "view": 1.0}), 4.0)
    assert list(got) == [*PARTS, OTHER]
    assert got["assembly"] == 0.5 and got["view"] == 0.25 and got[OTHER] == 0.25
    assert sum(got.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("total", [0.0, -1.0, 2.9])
def test_shares_refuse_a_total_below_the_parts(total):
    with pytest.raises(ValueError, match="must be positive and at least"):
        shares(Counter({"assembly": 2.0, "view": 1.0}), total)


def test_an_inherited_method_is_removed_again_not_copied_down():
    from sim.workspace.memory import ScratchWorkspace

    assert "assemble" not in vars(ScratchWorkspace)
    with timed({"a": ("sim.workspace.memory:ScratchWorkspace.assemble",)}):
        assert "assemble" in vars(ScratchWorkspace)
    assert "assemble" not in vars(ScratchWorkspace)


def test_a_benchmark_description_is_its_docstrings_first_paragraph():
    from experiments.bench import description

    doc = """Cost of one thing, the slow path against the fast path (run:
``python -m x``).

Details that --help leaves out."""
    assert description(doc) == ("Cost of one thing, the slow path against the fast "
                                 "path (run: ``python -m x``).")
