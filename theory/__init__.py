"""Symbolic statements of the VISTA results (sympy), each with a check that
returns a :class:`theory.proof.ProofRecord` or raises :class:`theory.proof.ProofError`."""
