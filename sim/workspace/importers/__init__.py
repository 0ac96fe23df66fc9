"""Trajectory import: one reader per format behind :func:`load_trajectory`.

Each reader turns a recorded run into a list of OpenAI chat messages (system, user,
assistant with ``tool_calls``, tool results with ``tool_call_id``). Formats:
``sweagent`` (SWE-agent ``.traj``), ``minisweagent`` (mini-swe-agent message lists),
``pi`` (pi coding-agent session JSONL), ``openai`` (a message list or a chat request)
and ``atif`` (Harbor's Agent Trajectory Interchange Format). The real files live in
``sim/data/trajectories/`` (see its README and licences).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from ..errors import ToolCallError, TrajectoryFormatError, UnknownBlockError
from . import atif, minisweagent, openai, pi, sweagent

READERS: dict[str, Callable[[Any], list[dict[str, Any]]]] = {
    "sweagent": sweagent.read, "minisweagent": minisweagent.read, "pi": pi.read,
    "openai": openai.read, "atif": atif.read,
}


def detect_format(path: Path, data: Any) -> str:
    """The format of a parsed trajectory (``data``: JSON value, or a list of JSONL
    entries for ``.jsonl`` files). Raises :class:`TrajectoryFormatError`."""
    if path.suffix == ".jsonl":
        if data and isinstance(data[0], dict) and data[0].get("type") == "session":
            return "pi"
        if all(isinstance(e, dict) and "role" in e for e in data):
            return "openai"
    if isinstance(data, dict):
        if "steps" in data and ("schema_version" in data or "agent" in data):
            return "atif"
        if "history" in data or "trajectory" in data and "environment" in data:
            return "sweagent"
        if str(data.get("trajectory_format", "")).startswith("mini-swe-agent"):
            return "minisweagent"
        if "messages" in data:
            return "openai"
    if isinstance(data, list) and all(isinstance(e, dict) and "role" in e for e in data):
        return "minisweagent" if path.name.endswith(".traj.json") else "openai"
    raise TrajectoryFormatError(f"{str(path)!r} is in no supported trajectory format "
                                f"({', '.join(READERS)})")


def _parse(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        # ValueError: undecodable bytes, and paths the OS cannot take (a lone
        # surrogate or a NUL byte in the name)
        raise TrajectoryFormatError(f"cannot read trajectory {str(path)!r}: {exc}") from None
    line = 0
    try:
        if path.suffix == ".jsonl":
            out = []
            for line, raw in enumerate(text.splitlines(), 1):
                if raw.strip():
                    out.append(json.loads(raw))
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


def load_trajectory(source: str | Path | list | dict, format: str | None = None,
                    ) -> list[dict[str, Any]]:
    """OpenAI chat messages of a trajectory file (or an already parsed value).

    ``format``: one of :data:`READERS` (default: detected from the file). Raises
    :class:`TrajectoryFormatError` for an unknown format or a malformed file, naming
    the file, the position (``history[3].tool_calls[0].id``, ``line 7: message.role``)
    and what the field should hold; never a raw ``TypeError`` or ``RecursionError``.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        data = _parse(path)
    else:
        path, data = Path("<memory>"), source
    try:
        fmt = format or detect_format(path, data)
        if fmt not in READERS:
            raise TrajectoryFormatError(f"unknown trajectory format {fmt!r}; choose one "
                                        f"of {sorted(READERS)}")
        messages = READERS[fmt](data)
    except TrajectoryFormatError as exc:
        raise TrajectoryFormatError(f"{str(path)!r}: {exc}") from None
    except RecursionError:
        raise TrajectoryFormatError(f"{str(path)!r}: a value is nested too deeply "
                                    "to import") from None
    for i, msg in enumerate(messages):  # what every reader promises the workspace
        try:
            openai.message(msg, f"message {i}")
        except TrajectoryFormatError as exc:
            raise TrajectoryFormatError(f"{str(path)!r} ({fmt}): {exc}") from None
    return messages


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

    def calls(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out, used, fresh = [], set(), {}
        for call in calls:
            cid = call["id"]
            new, n = cid, 2
            while new in self.ws._call_owner or new in used:
                new, n = f"{cid}~{n}", n + 1
            used.add(new)
            fresh.setdefault(cid, []).append(new)
            out.append(call if new == cid else dict(call, id=new))
        self.pending.update(fresh)  # results now answer this message's calls
        return out

    def result(self, cid: str) -> str:
        queue = self.pending.get(cid)
        return queue.pop(0) if queue else cid


def import_trajectory(source: str | Path | list | dict, workspace, *,
                      format: str | None = None, pin_task: bool = True,
                      on_step: Callable[[Any], None] | None = None) -> list:
    """Register every message of a trajectory in ``workspace``; returns the blocks.

    System messages and the first non-demonstration user message (the task
    statement) are pinned when ``pin_task``. Observations pass the wire-payload
    guard whatever role the format gives them: tool results, and user messages
    after the task statement (mini-swe-agent and SWE-agent record observations as
    user messages). Call ids are made unique and results paired with calls in
    order (see :class:`_CallIds`). A tool result that answers no earlier call, or a
    call already answered, or any message the workspace refuses, raises
    :class:`TrajectoryFormatError` naming the message index; blocks registered
    before it stay in ``workspace``. ``on_step(block)`` runs after each block
    (replay policies hook in here).
    """
    blocks = []
    task_pinned = False
    ids = _CallIds(workspace)
    for index, msg in enumerate(load_trajectory(source, format)):
        demo = msg.pop("_demo", False)
        if msg.get("tool_calls"):
            msg = dict(msg, tool_calls=ids.calls(msg["tool_calls"]))
        if msg["role"] == "tool":
            msg = dict(msg, tool_call_id=ids.result(msg["tool_call_id"]))
        pinned = False
        if pin_task and msg["role"] == "system":
            pinned = True
        elif pin_task and msg["role"] == "user" and not task_pinned and not demo:
            pinned = task_pinned = True
        if msg["role"] == "tool":
            cid = msg["tool_call_id"]
            owner = workspace._call_owner.get(cid)
            if owner is None:
                raise TrajectoryFormatError(
                    f"message {index}: tool result answers unknown tool_call_id {cid!r}"
                    " (no earlier assistant message made that call)")
            if cid in workspace.results.get(owner, {}):
                raise TrajectoryFormatError(
                    f"message {index}: tool_call_id {cid!r} is already answered by "
                    f"{workspace.results[owner][cid]}")
        observation = msg["role"] == "tool" or (msg["role"] == "user" and not pinned)
        try:
            block = workspace.register(msg, pinned=pinned, observation=observation)
        except (ToolCallError, UnknownBlockError, RecursionError) as exc:
            # the message is malformed for the workspace (other errors: disk, budget)
            raise TrajectoryFormatError(f"message {index} ({msg['role']}): "
                                        f"{type(exc).__name__}: {exc}") from None
        blocks.append(block)
        if on_step is not None:
            on_step(block)
    return blocks
