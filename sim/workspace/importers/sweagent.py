"""SWE-agent ``.traj`` reader: ``history`` holds the chat messages (role, content as
text or parts, assistant ``tool_calls``, tool ``tool_call_ids``); runs without a
history (key absent or an empty list) fall back to ``trajectory`` steps (response,
observation). A ``history`` of any other type is an error, never a fallback."""

from __future__ import annotations

from typing import Any

from . import fields
from .openai import ROLES


def read(data: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAI messages of a parsed SWE-agent trajectory."""
    if not isinstance(data, dict):
        raise fields.fail("<file>", f"expected an object, got {fields.kind(data)}")
    history = fields.items(data, "history", "<file>", optional=True)
    if not history:
        out = []
        for i, step in enumerate(fields.items(data, "trajectory", "<file>")):
            where = f"trajectory[{i}]"
            response = fields.need(step, "response", where, str, optional=True)
            action = fields.need(step, "action", where, str, optional=True, default="")
            obs = fields.need(step, "observation", where, str, optional=True,
                              default="")
            out.append({"role": "assistant", "content": response or action,
                        "_where": f"{where}.response"})
            out.append({"role": "user", "content": obs, "_where": f"{where}.observation"})
        return out
    out = []
    for i, m in enumerate(history):
        where = f"history[{i}]"
        role = fields.need(m, "role", where, str)
        if role not in ROLES:
            raise fields.fail(f"{where}.role", f"unknown role {role[:40]!r}")
        msg: dict[str, Any] = {"role": role, "_where": where,
                               "content": fields.content(m.get("content"),
                                                         f"{where}.content") or ""}
        calls = m.get("tool_calls")
        if role == "assistant" and calls:
            msg["tool_calls"] = fields.openai_tool_calls(calls, f"{where}.tool_calls")
        if role == "tool":
            ids = fields.need(m, "tool_call_ids", where, list, optional=True)
            if ids:
                if not isinstance(ids[0], str):
                    raise fields.fail(f"{where}.tool_call_ids[0]", f"expected a string, "
                                                                   f"got {fields.kind(ids[0])}")
                msg["tool_call_id"] = ids[0]
            else:
                msg["tool_call_id"] = fields.need(m, "tool_call_id", where, str)
        if m.get("is_demo"):
            msg["_demo"] = True
        out.append(msg)
    return out
