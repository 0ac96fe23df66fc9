"""OpenHands readers (All-Hands-AI/OpenHands: ``openhands/events/serialization``,
``openhands/memory/conversation_memory.py``): an event stream (a JSON list of
events, as saved by a session or ``--save-trajectory-path``) and evaluation output
(JSONL records whose ``history`` is an event list, one record per task instance).

Each event has ``id``, ``source`` (user, agent, environment), and either ``action``
(with ``args``) or ``observation`` (with ``content``, ``extras``, ``cause``). Where
OpenHands puts them in the model's context:

* an action with ``tool_call_metadata`` (``function_name``, ``tool_call_id``,
  ``model_response``) but ``finish`` (no observation ever answers it, so OpenHands
  never sends its call back; its text is context)
  is the model's tool call: an assistant message holding the
  action's ``thought`` and the call (the arguments the model sent, from
  ``model_response`` when recorded, else the action's ``args``); actions of one model
  response are one assistant message;
* an observation with ``tool_call_metadata`` is that call's tool result
  (``content``); other observations with content (errors, user-run commands, recalled
  knowledge) are user messages;
* ``message`` actions are user or assistant messages (``args.content``, images
  kept as parts); ``system`` is the system prompt (its ``args.tools`` are the recorded
  tool schemas); ``finish`` and ``think`` without a tool call are assistant text;
* ``condensation`` forgets the events it names (``forgotten_event_ids``, or the range
  ``forgotten_events_start_id``..``end_id``; archived as one group) and adds its
  ``summary`` as a user message;
* ``recall``, ``change_agent_state``, ``condensation_request``, ``null`` actions and
  ``agent_state_changed``, ``null`` observations: no context; counted.

An event with neither action nor observation, or one of an unknown kind without a
tool call, is kept whole as an aside with a note. In evaluation output each record
is one task: its first message forgets the previous record's context.
"""

from __future__ import annotations

import json
from typing import Any

from . import fields
from .trajectory import Trajectory

NO_CONTEXT_ACTIONS = ("recall", "change_agent_state", "condensation_request", "null")
NO_CONTEXT_OBSERVATIONS = ("agent_state_changed", "null")
#: args OpenHands adds to an action that the model did not send as arguments
NOT_ARGUMENTS = ("thought", "security_risk", "confirmation_state", "is_confirmed",
                 "hidden", "blocking", "is_input", "keep_prompt")


def _recorded_arguments(meta: dict[str, Any], cid: str) -> str | None:
    """The arguments of call ``cid`` in the recorded model response, if any."""
    resp = meta.get("model_response")
    try:
        for choice in resp["choices"]:
            for call in choice["message"]["tool_calls"] or ():
                if call["id"] == cid and isinstance(call["function"]["arguments"], str):
                    return call["function"]["arguments"]
    except (KeyError, TypeError, IndexError):
        return None
    return None


def _response_id(meta: dict[str, Any]) -> Any:
    resp = meta.get("model_response")
    rid = resp.get("id") if isinstance(resp, dict) else None
    return rid if isinstance(rid, str) and rid else None


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise fields.fail(where, f"expected a string, got {fields.kind(value)}")
    return value


