"""``--profile posterior`` on the sweeps: the synthetic world at the posterior of
``ctxsim claims --posterior`` (issue 30, item 4), read from ``figures/posterior.json``.

The point is each parameter's weighted posterior median (the ``median`` of
``posterior.csv``). It is one point, not the posterior: the medians of a correlated
posterior need not lie where its mass is, and a sweep at one point leaves out what
the fit left unknown. The spread of each paper number over posterior draws is in
``figures/predictive.*``.
"""

from __future__ import annotations

import json
import math
import pathlib

#: the profile name of the world at the posterior medians
POSTERIOR = "posterior"
#: where ``ctxsim claims --posterior`` writes the fit by default
DEFAULT_PATH = pathlib.Path(__file__).resolve().parents[3] / "figures" / "posterior.json"


def posterior_values(path: str | pathlib.Path | None = None
                     ) -> tuple[dict[str, float], list[str]]:
    """``(values, notes)``: each world parameter's posterior median, and a note on
    where they came from (the file, its commit, the fit's size, the pinned
    parameters).

    Raises:
        FileNotFoundError: when there is no posterior sidecar at ``path``.
        ValueError: naming the file and the entry, for a file that is not a fit's
            sidecar, a parameter not in the world table, or a median outside its prior.
    """
    from sim.world import TABLE

    p = pathlib.Path(path) if path else DEFAULT_PATH
    if not p.is_file():
        raise FileNotFoundError(f"no posterior at {p}; run `ctxsim claims --posterior` "
                                "first")
    try:
        data = json.loads(p.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}: not JSON ({exc})") from exc
    rows = data.get("parameters") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{p}: expected a 'parameters' list (the sidecar of "
                         "`ctxsim claims --posterior`)")
    values, pinned = {}, []
    for row in rows:
        name = row.get("parameter") if isinstance(row, dict) else None
        prior = TABLE.get(name)
        if prior is None:
            raise ValueError(f"{p}: parameter {name!r} is not in the world table "
                             "(`ctxsim world`)")
        v = row.get("median")
        if not isinstance(v, (int, float)) or not math.isfinite(v) \
                or not prior.low <= v <= prior.high:
            raise ValueError(f"{p}: {name} median {v!r} is not a number in its prior "
                             f"[{prior.low:g}, {prior.high:g}]")
        values[name] = float(v)
        if row.get("pinned"):
            pinned.append(name)
    notes = [f"posterior medians of {len(values)} parameters from {p.name} (commit "
             f"{str(data.get('git_commit', '?'))[:8]}, {data.get('simulations', '?')} "
             f"simulations); pinned by the fit: {', '.join(pinned) or 'none'}"]
    return values, notes
