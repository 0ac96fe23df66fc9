"""SWE-agent ``.traj`` reader: ``history`` holds the chat messages (role, content as
text or parts, assistant ``tool_calls``, tool ``tool_call_ids``); runs without a
history fall back to ``trajectory`` steps (response, observation)."""

from __future__ import annotations

from typing import Any


def read(data: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAI messages of a parsed SWE-agent trajectory."""
    history = data.get("history")
    if not history:
        out = []
        for step in data["trajectory"]:
            out.append({"role": "assistant", "content": step.get("response") or
                        step.get("action", "")})
            out.append({"role": "user", "content": step.get("observation", "")})
        return out
    out = []
    for m in history:
        role = m["role"]
        msg: dict[str, Any] = {"role": role, "content": m.get("content") or ""}
        if role == "assistant" and m.get("tool_calls"):
            msg["tool_calls"] = m["tool_calls"]
        if role == "tool":
            ids = m.get("tool_call_ids") or [m.get("tool_call_id")]
            msg["tool_call_id"] = ids[0]
        if m.get("is_demo"):
            msg["_demo"] = True
        out.append(msg)
    return out
