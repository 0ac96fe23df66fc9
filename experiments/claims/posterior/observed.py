"""The ``fit`` numbers the world is fitted to: the baselines' cells of the registry
that a world point simulates (issue 30, item 3). Only
:meth:`~experiments.claims.registry.Registry.fit_cells` is read here, so no number of
the method under test (a ``predict`` cell) can reach the fit."""

from __future__ import annotations

#: fit cells a point does not simulate, and why
FIT_LEFT_OUT = {
    "FIG6:baseline": "the strongest BrowseComp-Plus baseline is not one simulated "
                     "program (the paper takes the best of several per window)",
    "TABLE2:claude_code": "Claude Code is not one of the simulated programs",
    "TABLE1_GAIA:claude_code": "GAIA is not simulated",
}
#: fit cells measured on a real model's answers (Table 5), not the synthetic agent
REAL_MODEL_PREFIX = "TABLE5:"


def observed(registry=None) -> dict[str, float]:
    """Each simulated ``fit`` cell's paper value, by cell id, in registry order.

    Args:
        registry: a :class:`~experiments.claims.registry.Registry` (default: the
            package's); only its ``fit_cells()`` is called.

    Raises:
        ValueError: if a ``fit`` cell is neither simulated nor listed in
            :data:`FIT_LEFT_OUT` (a new baseline number would be dropped silently).
    """
    from experiments.claims.robustness.stats import STATS

    if registry is None:
        from experiments.claims.registry import REGISTRY as registry
    out: dict[str, float] = {}
    for cell in registry.fit_cells():
        if cell.id in STATS:
            out[cell.id] = float(cell.value)
        elif cell.id not in FIT_LEFT_OUT and not cell.id.startswith(REAL_MODEL_PREFIX):
            raise ValueError(f"fit cell {cell.id} is neither simulated (robustness.stats"
                             ".STATS) nor left out with a reason (FIT_LEFT_OUT)")
    return out
