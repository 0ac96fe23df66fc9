"""OpenAI Codex CLI rollout JSONL reader (``~/.codex/sessions/.../rollout-*.jsonl``;
openai/codex, codex-rs/protocol: ``RolloutLine`` = ``{timestamp, type, payload}``).

Lines and where Codex puts them in the model's context (the history it rebuilds on
resume):

* ``response_item``: the Responses API items the model saw. ``message`` (role user,
  assistant, developer, system; ``input_text`` / ``output_text`` parts, images kept
  whole) becomes a chat message (developer as system; the user messages Codex
  writes itself, ``<environment_context>`` and instructions, are never the task); ``function_call`` (name,
  arguments, call_id), ``custom_tool_call`` (name, input) and ``local_shell_call``
  (action) become tool calls, consecutive ones one assistant message (parallel
  calls); ``function_call_output`` / ``custom_tool_call_output`` /
  ``local_shell_call_output`` become tool results; ``reasoning`` is counted, not
  sent as text; an encrypted ``compaction`` item stays in the context as an opaque
  part (stored byte for byte);
* ``compacted`` (``message``, optional ``replacement_history``): the history was
  compacted here. With a replacement history, that is the new context: every earlier
  block is archived as one group (system messages it repeats stay pinned, not
  twice) and its items are registered. Without one, Codex rebuilds the context as
  the initial context, the user's messages and the summary (a user message): the
  assistant turns, calls and results are archived (Codex also caps the kept user
  messages at about 20K tokens; the replay keeps them all);
* ``session_meta`` (its ``base_instructions`` text, when recorded, is the system
  prompt), ``turn_context`` (per-turn settings) and ``event_msg`` (UI events that
  duplicate response items): otherwise no context; counted.

Item or line types this reader does not know are kept whole as asides with a note.
The Responses items are read as :mod:`.responses` reads them (one translation).
"""

from __future__ import annotations

from typing import Any

from . import fields, responses
from .trajectory import Trajectory

#: user messages Codex writes itself (environment, AGENTS.md), never the task
INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md")


def _item(p: dict[str, Any], where: str, traj: Trajectory, record: Any) -> None:
    """One Responses item of a rollout (:func:`.responses.item`), plus Codex's own:
    its injected user messages and compaction items."""
    out = traj.messages
    kind = responses.item(p, where, traj)
    if kind is None and p["type"] in ("compaction", "compaction_summary"):
        out.append({"role": "user", "_where": where, "content": [p]})
    elif kind is None:
        traj.aside(record, where, f"unknown Codex response item {p['type'][:40]!r}, "
                                  "kept whole")
    elif kind == "message" and p["role"] == "user" and isinstance(
            out[-1]["content"], str) and out[-1]["content"].lstrip().startswith(INJECTED):
        out[-1]["_not_task"] = True


def read(entries: list[dict[str, Any]]) -> Trajectory:
    """The trajectory of a parsed Codex rollout (one dict per JSONL line)."""
    if not isinstance(entries, list):
        raise fields.fail("<file>", f"expected JSONL lines, got {fields.kind(entries)}")
    traj = Trajectory([])
    at = fields.line_label(entries)
    for i, e in enumerate(entries):
        where = at(i)
        kind = fields.need(e, "type", where, str)
        payload = fields.need(e, "payload", where, dict)
        pw = f"{where}: payload"
        closes = kind == "compacted" or (kind == "response_item"
                                         and responses.ends_calls(payload))
        if closes and traj.messages:  # later calls belong to a new response
            traj.messages[-1].pop("_open", None)
        if kind == "response_item":
            _item(payload, pw, traj, e)
        elif kind == "compacted":
            start = len(traj.messages)
            history = fields.need(payload, "replacement_history", pw, list,
                                  optional=True)
            reason = f"Codex compaction ({where})"
            if history is not None:
                systems = [m.get("content") for m in traj.messages
                           if m["role"] == "system" and not m.get("_aside")]
                for k, item in enumerate(history):
                    _item(item, f"{pw}.replacement_history[{k}]", traj, e)
                    new = traj.messages[-1] if len(traj.messages) > start else None
                    if new is not None and new["role"] == "system" \
                            and new.get("content") in systems:
                        traj.messages.pop()  # still in context (pinned), not twice
                if traj.messages:
                    traj.messages[-1].pop("_open", None)
                forget = {"reason": reason, "before": start}
            else:
                traj.messages.append({"role": "user", "_where": pw,
                                      "content": fields.need(payload, "message", pw,
                                                             str)})
                # the rebuilt history: initial context, the user's messages, summary
                forget = {"reason": reason, "indexes": [
                    i for i, m in enumerate(traj.messages[:start])
                    if m["role"] not in ("system", "user")]}
            if len(traj.messages) > start:
                traj.messages[start]["_forget"] = forget
        elif kind == "session_meta":
            base = payload.get("base_instructions")
            text = base.get("text") if isinstance(base, dict) else base
            if isinstance(text, str) and text:
                traj.messages.append({"role": "system", "content": text,
                                      "_where": f"{pw}.base_instructions"})
            traj.skipped["session_meta (session header)"] += 1
        elif kind == "turn_context":
            traj.skipped["turn_context (per-turn settings)"] += 1
        elif kind == "event_msg":
            sub = payload.get("type")
            traj.skipped[f"event_msg {str(sub)[:40]} (UI events)"] += 1
        else:
            traj.aside(e, where, f"unknown Codex line type {kind[:40]!r}, kept whole")
    for msg in traj.messages:
        msg.pop("_open", None)
    return traj
