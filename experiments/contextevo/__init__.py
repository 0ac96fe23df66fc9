"""Experiments of the ContextEvo paper (Tables 2, 3, 5; App. B): ``ctxsim run
contextevo`` lives in :mod:`experiments.contextevo.experiment`."""
