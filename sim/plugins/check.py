"""The check: load a plugin program or agent and play one small episode with it,
every call :func:`~sim.plugins.protocol.guard`-checked, before a run uses it
(:func:`check_program`, :func:`check_agent`; see :mod:`sim.plugins`)."""

from __future__ import annotations

from sim.agents.registry import agent_names, resolve_agent
from sim.plugin_spec import PluginError
from sim.plugins.protocol import (AGENT_METHODS, AGENT_RETURNS, PROGRAM_METHODS, _Broke,
                               _Checked, _static_program_problem, is_plugin)
from sim.policies import program_names, resolve_program

#: (kind, spec, id of what it resolved to, ...) already played through
#: :func:`check_program` / :func:`check_agent` (a re-registered name is checked again)
_CHECKED: set[tuple] = set()


def _looks_like(obj) -> str | None:
    """``"program"`` for an object with the eight intervention points, ``"agent"`` for
    one with ``reset`` and ``act`` and none of them, else None."""
    if all(callable(getattr(obj, m, None)) for m in PROGRAM_METHODS):
        return "program"
    if all(callable(getattr(obj, m, None)) for m in AGENT_METHODS) \
            and not any(hasattr(obj, m) for m in PROGRAM_METHODS):
        return "agent"
    return None


_KIND_NAMES = {"program": "a context program", "agent": "an agent"}


def _resolved(kind: str, spec: str):
    """:func:`resolve_program` / :func:`resolve_agent` of ``spec``; a spec that names
    the other kind (``--agent vista``, ``--programs byo:MyAgent``) is refused saying so.

    Raises:
        PluginError: ``'vista' is a context program, not an agent``, or what the
            resolver raised.
    """
    other = "agent" if kind == "program" else "program"
    try:
        found = resolve_program(spec) if kind == "program" else resolve_agent(spec)
    except PluginError:
        names = (agent_names() + ["llm"]) if other == "agent" else program_names()
        if spec in names:
            raise PluginError(f"{spec!r} is {_KIND_NAMES[other]}, not "
                              f"{_KIND_NAMES[kind]}") from None
        raise
    if _looks_like(found[0] if kind == "program" else found) == other:
        raise PluginError(f"{kind} plugin {spec!r} is {_KIND_NAMES[other]}, not "
                          f"{_KIND_NAMES[kind]}")
    return found


def _smoke_episode(program, agent) -> None:
    """One small LOCA-like episode under pressure (growth 4,000 tokens, budget 3,000:
    maintenance, archiving and recovery are all reached by the built-in programs)."""
    from sim.harness import run_episode
    from sim.tasks.loca import loca_task

    task = loca_task(0, 0, 4000, 0)
    run_episode(task, program, agent, budget=3000, seed=1, fast=True)


def check_program(spec: str, **knobs) -> None:
    """Load program ``spec`` and play one small episode with it, every intervention
    point's return type checked (a built-in name passes at once; a plugin is played
    once per process).

    Raises:
        PluginError: ``program plugin 'mymod:P' broke the protocol: maintenance_planning
            returned str 'yes'; expected a bool`` (and the like: missing method,
            wrong attribute, a method or the constructor raising).
    """
    if not is_plugin("program", spec):
        return
    from sim.agents.synthetic import SyntheticAgent

    cls, base = _resolved("program", spec)
    key = ("program", spec, id(cls), repr(sorted(knobs.items())))
    if key in _CHECKED:
        return
    try:
        prog = cls(**{**base, **knobs})
    except Exception as exc:
        raise PluginError(f"program plugin {spec!r} broke the protocol: its constructor "
                          f"raised {type(exc).__name__}: {exc}") from None
    problem = _static_program_problem(prog)
    if problem:
        raise PluginError(f"program plugin {spec!r} broke the protocol: {problem}")
    try:
        prog.name = spec
        _smoke_episode(_Checked(prog, PROGRAM_METHODS), SyntheticAgent("medium"))
    except _Broke as exc:
        raise PluginError(f"program plugin {spec!r} broke the protocol: {exc}") from None
    except Exception as exc:  # raised by the harness on what the plugin did
        raise PluginError(f"program plugin {spec!r} broke the protocol: the episode "
                          f"failed on what it did ({type(exc).__name__}: {exc})") from None
    _CHECKED.add(key)


def check_agent(spec: str) -> None:
    """Load agent ``spec`` and play one small episode with it under ``react``
    (``act`` must return an :class:`~sim.agents.protocol.Action`).

    Raises:
        PluginError: one line naming the agent and what it broke.
    """
    if not is_plugin("agent", spec):
        return
    from sim import policies
    from sim.agents.profiles import get_profile

    factory = _resolved("agent", spec)
    key = ("agent", spec, id(factory))
    if key in _CHECKED:
        return
    try:
        agent = factory(get_profile("medium"))
    except Exception as exc:
        raise PluginError(f"agent plugin {spec!r} broke the protocol: its factory "
                          f"raised {type(exc).__name__}: {exc}") from None
    for method in AGENT_METHODS:
        if not callable(getattr(agent, method, None)):
            raise PluginError(f"agent plugin {spec!r} broke the protocol: it has no "
                              f"method {method}")
    if not isinstance(getattr(agent, "name", None), str):
        raise PluginError(f"agent plugin {spec!r} broke the protocol: its name is "
                          f"{getattr(agent, 'name', None)!r}; expected a str")
    try:
        _smoke_episode(policies.make_program("summarization"), _Checked(agent, AGENT_RETURNS))
    except _Broke as exc:
        raise PluginError(f"agent plugin {spec!r} broke the protocol: {exc}") from None
    except Exception as exc:
        raise PluginError(f"agent plugin {spec!r} broke the protocol: the episode "
                          f"failed on what it did ({type(exc).__name__}: {exc})") from None
    _CHECKED.add(key)
