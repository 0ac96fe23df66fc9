"""Claude Code session JSONL reader (``~/.claude/projects/<dir>/<session>.jsonl``;
the format is not documented by its vendor: this follows public descriptions and
parsers of real files, and the Messages API content blocks it stores).

Lines and where Claude Code puts them in the model's context:

* ``user`` / ``assistant`` lines (``uuid``, ``parentUuid``, ``message`` with
  Anthropic content blocks): chat messages, converted as in :mod:`.anthropic`
  (``tool_use`` / ``tool_result`` pairs, ``is_error`` results). Consecutive assistant
  lines of one API message (same ``message.id``, one content block per line) are one
  message. ``isMeta`` user lines (text the tool injects, hidden from the user) are
  context; ``isCompactSummary`` user lines are the compaction summary;
* ``toolUseResult`` on a result line is the tool's structured result for the UI (the
  model saw the ``tool_result`` block): counted, not sent;
* ``system`` lines with ``subtype`` ``compact_boundary``: the context before it was
  compacted (archived as one group); other ``system`` lines are shown to the user only;
* ``summary`` lines (a session title, ``leafUuid``), ``file-history-snapshot``,
  ``queue-operation`` and ``progress`` lines: no context; counted;
* ``isSidechain`` lines (a subagent's conversation) are kept apart from the main line:
  whole, as asides; so are lines off the final branch (the ``uuid`` / ``parentUuid``
  path from the last message, following ``logicalParentUuid`` across a compaction,
  :mod:`.chain`) and line types this reader does not know.
"""

from __future__ import annotations

from typing import Any

from . import anthropic, fields
from .chain import final_branch
from .trajectory import Trajectory

#: line types that carry no context, and why
NO_CONTEXT = {"summary": "summary lines (session titles)",
              "file-history-snapshot": "file-history snapshots",
              "queue-operation": "queue operations (prompts typed while busy)",
              "progress": "progress lines (tool progress shown to the user)"}
MESSAGES = ("user", "assistant")


def read(entries: list[dict[str, Any]]) -> Trajectory:
    """The trajectory of a parsed Claude Code session (one dict per JSONL line)."""
    if not isinstance(entries, list):
        raise fields.fail("<file>", f"expected JSONL lines, got {fields.kind(entries)}")
    traj = Trajectory([])
    at = fields.line_label(entries)
    kinds = [fields.need(e, "type", at(i), str) for i, e in enumerate(entries)]
    ids, parents, main = [], [], []
    for i, (e, kind) in enumerate(zip(entries, kinds)):
        where = at(i)
        ids.append(fields.need(e, "uuid", where, str, optional=True))
        parents.append(fields.need(e, "parentUuid", where, str, optional=True)
                       or fields.need(e, "logicalParentUuid", where, str, optional=True))
        side = fields.need(e, "isSidechain", where, bool, optional=True, default=False)
        main.append(kind in MESSAGES and not side)
    branch = final_branch(ids, parents, main, at, traj.notes)
    forget = None
    last_id = None  # message.id of the assistant message being assembled
    for i, (e, kind) in enumerate(zip(entries, kinds)):
        where = at(i)
        if kind in NO_CONTEXT:
            traj.skipped[NO_CONTEXT[kind]] += 1
            continue
        if kind == "system":
            subtype = fields.need(e, "subtype", where, str, optional=True, default="")
            if subtype == "compact_boundary":
                forget = {"reason": f"Claude Code compaction ({where})", "before": None}
            else:
                traj.skipped[f"system lines ({subtype or 'no subtype'}; shown to the "
                             "user, not sent)"] += 1
            last_id = None
            continue
        if kind not in MESSAGES:
            traj.aside(e, where, f"unknown Claude Code line type {kind[:40]!r}, kept "
                                 "whole")
            continue
        if e.get("isSidechain") is True:
            traj.aside(e, where, "Claude Code sidechain (a subagent's line), kept apart "
                                 "from the main line")
            continue
        if branch is not None and ids[i] is not None and i not in branch:
            traj.aside(e, where, "Claude Code line off the session's final branch")
            continue
        m = fields.need(e, "message", where, dict)
        role = fields.need(m, "role", f"{where}: message", str)
        if role != kind:
            raise fields.fail(f"{where}: message.role", f"{role[:40]!r} on a {kind} line")
        if e.get("toolUseResult") is not None:
            traj.skipped["toolUseResult records (the UI's copy of a tool result)"] += 1
        injected = e.get("isMeta") is True
        mid = fields.need(m, "id", f"{where}: message", str, optional=True)
        converted = anthropic.turn(role, m.get("content"), f"{where}: message.content",
                                   traj)
        prev = traj.messages[-1] if traj.messages else None
        if role == "assistant" and mid is not None and mid == last_id and prev \
                and prev["role"] == "assistant" and len(converted) == 1:
            _merge(prev, converted[0])
        else:
            if forget is not None and converted:
                converted[0]["_forget"], forget = forget, None
            for msg in converted if injected else ():
                msg["_not_task"] = True  # injected by the tool, not the user's task
            traj.messages += converted
        last_id = mid if role == "assistant" else None
    return traj


def _merge(into: dict[str, Any], more: dict[str, Any]) -> None:
    """Join one content-block line into the assistant message it continues."""
    a, b = into.get("content") or "", more.get("content") or ""
    if isinstance(a, str) and isinstance(b, str):
        into["content"] = "\n".join(t for t in (a, b) if t)
    else:
        into["content"] = [*(a if isinstance(a, list) else [a] if a else []),
                           *(b if isinstance(b, list) else [b] if b else [])]
    if more.get("tool_calls"):
        into["tool_calls"] = into.get("tool_calls", []) + more["tool_calls"]
