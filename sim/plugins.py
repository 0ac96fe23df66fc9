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
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import inspect
import pathlib
import sys
from collections.abc import Mapping

from sim.agents.registry import (PLUGIN_AGENTS, SYNTHETIC, agent_names, register_agent,
                                 resolve_agent)
from sim.plugin_spec import (AGENT_GROUP, PLUGIN_KEYS, PROGRAM_GROUP, PluginError,
                             PluginRuntimeError)
from sim.policies import (PLUGIN_PROGRAMS, PROGRAMS, program_names, register_program,
                          resolve_program)

#: (kind, spec, id of what it resolved to, ...) already played through
#: :func:`check_program` / :func:`check_agent` (a re-registered name is checked again)
_CHECKED: set[tuple] = set()

#: the eight intervention points and what each returns ("bool", "block", None)
PROGRAM_METHODS: dict[str, str | None] = {
    "observation_entry": None, "request_assembly": None, "maintenance_planning": "bool",
    "representation_update": None, "memory_update": None, "recovery": "block",
    "parent_to_child": None, "child_to_parent": None}
AGENT_METHODS = ("reset", "act")
PROTOCOLS = ("plain", "vista", "reworded")
CONTEXT_TOOLS = frozenset({"archive", "delete", "recover"})

__all__ = ["PluginError", "PluginRuntimeError", "guard", "register_program", "register_agent", "resolve_program",
           "resolve_agent", "make_agent", "program_names", "agent_names",
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


def is_plugin(kind: str, spec: str) -> bool:
    """Whether ``spec`` names a plugin (anything but a built-in)."""
    return spec not in PROGRAMS if kind == "program" else spec != SYNTHETIC


# ---- protocol checks ----------------------------------------------------------------
def _static_program_problem(prog) -> str | None:
    from sim.workspace.dashboard import DASHBOARDS

    for method in PROGRAM_METHODS:
        if not callable(getattr(prog, method, None)):
            return f"it has no method {method}(ctx, ...)"
    dash = getattr(prog, "dashboard", None)
    # "bounded_ledger:400": a variant and its token cap
    if not isinstance(dash, str) or dash.partition(":")[0] not in DASHBOARDS:
        return (f"its dashboard is {dash!r}; expected one of {', '.join(sorted(DASHBOARDS))}")
    tools = getattr(prog, "agent_tools", None)
    if not isinstance(tools, (set, frozenset)) or not set(tools) <= CONTEXT_TOOLS:
        return (f"its agent_tools is {tools!r}; expected a (frozen)set of "
                f"{', '.join(sorted(CONTEXT_TOOLS))}")
    import numpy as np

    handles = getattr(prog, "show_handles", None)
    if isinstance(handles, np.bool_):   # a NumPy bool is the bool it is
        prog.show_handles = handles = bool(handles)
    if not isinstance(handles, bool):
        return f"its show_handles is {handles!r}; expected a bool"
    if getattr(prog, "protocol", None) not in PROTOCOLS:
        return (f"its protocol is {getattr(prog, 'protocol', None)!r}; expected one of "
                f"{', '.join(PROTOCOLS)}")
    return None


class _Broke(Exception):
    """A plugin method broke the protocol (message: what it broke)."""


def _conform(name: str, want: str | None, value):
    """``value`` as the protocol wants it from method ``name`` (``want``: None,
    ``"bool"``, ``"block"``, ``"action"``, ``"notes"`` or ``"any"``, unchecked); a
    NumPy bool is taken as the bool it is. Raises :class:`_Broke` naming what is wrong."""
    import numpy as np

    from sim.agents.protocol import ANSWER, ARCHIVE, DELETE, RECOVER, TASK, Action
    from sim.workspace.blocks import Block

    if want == "any":
        return value
    if want == "bool" and isinstance(value, np.bool_):
        return bool(value)
    if want == "action":
        if not isinstance(value, Action):
            raise _Broke(f"{name} returned {type(value).__name__} {value!r:.60}; "
                         "expected a sim.agents.protocol.Action")
        kinds = (TASK, ARCHIVE, DELETE, RECOVER, ANSWER)
        if value.kind not in kinds:
            raise _Broke(f"{name} returned an Action of kind {value.kind!r}; expected "
                         f"one of {', '.join(kinds)}")
        return value
    ok = (value is None if want is None else isinstance(value, bool) if want == "bool"
          else isinstance(value, str) if want == "notes"
          else value is None or isinstance(value, Block))
    if not ok:
        expected = {None: "None", "bool": "a bool", "notes": "a str",
                    "block": "the recovered block or None"}[want]
        raise _Broke(f"{name} returned {type(value).__name__} {value!r:.60}; "
                     f"expected {expected}")
    return value


#: what an agent's methods return, for :func:`_conform` (``reset``: unchecked)
AGENT_RETURNS = {"reset": "any", "act": "action", "write_notes": "notes"}


class _Checked:
    """A proxy running ``target``'s ``methods`` (name -> what it returns, see
    :func:`_conform`) with their return values checked and their exceptions named:
    :class:`_Broke` in the check episode; with ``label`` (``"program plugin 'm:P'"``)
    a :class:`~sim.plugin_spec.PluginRuntimeError` naming the plugin and the method
    (what :func:`guard` gives a run). Other attributes pass through, both ways.
    Pickles as its target, methods and label (a ``--jobs`` worker may receive one)."""

    def __init__(self, target, methods: dict[str, str | None], label: str | None = None):
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_methods", methods)
        object.__setattr__(self, "_label", label)

    def __reduce__(self):
        return (type(self), (self._target, self._methods, self._label))

    def __getattr__(self, attr):
        if attr in ("_target", "_methods", "_label"):   # not yet set (copy, unpickle)
            raise AttributeError(attr)
        value = getattr(self._target, attr)
        if attr not in self._methods:
            return value
        want, label = self._methods[attr], self._label

        def call(*args, **kwargs):
            try:
                return _conform(attr, want, value(*args, **kwargs))
            except _Broke as exc:
                if label is None:
                    raise
                raise PluginRuntimeError(f"{label} broke the protocol: {exc}") from None
            except PluginRuntimeError:
                raise
            except Exception as exc:
                if label is None:
                    raise _Broke(f"{attr} raised {type(exc).__name__}: {exc}") from exc
                raise PluginRuntimeError(f"{label}: {attr} raised {type(exc).__name__}: "
                                         f"{exc}") from exc
        return call

    def __setattr__(self, attr, value):
        setattr(self._target, attr, value)


def guard(kind: str, spec: str, obj):
    """``obj`` (a program or agent made from ``spec``) as a run plays it: a plugin's
    every call has its return value checked as in the check episode and an exception
    re-raised as :class:`~sim.plugin_spec.PluginRuntimeError` naming the plugin and
    the method; a built-in is returned as it is (no overhead)."""
    if not is_plugin(kind, spec):
        return obj
    if kind == "program":   # its attributes as the check saw them (a NumPy bool: bool)
        problem = _static_program_problem(obj)
        if problem:
            raise PluginRuntimeError(f"program plugin {spec!r} broke the protocol: "
                                     f"{problem}")
    return _Checked(obj, PROGRAM_METHODS if kind == "program" else AGENT_RETURNS,
                    f"{kind} plugin {spec!r}")


def make_program(spec: str, **knobs):
    """:func:`sim.policies.make_program`, :func:`guard`-ed."""
    from sim.policies import make_program as make

    return guard("program", spec, make(spec, **knobs))


def make_agent(spec: str, profile):
    """:func:`sim.agents.registry.make_agent`, :func:`guard`-ed."""
    from sim.agents.registry import make_agent as make

    return guard("agent", spec, make(spec, profile))


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


# ---- provenance ---------------------------------------------------------------------
def _source_files(obj) -> list[pathlib.Path]:
    """The source files of ``obj``: its module's file and, for a class, the files
    of its bases outside ctxsim (a plugin split over modules)."""
    files = []
    for o in (inspect.getmro(obj) if inspect.isclass(obj) else (obj,)):
        mod = sys.modules.get(getattr(o, "__module__", "") or "")
        path = getattr(mod, "__file__", None)
        name = getattr(mod, "__name__", "")
        if path and name.split(".")[0] not in ("sim", "builtins") \
                and pathlib.Path(path) not in files:
            files.append(pathlib.Path(path))
    return files


def source_hash(files: list[pathlib.Path]) -> str | None:
    """sha256 over ``files`` (each name and bytes, in order); None if none is readable."""
    h = hashlib.sha256()
    read = False
    for f in files:
        try:
            data = f.read_bytes()
        except OSError:
            continue
        h.update(f.name.encode() + b"\0" + data + b"\0")
        read = True
    return h.hexdigest() if read else None


def _version(module: str) -> str | None:
    top = module.split(".")[0]
    for dist in md.packages_distributions().get(top, []):
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            continue
    return None


def import_root(module: str) -> str | None:
    """The directory ``module`` was imported from: the ``sys.path`` entry holding it
    (``/home/me/plugins`` for ``myprog`` at ``/home/me/plugins/myprog.py``, and for
    ``pkg.sub`` at ``.../pkg/sub.py``), or None for a module without a file."""
    path = getattr(sys.modules.get(module), "__file__", None)
    if not path:
        return None
    root = pathlib.Path(path).resolve().parent
    depth = module.count(".") + (pathlib.Path(path).name == "__init__.py")
    for _ in range(depth):
        root = root.parent
    return str(root)


def record(kind: str, spec: str) -> dict:
    """What a sidecar records of plugin ``spec`` (``kind``: program or agent):
    ``kind``, ``spec``, ``module``, ``qualname``, ``version`` (its distribution's, or
    None), ``sha256`` of its source files and their ``files`` names, ``directory``
    (:func:`import_root`: what ``PYTHONPATH`` needs to hold to import it again) and
    ``rerunnable`` (False for a name registered in-process: another process cannot
    resolve it)."""
    obj = resolve_program(spec)[0] if kind == "program" else resolve_agent(spec)
    module = getattr(obj, "__module__", None) or spec.partition(":")[0]
    files = _source_files(obj)
    return {"kind": kind, "spec": spec, "module": module,
            "qualname": getattr(obj, "__qualname__", None), "version": _version(module),
            "sha256": source_hash(files), "files": [f.name for f in files],
            "directory": import_root(module),
            "rerunnable": spec not in (PLUGIN_PROGRAMS if kind == "program"
                                       else PLUGIN_AGENTS)}


def provenance(config) -> list[dict]:
    """:func:`record` of every plugin ``config`` (a sweep's configuration) names:
    the ``programs``, ``calibrated_row``, ``program`` and ``agent`` values that
    are not built-in, each once."""
    found: list[tuple[str, str]] = []

    def visit(key, value):
        if isinstance(value, dict):
            for k, v in value.items():
                visit(k, v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(key, v)
        elif isinstance(value, str):
            kind = PLUGIN_KEYS.get(key)
            if kind == "program" and value not in PROGRAMS and _known("program", value):
                found.append(("program", value))
            elif kind == "agent" and value not in (SYNTHETIC, "llm") \
                    and _known("agent", value):
                found.append(("agent", value))
    if not isinstance(config, Mapping):
        return []
    visit(None, dict(config))
    seen, out = set(), []
    for item in found:
        if item not in seen:
            seen.add(item)
            out.append(record(*item))
    return out


def _known(kind: str, spec: str) -> bool:
    try:
        (resolve_program if kind == "program" else resolve_agent)(spec)
    except PluginError:
        return False
    return True


def missing(entry: dict) -> str | None:
    """Why plugin ``entry`` (a sidecar's :func:`record`) cannot be loaded here, or
    None if it loads; also names a source that changed since (hash differs)."""
    spec = entry.get("spec", "?")
    if not entry.get("rerunnable", True):
        return (f"it was made with {entry.get('kind', 'program')} {spec!r}, registered "
                f"in-process (module {entry.get('module')!r}), which another process "
                f"cannot load; name it as MODULE:CLASS to make a rerunnable run")
    try:
        if entry.get("kind") == "agent":
            resolve_agent(spec)
        else:
            resolve_program(spec)
    except PluginError as exc:
        where = entry.get("directory")
        hint = f"; it was imported from {where}: try PYTHONPATH={where}" if where else ""
        return (f"{exc} [recorded module {entry.get('module')!r}, sha256 "
                f"{(entry.get('sha256') or '?')[:12]}{hint}]")
    return None


def changed(entry: dict) -> bool | None:
    """Whether plugin ``entry``'s source hash differs from the one recorded (None if
    it does not load here)."""
    if missing(entry):
        return None
    return record(entry.get("kind", "program"), entry["spec"])["sha256"] != entry.get("sha256")
