"""OpenAI chat messages as the workspace accepts them: role -> block type, content
text extraction (bytes kept byte-exact), tool-call normalisation."""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

from .blocks import BlockType
from .errors import ToolCallError

ROLE_TYPE = {"system": BlockType.SYSTEM, "developer": BlockType.SYSTEM,
              "user": BlockType.USER_MESSAGE, "assistant": BlockType.ASSISTANT_MESSAGE,
              "tool": BlockType.TOOL_RESULT}


#: Line that separates a message's text from its non-text parts (images, files,
#: audio) in a block's stored bytes; each part follows as one canonical JSON line.
PARTS_SEPARATOR = "\n=== non-text parts (one JSON object per line) ===\n"


def message_text(content: Any) -> str | bytes:
    """The stored text of an OpenAI message ``content``: a string, bytes (kept
    byte-exact), None (empty) or a list of parts. Text parts (strings, or
    ``{"type": "text", "text": ...}``) are joined with newlines; every other part
    (``image_url``, ``input_audio``, ``file`` ...) is kept whole as a canonical JSON
    line after :data:`PARTS_SEPARATOR`, so no byte of it is lost; the assembled
    request shows it as a placeholder with its type and size
    (:func:`render_parts`; a part that carries a string ``text`` or ``content``
    shows that text). Raises :class:`ToolCallError` for content of another
    type, a part that is neither a string nor an object, or a text part whose
    ``text`` is not a string."""
    if content is None:
        return ""
    if isinstance(content, (str, bytes)):
        return content
    if isinstance(content, list):
        texts, others = [], []
        for i, part in enumerate(content):
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and part.get("type", "text") == "text" \
                    and ("text" in part or "content" in part):
                value = part.get("text", part.get("content"))
                if not isinstance(value, str):
                    raise ToolCallError(f"content part {i}: text must be a string, got "
                                        f"{type(value).__name__}")
                texts.append(value)
            elif isinstance(part, dict):
                others.append(_canonical(part))
            else:
                raise ToolCallError(f"content part {i} must be a string or an object, "
                                    f"got {type(part).__name__}")
        text = "\n".join(texts)
        return text + PARTS_SEPARATOR + "\n".join(others) if others else text
    raise ToolCallError(f"message content must be text or a list of parts, got "
                        f"{type(content).__name__}")


def render_parts(text: str) -> str:
    """The model-facing view of stored text from :func:`message_text`: each non-text
    part becomes ``[image_url part, N bytes, kept in the block's payload]`` (N: bytes
    of its JSON); text without parts is returned unchanged."""
    head, sep, tail = text.rpartition(PARTS_SEPARATOR)
    if not sep:
        return text
    lines = []
    for line in tail.split("\n"):
        try:
            part = json.loads(line)
            kind = part.get("type", "untyped")
        except (ValueError, AttributeError, RecursionError):
            return text  # not our encoding: show it as it is
        inner = part.get("text", part.get("content"))
        if isinstance(inner, str):  # e.g. a tool_result part: its text stays readable
            lines.append(f"[{str(kind):.40} part]\n{inner}")
            continue
        size = len(line.encode("utf-8", "surrogatepass"))
        lines.append(f"[{str(kind):.40} part, {size:,} bytes, kept in the block's payload]")
    return "\n".join(([head] if head else []) + lines)


