"""Loading a plugin named ``MODULE:ATTRIBUTE`` or by an entry point, for the program
and agent registries (:mod:`sim.policies`, :mod:`sim.agents.registry`); the user's
guide and the protocol checks are :mod:`sim.plugins`.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import pathlib

#: entry-point groups a distribution lists its programs and agents under
PROGRAM_GROUP = "ctxsim.programs"
AGENT_GROUP = "ctxsim.agents"
#: the keys of a run's configuration that name programs or agents -> which
#: (what :func:`sim.plugins.provenance` reads and a sidecar is scanned for)
PLUGIN_KEYS = {"programs": "program", "program": "program", "calibrated_row": "program",
               "start": "program", "agent": "agent"}


class PluginError(ValueError):
    """A program or agent plugin that cannot be loaded or breaks its protocol; the
    message is one line naming the plugin and what it broke (exit status 2)."""


class PluginRuntimeError(RuntimeError):
    """A plugin that raised, or broke its protocol, during a run (after its check
    episode passed): one line naming the plugin, the method and, where the run knows
    it, the task and level (exit status 1; output staging leaves nothing written)."""


def import_attr(kind: str, spec: str):
    """The object ``spec`` (``MODULE:ATTRIBUTE``, the attribute possibly dotted) names.

    Raises:
        PluginError: a spec without both parts, a module that does not import (any
            exception it raises, named) or a missing attribute.
    """
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise PluginError(f"{kind} plugin {spec!r}: expected MODULE:ATTRIBUTE "
                          "(e.g. mypkg.policies:KeepLast)")
    try:
        obj = importlib.import_module(module)
    except Exception as exc:   # any import-time failure is the plugin's, named
        raise PluginError(f"{kind} plugin {spec!r}: cannot import module {module!r} "
                          f"({type(exc).__name__}: {exc}); "
                          f"{_where_to_look(module, exc)}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PluginError(f"{kind} plugin {spec!r}: module {module!r} has no "
                              f"attribute {attr!r}{_close_name(part, obj)}") from None
    return obj


def _close_name(name: str, where) -> str:
    """``"; did you mean 'KeepLast'?"`` naming the public attribute of ``where``
    closest to ``name`` (case ignored; :func:`difflib.get_close_matches`), or ``""``."""
    import difflib

    names = {n.lower(): n for n in dir(where) if not n.startswith("_")}
    close = difflib.get_close_matches(name.lower(), names, n=1)
    return f"; did you mean {names[close[0]]!r}?" if close else ""


def dotted_hint(spec: str) -> str:
    """For an unknown name written like a dotted path (``mypkg.policies.KeepLast``):
    ``" (a plugin is written MODULE:CLASS, with a colon: did you mean
    'mypkg.policies:KeepLast'?)"``; else ``""``."""
    module, dot, attr = spec.rpartition(".")
    if not dot or not module or not attr or ":" in spec:
        return ""
    return (f" (a plugin is written MODULE:CLASS, with a colon: did you mean "
            f"{module + ':' + attr!r}?)")


def _where_to_look(module: str, exc: Exception) -> str:
    """The hint of a module that did not import: the current directory when it
    holds the module (``ctxsim``, a console script, does not search it, unlike
    ``python -m``), else the question whether it is on ``PYTHONPATH``."""
    top = module.split(".")[0]
    if isinstance(exc, ModuleNotFoundError) and exc.name == top:
        for here in (pathlib.Path(f"{top}.py"), pathlib.Path(top) / "__init__.py"):
            if here.is_file():
                return (f"./{here.as_posix()} is in the current directory, which is "
                        f"not on the module search path: run with PYTHONPATH=.")
    return "is it on PYTHONPATH?"


def entry_points(group: str) -> dict[str, md.EntryPoint]:
    """name -> entry point of ``group`` over the installed distributions."""
    return {ep.name: ep for ep in md.entry_points(group=group)}


def load_entry_point(kind: str, ep: md.EntryPoint):
    """``ep.load()``, a failure named in one line (:class:`PluginError`)."""
    try:
        return ep.load()
    except Exception as exc:
        raise PluginError(f"{kind} plugin {ep.name!r} (entry point {ep.value!r} of "
                          f"group {ep.group!r}): cannot load it ({type(exc).__name__}: "
                          f"{exc})") from None
