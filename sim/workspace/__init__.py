"""The block workspace: VISTA's context layer (paper §2.1-2.4; DESIGN.md "The block
workspace contract"). No games, numba or LLM clients are imported here.

Quick tour::

    from sim.workspace import Workspace, WorkspaceOptions
    ws = Workspace(None, WorkspaceOptions(budget=8000))  # temp dir; cl100k, ledger
    ws.register({"role": "user", "content": "Fix the bug"}, pinned=True)
    ws.register({"role": "assistant", "content": "", "tool_calls": [...]})
    ws.register({"role": "tool", "tool_call_id": "call_1", "content": big_output})
    handle = ws.archive("B3-B4", "ls output of repo root")   # -> Handle, G1
    ws.read_payload(ws.payload_path(handle))                  # recovery = a read
    ws.recover("B4")                                          # re-admit as new block
    request = ws.assemble()                                   # Request; .to_openai()
    Workspace.open(ws.directory)                              # after a crash
    Workspace.open(ws.directory, read_only=True)              # beside a live writer

Public names: :class:`Workspace`, :class:`WorkspaceOptions` (its settings),
:class:`Block`, :class:`Group`, :class:`BlockType`,
:class:`BlockStatus`, :class:`GroupStatus`, :class:`Handle`; tokenizers (:class:`Tokenizer`,
:class:`BPETokenizer`, :class:`WhitespaceTokenizer`, :class:`CharTokenizer`,
:func:`get_tokenizer`); the spec grammar (:func:`parse_spec`, :func:`format_ids`);
dashboards (:class:`LedgerDashboard`, :class:`StatusBoardDashboard`,
:class:`NoDashboard`, :func:`make_dashboard`, :class:`Row`); assembly
(:class:`Request`, :func:`message_tokens`, :data:`PROTOCOL`); context tools
(:func:`context_tool_schemas`, :func:`dispatch`); the request validator
(:func:`validate_chat_request`); trajectory import (:func:`load_trajectory`,
:func:`import_trajectory`, :func:`replay_trajectory`); and the errors, all subclasses
of :class:`WorkspaceError`.
"""

from .assembly import (PROTOCOL, Request, default_system_prompt, message_tokens,
                       native_message)
from .blocks import Block, BlockStatus, BlockType, Group, GroupStatus, Handle
from .dashboard import (LedgerDashboard, NoDashboard, Rendered, Row,
                        StatusBoardDashboard, make_dashboard)
from .errors import (BlockIdError, BlockStateError, BudgetExceededError, BudgetWarning,
                     ConfigError, ConfinementError, CorruptPayloadError, DeletedHandleError,
                     HandleError, JournalError, PinnedBlockError, ReadOnlyError,
                     RequestValidationError, ToolCallError, TrajectoryFormatError,
                     UnknownBlockError, WorkspaceError, WorkspaceLockedError)
from .errors import (ImpossibleBudgetError, PlantedLinkError, ReadOnlyFilesystemError,
                     WorkspaceIOError, WriteFailedError)
from .ids import format_ids, is_block_id, is_group_id, parse_spec
from .importers import import_trajectory, load_trajectory
from .trajectory_replay import ReplayResult, replay_trajectory
from .store import Journal, PayloadStore
from .tokenizer import (BPETokenizer, CharTokenizer, Tokenizer, WhitespaceTokenizer,
                        get_tokenizer)
from .tools import CONTEXT_TOOL_NAMES, context_tool_schemas, dispatch
from .validate import validate_chat_request
from .options import WorkspaceOptions
from .workspace import Workspace, message_text

__all__ = [
    "Workspace", "WorkspaceOptions",
    "Block", "Group", "BlockType", "BlockStatus", "GroupStatus", "Handle",
    "Tokenizer", "BPETokenizer", "WhitespaceTokenizer", "CharTokenizer",
    "get_tokenizer", "parse_spec", "format_ids", "is_block_id", "is_group_id",
    "LedgerDashboard", "StatusBoardDashboard", "NoDashboard", "make_dashboard", "Row",
    "Rendered", "Request", "message_tokens", "native_message", "default_system_prompt",
    "PROTOCOL", "context_tool_schemas", "dispatch", "CONTEXT_TOOL_NAMES",
    "validate_chat_request", "load_trajectory", "import_trajectory",
    "replay_trajectory", "ReplayResult", "PayloadStore", "Journal", "message_text",
    "WorkspaceError", "ConfigError", "BlockIdError", "UnknownBlockError", "PinnedBlockError",
    "BlockStateError", "HandleError", "DeletedHandleError", "ConfinementError",
    "CorruptPayloadError", "BudgetExceededError", "BudgetWarning",
    "PlantedLinkError", "WriteFailedError", "ImpossibleBudgetError",
    "WorkspaceIOError", "ReadOnlyFilesystemError",
    "RequestValidationError", "JournalError", "TrajectoryFormatError", "ToolCallError",
    "WorkspaceLockedError", "ReadOnlyError",
]
