"""The scratch workspace (sim.workspace.memory): the durable workspace's operations,
requests and errors, with payloads and journal in memory and nothing on disk."""

import pytest

from sim.workspace import Workspace
from sim.workspace.errors import CorruptPayloadError, DeletedHandleError, HandleError
from sim.workspace.memory import MemoryPayloadStore, ScratchWorkspace
from sim.workspace.packs import PACK_BELOW
from sim.workspace.store import PayloadStore


def _session(ws):
    """Every context operation an episode uses, and a refused recovery."""
    ws.register({"role": "user", "content": "task"}, pinned=True)
    out = []
    for i in range(4):
        ws.register({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "read", "arguments": f'{{"i": {i}}}'}}]})
        ws.register({"role": "tool", "tool_call_id": f"c{i}",
                     "content": f"result {i}\n" + "x" * (PACK_BELOW + 10 * i)})
        out.append(ws.assemble(strict=False).to_openai())
    ws.archive("B2-B3", "first read")
    ws.archive("B5", "second")
    ws.delete("B6-B7", "gone")
    out.append(ws.recover("G1").content)
    out.append(ws.read_payload(ws.blocks["B5"].handle))
    with pytest.raises(DeletedHandleError):
        ws.recover("B7")
    out.append(ws.assemble(strict=False).to_openai())
    return out


def _state(ws):
    """The in-memory state (the snapshot without the journal file and store files)."""
    return ({k: (b.type, b.data, b.tokens, b.turn, b.parent, b.level, b.status, b.handle,
                 b.message, b.recovered_from, b.call_block, b.replacement, b.reason)
             for k, b in ws.blocks.items()},
            {k: (g.members, g.handle, g.replacement, g.status, g.tokens)
             for k, g in ws.groups.items()},
            dict(ws.group_of), ws.turn, dict(ws.state.refs), list(ws.top))


def test_same_requests_as_the_durable_workspace(tmp_path):
    durable = Workspace(tmp_path / "d", budget=100_000, sync=False, strict=False)
    scratch = ScratchWorkspace(tmp_path / "s", budget=100_000, strict=False)
    assert _session(scratch) == _session(durable)
    assert _state(scratch) == _state(durable)
    assert len(scratch.journal.entries) == durable.journal_lines == scratch.journal_lines
    for ws in (durable, scratch):
        ws.close()
    assert [p.name for p in (tmp_path / "s").iterdir()] == []   # nothing written


def test_store_reads_verified_and_removes_like_files():
    store, durable_handle = MemoryPayloadStore("payloads"), PayloadStore.handle_for
    big, small = b"b" * PACK_BELOW, b"small"
    h_big, h_small = store.put(big), store.put(small)
    assert (h_big, h_small) == (durable_handle(big), durable_handle(small))
    # the kept last handle answers only for that very bytes object
    other = bytes(bytearray(b"other"))
    assert store.handle_for(other) == durable_handle(other)
    assert store.handle_for(small) == durable_handle(small)
    assert store.handle_for(bytes(bytearray(b"other"))) == durable_handle(b"other")
    assert store.read(h_big) == big and store.read_path("payloads/" + h_small.path) == small
    with pytest.raises(CorruptPayloadError):
        store.read(type(h_big)(h_big.path, h_big.length + 1, h_big.sha256))
    store.remove(h_big)
    store.remove(h_small)      # a packed payload stays, as in its pack file
    with pytest.raises(HandleError):
        store.read(h_big)
    assert store.read(h_small) == small and not list(store.files())


def test_the_content_memo_is_encode_and_handle_for_and_bounded():
    """A scratch workspace's text bytes and handles (issue 35) equal str.encode and
    PayloadStore.handle_for, are one object per text (later registrations hash
    nothing again), and the memo empties past its byte limit."""
    from sim.workspace.memory import CONTENT_MEMO, ScratchWorkspace, _ContentMemo
    from sim.workspace.store import PayloadStore

    for text in ["", "a result\n" * 50, "é✓\ud800 lone surrogate"]:
        data = ScratchWorkspace._encode(text)
        assert data == text.encode("utf-8", "surrogatepass")
        assert ScratchWorkspace._encode(str(text)) is data
        assert CONTENT_MEMO.handle(data) == PayloadStore.handle_for(data)
    small = _ContentMemo(limit=10)
    first = small.encode("123456")
    assert small.encode("123456") is first
    small.encode("abcdefgh")  # past the limit: emptied first
    assert list(small.data) == ["abcdefgh"]
