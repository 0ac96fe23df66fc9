"""The information games of the VISTA paper: Theorem 1's eviction game and
Proposition 1's recovery game (numba kernels plus exact references)."""
