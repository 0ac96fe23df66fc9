"""Model assembly and verification (on small fake parts), cache paths, ports, and the
``ctxsim llm`` command group, without llama-cpp-python."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from sim.agents import llm_server as ls


@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    data = [os.urandom(1000 + 37 * i) for i in range(5)]
    paths = []
    for i, d in enumerate(data):
        p = tmp_path / f"part{i:02d}.bin"
        p.write_bytes(d)
        paths.append(p)
    blob = b"".join(data)
    monkeypatch.setattr(ls, "MODEL_SIZE", len(blob))
    monkeypatch.setattr(ls, "MODEL_SHA256", hashlib.sha256(blob).hexdigest())
    monkeypatch.setattr(ls, "_CHUNK", 256)  # many chunks per part
    return paths, blob


def test_assemble_streams_in_order_and_verifies(tmp_path, fake_parts):
    paths, blob = fake_parts
    seen = []
    dest = ls.assemble_model(tmp_path / "m" / "model.gguf", parts=paths, progress=seen.append)
    assert dest.read_bytes() == blob and ls.is_verified(dest)
    assert seen[-1] == len(blob) and seen == sorted(seen)
    # a verified file is reused, not rebuilt
    mtime = dest.stat().st_mtime_ns
    assert ls.assemble_model(dest, parts=[]) == dest and dest.stat().st_mtime_ns == mtime
    assert ls.verify_model(dest) == dest


def test_wrong_order_or_bytes_are_refused_and_leave_nothing(tmp_path, fake_parts):
    paths, _ = fake_parts
    dest = tmp_path / "model.gguf"
    with pytest.raises(ls.ModelError, match="fails verification.*Refusing"):
        ls.assemble_model(dest, parts=paths[::-1])
    assert not dest.exists() and list(tmp_path.glob("model.gguf*")) == []
    dest.write_bytes(b"x" * ls.MODEL_SIZE)  # right size, wrong bytes
    assert not ls.is_verified(dest)
    with pytest.raises(ls.ModelError, match="sha256"):
        ls.verify_model(dest)


def test_tampered_file_loses_its_stamp(tmp_path, fake_parts):
    paths, blob = fake_parts
    dest = ls.assemble_model(tmp_path / "model.gguf", parts=paths)
    with open(dest, "r+b") as fh:
        fh.write(b"\0")
    os.utime(dest, ns=(1, 1))  # a changed mtime invalidates the cheap stamp check
    assert not ls.is_verified(dest)


def test_missing_part_names_the_package(monkeypatch):
    monkeypatch.setattr(ls, "PARTS", ("ctxsim-no-such-part-xyz",))
    with pytest.raises(ls.ModelError, match="ctxsim-no-such-part-xyz.*GGML_NATIVE=OFF"):
        ls.part_files()
    assert not ls.parts_installed()


def test_cache_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("CTXSIM_CACHE", str(tmp_path / "c"))
    assert ls.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("CTXSIM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert ls.model_path() == tmp_path / "x" / "ctxsim" / ls.MODEL_FILE


def test_free_port_reachable_and_server_command():
    port = ls.free_port()
    assert 0 < port < 65536
    assert not ls.reachable(f"http://127.0.0.1:{port}/v1", timeout=0.5)
    cmd = ls.server_command(ls.model_path(), port, n_ctx=2048, n_threads=2)
    assert cmd[1:3] == ["-m", "llama_cpp.server"] and "127.0.0.1" in cmd
    assert cmd[cmd.index("--n_ctx") + 1] == "2048"


def test_start_refuses_an_unverified_model(tmp_path, monkeypatch):
    monkeypatch.setattr(ls, "llama_cpp_installed", lambda: True)
    with pytest.raises(ls.ModelError, match="not assembled and verified"):
        ls.start_server(tmp_path / "none.gguf")


def test_llm_status_command(capsys, monkeypatch, tmp_path):
    from experiments.cli import main

    monkeypatch.setenv("CTXSIM_CACHE", str(tmp_path))
    assert main(["llm", "status", "--base-url", "http://127.0.0.1:9/v1"]) == 1  # unreachable: non-zero (issue 10)
    out = json.loads(capsys.readouterr().out)
    assert out["cached_model_verified"] is False and out["reachable"] is False
    assert out["expected_sha256"] == ls.MODEL_SHA256
    assert main(["llm", "status", "--verify"]) == 2
    assert "no model file" in capsys.readouterr().err


@pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_server_child_dies_with_its_parent_even_if_it_ignores_sigterm(tmp_path):
    """The server is started with ``_die_with_parent``: when the experiment that
    started it is killed, the kernel sends SIGKILL, which a server stuck in C code
    (or ignoring SIGTERM) cannot defer."""
    import subprocess
    import sys
    import time

    stubborn = ("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                "print('ready', flush=True); time.sleep(60)")
    # the parent exits only once the child ignores SIGTERM
    parent = ("import subprocess, sys; from sim.agents.llm_server import _die_with_parent; "
              f"p = subprocess.Popen([sys.executable, '-c', {stubborn!r}], "
              "stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, "
              "preexec_fn=_die_with_parent); "
              "assert p.stdout.readline() == 'ready\\n'; print(p.pid, flush=True)")
    out = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True,
                         timeout=60, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        pytest.fail(f"child {pid} outlived its parent by 10 s")
