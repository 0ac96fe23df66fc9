"""Journals written before :mod:`sim.workspace.ops` became one function per
operation still replay, and the journal written today is the same bytes.

``tests/data/journals/d730ccc/`` was written by the code at commit d730ccc (before
the state record) with :func:`write_session`, which uses all eight journal
operations (init, register, turn, archive of one block and of groups, delete of
blocks and groups, expand, pin, unpin), offloaded and raw-byte blocks included;
``d730ccc.expected.json`` is that code's picture of the final state. No checkpoint
was kept, so an open replays every line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sim.workspace import BlockStatus, GroupStatus, Workspace

DATA = Path(__file__).parent.parent / "data" / "journals"


def write_session(ws: Workspace) -> None:
    """The session the fixture holds (do not change: the bytes are compared)."""
    ws.register({"role": "user", "content": "the task"}, pinned=True)
    ws.register({"role": "assistant", "content": "looking", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]})
    ws.register({"role": "tool", "tool_call_id": "c1", "content": "file " * 80})
    ws.register({"role": "assistant", "content": "next step"})
    ws.next_turn()
    ws.register({"role": "user", "content": b"raw \xff bytes"})
    ws.register({"role": "assistant", "content": "note to self"})
    ws.archive("B4", "one block")
    ws.archive("B2,B3,B5", "first bundle")
    ws.register({"role": "assistant", "content": "more"})
    ws.register({"role": "user", "content": "more user"})
    ws.archive("B7,B8", "second bundle")
    ws.archive("G1,G2", "coarser")
    ws.expand("G3")
    ws.recover("B4")
    ws.pin("B6")
    ws.unpin("B6")
    ws.delete("G2", "stale")
    ws.delete("B6", "gone")
    ws.register({"role": "user", "content": "the end"})


def picture(ws: Workspace) -> dict:
    """The state as the fixture's expected.json records it (JSON types)."""
    snap = {"blocks": {k: [b.type.value, b.data.hex(), b.tokens, b.turn, b.parent,
                           b.level, b.status.value, b.handle.to_json(), b.message,
                           b.recovered_from, b.call_block, b.replacement, b.reason]
                       for k, b in ws.blocks.items()},
            "groups": {k: [g.members, g.handle.to_json(), g.replacement, g.turn, g.level,
                           g.parent, str(g.status), g.tokens, g.first]
                       for k, g in ws.groups.items()},
            "group_of": ws.group_of, "turn": ws.turn,
            "next": [ws.state.next_block, ws.state.next_group],
            "refs": ws.state.refs, "top": list(ws.top),
            "request_total": ws.assemble().total}
    return json.loads(json.dumps(snap))


def test_a_journal_from_before_the_state_record_replays(tmp_path):
    shutil.copytree(DATA / "d730ccc", tmp_path / "ws")
    expected = json.loads((DATA / "d730ccc.expected.json").read_text())
    with Workspace.open(tmp_path / "ws") as ws:
        assert ws.open_notes[0].startswith("checkpoint: no checkpoint")  # full replay
        assert picture(ws) == expected
        assert ws.groups["G2"].status is GroupStatus.DELETED  # the enum, not a string
        assert ws.groups["G3"].status is GroupStatus.EXPANDED
        assert ws.blocks["B3"].status is BlockStatus.OFFLOADED
    # and again through the checkpoint the close above wrote
    with Workspace.open(tmp_path / "ws", read_only=True) as ws:
        assert ws.open_notes[0] == "checkpoint: ok"
        assert picture(ws) == expected
        assert ws.groups["G1"].status is GroupStatus.ARCHIVED


def test_todays_journal_is_byte_for_byte_the_old_one(tmp_path):
    ws = Workspace(tmp_path / "ws", budget=None, sync=False, guard_threshold=40)
    write_session(ws)
    assert picture(ws) == json.loads((DATA / "d730ccc.expected.json").read_text())
    ws.close()
    assert (tmp_path / "ws" / "journal.jsonl").read_bytes() == \
        (DATA / "d730ccc" / "journal.jsonl").read_bytes()
