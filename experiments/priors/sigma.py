"""``agent.sigma`` from VISTA Table 5 (VISTA §4, "Does the perception gap actually
exist?"): without the dashboard, the four backbones' median relative size error runs
from 0.43 to 0.84.

The synthetic agent perceives a size ``s`` as ``s exp(sigma Z)`` with ``Z`` standard
normal (:meth:`sim.agents.synthetic.SyntheticAgent.perceived`), so its median
relative error is ``m(sigma) = median |exp(sigma Z) - 1|``, increasing in ``sigma``
(:func:`experiments.calibrate.estimates.median_rel_error_for_sigma`, closed form).
The prior is the interval of ``sigma`` whose ``m(sigma)`` lies in the paper's range:
``m^-1(0.43) = 0.674`` to ``m^-1(0.84) = 1.698``.
"""

from __future__ import annotations

from experiments.calibrate.estimates import median_rel_error_for_sigma, sigma_from_median

#: VISTA Table 5 (text of §4): the lowest and highest median relative size error
#: without the dashboard over the four backbones
TABLE5_MEDIAN_ERRORS = (0.43, 0.84)


def sigma_range(medians: tuple[float, float] = TABLE5_MEDIAN_ERRORS
                ) -> tuple[float, float]:
    """``(sigma_low, sigma_high)``: the lognormal sds whose median relative error is
    the lowest and the highest of ``medians``.

    Raises:
        ValueError: unless both medians are finite and positive.
    """
    lo, hi = min(medians), max(medians)
    if not (0 < lo and hi < float("inf")):
        raise ValueError(f"medians must be finite and positive, got {medians!r}")
    return sigma_from_median(lo), sigma_from_median(hi)


def median_error(sigma: float) -> float:
    """``median |exp(sigma Z) - 1|`` (re-exported for the report)."""
    return median_rel_error_for_sigma(sigma)
