"""pi coding-agent session JSONL reader (badlogic/pi-mono, packages/coding-agent:
the session manager's entries and the agent's ``convertToLlm``).

Entries and where pi puts them in the model's context:

* ``message`` with role ``user``, ``assistant`` (text / thinking / toolCall parts),
  ``toolResult`` (``toolCallId``): chat messages; thinking parts are counted, not sent;
  an assistant turn whose ``stopReason`` is ``error`` or ``aborted`` is kept whole out
  of the context (pi drops it when it builds a request);
* ``message`` with role ``bashExecution`` (a command the user ran with ``!``; its
  ``command``, ``output``, ``exitCode``, ``cancelled``, ``truncated``): a user message
  holding the command and its output;
* any message with ``excludeFromContext`` (a ``!!`` bash run, some extension
  messages) is kept whole out of the context;
* ``message`` with role ``custom`` (an extension's message, ``content``), and entry
  ``custom_message``: a user message with that content;
* ``message`` with role ``branchSummary`` / ``compactionSummary``, entries
  ``branch_summary`` / ``compaction`` (``summary``): a user message holding the summary;
  a ``compaction`` also drops the messages before ``firstKeptEntryId`` from the
  context (they are archived as one group; pi places the summary before the kept
  messages, the replay after them);
* ``session`` (header), ``model_change``, ``thinking_level_change``, ``label``,
  ``session_info`` and ``custom`` (extension state): no context; counted.

Entries with ``id`` / ``parentId`` form a tree: only the final branch is context
(:mod:`.chain`), the rest is kept whole as asides. An entry type or message role this
reader does not know is kept whole as an aside with a note, never fatal.
"""

from __future__ import annotations

from typing import Any

from . import fields
from .chain import final_branch
from .trajectory import Trajectory

#: entry types that carry no context, and why
SETTINGS = {"session": "session header", "model_change": "model change",
            "thinking_level_change": "thinking-level change",
            "label": "label (a bookmark shown to the user)",
            "session_info": "session info (display name)",
            "custom": "custom entry (extension state, not sent to the model)"}


def _parts(value: Any, where: str, traj: Trajectory) -> Any:
    """Content as text or OpenAI-style parts: text parts become strings, thinking is
    counted, tool calls are left to the caller, other parts (images) are kept whole."""
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
        elif ptype == "thinking":
            traj.skipped["thinking parts (not sent back as context)"] += 1
        elif ptype != "toolCall":
            out.append(p)
    return out if any(not isinstance(p, str) for p in out) else "\n".join(out)


def _summary(kind: str, text: str) -> str:
    return f"[{kind}]\n<summary>\n{text}\n</summary>"


def _bash(m: dict[str, Any], where: str) -> str:
    command = fields.need(m, "command", where, str)
    output = fields.need(m, "output", where, str, optional=True, default="")
    text = f"The user ran `{command}`:\n```\n{output}\n```"
    if fields.need(m, "cancelled", where, bool, optional=True, default=False):
        text += "\n(the command was cancelled)"
    code = fields.need(m, "exitCode", where, int, optional=True)
    if code not in (None, 0):
        text += f"\n(exit code {code})"
    if fields.need(m, "truncated", where, bool, optional=True, default=False):
        path = m.get("fullOutputPath")
        text += "\n(output truncated" + (f"; full output in {path}" if isinstance(
            path, str) else "") + ")"
    return text


