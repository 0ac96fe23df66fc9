"""Trajectory import: one reader per format behind :func:`read_trajectory`.

Each reader turns a recorded run into a :class:`Trajectory`: OpenAI chat messages
(system, user, assistant with ``tool_calls``, tool results with ``tool_call_id``),
placed as the producing tool placed them in the model's context, plus the recorded
tool schemas, notes and the records that carry no context. Formats (:data:`FORMATS`):
SWE-agent ``.traj``, mini-swe-agent, pi session JSONL, OpenAI chat messages or
request, OpenAI Responses API items (a request, a response or an input list), ATIF,
Anthropic Messages, Claude Code session JSONL, Codex CLI rollout JSONL, OpenHands
event streams and OpenHands evaluation output. Shipped samples live
in ``sim/data/trajectories/`` (see its README and licences).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from ..blocks import BlockStatus
from ..errors import ToolCallError, TrajectoryFormatError, UnknownBlockError, WorkspaceError
from ..messages import wire_safe
from . import (anthropic, atif, claudecode, codex, minisweagent, openai, openhands, pi,
               responses, sweagent)
from .fields import Lines
from .trajectory import RenamedCall, Trajectory

READERS: dict[str, Callable[[Any], Any]] = {
    "sweagent": sweagent.read, "minisweagent": minisweagent.read, "pi": pi.read,
    "openai": openai.read, "responses": responses.read, "atif": atif.read, "anthropic": anthropic.read,
    "claudecode": claudecode.read, "codex": codex.read,
    "openhands": openhands.read_events, "openhands-eval": openhands.read_eval,
}

#: each format's name in words (the CLI's help and the README list these)
FORMATS = {
    "sweagent": "SWE-agent .traj", "minisweagent": "mini-swe-agent",
    "pi": "pi session JSONL", "openai": "OpenAI chat messages or request",
    "responses": "OpenAI Responses API items, request or response",
    "atif": "ATIF (Harbor)", "anthropic": "Anthropic Messages",
    "claudecode": "Claude Code session JSONL", "codex": "Codex CLI rollout JSONL",
    "openhands": "OpenHands event stream", "openhands-eval": "OpenHands evaluation output",
}

_JSONL_TYPES = {
    "pi": ("session", "message", "compaction", "branch_summary", "custom_message",
           "model_change", "thinking_level_change", "label", "custom"),
    "codex": ("session_meta", "response_item", "event_msg", "turn_context", "compacted"),
    "claudecode": ("user", "assistant", "system", "summary", "file-history-snapshot"),
}


def _dicts(value: Any) -> list[dict]:
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []


def _is_event(e: Any) -> bool:
    return isinstance(e, dict) and ("action" in e or "observation" in e) and "role" not in e


def _event_list(value: Any) -> bool:
    if not isinstance(value, list) or not value:
        return False
    first = value[0]
    if isinstance(first, list) and first:  # old evaluation output: pairs
        first = first[0]
    return _is_event(first)


def _candidates(path: Path, data: Any) -> list[tuple[str, str]]:
    """Every format ``data`` looks like, with the reason."""
    out = []
    entries = _dicts(data)
    jsonl = path.suffix == ".jsonl"
    if jsonl and entries:
        first = entries[0]
        if first.get("type") == "session":
            out.append(("pi", "first line is a pi session header (type 'session')"))
        elif all(isinstance(e.get("payload"), dict) for e in entries) and any(
                e.get("type") in _JSONL_TYPES["codex"] for e in entries):
            out.append(("codex", "lines are {timestamp, type, payload} rollout items "
                                 f"(first type {str(first.get('type'))[:30]!r})"))
        elif any("uuid" in e or "leafUuid" in e or "parentUuid" in e for e in entries):
            out.append(("claudecode", "lines carry uuid / parentUuid (Claude Code)"))
        elif any(e.get("type") == "message" and isinstance(e.get("message"), dict)
                 for e in entries):
            out.append(("pi", "lines are pi message entries (no session header)"))
        if any(_event_list(e.get("history")) for e in entries):
            out.append(("openhands-eval", "records whose history is an OpenHands "
                                          "event list"))
    if isinstance(data, dict):
        if "steps" in data and ("schema_version" in data or "agent" in data):
            out.append(("atif", "an object with steps and schema_version/agent"))
        if _event_list(data.get("history")):
            out.append(("openhands-eval", "an object whose history is an OpenHands "
                                          "event list"))
        elif "history" in data or "trajectory" in data and "environment" in data:
            out.append(("sweagent", "an object with history or trajectory+environment"))
        if str(data.get("trajectory_format", "")).startswith("mini-swe-agent"):
            out.append(("minisweagent", "trajectory_format names mini-swe-agent"))
        elif "messages" in data:
            msgs = data["messages"]
            if anthropic.has_blocks(msgs) or "system" in data and "messages" in data \
                    and not isinstance(data.get("system"), (type(None), bool)) \
                    or any(isinstance(t, dict) and "input_schema" in t
                           for t in data.get("tools") or () if isinstance(
                               data.get("tools"), list)):
                out.append(("anthropic", "a request body with Anthropic content blocks, "
                                         "a top-level system or input_schema tools"))
            else:
                out.append(("openai", "an object with messages (a chat request)"))
    items = responses.looks_like(data)
    if items and (isinstance(data, dict) or not jsonl or not out):
        # before the role/content rule: Responses messages have roles too
        out.append(("responses", items))
    if isinstance(data, list) and data and not jsonl and not items:
        if all(isinstance(e, dict) and "role" in e for e in data):
            if anthropic.has_blocks(data):
                out.append(("anthropic", "a message list with Anthropic content blocks "
                                         "(tool_use / tool_result / thinking)"))
            elif path.name.endswith(".traj.json"):
                out.append(("minisweagent", "a message list in a .traj.json file"))
            else:
                out.append(("openai", "a list of role/content messages"))
        elif _event_list(data):
            out.append(("openhands", "a list of events with action / observation"))
    if jsonl and entries and all("role" in e for e in entries) and not out and not items:
        out.append(("anthropic", "JSONL messages with Anthropic content blocks")
                   if anthropic.has_blocks(entries) else
                   ("openai", "JSONL lines that are role/content messages"))
    return out


def detect_format(path: Path, data: Any) -> tuple[str, str]:
    """The format of a parsed trajectory (``data``: JSON value, or a list of JSONL
    entries for ``.jsonl`` files) and why it was chosen. Raises
    :class:`TrajectoryFormatError` if no format fits, or if several do (listing
    each candidate with its reason: choose one with ``format``); the caller adds
    the file's name."""
    found = _candidates(path, data)
    if len(found) == 1:
        return found[0]
    if found:
        raise TrajectoryFormatError(
            "the file fits several trajectory formats: "
            + "; ".join(f"{f} ({why})" for f, why in found) + "; choose one with --format")
    raise TrajectoryFormatError(f"the file is in no supported trajectory format "
                                f"({', '.join(READERS)}); name one with --format")


