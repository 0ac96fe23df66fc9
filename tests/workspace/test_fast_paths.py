"""The episode core's shortcuts (issue 35) against the plain routes they stand in for:
each must give exactly what the plain route gives, for any input, and fall back to
it for input outside the shape the shortcut handles."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from sim.workspace.assembly import _parts_message, message_tokens
from sim.workspace.messages import (_canonical, _canonical_call, encode_call_message,
                                     wire_safe)
from sim.workspace.tokenizer import get_tokenizer

# any text, lone surrogates included (a call id may hold one: sim.workspace.messages)
TEXT = st.text(st.characters(blacklist_categories=()), max_size=40)


@settings(max_examples=300, deadline=None)
@given(cid=TEXT, name=TEXT, args=TEXT, ctype=st.sampled_from(["function", "x\u00e9\"\\"]))
def test_canonical_call_equals_sorted_key_dump(cid, name, args, ctype):
    call = {"type": ctype, "id": cid, "function": {"arguments": args, "name": name}}
    assert _canonical_call(call) == json.dumps(
        call, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def test_canonical_call_falls_back_outside_the_cleaned_shape():
    # extra keys, a non-str value, a str subclass, a non-dict: the plain dump
    class S(str):
        pass

    for call in ({"id": "c", "type": "function", "function": {"name": "f",
                                                               "arguments": "{}"},
                  "extra": 1},
                 {"id": 7, "type": "function", "function": {"name": "f", "arguments": "{}"}},
                 {"id": "c", "type": "function", "function": {"name": "f",
                                                               "arguments": {"a": 1}}},
                 {"id": "c", "type": "function", "function": {"name": S("f"),
                                                               "arguments": "{}"}},
                 {"id": "c", "type": "function", "function": ["f", "{}"]}):
        assert _canonical_call(call) == _canonical(call)
    assert _canonical_call(["not", "a", "dict"]) == _canonical(["not", "a", "dict"])


@settings(max_examples=100, deadline=None)
@given(text=TEXT, name=st.one_of(st.none(), TEXT),
       calls=st.lists(st.tuples(TEXT, TEXT, TEXT), max_size=3))
def test_encode_call_message_lines_are_the_sorted_key_dumps(text, name, calls):
    tool_calls = [{"id": c, "type": "function", "function": {"name": n, "arguments": a}}
                  for c, n, a in calls]
    want = (text + "\n=== tool calls (one JSON object per line) ===\n" + "\n".join(
        [_canonical({"name": name} if name else {})] + [_canonical(c) for c in tool_calls]))
    assert encode_call_message(text, tool_calls, name) == want.encode("utf-8",
                                                                      "surrogatepass")


# -- placeholders counted in parts (sim.workspace.assembly._parts_message) ----------

BPE = get_tokenizer("cl100k_base")
# what a replacement may start or end with: spaces, newlines, digits, letters,
# punctuation, contractions, non-ASCII and a lone surrogate
EDGES = st.sampled_from(["", " ", "  ", "\n", "\r\n", " \n", "7", "12,345", "'s", "'S",
                         "]", "[", ";", "ab", "\u00e9", "\u4e2d", "\ud800", "\t", "-"])
REPLACEMENT = st.builds(lambda a, mid, b: a + mid + b, EDGES, TEXT, EDGES)


@settings(max_examples=400, deadline=None)
@given(status=st.sampled_from(["archived", "offloaded_placeholder"]),
       number=st.integers(1, 10**6), tokens=st.integers(0, 10**9),
       btype=st.sampled_from(["tool_result", "tool_call", "user_message", "note"]),
       path=st.one_of(st.text("0123456789abcdef", min_size=64, max_size=64),
                      st.builds(lambda a, b: a + b, EDGES, TEXT)),
       replacement=REPLACEMENT)
def test_placeholder_counted_in_parts_equals_whole(status, number, tokens, btype, path,
                                                    replacement):
    parts = (f"[{status} B{number}: {btype}, ~{tokens:,} tokens;",
             f" payload payloads/{path[:2]}/{path}]",
             f" {replacement}" if replacement else "")
    msg, n = _parts_message(parts, BPE)
    assert msg["role"] == "user"
    assert n == message_tokens(msg, BPE)  # the whole (wire-safe) text counted at once
    assert msg["content"] == wire_safe("".join(parts))
    # a result's placeholder answering its call: the same count, a tool message
    answer, k = _parts_message(parts, BPE, {"role": "tool", "tool_call_id": "c\ud800"})
    assert list(answer) == ["role", "tool_call_id", "content"]
    assert answer["tool_call_id"] == "c\\ud800" and k == n == message_tokens(answer, BPE)


def test_group_placeholder_counted_in_parts_equals_whole():
    for members in ("B2-B13", "B2, B5-B9, G3"):
        for replacement in ("", "  indexed: q4 totals 1,234;", "\n\nB3 search(x) has k"):
            parts = (f"[archived group G7 ({members}), ~5,034 tokens;",
                     " payload payloads/10/105f9235e58fe3876e9be6f006]",
                     f" {replacement}" if replacement else "")
            msg, n = _parts_message(parts, BPE)
            assert n == message_tokens(msg, BPE)