def _fix_surrogates(text: str) -> str:
    # a lone surrogate cannot be encoded as UTF-8: show it as its escape (\ud800)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def wire_safe(value: Any) -> Any:
    """``value`` (a message, a list of them, any JSON value) with every string (keys
    included) made valid Unicode: a lone surrogate becomes its backslash escape
    (``"\\ud800"``), which any provider accepts. Values without one come back as the
    same objects (no copy). The stored payload is not touched: this is the wire view."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return _fix_surrogates(value)
    if isinstance(value, dict):
        out = {wire_safe(k): wire_safe(v) for k, v in value.items()}
        same = len(out) == len(value) and all(k in value and value[k] is v
                                              for k, v in out.items())
        return value if same else out
    if isinstance(value, list):
        out_list = [wire_safe(v) for v in value]
        return value if all(a is b for a, b in zip(out_list, value)) else out_list
    return value


def lone_surrogate_path(value: Any, path: str = "") -> str | None:
    """The path (``messages[3].tool_calls[0].function.arguments``) of the first string
    in ``value`` that holds a lone surrogate (cannot be encoded as UTF-8), or None."""
    stack = [(path, value)]
    while stack:
        where, v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return where or "<value>"
        elif isinstance(v, dict):
            for k, x in reversed(list(v.items())):
                stack.append((f"{where}.{_fix_surrogates(str(k))}" if where else
                              _fix_surrogates(str(k)), x))
                if isinstance(k, str):
                    stack.append((f"{where}.<key>" if where else "<key>", k))
        elif isinstance(v, list):
            stack.extend((f"{where}[{i}]", x) for i, x in reversed(list(enumerate(v))))
    return None


def tool_call_problem(call: Any) -> tuple[str, str, Any] | None:
    """What makes one OpenAI tool call invalid in a chat request, or None: (the bad
    field's path below the call, what it must be, the value found). The one rule
    :func:`~sim.workspace.validate.validate_chat_request` applies to each call and
    :func:`clean_tool_calls` applies before a call is stored (uniqueness of ids is
    the caller's: it needs the other calls)."""
    if not isinstance(call, dict) or call.get("type") != "function":
        return "", "tool call must be an object with type 'function'", call
    cid = call.get("id")
    if not isinstance(cid, str) or not cid:
        return ".id", "tool call id must be a non-empty string", cid
    fn = call.get("function")
    if not isinstance(fn, dict):
        return ".function", "function must be an object", fn
    if not isinstance(fn.get("name"), str) or not fn["name"]:
        return ".function.name", "function.name must be a non-empty string", fn.get("name")
    if not isinstance(fn.get("arguments"), str):
        return (".function.arguments", "function.arguments must be a string",
                fn.get("arguments"))
    return None


def clean_tool_calls(calls: Any) -> list[dict[str, Any]]:
    """Validate and normalise OpenAI ``tool_calls`` (arguments kept as given text;
    arguments that are not text are stored as their JSON; ``type`` is "function").
    Raises :class:`ToolCallError` naming the call, the field and the value for
    anything a request could not carry (:func:`tool_call_problem`): a call that
    is not an object with a ``function`` object, an id or a function name that is
    not a non-empty string."""
    if not isinstance(calls, list):
        raise ToolCallError(f"tool_calls must be a list, got {calls!r:.60}")
    out = []
    for i, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            raise ToolCallError(f"malformed tool call {call!r:.80}: expected an object "
                                "with a 'function' object")
        args = fn.get("arguments", "")
        if not isinstance(args, str):
            args = json.dumps(args)
        clean = {"id": call.get("id"), "type": "function",
                 "function": {"name": fn.get("name"), "arguments": args}}
        bad = tool_call_problem(clean)
        if bad is not None:
            field, what, value = bad
            raise ToolCallError(f"tool_calls[{i}]{field}: {what}, got {value!r:.60}")
        out.append(clean)
    return out


#: Line that separates an assistant message's text from its tool calls in the stored
#: bytes of a ``tool_call`` block. The calls follow as JSON lines, which never contain
#: a raw newline, so the LAST separator is always the real one, whatever the text holds.
CALLS_SEPARATOR = "\n=== tool calls (one JSON object per line) ===\n"


def _canonical(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


_CALL_KEYS = frozenset(("id", "type", "function"))
_FUNCTION_KEYS = frozenset(("name", "arguments"))


def _canonical_call(call: Any) -> str:
    """:func:`_canonical` of one tool call. A call in the form
    :func:`clean_tool_calls` makes (exactly ``id``, ``type`` and ``function`` with
    ``name`` and ``arguments``, every value a ``str``) is written out in sorted-key
    order around ``json``'s own string encoder (what ``json.dumps`` with
    ``ensure_ascii=False`` calls for each string), so it is the same text; anything
    else goes through ``json.dumps``. Why: a sorted-key dump walks the dicts in
    Python, and every tool-call registration made one (issue 35)."""
    fn = call.get("function") if type(call) is dict else None
    if type(fn) is dict and call.keys() == _CALL_KEYS and fn.keys() == _FUNCTION_KEYS:
        args, name, cid, ctype = fn["arguments"], fn["name"], call["id"], call["type"]
        if type(args) is str and type(name) is str and type(cid) is str \
                and type(ctype) is str:
            return (f'{{"function":{{"arguments":{encode_basestring(args)},"name":'
                    f'{encode_basestring(name)}}},"id":{encode_basestring(cid)},'
                    f'"type":{encode_basestring(ctype)}}}')
    return _canonical(call)


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
    # the message-level line: {} or {"name": ...}, as _canonical writes them
    lines = ["{}" if not name else f'{{"name":{encode_basestring(name)}}}'
             if type(name) is str else _canonical({"name": name})]
    lines += map(_canonical_call, tool_calls)
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
