"""A pyabc sampler whose generations do not depend on where they run.

pyabc's parallel samplers keep the first particles to finish and seed each worker
from the operating system, so two runs of one analysis differ, and a run on a
cluster differs from one on a laptop. ``SeededSampler`` (the library's
extension point, ``pyabc.sampler.Sampler``) evaluates a generation's candidates
in batches of a fixed size, candidate ``i`` of generation ``t`` with its own seed
(from ``numpy.random.SeedSequence([seed, t, i])``: the proposal, the simulation and
the acceptance all draw from it), and keeps them in index order up to the
``n``-th accepted one: the population is the same in process, on ``--jobs N``
processes and on a Dask cluster.
"""

from __future__ import annotations

import random
import threading

import numpy as np

# pyabc's proposals draw from numpy's global generator, so candidates evaluated by
# two threads of one process (a Dask worker with --nthreads 2) would interleave their
# draws from it: one candidate at a time per process keeps each candidate's draws its
# own seed's (tests/experiments/claims/test_posterior_executors.py)
_GLOBAL_RNG = threading.Lock()


def candidate_seed(seed: int, t: int, i: int) -> int:
    """The seed of candidate ``i`` of generation ``t`` (``t = -1``: pyabc's
    calibration sample) of a run seeded ``seed``."""
    ss = np.random.SeedSequence([seed, t + 1, i])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def _evaluate(job):
    """One candidate: ``(pickled simulate_one, seed)`` -> pyabc's particle."""
    import cloudpickle

    simulate_one, seed = job
    with _GLOBAL_RNG:
        np.random.seed(seed)   # pyabc's proposals and our model draw from these
        random.seed(seed)
        return cloudpickle.loads(simulate_one)()


def seeded_sampler(seed: int = 0, executor=None, batch: int | None = None):
    """A ``SeededSampler`` (a ``pyabc.sampler.Sampler``; the class is built here so
    that importing this module does not import pyabc).

    Args:
        seed: the run's seed.
        executor: ``submit(fn, arg)`` returning a future (a ``concurrent.futures``
            executor, a Dask ``Client``), or ``None`` (in process).
        batch: candidates evaluated per round (fixed, so the work done does not
            depend on the workers); default: the population size.

    Raises:
        ValueError: for a batch below 1.
    """
    from pyabc.sampler import Sampler

    class SeededSampler(Sampler):
        """Deterministic batches of candidates on ``executor`` (arguments: see
        ``seeded_sampler``)."""

        def __init__(self, seed: int = 0, executor=None, batch: int | None = None):
            super().__init__()
            if batch is not None and batch < 1:
                raise ValueError(f"batch must be >= 1, got {batch}")
            self.seed, self.executor, self.batch = int(seed), executor, batch

        def sample_until_n_accepted(self, n, simulate_one, t, *, max_eval=np.inf,
                                    all_accepted=False, ana_vars=None):
            """Candidates ``0, 1, ...`` of generation ``t`` in rounds of ``batch`` until
            ``n`` are accepted (or ``max_eval`` evaluated: the sample is then marked not
            ok, as pyabc's samplers do); the sample holds them in index order up to the
            ``n``-th accepted one."""
            import cloudpickle

            from experiments.executors import ordered_map

            payload = cloudpickle.dumps(simulate_one)
            batch = self.batch or n
            sample = self._create_empty_sample()
            accepted = evaluated = 0
            i = 0
            while accepted < n and evaluated < max_eval:
                size = int(min(batch, max_eval - evaluated)) if np.isfinite(max_eval) \
                    else batch
                jobs = [(payload, candidate_seed(self.seed, t, i + j)) for j in range(size)]
                i += size
                for particle in ordered_map(_evaluate, jobs, self.executor):
                    if accepted >= n:
                        break   # later candidates of the last round are not kept
                    evaluated += 1
                    sample.append(particle)
                    accepted += bool(particle.accepted)
            self.nr_evaluations_ = evaluated
            if accepted < n:
                sample.ok = False
            return sample

    return SeededSampler(seed, executor, batch)
