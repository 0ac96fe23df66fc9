"""Checkpoint format 3 (issue 35): an open from the checkpoint gives the state a
full journal replay gives, without making a block or a derived map until one is
used; a checkpoint written by the release before (format 2) still opens and a
writer rewrites it; the lazy maps behave as the dicts they stand for. No
timings here (experiments/bench/bench_scaling.py --reopen-only)."""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
from hypothesis import given, settings

from sim.workspace import Workspace, checkpoint
from sim.workspace.lazy import LazyBlocks, LazyDict, ShaOverlay, sorted_find

from .test_journal_compat import picture

DATA = Path(__file__).parent.parent / "data" / "checkpoints"


def _maps(ws: Workspace) -> dict:
    """Every map of the state record as plain dicts (derived ones included;
    not ``versions``: cache keys, 0 after any checkpoint open as before)."""
    st = ws.state
    return {"group_of": dict(st.group_of), "call_owner": dict(st.call_owner),
            "results": {k: dict(v) for k, v in st.results.items()},
            "refs": dict(st.refs),
            # blocks before groups after an open (each kind in its own order)
            "by_sha": {k: ([i for i in v if i[0] == "B"], [i for i in v if i[0] == "G"])
                       for k, v in st.by_sha.items()}}



def _migrated(d):
    """The v2 fixture copied to ``d`` and migrated to format 3 by a writer's close;
    returns the checkpoint's header line, the bytes after it, the state JSON's
    length and that JSON decoded (for the forgery tests)."""
    shutil.copytree(DATA / "v2", d)
    Workspace.open(d).close()
    head, _, rest = (d / checkpoint.NAME).read_bytes().partition(b"\n")
    n = int(head.split(b" ")[3])
    return head, rest, n, json.loads(rest[:n])

def test_a_format_2_checkpoint_opens_and_a_writer_rewrites_it(tmp_path):
    d = tmp_path / "ws"
    shutil.copytree(DATA / "v2", d)
    expected = json.loads((DATA / "v2.expected.json").read_text())
    assert (d / checkpoint.NAME).read_bytes().startswith(b"ctxsim-checkpoint 2 ")
    with Workspace.open(d, read_only=True) as ro:
        assert ro.open_notes == ["checkpoint: ok"] and picture(ro) == expected
    with Workspace.open(d) as ws:  # no new line: the close migrates all the same
        assert picture(ws) == expected
    assert (d / checkpoint.NAME).read_bytes().startswith(checkpoint.MAGIC + b" ")
    with Workspace.open(d, read_only=True) as ro:
        assert ro.open_notes == ["checkpoint: ok"]
        assert isinstance(ro.blocks, LazyBlocks) and picture(ro) == expected


def _full(d: Path) -> Workspace:
    from sim.workspace.reopen import reopen

    return reopen(Workspace, d, None, {"sync": False}, read_only=True,
                  use_checkpoint=False)


def test_an_open_makes_no_block_and_no_derived_map(tmp_path):
    d = tmp_path / "ws"
    shutil.copytree(DATA / "v2", d)
    Workspace.open(d).close()  # now format 3
    ro = Workspace.open(d, read_only=True)
    # made: only B12, whose 20,000 bytes are over the inline limit (read at open)
    assert [b.id for b in ro.blocks.made()] == ["B12"] and ro.blocks.left == 13
    for m in (ro.state.call_owner, ro.state.group_of):
        assert isinstance(m, LazyDict) and m._fill is not None
    for m in (ro.state.refs, ro.state.by_sha, ro.state.results):
        assert isinstance(m, ShaOverlay) and m.changed == {}
    full = _full(d)
    assert ro.snapshot() == full.snapshot() and _maps(ro) == _maps(full)


# ---------------------------------------------------------------- equivalence
OPS = st.lists(st.tuples(st.sampled_from(["call", "result", "user", "turn", "archive",
                                          "archive1", "recover", "expand", "delete",
                                          "pin", "reopen"]),
                         st.integers(0, 10_000)), max_size=45)


