"""theory/list_fano.py: what its mutation run (issue 38) found untested.

The check's pass/fail tests and the record copy (record_texts.py) see neither the
domain of the statement's placeholder p nor whether the check's algebra normalises
logs of products whose factors have no known sign."""

from __future__ import annotations

import sympy as sp

from theory import statements as st
from theory.list_fano import check_list_fano


def test_the_statement_bounds_a_probability():
    """Lemma 1 bounds p = P(J* in L_m): the record's statement is p <= (I + 1)/log2(n/m)
    with p a nonnegative symbol (a probability), the same sympy object as written
    independently here."""
    rec = check_list_fano()
    p = rec.statement.lhs
    assert p.is_nonnegative is True
    assert rec.statement == sp.Le(sp.Symbol("p", nonnegative=True), st.LIST_FANO)


def test_a_true_bound_written_with_logs_of_products_is_proved():
    """A claim equal to the lemma's bound is accepted whatever form it is written in.
    Here it carries log((I+1)(I+2)) - log(I+1) - log(I+2) = 0 (both factors positive
    for I >= 0, so the identity holds; numerically a round-off). Once I is replaced by
    log2 n - H(J*|Y) the factors have no sign sympy knows, so the check must split the
    log by force (expand_log(force=True)); without it the step 'claimed bound - p =
    slack / log2(n/m)' cannot simplify to 0 and a true claim would be rejected."""
    I = st.I
    zero = sp.log((I + 1) * (I + 2)) - sp.log(I + 1) - sp.log(I + 2)
    assert sp.expand_log(zero, force=True) == 0        # the identity, independently
    rec = check_list_fano(bound=st.LIST_FANO + zero)
    assert [s.description for s in rec.steps] == [s.description
                                                   for s in check_list_fano().steps]
