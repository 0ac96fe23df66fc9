"""The calibrated point of the synthetic world: the world parameters the real model's
probes measured (``figures/calibration.json``, written by ``ctxsim run calibrate``),
each clipped into its prior range (issue 21).

``--profile calibrated`` on the sweeps runs the synthetic agent at
:func:`calibrated_values` (:func:`sim.world.world_at`); ``ctxsim world`` shows each
measurement beside its prior (:func:`measurements`).
"""

from __future__ import annotations

import json
import math
import pathlib

#: the committed calibration sidecar
DEFAULT_PATH = pathlib.Path(__file__).resolve().parents[2] / "figures" / "calibration.json"


def measurements(path: str | pathlib.Path | None = None) -> dict[str, dict]:
    """Parameter name -> its measurement (``estimate``, ``low``, ``high``, ``n``,
    ``model``, ``probe``, ``method``) from the calibration sidecar; ``{}`` when the
    file is missing.

    Raises:
        ValueError: naming the file, when it is not a calibration sidecar.
    """
    p = pathlib.Path(path) if path else DEFAULT_PATH
    if not p.is_file():
        return {}
    try:
        rec = json.loads(p.read_text(encoding="utf-8-sig"))  # a BOM is no error
        return {k: dict(v) for k, v in rec["parameters"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{p} is not a calibration sidecar (expected a JSON object with "
                         f"'parameters'): {exc}") from None


def calibrated_values(path: str | pathlib.Path | None = None
                      ) -> tuple[dict[str, float], list[str]]:
    """``(values, notes)``: each measured parameter's estimate clipped into its prior
    range, and one note per clipped or missing measurement.

    Raises:
        FileNotFoundError: when there is no calibration sidecar.
        ValueError: as :func:`measurements`.
    """
    from sim.world import TABLE

    p = pathlib.Path(path) if path else DEFAULT_PATH
    meas = measurements(p)
    if not meas:
        raise FileNotFoundError(f"no calibration at {p}; run `ctxsim run calibrate` "
                                "first")
    values, notes = {}, []
    for name, m in meas.items():
        prior = TABLE.get(name)
        v = m.get("estimate")
        if prior is None or v is None or not math.isfinite(v):
            notes.append(f"{name}: no usable measurement ({v!r}); prior default kept")
            continue
        clipped = min(max(v, prior.low), prior.high)
        if clipped != v:
            notes.append(f"{name}: measured {v:.4g} is outside its prior "
                         f"[{prior.low:g}, {prior.high:g}]; clipped to {clipped:g}")
        values[name] = clipped
    return values, notes


def calibrated_profile(path: str | pathlib.Path | None = None):
    """The synthetic agent's :class:`sim.agents.profiles.Profile` at the calibrated
    point (named ``"calibrated"``) and the clipping notes."""
    from sim.world import world_at

    values, notes = calibrated_values(path)
    return world_at(values, name="calibrated").profile, notes
