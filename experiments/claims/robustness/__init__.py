"""How robust is each agent-level claim: a global sensitivity analysis of the claims
scorecard over the synthetic world's prior table (issue 18, item 1;
``ctxsim claims --robustness``).

* :mod:`~experiments.claims.robustness.analysis`: SALib's Morris screening of every
  parameter, optionally a simulated Sobol' stage on the few that matter (the rest as
  one group), the holding fraction with a Wilson interval; any model, tested on
  closed forms;
* :mod:`~experiments.claims.robustness.model`: the claims as a function of a world point
  (reduced sweeps at the paper's settings, their CSVs judged by the one judge);
* :mod:`~experiments.claims.robustness.effects`: each claim's paired effect and its
  SE at a point (issue 30), measured as its check measures it;
* :mod:`~experiments.claims.robustness.metamodel`: a Gaussian-process metamodel of
  the expected effect over the priors, each point's SE as its noise: the share of
  the prior where the expected effect has the claimed sign, the share within the
  tolerance of the paper's number, the mean and spread, and every parameter's
  Sobol' indices of the effect, with intervals, and a held-out check (validated on
  test functions with a known share and known indices);
* :mod:`~experiments.claims.robustness.summary`: the shares, the deciding parameters
  (from the effect's own Sobol' indices; a flagged index, interval outside [0, 1],
  never decides) and the verdict count as ``power``;
* :mod:`~experiments.claims.robustness.figure`: ``robustness.png``;
* :mod:`~experiments.claims.robustness.run`: the options, the executor (in process,
  ``--jobs N`` processes, or a Dask cluster via ``--scheduler``) and the files.

What is analysed: the 20 claims whose checks read the pressure, window, ablations
and cost sweeps' CSVs (VISTA Fig. 4, Fig. 6, Fig. 8, Tables 1-2). Not analysed:
ContextEvo and Evo-Harness (an evolution loop per world point costs minutes to
hours), the theory claims (no world parameter enters them), Table 5 and Fig. 10 (a
real model and replayed trajectories). The robustness of a claim is the share of
the prior where its *expected* effect has the claimed sign (issue 30); the share of
points where the reduced design's verdict is "reproduced" is kept as ``power``: the
reduced sweeps play fewer tasks than the paper's 75, so it measures the power of a
study of that size as much as the claim.

Cost (world points x episodes per point), the arithmetic behind the sizes
(``experiments/configs/robustness.toml``):

* points = 1 (the defaults) + R (k + 1) (Morris: R trajectories, k = 41
  parameters of ``ctxsim world``), + N (M + 3) only with a simulated Sobol' stage
  (``--samples N``: base sample N, M screened parameters plus the others as one
  group, first and total indices only);
* episodes per point = tasks x 15 LOCA-like episodes (vista and react at 8K
  growth; at 128K the 9 main programs and 4 ablation variants, one job per task)
  + queries x windows x 2 BrowseComp-like episodes (react, vista);
* then one metamodel per claim (hyperparameters on at most 120 points; its shares
  and its Sobol' indices of every parameter from posterior draws, no episodes), on
  the same executor.

Why no simulated Sobol' stage by default (issue 30): the stage cost N (M + 3)
points (192 of 445 at N = 32, 43% of the run), gave indices of only the M = 3
screened parameters with bootstrap half-widths of 0.2-0.35, and its points were
the metamodel's too. The metamodel's indices cover every parameter, carry its
uncertainty and the design's Monte Carlo error
(:func:`~experiments.claims.robustness.metamodel.sobol_indices`), and cost seconds
a claim, so the episodes go to the Morris points, which also serve the posterior's
screen (:mod:`experiments.claims.posterior.screen`).

``--quick``: R = 2; 5 tasks, 4 queries x 3 windows (4K, 12K, 64K): 1 + 84 = 85
points x 99 episodes = 8,415 episodes. Default: R = 3; 45 tasks (each LOCA-like
family three times: the per-point SE of an accuracy effect at the defaults is then
4-6 points, a third of the paper's ablation gaps), 6 queries x 6 windows (4K-64K):
1 + 126 = 127 points x 747 episodes = 94,869 episodes (R is what the 30-minute
budget allows at 9.9 s of wall a point on 2 cores: see the settings' comment). Each run's wall and worker
time per point are in its sidecar (``robustness.json``: ``wall_seconds``,
``worker_wall_seconds_per_point``) and the measured times in the README.
A faster episode buys more points first (the metamodel's interval narrows with
points; the per-point SE is already a third of the effects), then more tasks.
"""
