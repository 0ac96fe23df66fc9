"""ATIF reader (Harbor's Agent Trajectory Interchange Format): ``steps`` with
``source`` (system, user, agent), ``message``, ``tool_calls`` [tool_call_id,
function_name, arguments] and ``observation.results`` [source_call_id, content]."""

from __future__ import annotations

import json
from typing import Any

_ROLE = {"system": "system", "user": "user", "agent": "assistant",
         "assistant": "assistant"}


def _content(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p)
                         for p in value)
    return json.dumps(value, ensure_ascii=False)


def read(data: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAI messages of a parsed ATIF trajectory."""
    out: list[dict[str, Any]] = []
    for step in data["steps"]:
        role = _ROLE[step.get("source", "agent")]
        msg: dict[str, Any] = {"role": role, "content": _content(step.get("message"))}
        calls = step.get("tool_calls") or []
        if calls and role == "assistant":
            msg["tool_calls"] = [
                {"id": c["tool_call_id"], "type": "function",
                 "function": {"name": c["function_name"],
                              "arguments": c["arguments"] if isinstance(
                                  c.get("arguments"), str) else json.dumps(
                                  c.get("arguments", {}), ensure_ascii=False)}}
                for c in calls]
        out.append(msg)
        for res in (step.get("observation") or {}).get("results") or []:
            cid = res.get("source_call_id")
            if cid:
                out.append({"role": "tool", "tool_call_id": cid,
                            "content": _content(res.get("content"))})
            else:
                out.append({"role": "user", "content": _content(res.get("content"))})
    return out
