"""Strict parsing of a model's answer into one tool call (no guessing).

A real model answers either with a native tool call (``message.tool_calls``) or, under
schema-constrained decoding, with a JSON object ``{"tool": NAME, "arguments": {...}}``
in ``message.content``. Everything here turns that answer into ``(name, arguments)``
or raises :class:`ParseError` with a message that names the bad value and is fit to
show the model in a repair turn. Nothing is coerced: a missing required argument, an
extra argument, a non-string value, an unknown tool or a block id the view does not
show is an error, never a silent substitution (DESIGN.md "Agents").
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^```(?:json)?\s*\n(.*?)\n?```$", re.S)


class ParseError(ValueError):
    """The model's answer is not one valid tool call. ``reason`` is a short tag
    (``"json"``, ``"shape"``, ``"unknown_tool"``, ``"arguments"``, ``"block_id"``,
    ``"handle"``, ``"empty"``, ``"multiple"``); ``str(err)`` is the message shown to
    the model."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def extract_json(text: str | None) -> Any:
    """The JSON value of ``text``: the whole text, or one fenced code block marked ``json``.

    Raises:
        ParseError: ``reason="empty"`` for no text, ``"json"`` when it does not decode
            (the decoder's message and the text's start are included).
    """
    if text is None or not text.strip():
        raise ParseError("the answer is empty; reply with one JSON tool call", "empty")
    body = text.strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ParseError(f"the answer is not valid JSON ({exc}): {text.strip()[:120]!r}",
                         "json") from None


def union_schema(tools: list[dict]) -> dict:
    """One JSON schema accepting exactly ``{"tool": name, "arguments": params}`` for
    each OpenAI-format tool in ``tools`` (an ``anyOf`` over the tools), for
    schema-constrained decoding."""
    alts = []
    for t in tools:
        fn = t["function"]
        alts.append({"type": "object", "properties": {
            "tool": {"type": "string", "enum": [fn["name"]]},
            "arguments": fn.get("parameters") or {"type": "object", "properties": {}}},
            "required": ["tool", "arguments"], "additionalProperties": False})
    return alts[0] if len(alts) == 1 else {"anyOf": alts}


def tools_prompt(tools: list[dict]) -> str:
    """Plain-text tool descriptions for JSON mode (the server may not show ``tools``
    to the model): one line per tool with its arguments, and the answer format."""
    lines = ["Tools (call exactly one per reply):"]
    for t in tools:
        fn = t["function"]
        props = (fn.get("parameters") or {}).get("properties", {})
        args = ", ".join(f"{k}: {v.get('description', v.get('type', ''))}"[:160]
                         for k, v in props.items())
        lines.append(f"- {fn['name']}({args}): {fn.get('description', '')}")
    lines.append('Reply with one JSON object: {"tool": "<name>", "arguments": {...}}')
    return "\n".join(lines)


def check_arguments(name: str, args: Any, params: dict | None) -> dict:
    """``args`` checked against the tool's JSON-schema ``params``: an object, every
    required key present, no unknown key (when ``additionalProperties`` is false),
    string-typed values strings. Returns ``args``.

    Raises:
        ParseError: ``reason="arguments"``, naming the tool and the bad key or value.
    """
    if not isinstance(args, dict):
        raise ParseError(f"arguments of {name} must be a JSON object, got {args!r:.80}",
                         "arguments")
    params = params or {}
    props = params.get("properties", {})
    missing = [k for k in params.get("required", []) if k not in args]
    if missing:
        raise ParseError(f"{name} is missing required argument(s) {missing}", "arguments")
    if params.get("additionalProperties") is False:
        extra = sorted(set(args) - set(props))
        if extra:
            raise ParseError(f"{name} got unknown argument(s) {extra}; it takes "
                             f"{sorted(props)}", "arguments")
    for k, v in args.items():
        if props.get(k, {}).get("type") == "string" and not isinstance(v, str):
            raise ParseError(f"argument {k!r} of {name} must be a string, got {v!r:.60}",
                             "arguments")
    return args


def parse_call(message: dict, tools: list[dict], mode: str) -> tuple[str, dict]:
    """``(tool name, arguments)`` of one assistant ``message`` (a dict with
    ``content`` and ``tool_calls`` as the chat API returns them).

    ``mode`` ``"tools"`` reads the native tool call (content is ignored, and exactly
    one call is required); every other mode reads ``{"tool", "arguments"}`` JSON from
    the content.

    Raises:
        ParseError: for an empty answer, bad JSON, a wrong shape, an unknown tool
            (the offered names are listed), several calls, or bad arguments.
    """
    by_name = {t["function"]["name"]: t["function"] for t in tools}
    if mode == "tools":
        calls = message.get("tool_calls") or []
        if not calls:
            raise ParseError("no tool call in the answer; call exactly one of "
                             f"{sorted(by_name)}", "empty")
        if len(calls) > 1:
            raise ParseError(f"{len(calls)} tool calls in one answer; call exactly one",
                             "multiple")
        fn = calls[0].get("function") or {}
        name, raw = fn.get("name"), fn.get("arguments")
        try:
            args = json.loads(raw) if isinstance(raw, str) and raw.strip() else (raw or {})
        except ValueError as exc:
            raise ParseError(f"arguments of {name} are not valid JSON ({exc}): "
                             f"{raw[:120]!r}", "json") from None
    else:
        obj = extract_json(message.get("content"))
        if not isinstance(obj, dict) or set(obj) - {"tool", "arguments"} \
                or "tool" not in obj:
            raise ParseError('the answer must be {"tool": "<name>", "arguments": {...}}, '
                             f"got {json.dumps(obj)[:120]}", "shape")
        name, args = obj["tool"], obj.get("arguments", {})
    if name not in by_name:
        raise ParseError(f"unknown tool {name!r}; the tools are {sorted(by_name)}",
                         "unknown_tool")
    return name, check_arguments(name, args, by_name[name].get("parameters"))


def check_block_spec(spec: str, allowed: set[str], verb: str) -> list[str]:
    """The ids named by block-id ``spec`` (``"B3"``, ``"B3,B4"``, ``"B10-B20"``,
    ``"G2"``), each required to be in ``allowed`` (the ids the agent may ``verb``).

    Raises:
        ParseError: ``reason="block_id"`` for a malformed spec or an id outside
            ``allowed`` (the id and the allowed ids are named).
    """
    from sim.workspace.errors import BlockIdError
    from sim.workspace.ids import parse_spec

    try:
        items = parse_spec(spec)
    except BlockIdError as exc:
        raise ParseError(f"bad block id spec: {exc}", "block_id") from None
    ids: list[str] = []
    for it in items:
        if it.kind == "group":
            ids.append(f"G{it.group}")
        else:
            if it.end - it.start > 10_000:
                raise ParseError(f"block range {it.text!r} is too wide", "block_id")
            ids.extend(f"B{n}" for n in range(it.start, it.end + 1))
    bad = [i for i in ids if i not in allowed]
    if bad:
        shown = ", ".join(sorted(allowed, key=lambda s: (s[0], int(s[1:])))) or "none"
        raise ParseError(f"cannot {verb} {', '.join(bad)}: not a visible unpinned block "
                         f"(you may {verb}: {shown})", "block_id")
    return ids
