"""OpenAI chat reader: a list of messages, or a chat request ``{"messages": [...]}``.
Known fields are kept (role, content, name, tool_calls, tool_call_id), each checked:
a malformed one is a :class:`~sim.workspace.errors.TrajectoryFormatError` naming
``messages[i].field``."""

from __future__ import annotations

from typing import Any

from . import fields

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


def read(data: list | dict) -> list[dict[str, Any]]:
    """The messages, each reduced to the OpenAI chat fields."""
    if isinstance(data, dict):
        messages, where = fields.items(data, "messages", "<file>"), "messages"
    elif isinstance(data, list):
        messages, where = data, "messages"
    else:
        raise fields.fail("<file>", f"expected a message list or an object with "
                                    f"'messages', got {fields.kind(data)}")
    return [message(m, f"{where}[{i}]") for i, m in enumerate(messages)]
