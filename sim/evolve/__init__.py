"""Evolution loops over context programs and agent harnesses.

ContextEvo (context-policy evolution from trajectories) and Evo-Harness (online skill
harness learning) share the task split in :mod:`sim.evolve.split`.
"""
