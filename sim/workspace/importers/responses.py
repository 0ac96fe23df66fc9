"""OpenAI Responses API reader, and the Responses items Codex CLI rollouts share.

A Responses API trajectory is a list of items, the ``input`` of a request (what the
OpenAI Agents SDK's ``result.to_input_list()`` returns, a list of the items of every
turn so far), a request body ``{"instructions", "input", "tools", ...}``, a response
object ``{"object": "response", "output": [...]}``, or a request saved with its
response (``input`` and ``output``). The item shapes are those of the API reference
(Responses: create, the input item and output item unions; the openai-python types
``ResponseInputItemParam`` and ``ResponseOutputItem``).

How items become OpenAI chat messages, in the order the model saw them
(``instructions``, then ``input``, then ``output``):

* ``message`` (``role`` user, assistant, system or developer; the ``type`` may be
  left out, an "easy" input message): text, or content parts: ``input_text`` /
  ``output_text`` (text), ``refusal`` (its text), other parts (``input_image``,
  ``input_file``, ``input_audio``) kept whole; developer becomes system;
* ``function_call`` (``call_id``, ``name``, ``arguments``), ``custom_tool_call``
  (``input``), ``local_shell_call`` (``action``) and ``computer_call`` (``action``):
  tool calls, consecutive ones (reasoning between them allowed) one assistant
  message, the parallel calls of one response; ``function_call_output``,
  ``custom_tool_call_output``, ``local_shell_call_output`` and
  ``computer_call_output``: tool results, joined to their call by ``call_id``
  (output text, or content parts kept as above);
* ``reasoning`` (``summary``, ``encrypted_content``): counted, not sent as text (the
  API does not put earlier turns' reasoning text in the context);
* the items a hosted tool runs on OpenAI's side (``web_search_call``,
  ``file_search_call``, ``code_interpreter_call``, ``image_generation_call``, MCP
  items), ``item_reference`` (an item stored by the API, not in the file) and item
  types this reader does not know: kept whole as archived notes, with a note each;
* ``tools``: the function tools' schemas count as fixed overhead of every request
  (hosted tools have none: named in the notes); ``previous_response_id`` or
  ``conversation``: the context continues a stored one the file does not hold
  (a note says so).
"""

from __future__ import annotations

from typing import Any

from . import fields
from .trajectory import Trajectory

#: content parts read as text, with the key holding it
TEXT_PARTS = {"input_text": "text", "output_text": "text", "text": "text",
              "summary_text": "text", "refusal": "refusal"}
ROLES = {"user": "user", "assistant": "assistant", "developer": "system",
         "system": "system"}
CALLS = ("function_call", "custom_tool_call", "local_shell_call", "computer_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output",
           "computer_call_output")
#: items the API runs or stores on its side: kept whole, not in the counted context
HOSTED = ("web_search_call", "file_search_call", "code_interpreter_call",
          "image_generation_call", "mcp_call", "mcp_list_tools", "mcp_approval_request",
          "mcp_approval_response", "item_reference")
#: every item type of the API this reader knows (detection looks for them)
ITEM_TYPES = ("message", *CALLS, *OUTPUTS, "reasoning", *HOSTED)
#: content part types only Responses messages have (chat parts are text, image_url)
PART_TYPES = ("input_text", "output_text", "refusal", "input_image", "input_file",
              "input_audio")


def content(value: Any, where: str) -> Any:
    """Message or output content: text (null: empty), or a list of parts, the text
    parts (:data:`TEXT_PARTS`) as text and the others kept whole; all-text lists
    are joined with newlines."""
    if value is None or isinstance(value, str):
        return value or ""
    if not isinstance(value, list):
        raise fields.fail(where, f"expected a list of content items, got "
                                 f"{fields.kind(value)}")
    out = []
    for i, p in enumerate(value):
        pw = f"{where}[{i}]"
        ptype = fields.need(p, "type", pw, str)
        out.append(fields.need(p, TEXT_PARTS[ptype], pw, str) if ptype in TEXT_PARTS
                   else p)
    return out if any(not isinstance(p, str) for p in out) else "\n".join(out)


def output(value: Any, where: str) -> Any:
    """A call's output: text, content parts, or Codex's ``{content, success}`` /
    ``{content_items}`` object; a computer call's screenshot object is kept whole."""
    if isinstance(value, dict):
        if isinstance(value.get("content"), str):
            return value["content"]
        if value.get("type") == "computer_screenshot":
            return [value]
        return content(fields.need(value, "content_items", where, list),
                       f"{where}.content_items")
    return content(value, where)


def ends_calls(p: Any) -> bool:
    """Whether item ``p`` ends a run of parallel calls (anything but a call or a
    reasoning item between calls)."""
    return not (isinstance(p, dict) and p.get("type") in (*CALLS, "reasoning"))


