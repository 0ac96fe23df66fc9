"""Experiments of the VISTA paper: the information games (Proposition 1, Theorem 1,
Proposition 2, the sorted window) and the agent-level sweeps (Fig. 4 pressure, Fig. 6
window, Fig. 8 ablations, Table 2 cost, Fig. 10 overhead, Table 5 perception)."""