def _parse(path: Path) -> Any:
    try:
        # utf-8-sig: an editor's byte-order mark is no part of the JSON
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, ValueError) as exc:
        # ValueError: undecodable bytes, and paths the OS cannot take (a lone
        # surrogate or a NUL byte in the name)
        # strerror: an OSError's str() repeats the path and the errno
        why = getattr(exc, "strerror", None) or exc
        raise TrajectoryFormatError(f"cannot read trajectory {str(path)!r}: {why}") from None
    line = 0
    try:
        if path.suffix == ".jsonl":
            out = Lines()
            out.numbers = []
            for line, raw in enumerate(text.splitlines(), 1):
                if raw.strip():
                    out.append(json.loads(raw))
                    out.numbers.append(line)
            return out
        return json.loads(text)
    except ValueError as exc:
        where = f" (line {line})" if line else ""
        raise TrajectoryFormatError(f"{str(path)!r} is not valid JSON{where}: {exc}"
                                    ) from None
    except RecursionError:
        where = f" (line {line})" if line else ""
        raise TrajectoryFormatError(f"{str(path)!r}{where}: JSON nested too deeply to "
                                    "read") from None


def _detected_instead(path: Path, data: Any, chosen: str) -> str:
    """What detection makes of a file that the ``chosen`` format could not read:
    ``""`` when it finds ``chosen`` too (the file is malformed, not misnamed), else
    ``" (not read as chosen: detection would choose codex: <why>; ...)"`` naming
    the format(s) it finds, or that it finds none."""
    try:
        found = _candidates(path, data)
    except RecursionError:
        return ""
    if any(f == chosen for f, _ in found):
        return ""
    if not found:
        return f"; the file does not look like {chosen} (nor like any other format)"
    if len(found) == 1:
        f, why = found[0]
        return (f"; the file does not look like {chosen}: detection would choose {f} "
                f"({why}): try --format {f}, or no --format")
    return (f"; the file does not look like {chosen}; it fits "
            + "; ".join(f"{f} ({why})" for f, why in found))


