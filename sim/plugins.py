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
knobs as keywords, with the eight intervention-point methods

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
import importlib
import importlib.metadata as md
import inspect
import pathlib
import sys
from typing import Any, Callable

#: entry-point groups a distribution lists its programs and agents under
PROGRAM_GROUP = "ctxsim.programs"
AGENT_GROUP = "ctxsim.agents"
#: the built-in agent (the sweeps' default)
SYNTHETIC = "synthetic"

#: program name -> (class, knobs) registered with :func:`register_program`
_PROGRAMS: dict[str, tuple[type, dict]] = {}
#: agent name -> factory registered with :func:`register_agent`
_AGENTS: dict[str, Callable] = {}
#: spec -> what it resolved to (a program's (class, knobs); an agent's factory)
_RESOLVED: dict[tuple[str, str], Any] = {}
#: specs already played through :func:`check_program` / :func:`check_agent`
_CHECKED: set[tuple[str, str]] = set()

#: the eight intervention points and what each returns ("bool", "block", None)
PROGRAM_METHODS: dict[str, str | None] = {
    "observation_entry": None, "request_assembly": None, "maintenance_planning": "bool",
    "representation_update": None, "memory_update": None, "recovery": "block",
    "parent_to_child": None, "child_to_parent": None}
AGENT_METHODS = ("reset", "act")
PROTOCOLS = ("plain", "vista", "reworded")
CONTEXT_TOOLS = frozenset({"archive", "delete", "recover"})


class PluginError(ValueError):
    """A program or agent plugin that cannot be loaded or breaks its protocol; the
    message is one line naming the plugin and what it broke."""


# ---- registration -------------------------------------------------------------------
def register_program(name: str, cls: type, knobs: dict | None = None) -> None:
    """Make ``name`` a program every sweep of this process accepts (``--programs
    name`` through :func:`experiments.cli.run_command`, :func:`sim.policies.make_program`).

    Args:
        name: the registry name (not a built-in one; no ``:``).
        cls: the program class (see the module docstring for its protocol).
        knobs: keyword arguments its constructor gets (default: none).

    Raises:
        ValueError: for a built-in name, a name with ``:`` or a non-class ``cls``.

    A command line recorded for a run with such a program cannot be rerun by
    another process; ``--programs MODULE:CLASS`` (or an entry point) can.
    """
    from sim.policies import PROGRAMS

    if name in PROGRAMS or ":" in name or not name:
        raise ValueError(f"cannot register program {name!r}: a built-in name, empty or "
                         "with ':' (MODULE:CLASS specs need no registration)")
    if not inspect.isclass(cls):
        raise ValueError(f"register_program({name!r}, ...): expected a class, got {cls!r}")
    _PROGRAMS[name] = (cls, dict(knobs or {}))
    _RESOLVED.pop(("program", name), None)
    _CHECKED.discard(("program", name))


def register_agent(name: str, factory: Callable) -> None:
    """Make ``name`` an agent the sweeps of this process accept (``--agent name``).

    Args:
        name: the registry name (not ``synthetic``; no ``:``).
        factory: called with the sweep's :class:`~sim.agents.profiles.Profile` once
            per episode; returns the agent (see the module docstring).

    Raises:
        ValueError: for a reserved name, a name with ``:`` or a non-callable factory.
    """
    if name in (SYNTHETIC, "llm") or ":" in name or not name:
        raise ValueError(f"cannot register agent {name!r}: reserved, empty or with ':'")
    if not callable(factory):
        raise ValueError(f"register_agent({name!r}, ...): expected a callable, got "
                         f"{factory!r}")
    _AGENTS[name] = factory
    _RESOLVED.pop(("agent", name), None)
    _CHECKED.discard(("agent", name))


def unregister(kind: str, name: str) -> None:
    """Forget a registered ``kind`` (``program`` / ``agent``) ``name`` (tests)."""
    (_PROGRAMS if kind == "program" else _AGENTS).pop(name, None)
    _RESOLVED.pop((kind, name), None)
    _CHECKED.discard((kind, name))


