"""Experiments of the Evo-Harness paper (Tables 2-4, Fig. 5): ``ctxsim run
evoharness`` lives in :mod:`experiments.evoharness.experiment`."""
