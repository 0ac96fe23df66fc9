"""pi coding-agent session JSONL reader: ``message`` entries (user, assistant with
text/thinking/toolCall parts, toolResult with ``toolCallId``) and ``compaction``
summaries; session headers, model and thinking-level changes carry no context.
Non-text parts of user messages and tool results (images) are kept as parts; a
message with a role this reader does not know is an error, never dropped."""

from __future__ import annotations

from typing import Any

from . import fields

#: entry types that carry no context (headers and settings changes)
SETTINGS = ("session", "model_change", "thinking_level_change")


def _parts(value: Any, where: str) -> Any:
    """Content as text or OpenAI-style parts: text parts become strings, thinking
    and tool calls are left to the caller, other parts (images) are kept whole."""
    if value is None or isinstance(value, str):
        return value or ""
    if not isinstance(value, list):
        raise fields.fail(where, f"content must be text or a list of parts, got "
                                 f"{fields.kind(value)}")
    out = []
    for i, p in enumerate(value):
        pw = f"{where}[{i}]"
        ptype = fields.need(p, "type", pw, str)
        if ptype == "text":
            out.append(fields.need(p, "text", pw, str))
        elif ptype not in ("thinking", "toolCall"):
            out.append(p)
    return out if any(not isinstance(p, str) for p in out) else "\n".join(out)


def read(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI messages of a parsed pi session (one dict per JSONL line)."""
    if not isinstance(entries, list):
        raise fields.fail("<file>", f"expected JSONL entries, got {fields.kind(entries)}")
    out: list[dict[str, Any]] = []
    for n, e in enumerate(entries, 1):
        where = f"line {n}"
        kind = fields.need(e, "type", where, str)
        if kind == "compaction":
            summary = fields.need(e, "summary", where, str, optional=True, default="")
            out.append({"role": "user", "content": f"[compaction summary]\n{summary}"})
            continue
        if kind in SETTINGS:
            continue
        if kind != "message":
            raise fields.fail(f"{where}.type", f"unknown pi entry type {kind[:40]!r}")
        m = fields.need(e, "message", where, dict)
        where = f"{where}: message"
        role = fields.need(m, "role", where, str)
        if role == "user":
            out.append({"role": "user", "content": _parts(m.get("content"),
                                                           f"{where}.content")})
        elif role == "assistant":
            parts = fields.need(m, "content", where, (list, str), optional=True,
                                default=[])
            msg: dict[str, Any] = {"role": "assistant",
                                   "content": _parts(parts, f"{where}.content")}
            calls = []
            for i, p in enumerate(parts if isinstance(parts, list) else ()):
                if p.get("type") != "toolCall":
                    continue
                pw = f"{where}.content[{i}]"
                calls.append({"id": fields.need(p, "id", pw, str), "type": "function",
                              "function": {"name": fields.need(p, "name", pw, str),
                                           "arguments": fields.arguments(
                                               p.get("arguments", {}),
                                               f"{pw}.arguments")}})
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
        elif role == "toolResult":
            out.append({"role": "tool",
                        "tool_call_id": fields.need(m, "toolCallId", where, str),
                        "content": _parts(m.get("content"), f"{where}.content")})
        else:
            raise fields.fail(f"{where}.role", f"unknown pi message role {role[:40]!r}"
                                               "; expected user, assistant or toolResult")
    return out
