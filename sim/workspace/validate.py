"""A validator of OpenAI chat-completions requests (DESIGN.md invariant 4): every
string valid Unicode (keys, ids, names and tool-call arguments included: a lone
surrogate cannot be encoded as UTF-8), roles, content types, no assistant message
with neither content nor tool calls, tool-call shape (ids, function names, JSON-string arguments), every
assistant tool call answered by tool messages right after it with matching ids, no
orphan tool messages, and function-tool schemas."""

from __future__ import annotations

import json
from typing import Any

from .errors import RequestValidationError as E
from .messages import lone_surrogate_path, tool_call_problem

ROLES = {"system", "developer", "user", "assistant", "tool"}


def _content_ok(content: Any, role: str, has_calls: bool) -> bool:
    if isinstance(content, str):
        return True
    if content is None:
        return role == "assistant" and has_calls
    if isinstance(content, list):
        return all(isinstance(p, dict) and p.get("type") in ("text", "image_url")
                   and (p["type"] != "text" or isinstance(p.get("text"), str))
                   for p in content)
    return False


def validate_chat_request(request: dict[str, Any]) -> None:
    """Raise :class:`~sim.workspace.errors.RequestValidationError` (with the path of the
    bad field, e.g. ``messages[7].tool_call_id``) unless ``request`` is a valid chat
    request; return None when it is."""
    if not isinstance(request, dict):
        raise E("request must be a JSON object")
    if not isinstance(request.get("model"), str) or not request["model"]:
        raise E("model must be a non-empty string", "model")
    msgs = request.get("messages")
    if not isinstance(msgs, list) or not msgs:
        raise E("messages must be a non-empty list", "messages")
    try:
        json.dumps(request, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise E(f"request is not JSON-serializable: {exc}") from None
    bad = lone_surrogate_path(request)
    if bad is not None:
        raise E("string holds a lone surrogate (not valid Unicode, cannot be encoded "
                "as UTF-8; strict providers reject the request)", bad)
    pending: dict[str, int] = {}
    seen_ids: set[str] = set()
    for i, m in enumerate(msgs):
        where = f"messages[{i}]"
        if not isinstance(m, dict):
            raise E("message must be an object", where)
        role = m.get("role")
        if role not in ROLES:
            raise E(f"unknown role {role!r}", f"{where}.role")
        calls = m.get("tool_calls")
        if role == "assistant" and not calls and m.get("content") in ("", None, []):
            raise E("assistant message with neither content nor tool_calls (strict "
                    "providers reject it)", where)
        if not _content_ok(m.get("content"), role, bool(calls)):
            raise E(f"bad content {m.get('content')!r:.60}", f"{where}.content")
        if role == "tool":
            cid = m.get("tool_call_id")
            if not isinstance(cid, str):
                raise E("tool message without a string tool_call_id", f"{where}.tool_call_id")
            if cid not in pending:
                raise E(f"tool message answers {cid!r}, which is not an open tool call "
                        "of the preceding assistant message", f"{where}.tool_call_id")
            del pending[cid]
            continue
        if pending:
            raise E(f"tool call(s) {sorted(pending)} of messages[{min(pending.values())}]"
                    f" not answered before this {role} message", where)
        if calls is not None:
            if role != "assistant" or not isinstance(calls, list) or not calls:
                raise E("tool_calls must be a non-empty list on an assistant message",
                        f"{where}.tool_calls")
            for j, c in enumerate(calls):
                cw = f"{where}.tool_calls[{j}]"
                bad = tool_call_problem(c)
                if bad is not None:
                    raise E(bad[1], cw + bad[0])
                cid = c["id"]
                if cid in seen_ids:
                    raise E(f"duplicate tool call id {cid!r}", f"{cw}.id")
                seen_ids.add(cid)
                pending[cid] = i
    if pending:
        raise E(f"tool call(s) {sorted(pending)} never answered", "messages")
    tools = request.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise E("tools must be a list", "tools")
        names = set()
        for k, t in enumerate(tools):
            tw = f"tools[{k}]"
            fn = t.get("function") if isinstance(t, dict) else None
            if not isinstance(t, dict) or t.get("type") != "function" or not isinstance(fn, dict):
                raise E("tool must be {'type': 'function', 'function': {...}}", tw)
            name = fn.get("name")
            if not isinstance(name, str) or not name or name in names:
                raise E(f"bad or duplicate function name {name!r}", f"{tw}.function.name")
            names.add(name)
            params = fn.get("parameters")
            if params is not None and (not isinstance(params, dict)
                                       or params.get("type") != "object"):
                raise E("parameters must be a JSON schema of type 'object'",
                        f"{tw}.function.parameters")