def _step(ws: Workspace, kind: str, k: int, calls: list[str]) -> None:
    """One operation of a random session (an invalid one is skipped)."""
    from sim.workspace.errors import WorkspaceError

    top = list(ws.top)
    try:
        if kind == "call" or kind == "result" and not calls:
            cid = f"c{len(ws.blocks)}-{k}"
            ws.register({"role": "assistant", "content": "x" * (k % 7), "tool_calls": [
                {"id": cid, "type": "function",
                 "function": {"name": "f", "arguments": '{"k":%d}' % k}}]})
            calls.append(cid)
        elif kind == "result":
            data = ("r%d " % k) * (k % 40) if k % 9 else b"\xff raw %d" % k
            ws.register({"role": "tool", "tool_call_id": calls.pop(k % len(calls)),
                         "content": data if k % 13 else "big " * 6000})
        elif kind == "user":
            ws.register({"role": "user", "content": f"same text {k % 3}"})
        elif kind == "turn":
            ws.next_turn()
        elif kind in ("archive", "archive1") and top:
            n = 1 if kind == "archive1" else 2 + k % 3
            ws.archive(",".join(top[:n]), f"idx {k}")
        elif kind == "recover" and top:
            ws.recover(top[k % len(top)])
        elif kind == "expand" and top:
            ws.expand(top[k % len(top)])
        elif kind == "delete" and top:
            ws.delete(top[k % len(top)], f"gone {k}")
        elif kind == "pin" and top:
            ws.pin(top[k % len(top)])
    except WorkspaceError:
        pass


@settings(max_examples=30, deadline=None)
@given(before=OPS, after=OPS)
def test_a_checkpoint_open_equals_a_full_replay_before_and_after_more_operations(
        tmp_path_factory, before, after):
    d = tmp_path_factory.mktemp("ck") / "ws"
    ws = Workspace(d, budget=None, sync=False, guard_threshold=60)
    calls: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind, k in before:
            _step(ws, kind, k, calls)
        ws.close()
        lazy = Workspace.open(d, sync=False)  # a writer over the format-3 table
        full = _full(d)
        assert lazy.open_notes == ["checkpoint: ok"]
        assert lazy.snapshot() == full.snapshot() and _maps(lazy) == _maps(full)
        for kind, k in after:  # the lazy maps changed in place, as dicts are
            if kind == "reopen":
                lazy.close()
                lazy = Workspace.open(d, sync=False)
                continue
            _step(lazy, kind, k, list(calls))
        snap, maps = lazy.snapshot(), _maps(lazy)
        lazy.close()
        full = _full(d)
        assert snap == full.snapshot() and maps == _maps(full)
        again = Workspace.open(d, read_only=True)
        assert again.snapshot() == snap and _maps(again) == maps


# ---------------------------------------------------------------- the lazy maps
KEYS = [hashlib.sha256(bytes([i])).hexdigest() for i in range(6)] + ["00" * 32]


@settings(max_examples=60, deadline=None)
@given(base=st.lists(st.sampled_from(KEYS), max_size=8),
       ops=st.lists(st.tuples(st.sampled_from(["get", "set", "pop", "del", "default",
                                               "in", "append"]),
                              st.sampled_from(KEYS + ["zz", "ab" * 40])), max_size=30))
def test_a_sha_overlay_behaves_as_the_dict_it_stands_for(base, ops):
    """Against a plain dict of sha -> list of row numbers (what by_sha holds)."""
    table = np.array(sorted(bytes.fromhex(k) for k in base), "S32")
    model: dict[str, list[int]] = {}
    for i, k in enumerate(sorted(base)):
        model.setdefault(k, []).append(i)

    def lookup(key):
        lo, hi = sorted_find(table, key)
        return list(range(lo, hi)) or None

    over = ShaOverlay(lookup, lambda: (r.ljust(32, b"\0").hex() for r in table.tolist()))
    for op, key in ops:
        if op == "get":
            assert over.get(key) == model.get(key)
        elif op == "set":
            over[key] = model[key] = [99]
        elif op == "pop":
            assert over.pop(key, None) == model.pop(key, None)
        elif op == "del" and key in model:
            del over[key], model[key]
        elif op == "default":
            assert over.setdefault(key, [7]) == model.setdefault(key, [7])
        elif op == "in":
            assert (key in over) == (key in model)
        elif op == "append" and key in model:
            over[key].append(5)
            model[key].append(5)
    assert dict(over) == model and len(over) == len(model)
    assert json.loads(json.dumps(over)) == model  # json asks for its items


