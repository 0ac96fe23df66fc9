"""The guard: what a plugin program or agent must return at each call, checked on
every call a run makes (:func:`guard`) and in the check episode
(:mod:`sim.plugins.check`); a broken call is refused naming the plugin and the method.
The protocol is stated in :mod:`sim.plugins` (ContextEvo Appendix B.1, Table 11)."""

from __future__ import annotations

from sim.agents.registry import SYNTHETIC
from sim.plugin_spec import PluginRuntimeError
from sim.policies import PROGRAMS

#: the eight intervention points and what each returns ("bool", "block", None)
PROGRAM_METHODS: dict[str, str | None] = {
    "observation_entry": None, "request_assembly": None, "maintenance_planning": "bool",
    "representation_update": None, "memory_update": None, "recovery": "block",
    "parent_to_child": None, "child_to_parent": None}
AGENT_METHODS = ("reset", "act")
PROTOCOLS = ("plain", "vista", "reworded")
CONTEXT_TOOLS = frozenset({"archive", "delete", "recover"})


def is_plugin(kind: str, spec: str) -> bool:
    """Whether ``spec`` names a plugin (anything but a built-in)."""
    return spec not in PROGRAMS if kind == "program" else spec != SYNTHETIC


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
