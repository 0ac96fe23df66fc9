"""Agent-facing context tools (VISTA implementation appendix, "Context tool
definitions"): JSON schemas in the OpenAI function-calling format and a dispatcher
that runs a tool call against a workspace and returns the text the agent sees.

The archive tool returns the payload path; recovery is a read of that path through
:meth:`Workspace.read_payload` (a payload of 4 KiB or more is also a file of that
name for any file tool; smaller ones live in pack files, :mod:`sim.workspace.packs`).
``context_workspace_recover``
additionally re-admits a payload as a new visible block (``recover(handle)``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .errors import ToolCallError, WorkspaceError

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

ARCHIVE = "context_workspace_archive"
DELETE = "context_workspace_delete"
RECOVER = "context_workspace_recover"

_IDS = ("Block IDs, ranges, or group IDs, e.g. \"B3\", \"B3,B4\", \"B10-B20\", "
        "or \"G2\".")


def context_tool_schemas(include_recover: bool = False) -> list[dict[str, Any]]:
    """The context tools as OpenAI ``tools`` entries: archive and delete (the
    paper's two), plus recover when ``include_recover``."""
    tools = [
        {"type": "function", "function": {
            "name": ARCHIVE,
            "description": ("Replace one or more blocks with compact indexes. The "
                            "original content is stored externally as a payload file. "
                            "Operations are block-level: only listed block IDs are "
                            "archived. Returns the payload file path for later "
                            "recovery."),
            "parameters": {"type": "object", "properties": {
                "block_id": {"type": "string", "description": _IDS},
                "replacement": {"type": "string", "default": "",
                                "description": "Short index text for the archived "
                                               "block(s)."}},
                "required": ["block_id"], "additionalProperties": False}}},
        {"type": "function", "function": {
            "name": DELETE,
            "description": ("Permanently remove one or more blocks. Deleted content "
                            "cannot be recovered."),
            "parameters": {"type": "object", "properties": {
                "block_id": {"type": "string", "description": _IDS},
                "reason": {"type": "string", "description": "Short reason why the "
                           "content has no future task value."}},
                "required": ["block_id", "reason"], "additionalProperties": False}}},
    ]
    if include_recover:
        tools.append({"type": "function", "function": {
            "name": RECOVER,
            "description": ("Bring archived content back into the visible context as a "
                            "new block, byte-exact. Prefer reading the payload file "
                            "when only part of it is needed."),
            "parameters": {"type": "object", "properties": {
                "target": {"type": "string", "description": "A block ID, group ID "
                           "or payload file path returned by archive."}},
                "required": ["target"], "additionalProperties": False}}})
    return tools


CONTEXT_TOOL_NAMES = frozenset({ARCHIVE, DELETE, RECOVER})


def dispatch(ws: "Workspace", name: str, arguments: str | dict[str, Any],
             raise_errors: bool = False) -> str:
    """Run one context-tool call and return the tool-result text.

    ``arguments`` is the call's JSON string (or a decoded dict). Workspace errors come
    back as ``"ERROR: ..."`` text (what an agent should see) unless ``raise_errors``.
    Raises :class:`ToolCallError` for an unknown tool or undecodable arguments
    (also returned as text unless ``raise_errors``).
    """
    try:
        if isinstance(arguments, str):
            try:
                args = json.loads(arguments or "{}")
            except ValueError as exc:
                raise ToolCallError(f"arguments of {name} are not JSON: {exc}") from None
        else:
            args = arguments
        if not isinstance(args, dict):
            raise ToolCallError(f"arguments of {name} must be an object, got {args!r:.60}")
        if name == ARCHIVE:
            _require(name, args, ["block_id"], ["replacement"])
            handle = ws.archive(args["block_id"], args.get("replacement", ""))
            return f"Archived {args['block_id']}. Payload file: {ws.display_path(handle)}"
        if name == DELETE:
            _require(name, args, ["block_id", "reason"], [])
            ids = ws.delete(args["block_id"], args["reason"])
            return f"Deleted {len(ids)} block(s): {', '.join(ids)}"
        if name == RECOVER:
            _require(name, args, ["target"], [])
            block = ws.recover(args["target"])
            return (f"Recovered {block.recovered_from} as {block.id} "
                    f"(~{block.tokens:,} tokens)")
        raise ToolCallError(f"unknown context tool {name!r}")
    except WorkspaceError as exc:
        if raise_errors:
            raise
        return f"ERROR: {exc}"


def _require(name: str, args: dict, required: list[str], optional: list[str]) -> None:
    for key in required:
        if key not in args:
            raise ToolCallError(f"{name} needs argument {key!r}")
    extra = set(args) - set(required) - set(optional)
    if extra:
        raise ToolCallError(f"{name} got unexpected argument(s) {sorted(extra)}")
