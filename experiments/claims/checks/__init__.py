"""The checks: typed records naming what to read from which CSV; ``run`` computes
our value with its interval from that CSV and applies the check's rule (a pure
function of :mod:`experiments.claims.rules`). A missing file, column or row raises
:class:`~experiments.claims.data.MissingData`; the judge
(:mod:`experiments.claims.judge`) is the only caller.

One module per paper, mirroring :mod:`experiments.claims.registry` (whose module of
the same name holds that paper's claims and numbers):

* :mod:`~experiments.claims.checks.base`: :class:`Check` and the check two papers
  share (:class:`RowOrder`);
* :mod:`~experiments.claims.checks.vista`: paired episodes, window, ablations,
  perception and dashboard overhead; :mod:`~experiments.claims.checks.vista_theory`:
  the theory CSVs' rows; :mod:`~experiments.claims.checks.vista_counts`: totals per
  task, the rescue structure, the fixed overhead and the blind estimates' correlation
  (VISTA's checks are three modules, each under 500 lines);
* :mod:`~experiments.claims.checks.contextevo`: iteration gains, the
  evidence-free comparison over seeds, the compression stand-ins and the skill reads;
* :mod:`~experiments.claims.checks.evoharness`: profile gaps, every-row gains and
  the budgeted curator.

Paper numbers are never stored here: a check reads them from its claim
(``claim.number``) by label. Intervals come from :mod:`experiments.intervals`.
"""