def item(p: Any, where: str, traj: Trajectory) -> str | None:
    """Append the chat message of item ``p`` to ``traj`` (``where``: its position).
    Returns the kind read, or None for a kind left to the caller (hosted items,
    compaction, unknown kinds)."""
    out = traj.messages
    kind = fields.need(p, "type", where, str)
    if kind == "message":
        role = fields.need(p, "role", where, str)
        if role not in ROLES:
            raise fields.fail(f"{where}.role", f"unknown role {role[:40]!r}; expected "
                                               f"one of {', '.join(ROLES)}")
        out.append({"role": ROLES[role], "_where": where,
                    "content": content(p.get("content"), f"{where}.content")})
    elif kind in CALLS:
        cid = p.get("call_id") if p.get("call_id") is not None else p.get("id")
        if kind == "function_call":
            call = fields.call(cid, p.get("name"), p.get("arguments", ""), where,
                               id_key="call_id")
        elif kind == "custom_tool_call":
            call = fields.call(cid, p.get("name"), p.get("input", ""), where,
                               id_key="call_id", args_key="input")
        else:
            name = "local_shell" if kind == "local_shell_call" else "computer"
            call = fields.call(cid, name, p.get("action", {}), where,
                               id_key="call_id", args_key="action")
        prev = out[-1] if out else None
        if prev is not None and prev.get("tool_calls") and prev.get("_open"):
            prev["tool_calls"].append(call)  # a parallel call of the same response
        else:
            out.append({"role": "assistant", "content": "", "tool_calls": [call],
                        "_where": where, "_open": True})
    elif kind in OUTPUTS:
        out.append({"role": "tool", "_where": where,
                    "tool_call_id": fields.name_of(p, "call_id", where),
                    "content": output(p.get("output"), f"{where}.output")})
    elif kind == "reasoning":
        traj.skipped["reasoning items (not sent back as text)"] += 1
    else:
        return None
    return kind


def looks_like(data: Any) -> str | None:
    """Why ``data`` (a parsed file) is a Responses API trajectory, or None: an object
    with ``input`` or a response object with ``output``; a list (or JSONL lines) of
    items (each an object with a ``type``, or a message with a ``role``), at least
    one marked as Responses (a known item type other than ``message``, or a
    Responses content part): a plain role/content list is a chat list (``openai``),
    and other formats' records carry no Responses item."""
    if isinstance(data, dict):
        if data.get("object") == "response" and isinstance(data.get("output"), list):
            return "a response object (object 'response', output items)"
        if isinstance(data.get("input"), (list, str)) and "messages" not in data:
            return "a request body with input (Responses API)"
        return None
    if not isinstance(data, list) or not data:
        return None
    marked = False
    for e in data:
        kind = e.get("type", "message" if "role" in e else None) \
            if isinstance(e, dict) else None
        if not isinstance(kind, str) or kind == "message" and "role" not in e:
            return None  # not an item (an item of an unknown type is kept whole)
        parts = e.get("content")
        marked = marked or kind in ITEM_TYPES and kind != "message" or isinstance(
            parts, list) and any(isinstance(q, dict) and q.get("type") in PART_TYPES
                                 for q in parts)
    return "a list of Responses API items" if marked else None


def _items(traj: Trajectory, items: list, label) -> None:
    for i, p in enumerate(items):
        where = label(i)
        if ends_calls(p) and traj.messages:  # later calls belong to a new response
            traj.messages[-1].pop("_open", None)
        if isinstance(p, dict) and "type" not in p and "role" in p:
            p = dict(p, type="message")  # an easy input message
        if isinstance(p, dict) and p.get("type") == "local_shell_call_output" \
                and p.get("call_id") is None:
            p = dict(p, call_id=p.get("id"))  # the API names its call by id here
        kind = item(p, where, traj)
        if kind is not None:
            continue
        kind = str(p["type"])[:40]
        if kind in HOSTED:
            traj.aside(p, where, f"Responses item {kind!r} (run or stored on the API's "
                                 "side), kept whole; not counted in the context")
        else:
            traj.aside(p, where, f"unknown Responses item {kind!r}, kept whole")


def read(data: Any) -> Trajectory:
    """The trajectory of a parsed Responses API file (see the module docstring)."""
    traj = Trajectory([])
    if isinstance(data, list):
        at = fields.line_label(data) if isinstance(data, fields.Lines) else \
            (lambda i: f"input[{i}]")
        _items(traj, data, at)
    elif isinstance(data, dict):
        if data.get("input") is None and not isinstance(data.get("output"), list):
            raise fields.fail("<file>", "expected 'input' (a request) or 'output' (a "
                                        "response) holding Responses items")
        instructions = data.get("instructions")
        if isinstance(instructions, str):
            if instructions:
                traj.messages.append({"role": "system", "content": instructions,
                                      "_where": "instructions"})
        elif isinstance(instructions, list):
            _items(traj, instructions, lambda i: f"instructions[{i}]")
        elif instructions is not None:
            raise fields.fail("instructions", f"expected text or a list of items, got "
                                              f"{fields.kind(instructions)}")
        given = data.get("input")
        if isinstance(given, str):
            traj.messages.append({"role": "user", "content": given, "_where": "input"})
        elif given is not None:
            _items(traj, fields.items(data, "input", "<file>"), lambda i: f"input[{i}]")
        _items(traj, fields.items(data, "output", "<file>", optional=True),
               lambda i: f"output[{i}]")
        if data.get("tools") is not None:
            traj.tools += fields.tool_schemas(data["tools"], "tools", traj.notes)
        for key in ("previous_response_id", "conversation"):
            if data.get(key) is not None:
                traj.notes.append(f"{key}: the context continues a stored one that "
                                  "the file does not hold; only the file's items are "
                                  "replayed")
    else:
        raise fields.fail("<file>", f"expected a list of items or an object with "
                                    f"'input' or 'output', got {fields.kind(data)}")
    for msg in traj.messages:
        msg.pop("_open", None)
    return traj
