"""The claims scorecard (``ctxsim claims``): every checkable claim of the three papers
(VISTA, ContextEvo, Evo-Harness), our value with its interval, and one verdict.

* :mod:`~experiments.claims.records`: the typed records (claim, paper number,
  verdict words, result);
* :mod:`~experiments.claims.registry`: one module of claims per paper, keyed by the
  paper's own item;
* :mod:`~experiments.claims.checks`: what each claim reads from which CSV, one
  module per paper beside its registry module (``registry/vista.py`` and
  ``checks/vista.py``), the shared base in ``checks/base.py``;
* :mod:`~experiments.claims.rules`: the verdict rules, pure functions of numbers;
* :mod:`~experiments.claims.judge`: the one judge of every claim;
* :mod:`~experiments.claims.report`: ``claims.md`` and ``claims.json``;
* :mod:`~experiments.claims.cli`: the command;
* :mod:`~experiments.claims.robustness`: ``ctxsim claims --robustness``, how each
  agent-level claim's verdict varies over the synthetic world's priors (it calls
  the judge at every sampled world point).

No other module computes a verdict: the experiments write CSVs and take the
papers' numbers from the registry.
"""

from experiments.claims.records import Claim, Paper, PaperNumber, Result, Verdict

__all__ = ["Claim", "Paper", "PaperNumber", "Result", "Verdict"]
