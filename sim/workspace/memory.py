"""A scratch workspace for throwaway episodes: the same workspace core (every
operation validated, journaled as one op and applied by the same ``_apply``), with
its payloads and journal held in memory instead of files.

Why: a simulated episode's workspace is discarded when the episode ends, so it needs
no durability, and a sweep of 10^5 episodes spent a large share of its time writing,
checking and removing payload files and journal lines it never read again
(``experiments/bench/bench_episodes.py``). Everything the agent and the programs
observe is unchanged: payload paths are the durable store's (``payloads/ab/ab...``,
content addressed), reads are verified against the handle, a deleted payload of
:data:`~sim.workspace.packs.PACK_BELOW` bytes or more is gone as a file would be, and
``tests/workspace/test_memory.py`` checks that episode CSVs are byte-identical to
the durable store's. Not for anything that must survive the process: there is no
journal file to reopen and no lock (one process owns it).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from .assembly import Assembler
from .blocks import Handle
from .errors import CorruptPayloadError, HandleError
from .packs import PACK_BELOW
from .store import PayloadStore
from .options import WorkspaceOptions
from .workspace import Workspace


class _ContentMemo:
    """Texts' bytes and bytes' handles, shared by the scratch workspaces of a
    process: the programs of a sweep replay one task, so they register the same
    tool results (the same ``str`` objects) again and again. Reusing one bytes
    object per text lets every later step hash nothing again: a bytes object keeps
    its hash, and a lookup of the same object compares by identity; without it each
    registration encoded the text, took its sha256 and hashed the bytes (a pass
    over every byte each). Pure functions of their keys (``str.encode``,
    :meth:`PayloadStore.handle_for`), emptied past ``limit`` bytes kept."""

    def __init__(self, limit: int = 64 << 20) -> None:
        self.limit = limit
        self.size = 0
        self.data: dict[str, bytes] = {}
        self.handles: dict[bytes, Handle] = {}

    def _room(self, n: int) -> None:
        if self.size + n > self.limit:
            self.data.clear()
            self.handles.clear()
            self.size = 0
        self.size += n

    def encode(self, text: str) -> bytes:
        data = self.data.get(text)
        if data is None:
            data = text.encode("utf-8", "surrogatepass")
            self._room(len(data))
            self.data[text] = data
        return data

    def handle(self, data: bytes) -> Handle:
        handle = self.handles.get(data)
        if handle is None:
            handle = PayloadStore.handle_for(data)
            self._room(len(data))
            self.handles[data] = handle
        return handle


CONTENT_MEMO = _ContentMemo()


class _MemoryBlobs:
    """The payload bytes by sha256: the interface :class:`PayloadStore` uses of its
    pack files (``get``, ``has``, ``append``, ``shas``, ``close``)."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    def get(self, sha: str, shown: str) -> bytes | None:
        return self.blobs.get(sha)

    def has(self, sha: str) -> bool:
        return sha in self.blobs

    def append(self, sha: str, data: bytes) -> None:
        self.blobs.setdefault(sha, bytes(data))

    def shas(self) -> list[str]:
        return list(self.blobs)

    def close(self) -> None:
        pass


class MemoryPayloadStore(PayloadStore):
    """A content-addressed payload store in a dict: the durable store's handles,
    lexical path checks and verified reads, without files. ``root`` is only a name
    (the ``payloads`` folder the agent is shown); nothing is created."""

    def __init__(self, root: Path | str, sync: bool = False, guard=None,
                 read_only: bool = False, pack_below: int = PACK_BELOW):
        self.root = Path(root)
        self.sync = False
        self.guard = guard
        self.pack_below = pack_below
        self.packs = _MemoryBlobs()
        self._last: tuple[bytes, Handle] | None = None  # (bytes, handle_for(bytes))

    def handle_for(self, data: bytes) -> Handle:
        """The handle ``data`` gets in any store; the last one is kept, since a
        registration asks for it and then puts the same bytes object."""
        last = self._last
        if last is not None and last[0] is data:
            return last[1]
        handle = CONTENT_MEMO.handle(bytes(data))
        self._last = (data, handle)
        return handle

    def put(self, data: bytes) -> Handle:
        """Keep ``data`` and return its handle; idempotent."""
        if self.guard is not None:
            self.guard()
        handle = self.handle_for(data)
        self.packs.append(handle.sha256, data)
        return handle

    def _file(self, sha: str, shown: str) -> None:
        return None  # no payload has a file of its own

    def _load(self, sha: str, shown: str, length: int | None = None) -> bytes:
        data = self.packs.get(sha, shown)
        if data is None:
            raise HandleError(f"no payload at {shown!r}")
        if length is not None and len(data) != length:
            raise CorruptPayloadError(f"payload {shown!r} is corrupt: {len(data)} "
                                      f"bytes, expected {length}")
        return data

    def exists(self, handle: Handle) -> bool:
        """True if the payload is held."""
        return self.packs.has(handle.sha256)

    def remove(self, handle: Handle) -> None:
        """Forget a payload the durable store keeps as a file (PACK_BELOW bytes or
        more); a smaller one stays, as its pack record would."""
        data = self.packs.blobs.get(handle.sha256)
        if data is not None and len(data) >= self.pack_below:
            del self.packs.blobs[handle.sha256]

    def files(self) -> Iterator[str]:
        """Payloads held as files: none."""
        return iter(())


