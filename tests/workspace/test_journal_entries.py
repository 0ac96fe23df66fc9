"""Each check of :func:`sim.workspace.journal.check_entry` on both sides (issue 38):
a journal line whose checksum is right but whose contents do not apply to the
workspace is refused with a message naming the op, the field and what was
expected; the nearest line that does apply passes. The fuzz harness
(tests/workspace/harness/fuzz.py) asks only that some named error is raised; the
first mutmut run over journal.py with the journal's test files showed that a
wrong comparison or field name there passed every test."""

from __future__ import annotations

import copy
import zlib

import pytest

from sim.workspace.journal import _kind_ok, check_entry, decode_line, encode_line
from sim.workspace.workspace import Workspace

SHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
HANDLE = {"path": f"{SHA[:2]}/{SHA}", "length": 5, "sha256": SHA}


@pytest.fixture
def ws(tmp_path):
    """B1 a user message, B2 a tool call (id c1), B3 its result; B1 archived on its
    own, B2 pinned. The next block id is B4 and the next group G1."""
    w = Workspace(tmp_path / "w", tokenizer="char", sync=False)
    w.register({"role": "user", "content": "hello"})
    w.register({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    w.register({"role": "tool", "tool_call_id": "c1", "content": "result text"})
    w.archive("B1")
    w.pin("B2")
    yield w
    w.close()


def register(**changes):
    entry = {"op": "register", "id": "B4", "type": "user_message", "turn": 1, "tokens": 8,
             "status": "visible", "message": {"role": "user"}, "handle": dict(HANDLE),
             "call_block": None, "recovered_from": None}
    entry.update(changes)
    return entry


def result(**changes):
    fields = {"type": "tool_result", "message": {"role": "tool", "tool_call_id": "c1"},
              "call_block": "B2"}
    return register(**{**fields, **changes})


GOOD = [
    {"op": "init", "version": 0, "tokenizer": "char"},
    {"op": "turn", "turn": 0},
    {"op": "ids", "next": 7},
    register(),
    register(tokens=0, turn=0),
    result(),
    register(type="tool_call", message={"role": "assistant", "tool_calls": [{"id": "c9"}]}),
    {"op": "archive", "items": ["B3"], "group": None, "replacement": "", "handle": HANDLE},
    {"op": "archive", "items": ["B2", "B3"], "group": "G1", "replacement": "",
     "handle": HANDLE},
    {"op": "delete", "blocks": ["B3"], "groups": [], "reason": ""},
    {"op": "delete", "blocks": ["B3"], "groups": [], "reason": "x" * 60},   # not cut
    {"op": "expand", "group": "B1"},
    {"op": "pin", "ids": ["B3"]},
    {"op": "unpin", "ids": ["B2"]},
]


@pytest.mark.parametrize("entry", GOOD, ids=lambda e: e["op"])
def test_an_entry_that_applies_passes(ws, entry):
    check_entry(ws, copy.deepcopy(entry))


BAD = [
    ({"op": "nope"}, "unknown op 'nope'"),
    ({"op": 7}, "unknown op 7"),
    ({"op": ["register"]}, "unknown op ['register']"),     # unhashable: still named
    ({"version": 2}, "unknown op None"),
    ({"op": "turn", "turn": -1}, "turn field 'turn' should be a count, got -1"),
    ({"op": "turn", "turn": True}, "turn field 'turn' should be a count, got True"),
    ({"op": "turn", "turn": "3"}, "turn field 'turn' should be a count, got '3'"),
    ({"op": "turn"}, "turn field 'turn' should be a count, got None"),
    ({"op": "ids", "next": 1.0}, "ids field 'next' should be a count, got 1.0"),
    ({"op": "init", "version": 2, "tokenizer": 3},
     "init field 'tokenizer' should be a string, got 3"),
    ({"op": "pin", "ids": "B2"}, "pin field 'ids' should be a list, got 'B2'"),
    ({"op": "restore", "state": []}, "restore field 'state' should be an object, got []"),
    ({"op": "turn", "turn": "y" * 60},          # the value's repr cut at 40 characters
     "turn field 'turn' should be a count, got '" + "y" * 39),
    (register(handle=dict(HANDLE, sha256=SHA.upper(),
                          path=f"{SHA.upper()[:2]}/{SHA.upper()}")), "malformed"),
    (register(handle=dict(HANDLE, sha256=SHA[:-1])), "malformed"),
    (register(handle=dict(HANDLE, path=f"{SHA[:3]}/{SHA}")), "malformed"),
    (register(handle=dict(HANDLE, path=SHA)), "malformed"),
    (register(handle=dict(HANDLE, length=-1)), "malformed"),
    (register(handle=dict(HANDLE, length="5")), "malformed"),
    (register(handle={"path": HANDLE["path"], "length": 5}), "malformed"),
    (register(id="B5"), "register id 'B5' is not the next id B4"),
    (register(id="B3"), "register id 'B3' is not the next id B4"),
    (register(type="nonsense"), "'nonsense' is not a valid BlockType"),
    (register(status="gone"), "'gone' is not a valid BlockStatus"),
    (result(call_block="B1"), "register B4 answers unknown call 'c1'"),
    (result(call_block="B9"), "register B4 answers unknown call 'c1'"),
    (result(message={"role": "tool", "tool_call_id": "c2"}),
     "register B4 answers unknown call 'c2'"),
    (register(message={"role": "assistant", "tool_calls": ["c9"]}),
     "register B4 has a malformed tool call"),
    (register(message={"role": "assistant", "tool_calls": [{"id": 9}]}),
     "register B4 has a malformed tool call"),
    ({"op": "archive", "items": ["B9"], "group": None, "replacement": "", "handle": HANDLE},
     "archive names unknown block or group 'B9'"),
    ({"op": "archive", "items": [3], "group": None, "replacement": "", "handle": HANDLE},
     "archive names unknown block or group 3"),
    ({"op": "archive", "items": ["B2", "B3"], "group": "G2", "replacement": "",
      "handle": HANDLE}, "archive group 'G2' is not the next id G1"),
    ({"op": "archive", "items": ["B2", "B3"], "group": None, "replacement": "",
      "handle": HANDLE}, "a single archive names one block"),
    ({"op": "archive", "items": [], "group": None, "replacement": "", "handle": HANDLE},
     "a single archive names one block"),
    ({"op": "delete", "blocks": ["B3"], "groups": ["G7"], "reason": ""},
     "delete names unknown block or group 'G7'"),
    ({"op": "delete", "blocks": ["B8"], "groups": [], "reason": ""},
     "delete names unknown block or group 'B8'"),
    ({"op": "expand", "group": "G3"}, "expand names unknown block or group 'G3'"),
    ({"op": "pin", "ids": ["B2", "B4"]}, "pin names unknown block or group 'B4'"),
    ({"op": "unpin", "ids": ["X"]}, "unpin names unknown block or group 'X'"),
    ({"op": "restore", "state": {}},
     "a restore line after blocks were registered (it follows the init line only)"),
]


@pytest.mark.parametrize("entry, message", BAD)
def test_an_entry_that_does_not_apply_is_refused_naming_what_is_wrong(ws, entry, message):
    with pytest.raises(ValueError) as info:
        check_entry(ws, entry)
    text = str(info.value)
    if message == "malformed":       # the handle's repr, cut at 80 characters
        assert text == "register handle " + repr(entry["handle"])[:80] + " is malformed"
    else:
        assert text == message


def test_a_restore_line_applies_only_to_an_empty_workspace(tmp_path):
    w = Workspace(tmp_path / "w", tokenizer="char", sync=False)
    check_entry(w, {"op": "restore", "state": {}})
    w.close()


def test_kind_ok_at_zero_and_for_each_kind():
    assert _kind_ok(0, "a count") and not _kind_ok(-1, "a count")
    assert not _kind_ok(False, "a count") and not _kind_ok(0.0, "a count")
    assert _kind_ok("", "a string") and _kind_ok([], "a list") and _kind_ok({}, "an object")
    assert not _kind_ok({}, "a list") and not _kind_ok([], "an object")


def test_lines_round_trip_and_damage_is_named():
    entry = {"op": "turn", "turn": 3, "text": "é"}
    line = encode_line(entry)
    assert line.endswith(b"\n") and line[8:9] == b" " and b"\\u00e9" in line
    assert decode_line(line[:-1]) == entry
    assert decode_line(b'{"op": "turn", "turn": 3}') == {"op": "turn", "turn": 3}  # version 1
    for bad, why in [(line[:9], "no checksum"), (b"0" * 8 + b"x{}", "no checksum"),
                     (b"00000000 {}", "checksum mismatch"),
                     (b"%08x [1]" % zlib.crc32(b"[1]"), "not a JSON object")]:
        with pytest.raises(ValueError) as info:
            decode_line(bad)
        assert str(info.value) == why
