"""Mutants that an independent mutation run found surviving the theory checks (issue
18, item 5), each applied to a copy of the module's source: the check built from
the mutated copy must now raise ProofError, and the unmutated copy must pass (so
the copying is not what fails)."""

import pathlib
import types

import pytest

import theory.bounds
import theory.proposition2
import theory.statements
from theory.list_channel import check_list_achievability
from theory.proof import ProofError, ProofRecord


def mutated(module: types.ModuleType, old: str, new: str) -> types.ModuleType:
    """A fresh copy of ``module`` executed from its source with ``old`` (which must
    occur exactly once) replaced by ``new``."""
    source = pathlib.Path(module.__file__).read_text()
    assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times"
    copy = types.ModuleType(f"{module.__name__}_mutant")
    copy.__file__ = module.__file__
    exec(compile(source.replace(old, new), module.__file__, "exec"), copy.__dict__)
    return copy


LOWER_LIMIT = "return mean - _Z_MC * se"
STANDARD_ERROR = "vals.std(ddof=1) / np.sqrt(samples)"
SPLIT = "UNIFORM_BURDEN = sp.Piecewise((UNIFORM_LOW, m <= kappa + 1), (UNIFORM_HIGH, True))"
ROUNDING = "m = np.clip(np.rint(n * np.exp2(-r)), 1, n)"

PROP2 = {
    "lower limit mean - 5": (LOWER_LIMIT, "return mean - _Z_MC"),
    "lower limit lowered by a bit": (LOWER_LIMIT, "return mean - 1.01 * _Z_MC * se"),
    "lower limit raised by a bit": (LOWER_LIMIT, "return mean - 0.99 * _Z_MC * se"),
    "SE without sqrt(samples) (141x)": (STANDARD_ERROR, "vals.std(ddof=1)"),
    "SE 2x too large": (STANDARD_ERROR, "2 * vals.std(ddof=1) / np.sqrt(samples)"),
    "SE over samples ** 0.25 (12x too large)": (STANDARD_ERROR,
                                                "vals.std(ddof=1) / samples ** 0.25"),
}


def _rate_checks(copy) -> None:
    """The numeric part both Proposition 2 checks share (the rates against a bound),
    run from ``copy`` on the centroid bound."""
    record = ProofRecord("mutant", "test", "I <= centroid")
    copy._rate_is_below(record, theory.statements.PROP2_CENTROID, "centroid bound")


def test_prop2_copy_without_mutation_passes():
    copy = mutated(theory.proposition2, LOWER_LIMIT, LOWER_LIMIT)
    _rate_checks(copy)
    copy.check_prop2_paper()


@pytest.mark.parametrize("case", sorted(PROP2))
def test_prop2_monte_carlo_mutant_is_killed(case):
    old, new = PROP2[case]
    with pytest.raises(ProofError, match="Monte Carlo"):
        _rate_checks(mutated(theory.proposition2, old, new))


@pytest.mark.parametrize("case", ["lower limit mean - 5", "SE without sqrt(samples) (141x)"])
def test_prop2_full_check_kills_the_reported_mutants(case):
    old, new = PROP2[case]
    with pytest.raises(ProofError, match="Monte Carlo"):
        mutated(theory.proposition2, old, new).check_prop2_paper()


@pytest.mark.parametrize("new", ["m <= kappa)", "m <= kappa - 1)", "m <= kappa + 2)"])
def test_piecewise_split_mutant_is_killed(new):
    # The branches agree at m = kappa and kappa + 1, so only a non-integer m next to
    # them tells the split points apart. (m < kappa + 1 is an equivalent mutant: the
    # branches are equal at m = kappa + 1.)
    copy = mutated(theory.statements, SPLIT, SPLIT.replace("m <= kappa + 1)", new))
    with pytest.raises(ProofError, match="real m"):
        check_list_achievability(curve=copy.LIST_ACHIEVABILITY)


def test_list_copies_without_mutation_pass():
    check_list_achievability(
        curve=mutated(theory.statements, SPLIT, SPLIT).LIST_ACHIEVABILITY,
        size_for_rate=mutated(theory.bounds, ROUNDING, ROUNDING).list_size_for_rate)


@pytest.mark.parametrize("new", ["np.floor(", "np.ceil(", "np.round(0.4 + "])
def test_list_size_rounding_mutant_is_killed(new):
    copy = mutated(theory.bounds, ROUNDING, ROUNDING.replace("np.rint(", new))
    with pytest.raises(ProofError, match="nearest integer"):
        check_list_achievability(size_for_rate=copy.list_size_for_rate)


def test_list_size_reported_rate_mutant_is_killed():
    copy = mutated(theory.bounds, "return _out(m.astype(np.int64)), _out(np.log2(n / m))",
                   "return _out(m.astype(np.int64)), _out(r)")
    with pytest.raises(ProofError, match="nearest integer"):
        check_list_achievability(size_for_rate=copy.list_size_for_rate)
