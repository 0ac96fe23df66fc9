"""Shared checks for the workspace tests (invariants 3, 4 and 8), a small
workspace with guard-offloaded results, and the SIGINT reset for child processes."""

from __future__ import annotations

import re
import signal

from sim.workspace import BlockStatus, Workspace, validate_chat_request
from sim.workspace.dashboard import MESSAGE_TOKENS


def check_lossless(ws: Workspace, expected: dict[str, bytes] | None = None) -> None:
    """Every live block's payload reads back byte-exact (sha256-checked)."""
    for b in ws.blocks.values():
        if b.status is BlockStatus.DELETED:
            continue
        data = ws.store.read(b.handle)
        assert data == b.data
        if expected is not None:
            assert data == expected[b.id], b.id
    for g in ws.groups.values():
        if g.status == "archived":  # an expanded group's members may be gone since
            assert ws.read_payload(g.handle) == ws.transcript(g.members)


def check_request(ws: Workspace) -> None:
    """The soft-assembled request is valid and its dashboard tells the truth."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        req = ws.assemble(strict=False)
        fresh = ws.assemble(strict=False, incremental=False)
    validate_chat_request(req.to_openai())
    assert req.messages == fresh.messages
    assert (req.overhead, req.conversation, req.dashboard) == \
        (fresh.overhead, fresh.conversation, fresh.dashboard)
    if req.dashboard_text:
        assert req.dashboard == MESSAGE_TOKENS + ws.tokenizer.count(req.dashboard_text)
        if ws.assembler.dashboard.name == "ledger":
            m = re.search(r"\(~([\d,]+)(?: / ([\d,]+) tokens\)| tokens, no budget\))\n"
                          r"overhead ~([\d,]+) \| conversation ~([\d,]+) \| "
                          r"dashboard ~([\d,]+)", req.dashboard_text)
            num = [int(x.replace(",", "")) if x else None for x in m.groups()]
            assert num == [req.total, ws.budget, req.overhead, req.conversation,
                           req.dashboard]
    return req


def with_offloads(path) -> Workspace:
    """B1 task (pinned), B2 call a+b, B3 small result (visible), B4 big result
    (offloaded by the guard), B5 call c, B6 big result (offloaded), B7 text."""
    ws = Workspace(path, budget=3000, guard_threshold=300, sync=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    fn = {"name": "cat", "arguments": "{}"}
    ws.register({"role": "assistant", "content": "", "tool_calls": [
        {"id": i, "type": "function", "function": fn} for i in ("a", "b")]})
    ws.register({"role": "tool", "tool_call_id": "a", "content": "ok " * 50})
    ws.register({"role": "tool", "tool_call_id": "b", "content": b"row\xff\n" * 400})
    ws.register({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function", "function": fn}]})
    ws.register({"role": "tool", "tool_call_id": "c", "content": "col\n" * 500})
    ws.register({"role": "assistant", "content": "Found it."})
    assert [ws.blocks[b].status for b in ("B4", "B6")] == [BlockStatus.OFFLOADED] * 2
    return ws



def payload_span(ws: Workspace, handle) -> tuple:
    """(file, offset, length) of the bytes that hold ``handle``'s payload on disk:
    its own file, or its record in a pack (after a header of ``packs.HEADER``
    bytes). For tests that damage real files."""
    from sim.workspace.packs import HEADER  # noqa: F401  (documented above)

    own = ws.store.root / handle.path
    if own.is_file():
        return own, 0, handle.length
    assert ws.store.packs.has(handle.sha256), handle.path
    name, offset, length = ws.store.packs.index[handle.sha256][-1]
    return ws.store.packs.dir / name, offset, length


def flip_byte(path, offset: int, mask: int = 0x20) -> None:
    """XOR one byte of the file ``path`` at ``offset`` in place."""
    with open(path, "r+b") as fh:
        fh.seek(offset)
        byte = fh.read(1)
        fh.seek(offset)
        fh.write(bytes([byte[0] ^ mask]))


def default_sigint() -> None:
    """In the child before exec: SIGINT back to its default action. A shell's
    background job (``cmd &`` without job control) starts with SIGINT ignored, and an
    ignored SIGINT survives exec, so the Ctrl-C these tests send would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