def _entry_points(group: str) -> dict[str, md.EntryPoint]:
    return {ep.name: ep for ep in md.entry_points(group=group)}


def program_names() -> list[str]:
    """Every program name known without a ``MODULE:CLASS`` spec: the built-ins, then
    the registered ones and those of the :data:`PROGRAM_GROUP` entry points."""
    from sim.policies import PROGRAMS

    extra = sorted((set(_PROGRAMS) | set(_entry_points(PROGRAM_GROUP))) - set(PROGRAMS))
    return [*PROGRAMS, *extra]


def agent_names() -> list[str]:
    """Every agent name known without a spec: ``synthetic``, then the registered ones
    and those of the :data:`AGENT_GROUP` entry points."""
    return [SYNTHETIC, *sorted((set(_AGENTS) | set(_entry_points(AGENT_GROUP)))
                               - {SYNTHETIC})]


def is_plugin(kind: str, spec: str) -> bool:
    """Whether ``spec`` names a plugin (anything but a built-in)."""
    if kind == "program":
        from sim.policies import PROGRAMS

        return spec not in PROGRAMS
    return spec != SYNTHETIC


# ---- loading ------------------------------------------------------------------------
def _import_attr(kind: str, spec: str):
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise PluginError(f"{kind} plugin {spec!r}: expected MODULE:ATTRIBUTE "
                          "(e.g. mypkg.policies:KeepLast)")
    try:
        obj = importlib.import_module(module)
    except Exception as exc:   # any import-time failure is the plugin's, named
        raise PluginError(f"{kind} plugin {spec!r}: cannot import module {module!r} "
                          f"({type(exc).__name__}: {exc}); is it on PYTHONPATH?") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PluginError(f"{kind} plugin {spec!r}: module {module!r} has no "
                              f"attribute {attr!r}") from None
    return obj


def _load_entry_point(kind: str, ep: md.EntryPoint):
    try:
        return ep.load()
    except Exception as exc:
        raise PluginError(f"{kind} plugin {ep.name!r} (entry point {ep.value!r} of "
                          f"group {ep.group!r}): cannot load it ({type(exc).__name__}: "
                          f"{exc})") from None


def resolve_program(spec: str) -> tuple[type, dict]:
    """``(class, knobs)`` of program ``spec`` (see the module docstring).

    Raises:
        PluginError: an unknown name, a spec that does not import, or an attribute
            that is not a class (one line naming it).
    """
    from sim.policies import PROGRAMS

    if spec in PROGRAMS:
        return PROGRAMS[spec]
    key = ("program", spec)
    if key in _RESOLVED:
        return _RESOLVED[key]
    if spec in _PROGRAMS:
        found = _PROGRAMS[spec]
    elif ":" in spec:
        found = (_import_attr("program", spec), {})
    elif spec in (eps := _entry_points(PROGRAM_GROUP)):
        found = (_load_entry_point("program", eps[spec]), {})
    else:
        raise PluginError(f"unknown program {spec!r}; expected one of "
                          f"{', '.join(program_names())} or MODULE:CLASS")
    if not inspect.isclass(found[0]):
        raise PluginError(f"program plugin {spec!r}: expected a class, got "
                          f"{type(found[0]).__name__} {found[0]!r}")
    _RESOLVED[key] = found
    return found


def resolve_agent(spec: str) -> Callable:
    """The agent factory of ``spec`` (``synthetic``: :class:`sim.agents.SyntheticAgent`).

    Raises:
        PluginError: an unknown name, a spec that does not import, or an attribute
            that is not callable.
    """
    if spec == SYNTHETIC:
        from sim.agents.synthetic import SyntheticAgent

        return SyntheticAgent
    key = ("agent", spec)
    if key in _RESOLVED:
        return _RESOLVED[key]
    if spec in _AGENTS:
        found = _AGENTS[spec]
    elif ":" in spec:
        found = _import_attr("agent", spec)
    elif spec in (eps := _entry_points(AGENT_GROUP)):
        found = _load_entry_point("agent", eps[spec])
    else:
        raise PluginError(f"unknown agent {spec!r}; expected one of "
                          f"{', '.join(agent_names())} or MODULE:CLASS")
    if not callable(found):
        raise PluginError(f"agent plugin {spec!r}: expected a class or callable, got "
                          f"{found!r}")
    _RESOLVED[key] = found
    return found


