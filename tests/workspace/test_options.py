"""Workspace construction (issue 36): ``Workspace(directory, options)`` with a frozen
:class:`WorkspaceOptions` declaring every setting once, keyword settings as its
shorthand, and a reopen path of its own (no private constructor flags)."""

import dataclasses
import inspect

import pytest

from sim.workspace import ConfigError, Workspace, WorkspaceError, WorkspaceOptions
from sim.workspace.memory import ScratchWorkspace, scratch_workspace


def _play(ws):
    ws.register({"role": "user", "content": "task"}, pinned=True)
    ws.register({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]})
    ws.register({"role": "tool", "tool_call_id": "c1", "content": "row\n" * 400})
    ws.archive("B2-B3", "ls")
    return ws.assemble().total


def test_the_constructor_takes_a_directory_and_options_only():
    params = inspect.signature(Workspace.__init__).parameters
    assert list(params) == ["self", "directory", "options", "settings"]
    assert not any(p.startswith("_") for p in params)
    for cls in (Workspace, ScratchWorkspace):
        assert not any(p.startswith("_")
                       for p in inspect.signature(cls.__init__).parameters)


def test_the_option_fields_are_the_documented_settings():
    names = [f.name for f in dataclasses.fields(WorkspaceOptions)]
    assert names == ["budget", "tokenizer", "strict", "dashboard", "system_prompt",
                     "tools", "guard_threshold", "sync", "context_tools", "read_only"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        WorkspaceOptions().budget = 5


def test_keywords_are_shorthand_for_options(tmp_path):
    """The same settings both ways give the same workspace, journal line for line."""
    kw = dict(budget=4000, tokenizer="char", dashboard="status_board", sync=False,
              guard_threshold=300)
    a = Workspace(tmp_path / "a", **kw)
    b = Workspace(tmp_path / "b", WorkspaceOptions(**kw))
    try:
        assert a.options == b.options == WorkspaceOptions(**kw)
        assert _play(a) == _play(b)
        assert a.snapshot() == b.snapshot()
    finally:
        a.close()
        b.close()
    assert (tmp_path / "a" / "journal.jsonl").read_bytes() == \
        (tmp_path / "b" / "journal.jsonl").read_bytes()


def test_options_and_keywords_together_are_refused_before_anything_is_made(tmp_path):
    with pytest.raises(ConfigError, match="not both.*budget"):
        Workspace(tmp_path / "w", WorkspaceOptions(), budget=100)
    with pytest.raises(ConfigError, match="must be a WorkspaceOptions, got"):
        Workspace(tmp_path / "w", {"budget": 100})
    with pytest.raises(TypeError, match="budgett"):
        Workspace(tmp_path / "w", budgett=100)
    assert not (tmp_path / "w").exists()


def test_a_bad_option_value_is_refused_before_anything_is_made(tmp_path):
    with pytest.raises(ConfigError, match="budget must be None or an int >= 1"):
        Workspace(tmp_path / "w", WorkspaceOptions(budget=0))
    with pytest.raises(WorkspaceError):
        Workspace(tmp_path / "w", WorkspaceOptions(dashboard="nope"))
    assert not (tmp_path / "w").exists()


def test_reopen_keeps_the_journaled_budget_and_takes_new_settings(tmp_path):
    d = tmp_path / "w"
    with Workspace(d, WorkspaceOptions(budget=5000, tokenizer="char")) as ws:
        total = _play(ws)
        before = ws.snapshot()
    with Workspace.open(d) as again:
        assert again.budget == 5000 and again.options.budget == 5000
        assert again.assemble().total == total
        assert again.snapshot()["blocks"] == before["blocks"]
    with Workspace.open(d, read_only=True, strict=False) as reader:
        assert reader.options.read_only and not reader.options.strict
    with pytest.raises(WorkspaceError, match="already holds a workspace"):
        Workspace(d, WorkspaceOptions(tokenizer="char"))


def test_a_scratch_workspace_takes_options_and_never_syncs():
    ws = scratch_workspace(WorkspaceOptions(budget=3000, sync=True, tokenizer="char"))
    try:
        assert ws.options.sync is False and ws.options.budget == 3000
        assert _play(ws) <= 3000
    finally:
        ws.close()
