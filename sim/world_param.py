"""A dataclass field that is also a row of the synthetic world's table (issue 17;
DESIGN.md "The synthetic world"): its default, prior range, unit, source and what it
does, declared once on the field of the dataclass that uses it (the agent's
:class:`sim.agents.profiles.Profile`, the LOCA-like
:class:`sim.tasks.families.TaskParams`, the BrowseComp-like
:class:`sim.tasks.browse.BrowseParams`). :mod:`sim.world` reads
those declarations into :data:`sim.world.TABLE` (``ctxsim world``).

It sits below both the tasks and the agents (layer 0, ``tests/test_layers.py``) so
each can declare its rows without importing the other or the table.
"""

from __future__ import annotations

from dataclasses import field

#: the unit of a probability parameter
PROBABILITY = "probability"


def world_param(default, low, high, unit: str, source: str, doc: str,
                integer: bool = False, log: bool = False):
    """A dataclass field that is also a row of the world table (name
    ``<group>.<field>``, :func:`sim.world.world_at`): its ``default``, prior range
    ``[low, high]``, ``unit``, ``source`` (a paper or benchmark number, or
    ``"guess: ..."``) and ``doc``; ``integer``: rounded to an int when the world is
    built; ``log``: the prior is uniform in ``ln`` of the value (log-uniform: each
    factor of the range equally likely, for a scale known only to its order of
    magnitude) instead of uniform in the value. The row lives in
    ``metadata["world"]``.

    Raises:
        ValueError: for ``log`` with ``low <= 0``.
    """
    if log and not low > 0:
        raise ValueError(f"a log-uniform prior needs low > 0, got low={low!r}")
    return field(default=default, metadata={"world": {
        "low": low, "high": high, "unit": unit, "source": source, "doc": doc,
        "integer": integer, "log": log}})