def test_lazy_blocks_keep_id_order_whatever_is_made_first():
    made = []
    nums = np.array([1, 2, 5, 9], np.int64)
    blocks = LazyBlocks(nums, lambda row: made.append(row) or f"block{nums[row]}")
    assert "B5" in blocks and "B3" not in blocks and "B05" not in blocks
    assert blocks["B9"] == "block9" and blocks.get("B2") == "block2" and made == [3, 1]
    assert blocks.get("B4") is None and len(blocks) == 4 and blocks.left == 2
    blocks["B10"] = "new"
    assert len(blocks) == 5 and list(blocks) == ["B1", "B2", "B5", "B9", "B10"]
    assert sorted(made) == [0, 1, 2, 3] and blocks["B9"] == "block9"  # made once
    assert blocks.pop("B10") == "new" and len(blocks) == 4


def test_a_lazy_dict_fills_once_and_json_sees_its_items():
    filled = []
    d = LazyDict(lambda m: (filled.append(1), dict.update(m, {"a": 1})))
    assert json.dumps(d) == '{"a": 1}' and filled == [1]
    d["b"] = 2
    assert dict(d) == {"a": 1, "b": 2} and {**d} == {"a": 1, "b": 2} and filled == [1]


def test_a_checkpoint_whose_sections_do_not_add_up_is_not_used(tmp_path):
    """A forgery with a valid sha256 but a block table longer than the file:
    a clear note and a full replay that loses nothing."""
    d = tmp_path / "ws"
    expected = json.loads((DATA / "v2.expected.json").read_text())
    head, rest, n, meta = _migrated(d)
    meta["blocks"] += 1
    body = json.dumps(meta).encode() + rest[n:]
    (d / checkpoint.NAME).write_bytes(b"%s %s %d\n" % (
        checkpoint.MAGIC, hashlib.sha256(body).hexdigest().encode(),
        len(body) - len(rest) + n) + body)
    ro = Workspace.open(d, read_only=True)
    assert ro.open_notes == ["checkpoint: checkpoint unreadable"]
    assert picture(ro) == expected


def test_every_block_field_survives_the_table_whatever_its_shape():
    """:func:`~sim.workspace.columns.encode` then ``Table.make`` give back each
    block field for field, the shapes a row cannot hold included (a message not
    led by its role, calls its bytes do not give back, ids in no canonical form)."""
    from types import SimpleNamespace

    from sim.workspace.blocks import Block, BlockStatus, BlockType
    from sim.workspace.columns import ROW, Table, encode
    from sim.workspace.messages import encode_call_message
    from sim.workspace.store import PayloadStore

    calls = [{"id": "c1", "type": "function", "function": {"name": "f",
                                                           "arguments": "{}"}}]
    call_data = encode_call_message("hi", calls)
    shapes = [
        (BlockType.TOOL_CALL, call_data, {"role": "assistant", "tool_calls": calls}, {}),
        (BlockType.TOOL_CALL, b"old bytes", {"role": "assistant", "tool_calls": calls},
         {}),  # a journal from before calls were stored: kept whole
        (BlockType.TOOL_RESULT, b"\xff\x00raw", {"role": "tool", "tool_call_id": "c1",
                                                 "name": "n"},
         {"parent": "G7", "call_block": "B1", "level": 2,
          "status": BlockStatus.ARCHIVED}),
        (BlockType.NOTE, b"n", {"name": "x", "role": "user"},  # role not first
         {"recovered_from": "G12", "replacement": "idx", "parent": "weird id"}),
        (BlockType.USER_MESSAGE, b"gone", {"role": "user"},
         {"status": BlockStatus.DELETED, "reason": "why", "call_block": "B007"}),
        (BlockType.SYSTEM, b"s" * 20_000, {"role": "system"}, {"tokens": 1 << 40}),
        (BlockType.SUMMARY, b"", {"role": "odd-role"}, {"turn": 9}),
        (BlockType.TOOL_RESULT, b"s", {"role": "tool", "tool_call_id": "c\ud800"},
         {"replacement": "lone \udfff surrogate"}),  # orjson refuses these: json
    ]
    blocks = {}
    for i, (btype, data, msg, more) in enumerate(shapes, start=1):
        b = Block(id=f"B{i * 3}", type=btype, data=data, tokens=more.pop("tokens", i),
                  turn=more.pop("turn", 1), message=msg,
                  handle=PayloadStore.handle_for(data), **more)
        blocks[b.id] = b
    ws = SimpleNamespace(blocks=blocks, corrupt={})
    rows, order, extras, blob, calls_json = encode(ws, 16_384)
    table = Table(np.frombuffer(rows, ROW), memoryview(extras), memoryview(blob),
                  memoryview(calls_json), None, np.frombuffer(order, "<i4"))
    for row, b in enumerate(blocks.values()):
        got = table.make(row)
        want = b if b.status is not BlockStatus.DELETED and len(b.data) <= 16_384 \
            else Block(**dict(b.__dict__, data=b""))  # no copy: the store's bytes
        assert got == want and list(got.message) == list(b.message), b.id
    assert np.frombuffer(rows, ROW)["flags"][1] == 2  # has calls, kept whole