class MemoryJournal:
    """The operations of a scratch workspace, in order, in a list (``entries``)."""

    def __init__(self, path: Path | str, sync: bool = False, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self.torn = None
        self.entries: list[dict[str, Any]] = []

    def append(self, entry: dict[str, Any]) -> None:
        self.entries.append(entry)

    def close(self) -> None:
        pass


class _NoLock:
    """A scratch workspace belongs to the one process that made it: no lock file."""

    owner = None

    def check(self, token: object) -> None:
        pass

    def release(self, token: object) -> None:
        pass


def scratch_workspace(options: WorkspaceOptions | None = None, **settings: Any):
    """A :class:`ScratchWorkspace` under a fixed, never-written directory name
    (nothing is created beside the directory itself); ``options`` or keyword
    ``settings`` as for :class:`~sim.workspace.Workspace` (``sync`` is ignored)."""
    import tempfile

    directory = Path(tempfile.gettempdir()) / "ctxsim-scratch"
    return ScratchWorkspace(directory, options, **settings)


class FrameCachingAssembler(Assembler):
    """The assembler with the request's frame (system message and tool schemas, made
    wire-safe) kept between requests while the prompt and tools are the same
    objects; everything else is :class:`~sim.workspace.assembly.Assembler`'s."""

    def __init__(self, ws: "Workspace", dashboard: str):
        super().__init__(ws, dashboard)
        self._frame_cache: tuple | None = None

    def _frame(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        ws = self.ws
        key = (ws.system_prompt, id(ws.tools), len(ws.tools))
        if self._frame_cache is None or self._frame_cache[0] != key:
            self._frame_cache = (key, *super()._frame())
        return self._frame_cache[1], list(self._frame_cache[2])


class ScratchWorkspace(Workspace):
    """A :class:`~sim.workspace.Workspace` whose payloads and journal live in memory
    (see the module doc). Checkpoints and closing write nothing."""

    store_class = MemoryPayloadStore
    journal_class = MemoryJournal

    def __init__(self, directory: str | Path, options: WorkspaceOptions | None = None,
                 **settings: Any):
        options = replace(WorkspaceOptions.given(options, settings), sync=False)
        super().__init__(directory, options)
        from .incremental import DirtyVersions

        self.versions = DirtyVersions(self.versions)

    def _make_assembler(self, dashboard: str):
        from .incremental import IncrementalAssembler  # it builds on this module

        return IncrementalAssembler(self, dashboard)

    def _acquire_lock(self) -> tuple[Any, Any]:
        return _NoLock(), object()  # one process owns it: no lock file

    @staticmethod
    def _encode(text: str) -> bytes:
        """The text's bytes, one object per text (:data:`CONTENT_MEMO`)."""
        return CONTENT_MEMO.encode(text)

    def _measure_with(self, op: dict[str, Any], data: bytes) -> int:
        """The what-if measure; its request is kept, and is the next request when
        ``op`` is the operation committed next (:meth:`IncrementalAssembler.tried`)."""
        total = super()._measure_with(op, data)
        self.assembler.tried(op)
        return total

    def _checkpoint(self) -> None:
        self.checkpointed_lines = self.journal_lines  # the journal is the memory itself

    def _reserve(self, bound: int) -> None:
        self._reserved = bound  # nothing survives the process: no bound to record
