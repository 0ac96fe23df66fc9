"""The tool-result size law of the task generators: the empirical distribution of real
tool results (issue 31, "the size law ... the empirical distribution").

No fitted law passes its goodness-of-fit test on the 418 real tool results the package
ships (experiments/priors/sizes.py: lognormal KS 0.189 against 0.044; 43 results of
22 tokens force ``D >= 0.051`` for any continuous law), so a generator draws the
*empirical* law: with ``e_i = ln s_i - ln median(s)`` the shipped results' ln-sizes
about their median (``sim/data/result_sizes.csv``, population sd :data:`REF_SD`), a
result of median ``m`` and spread ``sd`` (tokens, sd of ln tokens) is

    ``S = m * exp(k * e_I)``,  ``k = sd / REF_SD``,  ``I = floor(n * Phi(Z))``

with ``Z`` one standard normal draw of the generator's stream: the stream a lognormal
draw consumed (NumPy's ``Generator.lognormal`` is ``exp(mean + sigma * Z)``), so a
task's other draws do not move. At ``sd = REF_SD`` the law is the shipped results'
distribution, rescaled to median ``m``; another ``sd`` stretches its ln-shape (the
world table's ``task.size_sd`` and ``browse.size_sd`` stay the spread's parameter).

The *size-biased* law (a value at a uniformly random line of the bulk data lies in a
result with probability proportional to its tokens; ``task.p_late_reuse``) weights
``e_i`` by ``exp(k * e_i)`` and inverts that weighted empirical CDF at ``Phi(Z)``:
exact, not the lognormal's ``exp(sd^2)`` median shift.
"""

from __future__ import annotations

import bisect
import math
from functools import lru_cache
from importlib import resources

import numpy as np

__all__ = ["REF_SD", "draw_size", "ln_deviations", "quantile_index"]


@lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[float, ...], float]:
    text = resources.files("sim").joinpath("data/result_sizes.csv").read_text()
    rows = [r.strip() for r in text.splitlines()]
    sizes = np.array([int(r) for r in rows if r and not r.startswith("#")
                      and r != "tokens"], dtype=float)
    if sizes.size < 2 or not (sizes > 0).all():
        raise ValueError(f"sim/data/result_sizes.csv needs >= 2 sizes > 0, got "
                         f"{sizes.size} with min {sizes.min() if sizes.size else None}")
    e = np.sort(np.log(sizes) - np.log(np.median(sizes)))
    return tuple(float(v) for v in e), float(e.std())


def ln_deviations() -> np.ndarray:
    """The shipped results' ``ln s - ln median(s)``, sorted ascending (shape ``(n,)``,
    n = 418; sim/data/result_sizes.csv)."""
    return np.array(_shipped()[0])


#: population sd of :func:`ln_deviations` (sd of ln tokens): the empirical spread
REF_SD: float = _shipped()[1]


@lru_cache(maxsize=64)
def _biased_cdf(k: float) -> tuple[float, ...]:
    # cumulative size-biased weights exp(k e_i), normalised; computed in ln space from
    # the largest e so that no weight overflows
    e = np.array(_shipped()[0])
    w = np.exp(k * (e - e[-1]))
    c = np.cumsum(w)
    return tuple(float(v) for v in c / c[-1])


def _check_sd(sd) -> float:
    if isinstance(sd, bool) or not isinstance(sd, (int, float)) \
            or not math.isfinite(sd) or sd < 0:
        raise ValueError(f"size_sd must be a finite number >= 0, got {sd!r}")
    return float(sd)


def quantile_index(u: float, sd: float, biased: bool = False) -> int:
    """The index into :func:`ln_deviations` of the law's ``u``-quantile: the
    (size-biased, if ``biased``) empirical inverse CDF at ``u`` in ``[0, 1)``.

    Raises:
        ValueError: for ``u`` outside ``[0, 1]`` or a bad ``sd``.
    """
    k = _check_sd(sd) / REF_SD
    if not 0.0 <= u <= 1.0:
        raise ValueError(f"u must lie in [0, 1], got {u!r}")
    n = len(_shipped()[0])
    if not biased or k == 0.0:
        return min(int(u * n), n - 1)
    return min(bisect.bisect_right(_biased_cdf(k), u), n - 1)


def draw_size(rng: np.random.Generator, median: float, sd: float,
              biased: bool = False) -> float:
    """One tool-result size (tokens, float, unclipped) of the empirical law with
    median ``median`` and ln-spread ``sd`` (the module docstring), from one standard
    normal draw of ``rng``; ``biased`` draws the size-biased law.

    Raises:
        ValueError: for a non-positive or non-finite ``median`` or a bad ``sd``.
    """
    if not (isinstance(median, (int, float)) and math.isfinite(median) and median > 0):
        raise ValueError(f"median must be a finite number of tokens > 0, got {median!r}")
    z = float(rng.standard_normal())
    u = 0.5 * math.erfc(-z / math.sqrt(2.0))  # Phi(z), accurate in both tails
    i = quantile_index(min(u, 1.0), sd, biased)
    return median * math.exp(sd / REF_SD * _shipped()[0][i])
