"""The agents a sweep can run by name: ``synthetic`` and plugins (``MODULE:CLASS``, a
name given to :func:`register_agent`, or a ``ctxsim.agents`` entry point). The
protocol and its check: :mod:`sim.plugins`.
"""

from __future__ import annotations

from typing import Callable

#: the built-in agent (the sweeps' default)
SYNTHETIC = "synthetic"
#: names an agent plugin may not take (``llm``: pressure's real-model variant)
RESERVED = (SYNTHETIC, "llm")
#: agent name -> factory registered with :func:`register_agent`
PLUGIN_AGENTS: dict[str, Callable] = {}
_RESOLVED: dict[str, Callable] = {}


def register_agent(name: str, factory: Callable) -> None:
    """Make ``name`` an agent the sweeps of this process accept (``--agent name``).

    Args:
        name: the registry name (not ``synthetic`` or ``llm``; no ``:``).
        factory: called with the sweep's :class:`~sim.agents.profiles.Profile` once
            per episode; returns the agent (protocol: :mod:`sim.plugins`).

    Raises:
        ValueError: for a reserved name, a name with ``:`` or a non-callable factory.
    """
    if name in RESERVED or ":" in name or not name:
        raise ValueError(f"cannot register agent {name!r}: reserved, empty or with ':'")
    if not callable(factory):
        raise ValueError(f"register_agent({name!r}, ...): expected a callable, got "
                         f"{factory!r}")
    PLUGIN_AGENTS[name] = factory
    _RESOLVED.pop(name, None)


def agent_names() -> list[str]:
    """``synthetic``, then the registered agents and the ``ctxsim.agents`` entry points."""
    from sim.plugin_spec import AGENT_GROUP, entry_points

    return [SYNTHETIC, *sorted((set(PLUGIN_AGENTS) | set(entry_points(AGENT_GROUP)))
                               - {SYNTHETIC})]


def resolve_agent(spec: str) -> Callable:
    """The agent factory of ``spec`` (``synthetic``: :class:`sim.agents.SyntheticAgent`).

    Raises:
        sim.plugin_spec.PluginError: an unknown name, a spec that does not import, or
            an attribute that is not callable.
    """
    from sim.plugin_spec import (AGENT_GROUP, PluginError, dotted_hint, entry_points,
                                 import_attr, load_entry_point)

    if spec == SYNTHETIC:
        from sim.agents.synthetic import SyntheticAgent

        return SyntheticAgent
    if spec in _RESOLVED:
        return _RESOLVED[spec]
    if spec in PLUGIN_AGENTS:
        found = PLUGIN_AGENTS[spec]
    elif ":" in spec:
        found = import_attr("agent", spec)
    elif spec in (eps := entry_points(AGENT_GROUP)):
        found = load_entry_point("agent", eps[spec])
    else:
        raise PluginError(f"unknown agent {spec!r}; expected one of "
                          f"{', '.join(agent_names())} or MODULE:CLASS{dotted_hint(spec)}")
    if not callable(found):
        raise PluginError(f"agent plugin {spec!r}: expected a class or callable, got "
                          f"{found!r}")
    _RESOLVED[spec] = found
    return found


def make_agent(spec: str, profile):
    """A fresh agent of ``spec`` for one episode, given the sweep's ``profile``."""
    return resolve_agent(spec)(profile)
