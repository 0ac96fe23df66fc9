"""Option values of the real-model experiments are validated like the others, and
``ctxsim llm status`` fails when its endpoint does not answer (issue 10, item 11)."""

from __future__ import annotations

import socket

import pytest

from experiments.cli import main


@pytest.mark.parametrize("argv, option", [
    (["run", "perception", "--snapshots", "-3"], "--snapshots"),
    (["run", "perception", "--snapshots", "0"], "--snapshots"),
    (["run", "perception", "--cap", "x"], "--cap"),
    (["run", "perception", "--pairs", "0"], "--pairs"),
    (["run", "perception", "--seed", "-1"], "--seed"),
    (["run", "presentation", "--trials", "0"], "--trials"),
    (["run", "presentation", "--trials", "-2"], "--trials"),
    (["run", "presentation", "--pairs", "0"], "--pairs"),
    (["run", "presentation", "--seed", "-5"], "--seed"),
])
def test_bad_values_are_usage_errors_naming_the_option(argv, option, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert f"argument {option}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends


def test_llm_status_exits_non_zero_when_the_endpoint_is_unreachable(capsys):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    assert main(["llm", "status", "--base-url", url]) == 1
    captured = capsys.readouterr()
    assert '"reachable": false' in captured.out
    assert captured.err.strip() == f"ctxsim llm: endpoint {url} is not reachable"


def test_llm_status_exits_non_zero_when_nothing_of_the_model_is_installed(
        monkeypatch, capsys):
    from sim.agents import llm_server as ls

    monkeypatch.delenv("CTXSIM_LLM_BASE_URL", raising=False)
    monkeypatch.setattr(ls, "_llama_version", lambda: "not installed")
    monkeypatch.setattr(ls, "parts_installed", lambda: False)
    monkeypatch.setattr(ls, "is_verified", lambda path: False)
    assert main(["llm", "status"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("ctxsim llm: no model to serve: llama-cpp-python is not "
                          "installed, neither the model parts") and "\n" not in err
    # with everything present it is a normal status (exit 0)
    monkeypatch.setattr(ls, "_llama_version", lambda: "0.3.36")
    monkeypatch.setattr(ls, "is_verified", lambda path: True)
    assert main(["llm", "status"]) == 0
