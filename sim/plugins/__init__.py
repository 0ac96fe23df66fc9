"""Bring-your-own context programs and agents: registration, discovery, checks, provenance.

A *program spec* or *agent spec* names what a sweep runs. It is one of

* a built-in name (:data:`sim.policies.PROGRAMS`; for agents ``synthetic``);
* a name registered in this process with :func:`register_program` /
  :func:`register_agent`;
* a name a distribution advertises in the entry-point group :data:`PROGRAM_GROUP`
  (``ctxsim.programs``) or :data:`AGENT_GROUP` (``ctxsim.agents``), found through
  :mod:`importlib.metadata`;
* ``MODULE:ATTRIBUTE`` (``mypkg.policies:KeepLast``): imported on first use, so a
  module on ``PYTHONPATH`` works on the command line, in worker processes and in
  the command a sidecar records (``ctxsim figures --verify`` reruns it).

The protocol a **context program** satisfies (:class:`sim.policies.base.ContextProgram`
is the reference and the easiest base class): a class whose constructor takes its
knobs as keywords (a ``ContextProgram`` declares them as a frozen dataclass,
:mod:`sim.policies.knobs`, checked by name, type and range), with the eight
intervention-point methods

======================================  ===================================================
``observation_entry(ctx, block)``       returns None (a tool result was registered)
``request_assembly(ctx)``               returns None (bring the request within budget)
``maintenance_planning(ctx)``           returns bool (is maintenance due?)
``representation_update(ctx)``          returns None (mask, clear, summarize, archive)
``memory_update(ctx)``                  returns None (notes, knowledge blocks)
``recovery(ctx, target, key)``          returns the recovered block or None
``parent_to_child(ctx, phase)``         returns None (a scope starts)
``child_to_parent(ctx, phase)``         returns None (a scope ends)
======================================  ===================================================

and the attributes ``dashboard`` (a key of :data:`sim.workspace.dashboard.DASHBOARDS`),
``agent_tools`` (a subset of ``archive``, ``delete``, ``recover``), ``show_handles``
(bool) and ``protocol`` (``plain``, ``vista`` or ``reworded``). Programs act only
through the :class:`sim.program_context.ProgramContext` they are given. Source:
ContextEvo Appendix B.1, Table 11 (the eight points); DESIGN.md "Context programs".

The protocol an **agent** satisfies (:class:`sim.agents.protocol.Agent`): a factory
(usually a class) called once per episode with the sweep's agent profile
(:class:`sim.agents.profiles.Profile`, which it may ignore), returning an object with
``name`` (str), ``reset(task, seed)`` and ``act(view) -> Action``
(:class:`sim.agents.protocol.Action`); optionally ``write_notes(view, round) -> str``
(the knowledge blocks of summarizing programs; default: no notes) and
``failed_base`` (bool, a failure unrelated to context; default False).

:func:`check_program` / :func:`check_agent` load a plugin and play one small episode
with it (a LOCA-like task under pressure, about 0.1 s), checking every method it
reaches returns what the protocol says: a plugin that is missing a method, returns
the wrong type or raises is refused in one line naming it and what it broke
(:class:`PluginError`, exit status 2 on the command line, before anything is
computed or written).

:func:`provenance` gives what a sidecar records of each plugin a run used: its
spec, module, the version of the distribution that provides it (None if none does)
and the sha256 of its source file(s).

The package: this module registers and makes plugins and is the one import path of
the API (``__all__``); :mod:`sim.plugins.protocol` holds the protocol's return types and
checks every call, :mod:`sim.plugins.check` plays the check episode and
:mod:`sim.plugins.sidecar` writes and reads the sidecar records.
"""

from __future__ import annotations

from sim.agents.registry import (PLUGIN_AGENTS, agent_names, register_agent,
                                 resolve_agent)
from sim.plugin_spec import AGENT_GROUP, PROGRAM_GROUP, PluginError, PluginRuntimeError
from sim.plugins.check import _CHECKED, check_agent, check_program
from sim.plugins.protocol import guard
from sim.plugins.sidecar import changed, missing, provenance, record
from sim.policies import PLUGIN_PROGRAMS, program_names, register_program, resolve_program

#: the public API of plugins, one import path for a plugin's author and the commands
#: (the guard, the check and the provenance live in the submodules named above)
__all__ = ["PluginError", "PluginRuntimeError", "guard", "register_program", "register_agent", "resolve_program",
           "resolve_agent", "make_program", "make_agent", "program_names", "agent_names",
           "check_program", "check_agent", "provenance", "record", "missing", "changed",
           "PROGRAM_GROUP", "AGENT_GROUP", "unregister", "forget_module"]


def unregister(kind: str, name: str) -> None:
    """Forget a registered ``kind`` (``program`` / ``agent``) ``name`` (tests)."""
    from sim.agents import registry
    from sim import policies

    (PLUGIN_PROGRAMS if kind == "program" else PLUGIN_AGENTS).pop(name, None)
    (policies._RESOLVED if kind == "program" else registry._RESOLVED).pop(name, None)
    for key in [k for k in _CHECKED if k[:2] == (kind, name)]:
        _CHECKED.discard(key)


def forget_module(module: str) -> None:
    """Drop what was resolved and checked for the ``MODULE:ATTRIBUTE`` specs of
    ``module`` (after editing it: the next use imports and checks it again, once
    ``sys.modules`` no longer holds it or it was reloaded)."""
    from sim.agents import registry
    from sim import policies

    for cache in (policies._RESOLVED, registry._RESOLVED):
        for spec in [s for s in cache if s.partition(":")[0] == module]:
            del cache[spec]
    for key in [k for k in _CHECKED if k[1].partition(":")[0] == module]:
        _CHECKED.discard(key)


def make_program(spec: str, **knobs):
    """:func:`sim.policies.make_program`, :func:`guard`-ed."""
    from sim.policies import make_program as make

    return guard("program", spec, make(spec, **knobs))


def make_agent(spec: str, profile):
    """:func:`sim.agents.registry.make_agent`, :func:`guard`-ed."""
    from sim.agents.registry import make_agent as make

    return guard("agent", spec, make(spec, profile))
