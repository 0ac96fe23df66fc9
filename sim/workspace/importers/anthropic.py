"""Anthropic Messages reader: a list of messages, or a request body ``{"system",
"messages", "tools", ...}``. Content is text or a list of blocks: ``text``,
``tool_use`` (id, name, input) in assistant turns, ``tool_result`` (tool_use_id,
content as text or blocks, ``is_error``) in user turns, ``thinking`` /
``redacted_thinking``, ``image`` / ``document`` and server-tool blocks.

How blocks become OpenAI messages (the Messages API places them so; see the API
reference, "Messages" and "Tool use"): a user turn's ``tool_result`` blocks become
tool messages, in order, before the turn's other content; an error result keeps its
text behind ``[tool error]``; ``tool_use`` and ``server_tool_use`` become tool calls;
thinking blocks are counted, not sent (the API drops earlier turns' thinking from the
context); any other block (images, documents, server-tool results, kinds this reader
does not know) is kept whole as a non-text part, stored byte for byte and shown as a
placeholder. The same conversion serves Claude Code sessions (:mod:`.claudecode`).
"""

from __future__ import annotations

from typing import Any

from . import fields
from .trajectory import Trajectory

#: block types only Anthropic content has (an OpenAI reader refuses them)
BLOCK_TYPES = ("tool_use", "tool_result", "thinking", "redacted_thinking",
               "server_tool_use")
THINKING = ("thinking", "redacted_thinking")


def has_blocks(messages: Any) -> bool:
    """Whether any message in ``messages`` holds an Anthropic-only content block."""
    if not isinstance(messages, list):
        return False
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list) and any(
                isinstance(p, dict) and p.get("type") in BLOCK_TYPES for p in content):
            return True
    return False


def _result_content(value: Any, where: str) -> Any:
    """A tool_result's content: text, or blocks (text kept as text, others whole)."""
    if value is None or isinstance(value, str):
        return value or ""
    if not isinstance(value, list):
        raise fields.fail(where, f"expected text or a list of blocks, got "
                                 f"{fields.kind(value)}")
    out = []
    for i, b in enumerate(value):
        bw = f"{where}[{i}]"
        btype = fields.need(b, "type", bw, str)
        out.append(fields.need(b, "text", bw, str) if btype == "text" else b)
    return out if any(not isinstance(p, str) for p in out) else "\n".join(out)


def turn(role: str, content: Any, where: str, traj: Trajectory) -> list[dict[str, Any]]:
    """OpenAI messages for one Anthropic turn (``where``: the content's position)."""
    if content is None or isinstance(content, str):
        return [{"role": role, "content": content or "", "_where": where}]
    if not isinstance(content, list):
        raise fields.fail(where, f"content must be text or a list of blocks, got "
                                 f"{fields.kind(content)}")
    results, parts, calls = [], [], []
    for j, b in enumerate(content):
        bw = f"{where}[{j}]"
        btype = fields.need(b, "type", bw, str)
        if btype == "text":
            parts.append(fields.need(b, "text", bw, str))
        elif btype in ("tool_use", "server_tool_use"):
            if role != "assistant":
                raise fields.fail(f"{bw}.type", f"a {btype} block belongs in an "
                                                f"assistant turn, not {role}")
            calls.append(fields.call(b.get("id"), b.get("name"), b.get("input", {}),
                                     bw, args_key="input"))
        elif btype == "tool_result":
            if role != "user":
                raise fields.fail(f"{bw}.type", f"a tool_result block belongs in a "
                                                f"user turn, not {role}")
            cid = fields.name_of(b, "tool_use_id", bw)
            text = _result_content(b.get("content"), f"{bw}.content")
            if fields.need(b, "is_error", bw, bool, optional=True, default=False):
                text = ["[tool error]", *text] if isinstance(text, list) \
                    else f"[tool error] {text}"
                traj.skipped["tool results marked is_error (kept, marked [tool error])"] += 1
            results.append({"role": "tool", "tool_call_id": cid, "content": text,
                            "_where": bw})
        elif btype in THINKING:
            traj.skipped[f"{btype} blocks (not sent back as context)"] += 1
        else:
            parts.append(b)  # images, documents, server-tool results: kept whole
    out = results
    text = parts if any(not isinstance(p, str) for p in parts) else "\n".join(parts)
    if role == "assistant":
        msg: dict[str, Any] = {"role": "assistant", "content": text, "_where": where}
        if calls:
            msg["tool_calls"] = calls
        out.append(msg)
    elif parts or not results:
        out.append({"role": role, "content": text, "_where": where})
    return out


def system_text(value: Any, where: str) -> str:
    """The ``system`` field: text, or a list of text blocks joined by newlines."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise fields.fail(where, f"expected text or a list of text blocks, got "
                                 f"{fields.kind(value)}")
    return "\n".join(fields.need(b, "text", f"{where}[{i}]", str)
                     for i, b in enumerate(value))


def read(data: Any) -> Trajectory:
    """The trajectory of an Anthropic Messages list or request body."""
    traj = Trajectory([])
    if isinstance(data, dict):
        messages = fields.items(data, "messages", "<file>")
        if data.get("system") is not None:
            traj.messages.append({"role": "system", "_where": "system",
                                  "content": system_text(data["system"], "system")})
        if data.get("tools") is not None:
            traj.tools = fields.tool_schemas(data["tools"], "tools", traj.notes)
    elif isinstance(data, list):
        messages = data
    else:
        raise fields.fail("<file>", f"expected a message list or a request body, got "
                                    f"{fields.kind(data)}")
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        role = fields.need(m, "role", where, str)
        if role not in ("user", "assistant"):
            raise fields.fail(f"{where}.role", f"unknown role {role[:40]!r}; Anthropic "
                                               "messages are user or assistant")
        traj.messages += turn(role, m.get("content"), f"{where}.content", traj)
    return traj