def events(items: Any, where: str, traj: Trajectory) -> None:
    """Append the messages of one event list (``where``: its position)."""
    if not isinstance(items, list):
        raise fields.fail(where, f"expected a list of events, got {fields.kind(items)}")
    index: dict[Any, int] = {}  # event id -> index of its first message
    flat = []
    for i, ev in enumerate(items):  # old evaluation output: [action, observation] pairs
        if isinstance(ev, list) and len(ev) == 2 and all(isinstance(x, dict) for x in ev):
            flat += [(f"{where}[{i}][0]", ev[0]), (f"{where}[{i}][1]", ev[1])]
        else:
            flat.append((f"{where}[{i}]", ev))
    open_response = None
    for ew, ev in flat:
        if not isinstance(ev, dict):
            raise fields.fail(ew, f"expected an event object, got {fields.kind(ev)}")
        eid = ev.get("id")
        if isinstance(eid, int) and not isinstance(eid, bool):
            index.setdefault(eid, len(traj.messages))
        meta = fields.need(ev, "tool_call_metadata", ew, dict, optional=True)
        source = fields.need(ev, "source", ew, str, optional=True, default="agent")
        if "action" in ev:
            action = fields.need(ev, "action", ew, str)
            args = fields.need(ev, "args", ew, dict, optional=True, default={})
            if meta is not None and action != "finish":
                cid = fields.name_of(meta, "tool_call_id", f"{ew}.tool_call_metadata")
                recorded = _recorded_arguments(meta, cid)
                sent = {k: v for k, v in args.items() if k not in NOT_ARGUMENTS}
                call = fields.call(cid, meta.get("function_name"),
                                   recorded if recorded is not None else sent,
                                   f"{ew}.tool_call_metadata", id_key="tool_call_id",
                                   name_key="function_name",
                                   args_key="model_response" if recorded else "args")
                rid = _response_id(meta)
                prev = traj.messages[-1] if traj.messages else None
                thought = _text(args.get("thought"), f"{ew}.args.thought")
                if rid is not None and rid == open_response and prev is not None \
                        and prev.get("tool_calls"):
                    prev["tool_calls"].append(call)
                    if thought and thought not in prev["content"]:
                        prev["content"] = "\n".join(t for t in (prev["content"],
                                                                thought) if t)
                else:
                    traj.messages.append({"role": "assistant", "content": thought,
                                          "tool_calls": [call], "_where": ew})
                open_response = rid
                continue
            open_response = None
            if action in NO_CONTEXT_ACTIONS:
                traj.skipped[f"{action} actions (no context)"] += 1
            elif action == "message":
                content: Any = _text(args.get("content", ev.get("message")),
                                     f"{ew}.args.content")
                images = fields.need(args, "image_urls", f"{ew}.args", list,
                                     optional=True, default=[])
                if images:
                    content = [content] + [{"type": "image_url", "image_url": {"url": u}}
                                           for u in images]
                traj.messages.append({"role": "user" if source == "user" else
                                      "assistant", "content": content, "_where": ew})
            elif action == "system":
                traj.messages.append({"role": "system", "_where": ew, "content": _text(
                    args.get("content", ev.get("message")), f"{ew}.args.content")})
                if args.get("tools") is not None:
                    traj.tools += fields.tool_schemas(args["tools"], f"{ew}.args.tools",
                                                      traj.notes)
            elif action in ("finish", "think"):
                text = args.get("final_thought") or args.get("thought") \
                    or ev.get("message")
                traj.messages.append({"role": "assistant", "_where": ew,
                                      "content": _text(text, f"{ew}.args")})
            elif action == "condensation":
                _condensation(ev, args, ew, index, traj)
            elif isinstance(ev.get("message"), str) and ev["message"]:
                # another action without a tool call (a user-run command, a
                # non-function-calling agent): its message text, from its source
                traj.messages.append({"role": "user" if source == "user" else
                                      "assistant", "content": ev["message"],
                                      "_where": ew})
            else:
                traj.aside(ev, ew, f"OpenHands {action[:40]!r} action with no tool call "
                                   "and no message, kept whole")
        elif "observation" in ev:
            open_response = None
            obs = fields.need(ev, "observation", ew, str)
            content = _text(ev.get("content"), f"{ew}.content")
            if meta is not None:
                traj.messages.append({"role": "tool", "content": content, "_where": ew,
                                      "tool_call_id": fields.name_of(
                                          meta, "tool_call_id",
                                          f"{ew}.tool_call_metadata")})
            elif obs in NO_CONTEXT_OBSERVATIONS:
                traj.skipped[f"{obs} observations (no context)"] += 1
            elif not content:
                traj.aside(ev, ew, f"OpenHands {obs[:40]!r} observation with no tool "
                                   "call and no content, kept whole")
            else:
                traj.messages.append({"role": "user", "content": content, "_where": ew})
        else:
            open_response = None
            traj.aside(ev, ew, "OpenHands event with neither action nor observation, "
                               "kept whole")


def _condensation(ev: dict, args: dict, where: str, index: dict[Any, int],
                  traj: Trajectory) -> None:
    ids = fields.need(args, "forgotten_event_ids", f"{where}.args", list, optional=True)
    if ids is None:
        start = fields.need(args, "forgotten_events_start_id", f"{where}.args", int,
                            optional=True)
        end = fields.need(args, "forgotten_events_end_id", f"{where}.args", int,
                          optional=True)
        ids = list(range(start, end + 1)) if start is not None and end is not None \
            else []
    gone = sorted({m for eid in ids if isinstance(eid, int) and not isinstance(
        eid, bool) for m in _messages_of(eid, index, len(traj.messages))})
    summary = fields.need(args, "summary", f"{where}.args", str, optional=True)
    msg = {"role": "user", "_where": where,
           "content": f"[summary of forgotten events]\n{summary}" if summary else "",
           "_forget": {"reason": f"OpenHands condensation ({where})", "indexes": gone}}
    if summary:
        traj.messages.append(msg)
    elif gone:
        traj.messages.append(dict(msg, content="[earlier events were condensed]"))
    else:
        traj.skipped["condensation actions that forget nothing"] += 1


def _messages_of(eid: int, index: dict[Any, int], end: int) -> range:
    """Message indexes of event ``eid`` (up to the next indexed event)."""
    if eid not in index:
        return range(0)
    first = index[eid]
    later = [v for k, v in index.items() if v > first]
    return range(first, min(later) if later else end)


def read_events(data: Any) -> Trajectory:
    """The trajectory of an OpenHands event list."""
    traj = Trajectory([])
    events(data, "events", traj)
    return traj


def read_eval(data: Any) -> Trajectory:
    """The trajectory of OpenHands evaluation output (JSONL records, or one record)."""
    records = [data] if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise fields.fail("<file>", f"expected JSONL records, got {fields.kind(data)}")
    traj = Trajectory([])
    at = fields.line_label(records) if not isinstance(data, dict) else lambda i: "<file>"
    for n, rec in enumerate(records, 1):
        where = at(n - 1)
        if not isinstance(rec, dict) or rec.get("history") is None:
            traj.aside(rec, where, "OpenHands evaluation record without a history, "
                                   "kept whole")
            continue
        start = len(traj.messages)
        events(rec["history"], f"{where}: history", traj)
        if n > 1 and len(traj.messages) > start:
            inst = rec.get("instance_id")
            traj.messages[start]["_forget"] = {
                "reason": f"OpenHands evaluation record {where} (instance "
                          f"{json.dumps(inst)[:60]}) starts a fresh context",
                "before": start, "fresh": True}
    return traj
