"""Errors of the block workspace: one root, :class:`WorkspaceError`, and one subclass
per kind of refusal. Every message names the offending value (an id, a spec token, a
handle path, a byte offset), so a context program or an agent can act on it.

Every operation validates fully before it mutates anything, so catching one of these
means the workspace is exactly as it was before the call (DESIGN.md invariant 5).
"""

from __future__ import annotations


class WorkspaceError(Exception):
    """Root of every error the workspace raises on bad input or bad state."""


class ConfigError(WorkspaceError, ValueError):
    """A :class:`~sim.workspace.workspace.Workspace` argument is invalid (a budget
    that is not None or an int >= 1, a directory that cannot be made). Raised before
    anything is created on disk."""


class ImpossibleBudgetError(ConfigError):
    """A budget below what no context program can take out of a request (the fixed
    overhead, the pinned blocks and a dashboard listing them): no request could
    ever fit. ``least`` is the smallest budget that holds it (exact: the system
    prompt and the dashboard state the budget, so it is not the count at the
    refused one)."""

    def __init__(self, message: str, least: int):
        super().__init__(message)
        self.least = least


class BlockIdError(WorkspaceError, ValueError):
    """A block-id spec is malformed: empty, a bad token ("B", "X7", "B-1", "B3,,B4"),
    or a reversed range ("B10-B3"). ``token`` holds the offending token."""

    def __init__(self, message: str, token: str | None = None):
        super().__init__(message)
        self.token = token


class UnknownBlockError(WorkspaceError, LookupError):
    """A well-formed id ("B999", "G7") names no block or group of this workspace."""

    def __init__(self, message: str, ident: str | None = None):
        super().__init__(message)
        self.ident = ident


class PinnedBlockError(WorkspaceError):
    """An archive or delete named a pinned block (task statement, protocol)."""


class BlockStateError(WorkspaceError):
    """The operation does not apply to the block's current status, e.g. archiving a
    deleted or already archived block, or deleting one block inside an archived group."""


class HandleError(WorkspaceError):
    """A handle or payload path is malformed or names no live payload."""


class DeletedHandleError(HandleError):
    """The handle's payload was explicitly deleted; its bytes are gone on purpose."""


class ConfinementError(HandleError):
    """A handle path escapes the payload store ("../x", an absolute path, a symlink)
    (DESIGN.md invariant 7)."""


class CorruptPayloadError(HandleError):
    """A payload's bytes no longer match the sha256 (or length) in its handle. The
    workspace reports this rather than return wrong bytes (invariant 3)."""


class BudgetExceededError(WorkspaceError):
    """Strict-mode assembly refused a request over budget. ``total``, ``budget`` and
    ``over`` are in tokens (``over = total - budget > 0``)."""

    def __init__(self, message: str, total: int, budget: int):
        super().__init__(message)
        self.total = total
        self.budget = budget
        self.over = total - budget


class RequestValidationError(WorkspaceError):
    """An exported request is not a valid OpenAI chat-completions request
    (see :mod:`sim.workspace.validate`). ``path`` locates the bad field."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


class JournalError(WorkspaceError):
    """The workspace journal is corrupt before its last line (a torn last line is
    tolerated), a line fails its checksum, a line's JSON is valid but its contents
    are not (unknown op or id, wrong field type), or the version is unknown. The
    message names the line number and byte offset."""


class WorkspaceLockedError(WorkspaceError):
    """Another writer holds the workspace's lock (one writer per directory).
    ``holder`` is what the holder wrote into the lock file (pid, host, since)."""

    def __init__(self, message: str, holder: str = ""):
        super().__init__(message)
        self.holder = holder


class ReadOnlyError(WorkspaceError):
    """A change was asked of a workspace opened with ``read_only=True``, or of a
    writer that a later open in the same process took the lock from."""


class WorkspaceIOError(WorkspaceError, OSError):
    """A system call inside the workspace failed (``EIO``, ``ENOSPC``, ``EACCES``,
    ``EROFS``: issue 34's one error family for I/O). ``errno`` is the OS error,
    ``call`` the failed call (``"fsync"``, ``"replace"``, ``"mkdir"``, ...) and
    ``applied`` says whether the operation took effect: False -- nothing of it is
    journaled and memory is as before the call (retry it); True -- it is journaled
    and applied (a later step failed, e.g. freeing a deleted payload: the next
    writer open quarantines what is left). The message says which."""

    def __init__(self, message: str, errno_: int | None = None, *,
                 applied: bool = False, call: str = ""):
        WorkspaceError.__init__(self, message)
        self.errno = errno_
        self.strerror = message
        self.applied = applied
        self.call = call

    def __str__(self) -> str:
        return self.strerror


class ReadOnlyFilesystemError(WorkspaceIOError):
    """A writer (open, create, ``repair``) met a read-only filesystem (``EROFS``):
    nothing was changed; open the workspace with ``read_only=True`` (or run
    ``ctxsim workspace check``) to read it."""


class WriteFailedError(WorkspaceIOError):
    """A write into the workspace failed (disk full ``ENOSPC``, file-size limit
    ``EFBIG``, ``EIO``). ``errno`` is the OS error. ``truncated``: True if the file
    was cut back to its last good offset (nothing of the failed write remains: retry
    once space is back), False if that failed too and this writer refuses every
    further write until the workspace is reopened. The message says which. Never
    applied (``applied`` is False)."""

    def __init__(self, message: str, errno_: int | None = None, truncated: bool = True):
        WorkspaceIOError.__init__(self, message, errno_, applied=False, call="write")
        self.truncated = truncated


class PlantedLinkError(ConfinementError):
    """A path the writer was about to create or open inside the workspace is a
    symlink (or a directory on it is): writes never follow links out of the
    workspace. The message names the path."""


class TrajectoryFormatError(WorkspaceError):
    """A trajectory file is in no supported format, or is malformed for its format."""


class ToolCallError(WorkspaceError):
    """A context-tool call names an unknown tool or carries bad arguments."""


class BudgetWarning(UserWarning):
    """Soft mode assembled a request over budget (a warning, not an error)."""
