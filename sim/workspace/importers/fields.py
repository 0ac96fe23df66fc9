"""Field checks shared by the trajectory readers: every malformed value becomes a
:class:`~sim.workspace.errors.TrajectoryFormatError` naming its position in the file
(``history[3].tool_calls[0].id``, ``line 7: message.role``) and what was expected,
never a raw ``TypeError``/``KeyError`` or a silently skipped entry."""

from __future__ import annotations

import json
from typing import Any

from ..errors import TrajectoryFormatError

_NAMES = {str: "a string", list: "a list", dict: "an object", int: "an integer",
          bool: "a boolean", type(None): "null"}


def kind(value: Any) -> str:
    """A JSON-ish name of ``value``'s type ("an object", "a list", "null" ...)."""
    return _NAMES.get(type(value), type(value).__name__)


def fail(where: str, message: str) -> TrajectoryFormatError:
    """The error to raise for the field at ``where``."""
    return TrajectoryFormatError(f"{where}: {message}")


def need(obj: Any, key: str, where: str, types: type | tuple[type, ...], *,
         optional: bool = False, default: Any = None) -> Any:
    """``obj[key]`` checked to be of ``types`` (``bool`` is never an ``int``).
    ``optional``: a missing key or a null gives ``default``."""
    if not isinstance(obj, dict):
        raise fail(where, f"expected an object, got {kind(obj)}")
    if key not in obj or (optional and obj[key] is None):
        if optional:
            return default
        raise fail(f"{where}.{key}", "missing")
    value = obj[key]
    ok = isinstance(value, types) and not (isinstance(value, bool)
                                           and bool not in _tuple(types))
    if not ok:
        want = " or ".join(_NAMES.get(t, t.__name__) for t in _tuple(types))
        raise fail(f"{where}.{key}", f"expected {want}, got {kind(value)} "
                                     f"{_short(value)}")
    return value


def items(obj: Any, key: str, where: str, *, optional: bool = False) -> list:
    """``obj[key]`` as a list (``optional``: missing or null gives [])."""
    return need(obj, key, where, list, optional=optional, default=[])


def arguments(value: Any, where: str) -> str:
    """Tool-call arguments as the JSON text OpenAI expects: a string is kept as
    given; an object/list/number is serialised (non-ASCII kept)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise fail(where, f"arguments are not JSON-serialisable: "
                          f"{type(exc).__name__}") from None


def content(value: Any, where: str) -> Any:
    """Message content checked: text, null, or a list of parts (strings or objects;
    a ``text`` part's ``text`` must be a string). Returned unchanged."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise fail(where, f"content must be text, null or a list of parts, got "
                          f"{kind(value)} {_short(value)}")
    for i, part in enumerate(value):
        if isinstance(part, str):
            continue
        if not isinstance(part, dict):
            raise fail(f"{where}[{i}]", f"a content part must be a string or an "
                                        f"object, got {kind(part)}")
        if part.get("type", "text") == "text" and ("text" in part or "content" in part):
            key = "text" if "text" in part else "content"
            if not isinstance(part[key], str):
                raise fail(f"{where}[{i}].{key}", f"expected a string, got "
                                                  f"{kind(part[key])}")
    return value


def openai_tool_calls(value: Any, where: str) -> list[dict[str, Any]]:
    """OpenAI ``tool_calls`` checked: a list of ``{"id": str, "function": {"name":
    str, "arguments": str or JSON}}``; arguments serialised to text."""
    if not isinstance(value, list):
        raise fail(where, f"expected a list of tool calls, got {kind(value)} "
                          f"{_short(value)}")
    out = []
    for j, call in enumerate(value):
        cw = f"{where}[{j}]"
        cid = need(call, "id", cw, str)
        fn = need(call, "function", cw, dict)
        name = need(fn, "name", f"{cw}.function", str)
        args = arguments(fn.get("arguments", ""), f"{cw}.function.arguments")
        out.append({"id": cid, "type": "function",
                    "function": {"name": name, "arguments": args}})
    return out


def _tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except RecursionError:
        text = "<deeply nested>"
    return text if len(text) <= 40 else text[:37] + "..."