def test_a_forged_row_order_is_checked_before_any_lookup(tmp_path):
    """The order by sha256 the checkpoint stores is not trusted: a swap (with a
    fresh, valid sha256 over the file) is found and the rows are sorted again."""
    d = tmp_path / "ws"
    head, rest, n, meta = _migrated(d)
    at = n + meta["pack_index_bytes"] + meta["sections"][0]
    body = bytearray(rest)
    order = np.frombuffer(body, "<i4", count=meta["blocks"], offset=at)
    order[[0, -1]] = order[[-1, 0]]
    (d / checkpoint.NAME).write_bytes(b"%s %s %d\n" % (
        checkpoint.MAGIC, hashlib.sha256(body).hexdigest().encode(), n) + bytes(body))
    ro = Workspace.open(d, read_only=True)
    assert ro.open_notes == ["checkpoint: ok"]
    assert _maps(ro) == _maps(_full(d))


def test_a_row_out_of_range_is_found_at_the_open_not_at_first_access(tmp_path):
    """A forged type code (fresh, valid sha256 over the file): the open names the
    checkpoint unreadable and replays the journal; nothing is lost."""
    from sim.workspace.columns import ROW

    d = tmp_path / "ws"
    expected = json.loads((DATA / "v2.expected.json").read_text())
    head, rest, n, meta = _migrated(d)
    body = bytearray(rest)
    rows = np.frombuffer(body, ROW, count=meta["blocks"], offset=n + meta["pack_index_bytes"])
    rows["type"][3] = 200
    (d / checkpoint.NAME).write_bytes(b"%s %s %d\n" % (
        checkpoint.MAGIC, hashlib.sha256(body).hexdigest().encode(), n) + bytes(body))
    ro = Workspace.open(d, read_only=True)
    assert ro.open_notes == ["checkpoint: checkpoint unreadable"]
    assert picture(ro) == expected


def test_a_block_id_the_table_cannot_hold_skips_the_checkpoint_by_name():
    """Only a hand-made journal has one; the checkpoint is an accelerator."""
    import pytest
    from types import SimpleNamespace

    from sim.workspace.blocks import Block, BlockType
    from sim.workspace.columns import Unwritable, encode
    from sim.workspace.store import PayloadStore

    b = Block(id="B01", type=BlockType.NOTE, data=b"x", tokens=1, turn=0,
              message={"role": {}}, handle=PayloadStore.handle_for(b"x"))
    with pytest.raises(Unwritable, match="'B01' is not of the form B<n>"):
        encode(SimpleNamespace(blocks={"B01": b}, corrupt={}), 16_384)
