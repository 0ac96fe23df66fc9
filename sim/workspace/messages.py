"""OpenAI chat messages as the workspace accepts them: role -> block type, content
text extraction (bytes kept byte-exact), tool-call normalisation."""

from __future__ import annotations

import json
from typing import Any

from .blocks import BlockType
from .errors import ToolCallError

ROLE_TYPE = {"system": BlockType.SYSTEM, "developer": BlockType.SYSTEM,
              "user": BlockType.USER_MESSAGE, "assistant": BlockType.ASSISTANT_MESSAGE,
              "tool": BlockType.TOOL_RESULT}


def message_text(content: Any) -> str | bytes:
    """The text of an OpenAI message ``content``: a string, bytes (kept byte-exact),
    None (empty) or a list of parts whose ``text`` fields are joined with newlines."""
    if content is None:
        return ""
    if isinstance(content, (str, bytes)):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                parts.append(str(part.get("text", part.get("content", ""))))
        return "\n".join(parts)
    raise ToolCallError(f"message content must be text or a list of parts, got "
                        f"{type(content).__name__}")


def clean_tool_calls(calls: Any) -> list[dict[str, Any]]:
    """Validate and normalise OpenAI ``tool_calls`` (arguments kept as given text)."""
    if not isinstance(calls, list):
        raise ToolCallError(f"tool_calls must be a list, got {calls!r:.60}")
    out = []
    for call in calls:
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(call.get("id"), str) \
                or not isinstance(fn.get("name"), str):
            raise ToolCallError(f"malformed tool call {call!r:.80}")
        args = fn.get("arguments", "")
        if not isinstance(args, str):
            args = json.dumps(args)
        out.append({"id": call["id"], "type": "function",
                    "function": {"name": fn["name"], "arguments": args}})
    return out