def read_trajectory(source: str | Path | list | dict | Trajectory,
                    format: str | None = None) -> Trajectory:
    """The :class:`Trajectory` of a file (or an already parsed value).

    ``format``: one of :data:`READERS` (default: detected from the file; the
    trajectory's ``reason`` says why); when the chosen format cannot read the file,
    the error also names the format detection would choose. Raises :class:`TrajectoryFormatError` for an
    unknown or ambiguous format or a malformed file, naming the file, the position
    in the file's own terms (``history[3].tool_calls[0].id``, ``line 7:
    message.role``) and what the field should hold; never a raw ``TypeError`` or
    ``RecursionError``. Positions in JSONL are the file's line numbers (blank
    lines skipped but counted)."""
    if isinstance(source, Trajectory):
        return source
    if isinstance(source, (str, Path)):
        path = Path(source)
        data = _parse(path)
    else:
        path, data = Path("<memory>"), source
    try:
        if format is not None:
            fmt, reason = format, "chosen with --format"
        else:
            fmt, reason = detect_format(path, data)
        if fmt not in READERS:
            raise TrajectoryFormatError(f"unknown trajectory format {fmt!r}; choose one "
                                        f"of {sorted(READERS)}")
        read = READERS[fmt](data)
        traj = read if isinstance(read, Trajectory) else Trajectory(read)
    except TrajectoryFormatError as exc:
        hint = _detected_instead(path, data, format) if format in READERS else ""
        raise TrajectoryFormatError(f"{str(path)!r}: {exc}{hint}") from None
    except RecursionError:
        raise TrajectoryFormatError(f"{str(path)!r}: a value is nested too deeply "
                                    "to import") from None
    traj.format, traj.reason = fmt, reason
    if format is not None and traj.messages and all(m.get("_aside") for m in traj.messages):
        hint = _detected_instead(path, data, format)  # read, but nothing into context
        if hint:
            traj.notes.append(f"every record was kept aside as unknown to {format}"
                              f"{hint}")
    for i, msg in enumerate(traj.messages):  # what every reader promises the workspace
        where = msg.get("_where", f"message {i}")
        try:
            openai.message(msg, where)
        except TrajectoryFormatError as exc:
            raise TrajectoryFormatError(f"{str(path)!r} ({fmt}): {exc}") from None
        except RecursionError:
            raise TrajectoryFormatError(f"{str(path)!r} ({fmt}): {where}: a value is "
                                        "nested too deeply to import") from None
    traj.source = str(path)
    return traj


def load_trajectory(source: str | Path | list | dict, format: str | None = None,
                    ) -> list[dict[str, Any]]:
    """The OpenAI chat messages a trajectory puts in the model's context: those of
    :func:`read_trajectory` without the records kept aside (``_aside``) and without
    private keys, except ``_demo`` (a demonstration message). Raises as
    :func:`read_trajectory`."""
    return [{k: v for k, v in m.items() if k == "_demo" or not k.startswith("_")}
            for m in read_trajectory(source, format).messages if not m.get("_aside")]


