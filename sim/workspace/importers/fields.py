"""Field checks shared by the trajectory readers: every malformed value becomes a
:class:`~sim.workspace.errors.TrajectoryFormatError` naming its position in the file
(``history[3].tool_calls[0].id``, ``line 7: message.role``) and what was expected,
never a raw ``TypeError``/``KeyError`` or a silently skipped entry."""

from __future__ import annotations

import json
from typing import Any, Callable

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
        cid = name_of(call, "id", cw)
        fn = need(call, "function", cw, dict)
        name = name_of(fn, "name", f"{cw}.function")
        args = arguments(fn.get("arguments", ""), f"{cw}.function.arguments")
        out.append({"id": cid, "type": "function",
                    "function": {"name": name, "arguments": args}})
    return out


def name_of(obj: Any, key: str, where: str) -> str:
    """``obj[key]`` checked to be a non-empty string (a function name or a call id:
    providers reject an empty one, so it is an import error here, not a failed
    request later)."""
    value = need(obj, key, where, str)
    if not value:
        raise fail(f"{where}.{key}", "empty; expected a non-empty string")
    return value


def call(cid: Any, name: Any, args: Any, where: str, *, id_key: str = "id",
         name_key: str = "name", args_key: str = "arguments") -> dict[str, Any]:
    """One OpenAI tool call from a format's (id, name, arguments), each checked:
    ``where`` names the record holding them and the ``*_key`` arguments their
    fields in the file."""
    holder = {id_key: cid, name_key: name}
    return {"id": name_of(holder, id_key, where), "type": "function",
            "function": {"name": name_of(holder, name_key, where),
                         "arguments": arguments(args, f"{where}.{args_key}")}}


def tool_schemas(value: Any, where: str, notes: list[str]) -> list[dict[str, Any]]:
    """Recorded tool schemas as OpenAI function schemas: OpenAI's ``{"type":
    "function", "function": {...}}``, a bare ``{"name", "parameters"}`` (legacy
    ``functions``) and Anthropic's ``{"name", "input_schema"}`` are read; a tool of
    another kind (a provider's built-in tool such as web search) has no schema to
    count, so it is named in ``notes`` and left out. A name used twice keeps its
    first schema (noted). Raises :class:`TrajectoryFormatError` for an empty name or
    parameters that are not an object schema."""
    if not isinstance(value, list):
        raise fail(where, f"expected a list of tool schemas, got {kind(value)}")
    out, seen = [], set()
    for k, tool in enumerate(value):
        tw = f"{where}[{k}]"
        if not isinstance(tool, dict):
            raise fail(tw, f"expected an object, got {kind(tool)}")
        if tool.get("type") == "function" and "function" in tool:
            fn, fw = need(tool, "function", tw, dict), f"{tw}.function"
            params_key = "parameters"
        elif "name" in tool and tool.get("type") in (None, "function", "custom") \
                and ("input_schema" in tool or "parameters" in tool
                     or tool.get("type") == "function"):
            fn, fw = tool, tw
            params_key = "input_schema" if "input_schema" in tool else "parameters"
        else:
            label = tool.get("name", tool.get("type", "?"))
            notes.append(f"{tw}: tool {str(label)[:40]!r} of type "
                         f"{str(tool.get('type'))[:40]!r} has no function schema; "
                         "left out of the request (not counted)")
            continue
        name = name_of(fn, "name", fw)
        params = fn.get(params_key)
        if params is not None and (not isinstance(params, dict)
                                   or params.get("type", "object") != "object"):
            raise fail(f"{fw}.{params_key}", f"expected a JSON schema of type "
                                             f"'object', got {_short(params)}")
        desc = fn.get("description")
        if desc is not None and not isinstance(desc, str):
            raise fail(f"{fw}.description", f"expected a string, got {kind(desc)}")
        if name in seen:
            notes.append(f"{tw}: tool {name[:40]!r} is defined twice; the first "
                         "schema is kept")
            continue
        seen.add(name)
        schema: dict[str, Any] = {"name": name}
        if desc is not None:
            schema["description"] = desc
        if params is not None:
            schema["parameters"] = dict(params, type="object")
        out.append({"type": "function", "function": schema})
    return out


class Lines(list):
    """The entries of a JSONL file, with ``numbers``: each entry's line number in the
    file (blank lines are skipped, so entry i need not be line i + 1)."""

    numbers: list[int]


def line_label(entries: list) -> Callable[[int], str]:
    """``i -> "line N"``: entry i's position in its JSONL file (entries parsed in
    memory count from 1)."""
    numbers = getattr(entries, "numbers", None)
    if numbers is not None and len(numbers) == len(entries):
        return lambda i: f"line {numbers[i]}"
    return lambda i: f"line {i + 1}"


def _tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except RecursionError:
        text = "<deeply nested>"
    return text if len(text) <= 40 else text[:37] + "..."