def make_agent(spec: str, profile):
    """A fresh agent of ``spec`` for one episode, given the sweep's ``profile``."""
    return resolve_agent(spec)(profile)


# ---- protocol checks ----------------------------------------------------------------
def _static_program_problem(prog) -> str | None:
    from sim.workspace.dashboard import DASHBOARDS

    for method in PROGRAM_METHODS:
        if not callable(getattr(prog, method, None)):
            return f"has no method {method}(ctx, ...)"
    dash = getattr(prog, "dashboard", None)
    if dash not in DASHBOARDS:
        return (f"dashboard is {dash!r}; expected one of {', '.join(sorted(DASHBOARDS))}")
    tools = getattr(prog, "agent_tools", None)
    if not isinstance(tools, (set, frozenset)) or not set(tools) <= CONTEXT_TOOLS:
        return (f"agent_tools is {tools!r}; expected a (frozen)set of "
                f"{', '.join(sorted(CONTEXT_TOOLS))}")
    if not isinstance(getattr(prog, "show_handles", None), bool):
        return f"show_handles is {getattr(prog, 'show_handles', None)!r}; expected a bool"
    if getattr(prog, "protocol", None) not in PROTOCOLS:
        return (f"protocol is {getattr(prog, 'protocol', None)!r}; expected one of "
                f"{', '.join(PROTOCOLS)}")
    return None


class _Broke(Exception):
    """A plugin method broke the protocol (message: what it broke)."""


def _returns(name: str, want: str | None, value) -> None:
    from sim.workspace.blocks import Block

    ok = (value is None if want is None else isinstance(value, bool) if want == "bool"
          else value is None or isinstance(value, Block))
    if not ok:
        expected = {None: "None", "bool": "a bool",
                    "block": "the recovered block or None"}[want]
        raise _Broke(f"{name} returned {type(value).__name__} {value!r:.60}; "
                     f"expected {expected}")


class _Checked:
    """A proxy running ``target``'s methods with their return types checked and
    their exceptions named (the episode :func:`check_program` plays)."""

    def __init__(self, target, methods: dict[str, str | None]):
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_methods", methods)

    def __getattr__(self, attr):
        value = getattr(self._target, attr)
        if attr not in self._methods:
            return value
        want = self._methods[attr]

        def call(*args, **kwargs):
            try:
                out = value(*args, **kwargs)
            except _Broke:
                raise
            except Exception as exc:
                raise _Broke(f"{attr} raised {type(exc).__name__}: {exc}") from exc
            if want != "any":
                _returns(attr, want, out)
            elif attr == "act":
                from sim.agents.protocol import Action

                if not isinstance(out, Action):
                    raise _Broke(f"act returned {type(out).__name__} {out!r:.60}; "
                                 "expected a sim.agents.protocol.Action")
            elif attr == "write_notes" and not isinstance(out, str):
                raise _Broke(f"write_notes returned {type(out).__name__}; expected str")
            return out
        return call

    def __setattr__(self, attr, value):
        setattr(self._target, attr, value)


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
    if not is_plugin("program", spec) or ("program", spec) in _CHECKED:
        return
    from sim.agents.synthetic import SyntheticAgent

    cls, base = resolve_program(spec)
    try:
        prog = cls(**{**base, **knobs})
    except Exception as exc:
        raise PluginError(f"program plugin {spec!r} broke the protocol: its constructor "
                          f"raised {type(exc).__name__}: {exc}") from None
    problem = _static_program_problem(prog)
    if problem:
        raise PluginError(f"program plugin {spec!r} broke the protocol: it {problem}")
    try:
        prog.name = spec
        _smoke_episode(_Checked(prog, PROGRAM_METHODS), SyntheticAgent("medium"))
    except _Broke as exc:
        raise PluginError(f"program plugin {spec!r} broke the protocol: {exc}") from None
    except Exception as exc:  # raised by the harness on what the plugin did
        raise PluginError(f"program plugin {spec!r} broke the protocol: the episode "
                          f"failed on what it did ({type(exc).__name__}: {exc})") from None
    _CHECKED.add(("program", spec))


