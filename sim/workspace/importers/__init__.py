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

from ..errors import TrajectoryFormatError
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
    except (OSError, UnicodeDecodeError) as exc:
        raise TrajectoryFormatError(f"cannot read trajectory {str(path)!r}: {exc}") from None
    try:
        if path.suffix == ".jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        return json.loads(text)
    except ValueError as exc:
        raise TrajectoryFormatError(f"{str(path)!r} is not valid JSON: {exc}") from None


def load_trajectory(source: str | Path | list | dict, format: str | None = None,
                    ) -> list[dict[str, Any]]:
    """OpenAI chat messages of a trajectory file (or an already parsed value).

    ``format``: one of :data:`READERS` (default: detected from the file). Raises
    :class:`TrajectoryFormatError` for an unknown format or a malformed file.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        data = _parse(path)
    else:
        path, data = Path("<memory>"), source
    fmt = format or detect_format(path, data)
    if fmt not in READERS:
        raise TrajectoryFormatError(f"unknown trajectory format {fmt!r}; choose one of "
                                    f"{sorted(READERS)}")
    try:
        return READERS[fmt](data)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise TrajectoryFormatError(f"{str(path)!r} is malformed for format {fmt!r}: "
                                    f"{type(exc).__name__}: {exc}") from None


def import_trajectory(source: str | Path | list | dict, workspace, *,
                      format: str | None = None, pin_task: bool = True,
                      on_step: Callable[[Any], None] | None = None) -> list:
    """Register every message of a trajectory in ``workspace``; returns the blocks.

    System messages and the first non-demonstration user message (the task
    statement) are pinned when ``pin_task``. A tool result that answers no earlier
    call, or a call already answered, raises :class:`TrajectoryFormatError` naming
    the message index and the ``tool_call_id`` (as :meth:`Workspace.register` would
    refuse it); blocks registered before it stay in ``workspace``. Call ids a
    recorded run reuses are renamed ``<id>~<n>`` (results follow the latest call).
    ``on_step(block)`` runs after each block (replay policies hook in here).
    """
    blocks = []
    task_pinned = False
    renamed: dict[str, str] = {}
    for index, msg in enumerate(load_trajectory(source, format)):
        if msg.get("tool_calls"):  # recorded runs reuse call ids; ids must stay unique
            calls = []
            for call in msg["tool_calls"]:
                cid = call.get("id") if isinstance(call, dict) else None
                if isinstance(cid, str) and (cid in workspace._call_owner
                                             or any(c["id"] == cid for c in calls)):
                    n = 2
                    while f"{cid}~{n}" in workspace._call_owner:
                        n += 1
                    renamed[cid] = f"{cid}~{n}"
                    call = dict(call, id=renamed[cid])
                elif isinstance(cid, str):
                    renamed.pop(cid, None)
                calls.append(call)
            msg = dict(msg, tool_calls=calls)
        if msg["role"] == "tool" and msg.get("tool_call_id") in renamed:
            msg = dict(msg, tool_call_id=renamed[msg["tool_call_id"]])
        pinned = False
        if pin_task and msg["role"] == "system":
            pinned = True
        elif pin_task and msg["role"] == "user" and not task_pinned \
                and not msg.pop("_demo", False):
            pinned = task_pinned = True
        msg.pop("_demo", None)
        if msg["role"] == "tool":
            cid = msg.get("tool_call_id")
            owner = workspace._call_owner.get(cid) if isinstance(cid, str) else None
            if owner is None:
                raise TrajectoryFormatError(
                    f"message {index}: tool result answers unknown tool_call_id {cid!r}"
                    " (no earlier assistant message made that call)")
            if cid in workspace.results.get(owner, {}):
                raise TrajectoryFormatError(
                    f"message {index}: tool_call_id {cid!r} is already answered by "
                    f"{workspace.results[owner][cid]}")
        block = workspace.register(msg, pinned=pinned)
        blocks.append(block)
        if on_step is not None:
            on_step(block)
    return blocks
