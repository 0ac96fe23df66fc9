"""A world fitted to the papers' own baselines, and what it predicts for VISTA
(issue 30, items 3-5; ``ctxsim claims --posterior``).

* ``experiments.claims.posterior.observed``: the ``fit`` numbers a point
  simulates (read through :meth:`~experiments.claims.registry.Registry.fit_cells`
  alone: the fit never sees a ``predict`` number);
* ``experiments.claims.posterior.simulate``: the paper numbers simulated at one
  world point (the episodes each needs, the value in the paper's unit);
* ``experiments.claims.posterior.screen``: which parameters the ``fit`` numbers
  inform (a Morris screen over the robustness reference table against a null of
  parameters their episodes never read); the others are integrated out;
* ``experiments.claims.posterior.sampler``: a pyabc sampler whose generations are
  the same on one process, ``--jobs N`` and a Dask cluster (a seed per candidate);
* ``experiments.claims.posterior.fit``: ABC-SMC (pyabc) of the world's
  parameters given the ``fit`` numbers;
* ``experiments.claims.posterior.predictive``: posterior (and prior) predictive
  draws of every simulated paper number, the 90% interval and the predictive p of
  the paper's number;
* ``experiments.claims.posterior.figure``, ``experiments.claims.posterior.run``:
  the figures, the options and the files; ``experiments.claims.posterior.profile``:
  ``--profile posterior`` on the sweeps; ``experiments.claims.posterior.table``:
  the README's table.

Why pyabc (measured on this problem, December 2026): one fit simulation plays 75
LOCA-like tasks x 3 episodes (ReAct at 8K and 128K growth, Active Context
Compression at 128K) in about 5 CPU seconds (23 ms an episode on the 2-core
machine), so the fit can afford some hundreds of simulations in its 60 minutes, not
the thousands neural posterior estimation trains on; sbi would also install torch
with its CUDA wheels (``pip install --dry-run sbi``: 25 packages, about 3 GB), ELFI
pins matplotlib 3.8 (it would move every figure's rendering) and needs GPy, while
pyabc adds five small packages. pyabc's own parallel samplers accept particles in
completion order with worker seeds from the operating system, so a rerun differs;
``experiments.claims.posterior.sampler.SeededSampler`` evaluates candidates in
fixed batches with a seed each and keeps them in index order.

Cost (``experiments/configs/posterior.toml``): the fit runs its generations until
one reaches ``simulations`` simulations (default 480; pyabc's calibration sample of
one population comes on top: 555 in the committed run, x 225 episodes); the
predictive check plays ``draws`` posterior draws (the fit's programs and VISTA's
four: 75 x 7 + 20 queries = 545 episodes) and ``draws`` prior draws (VISTA's only:
320 episodes), 30 each. Measured (README): 904 s wall, 1,767 s user CPU on the
2-core machine, 673 s of it the fit. ``--quick``: population 12, 2 generations, at
most 48 simulations of 6 tasks, 4 draws each way: 22.5 s wall.
"""
