"""OpenAI chat reader: a list of messages, or a chat request ``{"messages": [...],
"tools": [...]}``. Known fields are kept (role, content, name, tool_calls,
tool_call_id), each checked: a malformed one is a
:class:`~sim.workspace.errors.TrajectoryFormatError` naming ``messages[i].field``.
A request's ``tools`` (and legacy ``functions``) are the recorded tool schemas: they
count as fixed overhead of every request. An Anthropic content block (``tool_use``,
``tool_result``, thinking) is refused naming its position: read as OpenAI it would
hide the calls behind a placeholder (use the ``anthropic`` format)."""

from __future__ import annotations

from typing import Any

from . import fields
from .anthropic import BLOCK_TYPES
from .trajectory import Trajectory

ROLES = ("system", "developer", "user", "assistant", "tool")


def message(m: Any, where: str) -> dict[str, Any]:
    """One OpenAI chat message checked and reduced to the chat fields."""
    role = fields.need(m, "role", where, str)
    if role not in ROLES:
        raise fields.fail(f"{where}.role", f"unknown role {role[:40]!r}; expected one "
                                           f"of {', '.join(ROLES)}")
    out: dict[str, Any] = {"role": role}
    value = fields.content(m.get("content"), f"{where}.content")
    if value is not None:
        out["content"] = value
    name = fields.need(m, "name", where, str, optional=True)
    if name is not None:
        out["name"] = name
    calls = m.get("tool_calls")
    if calls is not None:
        if role != "assistant":
            raise fields.fail(f"{where}.tool_calls", f"only assistant messages carry "
                                                     f"tool calls, not {role}")
        out["tool_calls"] = fields.openai_tool_calls(calls, f"{where}.tool_calls")
    cid = fields.need(m, "tool_call_id", where, str, optional=True)
    if role == "tool":
        if cid is None:
            raise fields.fail(f"{where}.tool_call_id", "missing on a tool message")
        out["tool_call_id"] = cid
    return out


def _no_anthropic_blocks(m: dict[str, Any], where: str) -> None:
    content = m.get("content")
    for j, part in enumerate(content if isinstance(content, list) else ()):
        if isinstance(part, dict) and part.get("type") in BLOCK_TYPES:
            raise fields.fail(f"{where}.content[{j}].type",
                              f"{str(part['type'])!r} is an Anthropic Messages block, "
                              "not an OpenAI content part (read the file with --format "
                              "anthropic)")


def read(data: list | dict) -> Trajectory:
    """The messages, each reduced to the OpenAI chat fields, and the recorded tools."""
    traj = Trajectory([])
    if isinstance(data, dict):
        messages = fields.items(data, "messages", "<file>")
        for key in ("tools", "functions"):
            if data.get(key) is not None:
                traj.tools += fields.tool_schemas(data[key], key, traj.notes)
    elif isinstance(data, list):
        messages = data
    else:
        raise fields.fail("<file>", f"expected a message list or an object with "
                                    f"'messages', got {fields.kind(data)}")
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        msg = message(m, where)
        _no_anthropic_blocks(m, where)
        msg["_where"] = where
        traj.messages.append(msg)
    return traj
