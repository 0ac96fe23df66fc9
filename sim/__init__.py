"""ctxsim.sim: everything that runs (games, workspace, policies, agents, tasks)."""

__version__ = "0.1.0"
