"""Evolution loops over context programs and agent harnesses, one subpackage per paper.

* :mod:`sim.evolve.contextevo`: ContextEvo, context-policy evolution from trajectories.
* :mod:`sim.evolve.evoharness`: Evo-Harness, online skill harness learning.

Both draw their held-in / held-out task split from :mod:`sim.evolve.split`.
"""
