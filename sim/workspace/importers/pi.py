"""pi coding-agent session JSONL reader: ``message`` entries (user, assistant with
text/thinking/toolCall parts, toolResult with ``toolCallId``) and ``compaction``
summaries; session headers, model and thinking-level changes carry no context."""

from __future__ import annotations

import json
from typing import Any


def _text(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    return "\n".join(p.get("text", "") for p in parts or ()
                     if isinstance(p, dict) and p.get("type") == "text")


def read(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI messages of a parsed pi session (one dict per JSONL line)."""
    out: list[dict[str, Any]] = []
    for e in entries:
        kind = e.get("type")
        if kind == "compaction":
            out.append({"role": "user",
                        "content": f"[compaction summary]\n{e.get('summary', '')}"})
            continue
        if kind != "message":
            continue
        m = e["message"]
        role = m["role"]
        if role == "user":
            out.append({"role": "user", "content": _text(m.get("content"))})
        elif role == "assistant":
            parts = m.get("content") or []
            msg: dict[str, Any] = {"role": "assistant", "content": _text(parts)}
            calls = [{"id": p["id"], "type": "function",
                      "function": {"name": p["name"],
                                   "arguments": p["arguments"] if isinstance(
                                       p.get("arguments"), str) else json.dumps(
                                       p.get("arguments", {}), ensure_ascii=False)}}
                     for p in parts if isinstance(p, dict) and p.get("type") == "toolCall"]
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
        elif role == "toolResult":
            out.append({"role": "tool", "tool_call_id": m["toolCallId"],
                        "content": _text(m.get("content"))})
    return out