def check_agent(spec: str) -> None:
    """Load agent ``spec`` and play one small episode with it under ``react``
    (``act`` must return an :class:`~sim.agents.protocol.Action`).

    Raises:
        PluginError: one line naming the agent and what it broke.
    """
    if not is_plugin("agent", spec) or ("agent", spec) in _CHECKED:
        return
    from sim.agents.profiles import get_profile
    from sim.policies import make_program

    factory = resolve_agent(spec)
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
        _smoke_episode(make_program("summarization"),
                       _Checked(agent, {"reset": None, "act": "any",
                                        "write_notes": "any"}))
    except _Broke as exc:
        raise PluginError(f"agent plugin {spec!r} broke the protocol: {exc}") from None
    except Exception as exc:
        raise PluginError(f"agent plugin {spec!r} broke the protocol: the episode "
                          f"failed on what it did ({type(exc).__name__}: {exc})") from None
    _CHECKED.add(("agent", spec))


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


def record(kind: str, spec: str) -> dict:
    """What a sidecar records of plugin ``spec`` (``kind``: program or agent):
    ``kind``, ``spec``, ``module``, ``qualname``, ``version`` (its distribution's, or
    None), ``sha256`` of its source files and their ``files`` names, and
    ``rerunnable`` (False for a name registered in-process: another process cannot
    resolve it)."""
    obj = resolve_program(spec)[0] if kind == "program" else resolve_agent(spec)
    module = getattr(obj, "__module__", None) or spec.partition(":")[0]
    files = _source_files(obj)
    return {"kind": kind, "spec": spec, "module": module,
            "qualname": getattr(obj, "__qualname__", None), "version": _version(module),
            "sha256": source_hash(files), "files": [f.name for f in files],
            "rerunnable": spec not in (_PROGRAMS if kind == "program" else _AGENTS)}


def provenance(config) -> list[dict]:
    """:func:`record` of every plugin ``config`` (a sweep's configuration) names:
    the ``programs``, ``calibrated_row``, ``program`` and ``agent`` values that
    are not built-in, each once."""
    from sim.policies import PROGRAMS

    found: list[tuple[str, str]] = []

    def visit(key, value):
        if isinstance(value, dict):
            for k, v in value.items():
                visit(k, v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(key, v)
        elif isinstance(value, str):
            kind = ("program" if key in ("programs", "program", "calibrated_row", "start")
                    else "agent" if key == "agent" else None)
            if kind == "program" and value not in PROGRAMS and _known("program", value):
                found.append(("program", value))
            elif kind == "agent" and value not in (SYNTHETIC, "llm") \
                    and _known("agent", value):
                found.append(("agent", value))
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
        return (f"{entry.get('kind', 'program')} {spec!r} was registered in-process "
                f"(module {entry.get('module')!r}); another process cannot load it: "
                f"rerun with MODULE:CLASS")
    try:
        if entry.get("kind") == "agent":
            resolve_agent(spec)
        else:
            resolve_program(spec)
    except PluginError as exc:
        return (f"{exc} [recorded module {entry.get('module')!r}, sha256 "
                f"{(entry.get('sha256') or '?')[:12]}]")
    return None


def changed(entry: dict) -> bool | None:
    """Whether plugin ``entry``'s source hash differs from the one recorded (None if
    it does not load here)."""
    if missing(entry):
        return None
    return record(entry.get("kind", "program"), entry["spec"])["sha256"] != entry.get("sha256")
