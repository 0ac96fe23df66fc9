"""The calibrated point of the synthetic world: the world parameters the real model's
probes measured (``figures/calibration.json``, written by ``ctxsim run calibrate``),
each as measured (issues 21 and 37).

A measurement outside its parameter's prior range contradicts the prior: it is used
as measured (never clipped, which would hide the contradiction), the name is listed
by :func:`beyond_prior` and passed to :func:`sim.world.world_at`, and a note says so.

``--profile calibrated`` (or ``--profile FILE``, a sidecar of ``ctxsim run calibrate``
against any model) on the sweeps runs the synthetic agent at
:func:`calibrated_values`; ``ctxsim world`` shows each measurement beside its prior
(:func:`measurements`).

This module sits outside :mod:`experiments.calibrate`, so a sweep that reads the
calibrated point does not import (or depend on, for ``ctxsim figures``) the probes.
"""

from __future__ import annotations

import json
import math
import pathlib

#: the committed calibration sidecar
DEFAULT_PATH = pathlib.Path(__file__).resolve().parents[1] / "figures" / "calibration.json"


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
    """``(values, notes)``: each measured parameter's estimate, as measured, and one
    note per measurement outside its prior (the prior is contradicted) or missing.

    Raises:
        FileNotFoundError: when there is no calibration sidecar.
        ValueError: as :func:`measurements`, or for an estimate outside the values its
            parameter can take (:attr:`sim.world.Param.domain`).
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
        lo, hi = prior.domain
        if not lo <= v <= hi:
            raise ValueError(f"{p}: {name}'s estimate {v!r} is outside the values it "
                             f"can take, [{lo:g}, {hi:g}]")
        if not prior.low <= v <= prior.high:
            notes.append(f"{name}: measured {v:.4g} contradicts its prior "
                         f"[{prior.low:g}, {prior.high:g}]; used as measured")
        values[name] = float(v)
    return values, notes


def beyond_prior(values: dict[str, float]) -> tuple[str, ...]:
    """The names among ``values`` whose value lies outside its prior range (sorted):
    the ``beyond_prior`` of :func:`sim.world.world_at`."""
    from sim.world import TABLE

    return tuple(sorted(n for n, v in values.items()
                        if not TABLE[n].low <= v <= TABLE[n].high))


def calibrated_profile(path: str | pathlib.Path | None = None):
    """The synthetic agent's :class:`sim.agents.profiles.Profile` at the calibrated
    point (named ``"calibrated"``) and the notes of :func:`calibrated_values`."""
    from sim.world import world_at

    values, notes = calibrated_values(path)
    return world_at(values, name="calibrated",
                    beyond_prior=beyond_prior(values)).profile, notes
