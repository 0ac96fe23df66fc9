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


#: Line that separates an assistant message's text from its tool calls in the stored
#: bytes of a ``tool_call`` block. The calls follow as JSON lines, which never contain
#: a raw newline, so the LAST separator is always the real one, whatever the text holds.
CALLS_SEPARATOR = "\n=== tool calls (one JSON object per line) ===\n"


def _canonical(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def encode_call_message(content: str | bytes, tool_calls: list[dict[str, Any]],
                        name: str | None = None) -> bytes:
    """The stored bytes of a ``tool_call`` block: the whole assistant message it
    stands for, readable and exact:

        <the assistant's text, verbatim>
        === tool calls (one JSON object per line) ===
        {"name": ...}                    (message-level fields; {} if none)
        {"function":{"arguments":...,"name":...},"id":...,"type":"function"}
        ...

    The text stays verbatim (an agent reading a recovered block sees the lines it
    wrote, not JSON escapes); each call is canonical JSON (sorted keys, no spaces,
    non-ASCII kept). :func:`decode_call_message` gives back the text and every
    call's id, name and arguments exactly. Content that is not valid UTF-8:
    :class:`ToolCallError`."""
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolCallError("an assistant message with tool_calls must have UTF-8 "
                                f"text content, got bytes {content[:40]!r}") from None
    lines = [_canonical({"name": name} if name else {})]
    lines += [_canonical(call) for call in tool_calls]
    text = (content or "") + CALLS_SEPARATOR + "\n".join(lines)
    return text.encode("utf-8", "surrogatepass")


def decode_call_message(data: bytes) -> dict[str, Any]:
    """Inverse of :func:`encode_call_message`: the assistant message (``role``,
    ``content`` (None when empty), ``tool_calls``, maybe ``name``). Bytes in no such
    form (a journal written before tool-call blocks stored their calls) come back as
    the text content of a message without calls."""
    text = data.decode("utf-8", "surrogatepass")
    head, sep, tail = text.rpartition(CALLS_SEPARATOR)
    if sep:
        try:
            objs = [json.loads(line) for line in tail.split("\n")]
        except ValueError:
            objs = []
        if objs and all(isinstance(o, dict) for o in objs):
            msg: dict[str, Any] = {"role": "assistant", "content": head or None,
                                   "tool_calls": objs[1:]}
            if objs[0].get("name"):
                msg["name"] = objs[0]["name"]
            return msg
    return {"role": "assistant", "content": data.decode("utf-8", "replace") or None,
            "tool_calls": []}
