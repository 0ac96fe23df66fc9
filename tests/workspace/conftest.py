"""Fixtures for the workspace tests: a small populated workspace."""

import pytest

from sim.workspace import Workspace


def call(cid: str, name: str = "bash", args: str = '{"cmd": "ls"}') -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


@pytest.fixture
def ws(tmp_path):
    """B1 system (pinned), B2 task (pinned), B3 call c1, B4 result, B5 call c2+c3,
    B6/B7 results, B8 assistant text, B9 user note; budget 4000, cl100k_base."""
    w = Workspace(tmp_path / "ws", budget=4000, sync=False)
    w.register({"role": "system", "content": "You are a coding agent."}, pinned=True)
    w.register({"role": "user", "content": "Fix the failing test."}, pinned=True)
    w.register({"role": "assistant", "content": "listing", "tool_calls": [call("c1")]})
    w.register({"role": "tool", "tool_call_id": "c1", "content": "a.py\nb.py\n"})
    w.register({"role": "assistant", "content": "", "tool_calls": [
        call("c2", "read", '{"path": "a.py"}'), call("c3", "read", '{"path": "b.py"}')]})
    w.register({"role": "tool", "tool_call_id": "c2", "content": "def f():\n    return 1\n" * 20})
    w.register({"role": "tool", "tool_call_id": "c3", "content": b"\xff\xfebinary\x00tail"})
    w.register({"role": "assistant", "content": "The bug is in f."})
    w.register({"role": "user", "content": "Go on."})
    yield w
    w.close()