class _CallIds:
    """Call ids of an import made unique, and results paired with calls in order.

    Recorded runs reuse ids across messages (a result answers the latest call with
    its id) and some models repeat an id inside one message (the n-th result with
    that id answers the n-th call). Each new call gets its recorded id if no
    registered call has it, else ``<id>~<n>``; results take the pending calls of
    their recorded id first to last."""

    def __init__(self, workspace):
        self.ws = workspace
        self.pending: dict[str, list[str]] = {}

    def calls(self, calls: list[dict[str, Any]]
              ) -> tuple[list[dict[str, Any]], list[tuple[str, str, str]]]:
        """The calls with unique ids, and (recorded id, new id, the block or "this
        message" already using the recorded id) for each one renamed."""
        out, used, fresh, renamed = [], set(), {}, []
        for call in calls:
            cid = call["id"]
            owner = self.ws.call_id_owner(cid) or (
                "this message" if wire_safe(cid) in used else None)
            new, n = cid, 2
            # taken as the workspace compares ids (their wire form), so a renamed
            # id is one register accepts
            while self.ws.call_id_owner(new) or wire_safe(new) in used:
                new, n = f"{cid}~{n}", n + 1
            used.add(wire_safe(new))
            fresh.setdefault(cid, []).append(new)
            out.append(call if new == cid else dict(call, id=new))
            if new != cid:
                renamed.append((cid, new, owner))
        self.pending.update(fresh)  # results now answer this message's calls
        return out, renamed

    def result(self, cid: str) -> str:
        queue = self.pending.get(cid)
        return queue.pop(0) if queue else cid


def import_trajectory(source: str | Path | list | dict | Trajectory, workspace, *,
                      format: str | None = None, pin_task: bool = True,
                      on_step: Callable[[Any], None] | None = None) -> list:
    """Register every message of a trajectory in ``workspace``; returns the blocks.

    ``source``: a file, a parsed value or a :class:`Trajectory` from
    :func:`read_trajectory` (its ``notes`` gain a line for every record kept aside,
    every compaction and every stray result). System messages and the first
    non-demonstration user message (the task statement) are pinned when
    ``pin_task``. Observations pass the wire-payload guard whatever role the format
    gives them: tool results, and user messages after the task statement
    (mini-swe-agent and SWE-agent record observations as user messages). Call ids are
    made unique and results paired with calls in order (see :class:`_CallIds`); each
    renamed id is a :class:`RenamedCall` in the trajectory's ``renamed`` and a line
    in its ``notes``.

    A record kept aside (``_aside``: an unknown kind, a sidechain) becomes a note
    block, archived at once: its bytes are stored, its row is in the ledger, it is
    not in the context. A compaction (``_forget``) archives the forgotten visible
    blocks as one group. A tool result that answers no earlier call, or a call
    already answered (a harness that logs rejections as results), is imported as an
    ordinary user message, with a note. A message the workspace refuses raises
    :class:`TrajectoryFormatError` naming the file and the position in the file's
    own terms; blocks registered before it stay in ``workspace``. ``on_step(block)``
    runs after each block (replay policies hook in here).
    """
    traj = read_trajectory(source, format)
    blocks = []
    task_pinned = False
    ids = _CallIds(workspace)
    block_of: dict[int, str] = {}  # message index -> its block
    for index, raw in enumerate(traj.messages):
        msg = {k: v for k, v in raw.items() if not k.startswith("_")}
        where = raw.get("_where", f"message {index}")
        if raw.get("_forget"):
            _forget(workspace, raw["_forget"], block_of, index, traj.notes)
            if raw["_forget"].get("fresh"):
                task_pinned = False  # a new task: its statement is pinned
        if raw.get("_aside"):
            block = _aside(workspace, msg, raw["_aside"], where, traj)
        else:
            block = _register(workspace, msg, raw.get("_demo", False)
                              or raw.get("_not_task", False), where, ids,
                              traj, pin_task and not task_pinned, pin_task)
            task_pinned = task_pinned or block.status is BlockStatus.PINNED \
                and msg["role"] == "user"
        block_of[index] = block.id
        blocks.append(block)
        if on_step is not None:
            on_step(block)
    return blocks


