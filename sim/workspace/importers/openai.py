"""OpenAI chat reader: a list of messages, or a chat request ``{"messages": [...]}``.
Known fields are kept (role, content, name, tool_calls, tool_call_id)."""

from __future__ import annotations

from typing import Any

_KEEP = ("role", "content", "name", "tool_calls", "tool_call_id")


def read(data: list | dict) -> list[dict[str, Any]]:
    """The messages, each reduced to the OpenAI chat fields."""
    messages = data["messages"] if isinstance(data, dict) else data
    return [{k: m[k] for k in _KEEP if k in m and m[k] is not None} | {"role": m["role"]}
            for m in messages]
