"""Mutation testing of the correctness core with cosmic-ray (issue 38): which
modules, which tests kill their mutants, and the survivors that are equivalent.
Run with ``python3 -m mutation.run`` (extra ``[mutation]``); see README.md."""