def _fail(traj: Trajectory, where: str, role: str, exc: Exception) -> TrajectoryFormatError:
    return TrajectoryFormatError(f"{traj.source!r} ({traj.format}): {where} ({role}): "
                                 f"{type(exc).__name__}: {exc}")


def _register(ws, msg: dict[str, Any], demo: bool, where: str, ids: _CallIds,
              traj: Trajectory, may_pin_task: bool, pin_system: bool):
    renamed: list[tuple[str, str, str]] = []
    if msg.get("tool_calls"):
        calls, renamed = ids.calls(msg["tool_calls"])
        msg = dict(msg, tool_calls=calls)
    if msg["role"] == "tool":
        recorded = msg["tool_call_id"]
        cid = ids.result(recorded)
        owner = ws.state.call_owner.get(cid)
        if owner is None or cid in ws.results.get(owner, {}):
            why = "no earlier message made that call" if owner is None else \
                f"that call is already answered by {ws.results[owner][cid]}"
            msg = {"role": "user", "content": msg.get("content")}
            stray = True
        else:
            msg, stray = dict(msg, tool_call_id=cid), False
    else:
        stray = False
    pinned = (pin_system and msg["role"] == "system") or (
        may_pin_task and msg["role"] == "user" and not demo and not stray)
    observation = msg["role"] == "tool" or (msg["role"] == "user" and not pinned)
    try:
        block = ws.register(msg, pinned=pinned, observation=observation)
    except (ToolCallError, UnknownBlockError, RecursionError) as exc:
        # the message is malformed for the workspace (other errors: disk, budget)
        raise _fail(traj, where, msg["role"], exc) from None
    if stray:
        traj.notes.append(f"{block.id} ({where}): tool result for call id "
                          f"{recorded[:60]!r} imported as a user message: {why}")
    for old, new, owner in renamed:
        traj.renamed.append(RenamedCall(where, block.id, old, new, owner))
        traj.notes.append(f"{block.id} ({where}): renamed duplicate tool call id "
                          f"{old[:60]!r} -> {new[:64]!r} (already used by {owner}; "
                          "results are paired in order)")
    return block


def _aside(ws, msg: dict[str, Any], why: str, where: str, traj: Trajectory):
    try:
        block = ws.register({"role": "user", "content": msg.get("content")},
                            block_type="note", observation=False)
        ws.archive(block.id, f"kept whole, not in context: {why}")
    except (ToolCallError, UnknownBlockError, RecursionError) as exc:
        raise _fail(traj, where, "aside", exc) from None
    traj.notes.append(f"{block.id} ({where}): {why}; archived (handle in the ledger)")
    return block


def _forget(ws, spec: dict[str, Any], block_of: dict[int, str], index: int,
            notes: list[str]) -> None:
    """Archive, as one group, the visible unpinned top-level blocks of the messages
    a compaction dropped from the context."""
    if spec.get("indexes") is not None:
        chosen = {block_of[i] for i in spec["indexes"] if i in block_of}
    else:
        before = index if spec.get("before") is None else spec["before"]
        chosen = {b for i, b in block_of.items() if i < before}
    reason = spec.get("reason", "compaction")
    pinned = [b for b in block_of.values() if b in chosen
              and ws.blocks[b].status is BlockStatus.PINNED]
    if spec.get("fresh") and pinned:  # a new task: the last one's pins go too
        ws.unpin(",".join(pinned))
    items = [b for b in block_of.values() if b in chosen
             and ws.blocks[b].status is BlockStatus.VISIBLE and b not in ws.group_of]
    if not items:
        notes.append(f"{reason}: nothing visible to archive")
        return
    try:
        ws.archive(",".join(items), f"{reason}: dropped from the context")
    except WorkspaceError as exc:
        notes.append(f"{reason}: could not archive {len(items)} block(s): {exc}")
        return
    notes.append(f"{reason}: {len(items)} earlier block(s) archived "
                 f"({items[0]}..{items[-1]})")