def _message(m: dict[str, Any], where: str, traj: Trajectory, record: Any) -> None:
    role = fields.need(m, "role", where, str)
    out = traj.messages
    if fields.need(m, "excludeFromContext", where, bool, optional=True, default=False):
        traj.aside(record, where, f"pi {role[:40]} message excluded from the context")
        return
    if role == "user":
        out.append({"role": "user", "content": _parts(m.get("content"),
                                                       f"{where}.content", traj)})
    elif role == "assistant" and m.get("stopReason") in ("error", "aborted"):
        # pi never sends an errored or aborted turn back (ai/providers/
        # transform-messages.ts: the model retries from the last valid state)
        traj.aside(record, where, f"pi assistant turn that ended {m['stopReason']!r} "
                                  "(pi never sends it back)")
        return
    elif role == "assistant":
        parts = fields.need(m, "content", where, (list, str), optional=True, default=[])
        msg: dict[str, Any] = {"role": "assistant",
                               "content": _parts(parts, f"{where}.content", traj)}
        calls = [fields.call(p.get("id"), p.get("name"), p.get("arguments", {}),
                             f"{where}.content[{i}]")
                 for i, p in enumerate(parts if isinstance(parts, list) else ())
                 if p.get("type") == "toolCall"]
        if calls:
            msg["tool_calls"] = calls
        out.append(msg)
    elif role == "toolResult":
        out.append({"role": "tool",
                    "tool_call_id": fields.need(m, "toolCallId", where, str),
                    "content": _parts(m.get("content"), f"{where}.content", traj)})
    elif role == "bashExecution":
        out.append({"role": "user", "content": _bash(m, where)})
    elif role == "custom":
        out.append({"role": "user", "content": _parts(m.get("content"),
                                                       f"{where}.content", traj)})
    elif role in ("branchSummary", "compactionSummary"):
        kind = "summary of a branch this conversation came back from" \
            if role == "branchSummary" else "summary of the compacted earlier conversation"
        out.append({"role": "user", "content": _summary(
            kind, fields.need(m, "summary", where, str))})
    else:
        traj.aside(record, where, f"unknown pi message role {role[:40]!r}, kept whole")
        return
    out[-1]["_where"] = where


def read(entries: list[dict[str, Any]]) -> Trajectory:
    """The trajectory of a parsed pi session (one dict per JSONL line)."""
    if not isinstance(entries, list):
        raise fields.fail("<file>", f"expected JSONL entries, got {fields.kind(entries)}")
    traj = Trajectory([])
    at = fields.line_label(entries)
    kinds = [fields.need(e, "type", at(i), str) for i, e in enumerate(entries)]
    in_tree = [k != "session" for k in kinds]
    ids = [fields.need(e, "id", at(i), str, optional=True) if t else None
           for i, (e, t) in enumerate(zip(entries, in_tree))]
    parents = [fields.need(e, "parentId", at(i), str, optional=True) if t else None
               for i, (e, t) in enumerate(zip(entries, in_tree))]
    branch = final_branch(ids, parents, in_tree, at, traj.notes)
    first_message: dict[str, int] = {}  # entry id -> index of its first message
    for i, (e, kind) in enumerate(zip(entries, kinds)):
        where = at(i)
        if ids[i] is not None:
            first_message.setdefault(ids[i], len(traj.messages))
        if kind in SETTINGS:
            traj.skipped[SETTINGS[kind]] += 1
            continue
        if branch is not None and in_tree[i] and i not in branch:
            traj.aside(e, where, f"pi {kind} entry off the session's final branch")
            continue
        if kind == "message":
            _message(fields.need(e, "message", where, dict), f"{where}: message",
                     traj, e)
        elif kind == "compaction":
            kept = fields.need(e, "firstKeptEntryId", where, str, optional=True)
            before = first_message.get(kept) if kept is not None else None
            if kept is not None and before is None:
                traj.notes.append(f"{where}: firstKeptEntryId {kept[:60]!r} is not an "
                                  "earlier entry; every earlier message is compacted")
            traj.messages.append({
                "role": "user", "_where": where,
                "content": _summary("summary of the compacted earlier conversation",
                                    fields.need(e, "summary", where, str)),
                "_forget": {"reason": f"pi compaction ({where})",
                            "before": before if before is not None
                            else len(traj.messages)}})
        elif kind == "branch_summary":
            traj.messages.append({"role": "user", "_where": where, "content": _summary(
                "summary of a branch this conversation came back from",
                fields.need(e, "summary", where, str))})
        elif kind == "custom_message":
            traj.messages.append({"role": "user", "_where": where, "content": _parts(
                e.get("content"), f"{where}.content", traj)})
        else:
            traj.aside(e, where, f"unknown pi entry type {kind[:40]!r}, kept whole")
    return traj
