"""``ctxsim world``: every parameter of the synthetic world (agent profile and task
families) with its default, prior range, unit and source (:mod:`sim.world`).

``ctxsim world`` prints a table; ``--json`` prints ``{"parameters": [...],
"families": [...]}`` for machines (each parameter: name, default, low, high, unit,
source, doc, integer, and ``measured`` where the committed calibration
(``figures/calibration.json``, ``ctxsim run calibrate``) measured it on the real
model; each family: its structure, :mod:`sim.tasks.families`).
"""

from __future__ import annotations

import argparse
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--json``."""
    parser.add_argument("--json", action="store_true",
                        help="print the table as JSON (default: a text table)")


def families() -> list[dict]:
    """The 15 LOCA-like families' structure, one dict each."""
    from dataclasses import asdict

    from sim.tasks.families import FAMILIES, family_spec

    return [asdict(family_spec(i)) for i in range(len(FAMILIES))]


def measured_line(m: dict) -> str:
    """``measured on MODEL, n = N, interval [LOW, HIGH]: VALUE`` for one calibration
    measurement (:func:`experiments.calibrated.measurements`)."""
    def num(key):  # a non-finite number is null in the JSON sidecar
        v = m.get(key)
        return "n/a" if v is None else f"{v:.4g}"

    if m.get("estimate") is None:
        where = "not identified"
    elif m.get("inside_prior"):
        where = "inside the prior"
    else:   # used as measured by --profile calibrated (experiments.calibrated)
        where = "OUTSIDE the prior: contradicts it; used as measured"
    return (f"measured on {m.get('model', '?')}, n = {m.get('n')}, interval "
            f"[{num('low')}, {num('high')}]: {num('estimate')} ({where}; "
            f"{m.get('probe', '?')} probe)")


def main(args: argparse.Namespace) -> int:
    """Print the table (text or JSON); returns 0."""
    from experiments.calibrated import measurements
    from sim.world import table

    rows = table()
    meas = measurements()
    for r in rows:
        if r["name"] in meas:
            r["measured"] = meas[r["name"]]
    if args.json:
        json.dump({"parameters": rows, "families": families()}, sys.stdout, indent=1)
        print()
        return 0
    w = max(len(r["name"]) for r in rows)
    print(f"{'name':<{w}}  {'default':>10}  {'low':>10}  {'high':>10}  unit")
    for r in rows:
        print(f"{r['name']:<{w}}  {r['default']:>10g}  {r['low']:>10g}  {r['high']:>10g}"
              f"  {r['unit']}{' (log-uniform prior)' if r['log'] else ''}")
        print(f"{'':<{w}}  {r['doc']}; source: {r['source']}")
        if "measured" in r:
            print(f"{'':<{w}}  {measured_line(r['measured'])}")
    print("\nfamilies (archetype: structure):")
    for f in families():
        print(f"  {f['name']:<17} {f['archetype']:<9} facts={f['n_facts']} "
              f"evidence={f['evidence']} arrival={f['arrival']:g} uses={f['n_uses']} "
              f"median={f['median_tokens']} superseded={f['superseded']} "
              f"source_named={f['source_named']}")
    return 0
