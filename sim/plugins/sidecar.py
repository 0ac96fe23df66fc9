"""Provenance: what a sidecar records of each plugin a run used (spec, module,
distribution version, sha256 of its source files, the directory it was imported
from), and whether a recorded plugin still loads here (:func:`missing`) or changed
(:func:`changed`). See :mod:`sim.plugins`."""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import inspect
import pathlib
import sys
from collections.abc import Mapping

from sim.agents.registry import PLUGIN_AGENTS, SYNTHETIC, resolve_agent
from sim.plugin_spec import PLUGIN_KEYS, PluginError
from sim.policies import PLUGIN_PROGRAMS, PROGRAMS, resolve_program

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
