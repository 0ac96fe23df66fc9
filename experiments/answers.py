"""A real-model run's answers, cached by request and shipped beside the figure they
made, so the figure can be remade (``ctxsim figures --verify NAME``) without the model
while the code around the model changes.

A model decoding greedily gives the same answer to the same request
(:mod:`sim.agents.answer_cache`), so a run whose every request is in the answer file
needs neither the model nor llama-cpp-python, and a change that alters no request
(a faster workspace core, say) reproduces the figure from the file in the time the
code itself takes. A changed request is asked fresh, so the file can never answer a
question it was not asked.

- :func:`answer_file`: the JSON-lines file to use for a path (a ``.jsonl.gz`` is
  unpacked for the run and written back deterministically).
- :class:`Server`: the ``--base-url`` endpoint, or the embedded model started at the
  first request the cache cannot answer; clients share it.
- :class:`OnDemand`: a chat client over a :class:`Server`.
- :class:`AnswerClient`: a cached client whose ``ledger`` counts every answer at what
  it cost when it was produced, so per-episode token counts and seconds replay
  exactly; :attr:`AnswerClient.model_ledger` counts the calls really made.
- :func:`answered_model`: all of it for one run.

Used by ``ctxsim run calibrate`` (issue 21), ``ctxsim run evoharness --backend llm``
and ``ctxsim run contextevo --backend llm``; the answer files ship as
``figures/*_answers.jsonl.gz``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import json
import os
import pathlib
import tempfile
import zlib

from experiments.arguments import UsageError
from sim.agents.answer_cache import ReplayMiss


def answer_file(path):
    """A context manager yielding the JSON-lines answer cache to use for ``path``
    (None stays None: no file).

    A plain path is used as it is (answers are appended, so runs sharing it lose
    nothing). A ``.gz`` path (a committed run's cache ships compressed) is worked on
    as ``PATH.partial`` beside it, plain JSON lines appended to as answers come, and
    packed back when the run ends, by an error too, only if an answer was added
    (gzip with no name or time in its header, so the same answers give the same
    bytes; a replay leaves the file untouched). A run killed outright leaves
    ``PATH.partial``, whose answers the next run takes up. The working copy is locked
    for the run: a second run on the same ``.gz`` is refused. A ``.gz`` in a directory
    this process cannot write replays from a temporary copy. A symbolic link is
    followed (the lock and the packed file are its target's). Leftover answers the
    ``.gz`` holds already are dropped, and directories made for a file that was
    never written are removed.

    Raises:
        UsageError: (on entry, before any model starts) for a path that is a
            directory or under a file, a device or other non-regular file, a
            ``.gz`` that is not gzip, a gzip file not named ``.gz``, a file that
            holds no answer records, or a ``.gz`` another run is using; at the end,
            for answers added to a read-only ``.gz``; each names the path (exit 2).
    """

    @contextlib.contextmanager
    def cm():
        if path is None:
            yield None
            return
        # a link is followed: the lock and the packed file must be its target's
        target = pathlib.Path(os.path.realpath(path))
        _check_place(target)
        if not target.name.endswith(".gz"):
            _check_records(target, target.read_bytes() if target.is_file() else b"")
            yield target
            return
        packed = _unpacked(target)
        _check_records(target, packed)
        home = target.parent if target.parent.exists() else None
        if home is not None and not os.access(home, os.W_OK):
            # a read-only copy replays; an answer added to it cannot be kept
            with tempfile.TemporaryDirectory(prefix="ctxsim-answers-") as tmp:
                work = pathlib.Path(tmp) / "answers.jsonl"
                work.write_bytes(packed)
                yield work
                if work.read_bytes() != packed:
                    raise _usage(target, "its directory is not writable, so the "
                                 "answers this run asked were not kept")
            return
        work = target.with_name(target.name + ".partial")
        made = [q for q in (target.parent, *target.parent.parents) if not q.exists()]
        try:
            with _locked(work, target) as handle:
                handle.seek(0)
                # a killed run's answers, less those the file holds already (it died
                # packing them, or the file was updated since)
                leftover = _new_lines(handle.read(), packed)
                start = packed + (b"\n" if packed and not packed.endswith(b"\n") else b"") \
                    + leftover
                _check_records(target, start)
                work.write_bytes(start)
                try:
                    yield work
                finally:
                    now = work.read_bytes()
                    if now != packed:
                        part = target.with_name(target.name + ".part")
                        with open(part, "wb") as raw, gzip.GzipFile(
                                filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                            gz.write(now)
                        os.replace(part, target)   # a crash mid-write keeps the old file
                    work.unlink()
        finally:
            for q in made:   # directories made for a file that was never written
                with contextlib.suppress(OSError):
                    q.rmdir()

    return cm()


def _new_lines(leftover: bytes, packed: bytes) -> bytes:
    """The lines of ``leftover`` that ``packed`` lacks: an answer record whose key
    ``packed`` holds, or a line it holds verbatim, is dropped (a replay after a
    killed run then leaves the file as it was)."""
    if not leftover:
        return b""
    have = set(packed.splitlines())
    keys = set()
    for line in have:
        with contextlib.suppress(ValueError):
            rec = json.loads(line)
            if isinstance(rec, dict) and "key" in rec:
                keys.add(rec["key"])
    kept = []
    for line in leftover.splitlines(keepends=True):
        if line.rstrip(b"\r\n") in have:
            continue
        with contextlib.suppress(ValueError):
            rec = json.loads(line)
            if isinstance(rec, dict) and rec.get("key") in keys:
                continue
        kept.append(line)
    return b"".join(kept)


def _usage(target, why: str):
    return UsageError(f"--cache {str(target)!r}: {why}")


def _check_place(target: pathlib.Path) -> None:
    if target.is_dir():
        raise _usage(target, "is a directory; expected an answer file (JSON lines, "
                     "gzip-compressed when the name ends in .gz)")
    parent = next((q for q in target.parents if q.exists()), None)
    if parent is not None and not parent.is_dir():
        raise _usage(target, f"{str(parent)!r} is not a directory")
    if target.exists() and not target.is_file():
        # a device (/dev/null) or a pipe would swallow the answers without a word
        raise _usage(target, "is not a regular file; expected an answer file (JSON "
                     "lines, gzip-compressed when the name ends in .gz)")


def _unpacked(target: pathlib.Path) -> bytes:
    if not target.is_file():
        return b""
    try:
        return gzip.decompress(target.read_bytes())
    except (OSError, EOFError, zlib.error) as exc:
        raise _usage(target, f"not a gzip-compressed answer file ({exc})") from None


def _check_records(target, data: bytes) -> None:
    """Refuse data that has lines but no answer record: another file named by
    mistake would be appended to, and every answer asked afresh."""
    if not data.strip():
        return
    if data[:2] == b"\x1f\x8b":
        raise _usage(target, "is gzip-compressed but its name does not end in .gz; "
                     "name it NAME.jsonl.gz")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _usage(target, f"not a text answer file ({exc})") from None
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and ("key" in rec and "answer" in rec or "server" in rec):
            return
    raise _usage(target, "holds no answer records (each line "
                 '{"key": ..., "answer": ...}); is it the right file?')


@contextlib.contextmanager
def _locked(work: pathlib.Path, target: pathlib.Path):
    """``work`` opened and locked (``flock``) for the run, as a binary handle."""
    import fcntl

    work.parent.mkdir(parents=True, exist_ok=True)
    with open(work, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise _usage(target, f"another run is using it (its working copy {work} is "
                         "locked); wait for that run, or name another file") from None
        yield handle


def default_path(name: str, base_url: str | None = None) -> pathlib.Path:
    """``NAME_answers.jsonl`` in the model cache directory
    (:func:`sim.agents.llm_server.cache_dir`): a run's answer cache when it names
    none. With ``base_url`` (a user's endpoint) a file of that endpoint's,
    ``NAME_answers_HOST_PORT_PATH.jsonl``: a request's key holds the model's name but
    not the address, and an endpoint named without ``--model`` goes by the embedded
    model's name, so the embedded model's answers must not answer it."""
    import re

    from sim.agents.llm_server import cache_dir

    if not base_url:
        return cache_dir() / f"{name}_answers.jsonl"
    where = re.sub(r"[^A-Za-z0-9.-]+", "_", base_url.split("://", 1)[-1]).strip("_")
    return cache_dir() / f"{name}_answers_{where}.jsonl"


def answers_path(cfg, name: str) -> pathlib.Path | str | None:
    """The answer file of a run of experiment ``name`` with settings ``cfg`` (its
    ``cache``, ``no_cache`` and ``base_url``): None with ``--no-cache`` (answers kept
    in memory only), the ``--cache`` path, else :func:`default_path`."""
    return None if cfg.no_cache else (cfg.cache or default_path(name, cfg.base_url))


#: the environment variable that makes a run replay only: a request its answer file
#: lacks fails the run (exit 2) instead of starting the model (``ctxsim figures
#: --verify`` sets it for a figure whose answers ship)
REPLAY_ONLY = "CTXSIM_REPLAY_ONLY"


def replay_only() -> bool:
    """Whether :data:`REPLAY_ONLY` is set (to anything but ``""`` or ``"0"``)."""
    return os.environ.get(REPLAY_ONLY, "") not in ("", "0")


def refuse_unanswered(what: str) -> None:
    """Refuse, under :data:`REPLAY_ONLY`, a part of a run that asks the model with
    no answer file (``what`` names it): it could only start the model.

    Raises:
        ReplayOnlyMiss: when :data:`REPLAY_ONLY` is set (exit 2).
    """
    if replay_only():
        raise ReplayOnlyMiss(f"{what} asks the model with no answer file, and "
                             f"{REPLAY_ONLY} is set (replay only); unset it to ask")


class ReplayOnlyMiss(UsageError, ReplayMiss):
    """A request the answers lack under :data:`REPLAY_ONLY` (exit 2); a
    :class:`~sim.agents.answer_cache.ReplayMiss`, so no caller counts it as a failed
    model call and goes on."""


def _endpoint(args):
    from experiments.endpoint import endpoint

    return endpoint(args)


def _client(settings):
    from sim.agents.llm import ChatClient

    return ChatClient(settings)


def embedded_settings(seed: int):
    """The embedded model's request settings before its server starts: what
    :func:`experiments.endpoint.endpoint` gives once it runs, but the address (the
    answer cache's request key holds no address)."""
    from sim.agents.llm import LLMSettings
    from sim.agents.llm_server import MODEL_NAME

    return LLMSettings(base_url="", model=MODEL_NAME, seed=seed, max_tokens=80,
                       timeout=600)


class Server:
    """The run's endpoint: ``--base-url`` (opened at once: it costs nothing), else the
    embedded model, started at the first request the answer cache cannot answer (a run
    whose every answer is cached needs neither the model nor llama-cpp-python).

    Args:
        args: the run's options (``base_url``, ``model``, ``seed``, ``n_ctx``,
            ``n_threads``).
        stack: a :class:`contextlib.ExitStack` that stops the server.
        answers: the run's answer file as named (None: in memory), for messages.

    With :data:`REPLAY_ONLY` set, every request the answers lack raises
    :class:`~experiments.arguments.UsageError` naming the file, before any server
    starts or any endpoint (a ``--base-url`` one included) is asked.

    Attributes:
        settings: the request settings (known before the embedded server starts).
        record: the endpoint's sidecar record once opened, else None.
    """

    def __init__(self, args, stack: contextlib.ExitStack, answers=None):
        self.args, self.stack, self.answers = args, stack, answers
        self.record = None
        self._url = None
        if getattr(args, "base_url", None):
            self.settings = self._open()
            self._url = self.settings.base_url
        else:
            self.settings = embedded_settings(args.seed)

    def _open(self):
        real, self.record = self.stack.enter_context(_endpoint(self.args))
        return real

    def base_url(self, known) -> str:
        """The endpoint's address, starting the server first if it is not running.

        Raises:
            RuntimeError: when the started server's model or output mode differ
                from ``known``'s (its answers would be stored under wrong keys).
        """
        # checked on every request the answers lack, not only before a start: a
        # --base-url endpoint is open from the outset and would be asked
        if replay_only():
            held = (f"not in the answer file {self.answers}" if self.answers
                    else "not among this run's in-memory answers")
            raise ReplayOnlyMiss(f"a request {held}, and {REPLAY_ONLY} is set (replay "
                                 "only): the code asks the model something new; rerun "
                                 "without it to ask")
        if self._url is None:
            real = self._open()
            # the key's other fields are the run's (decoding) or the agent's (the
            # seed each decision sets): the server decides only these two
            if (real.model, real.structured) != (known.model, known.structured):
                raise RuntimeError(f"the server's settings {real} differ from the ones "
                                   f"the answer cache's keys were made with ({known})")
            self._url = real.base_url   # checked: every later request may use it
        return self._url

    def provenance(self) -> dict:
        """The sidecar's record of the endpoint: the server's once it ran, else the
        model's name (the one the answers' keys hold) and that it was not started."""
        if self.record is not None:
            return self.record
        # no build hash: which build answered is recorded by the run that asked
        return {"model": self.settings.model,
                "server": "not started: every answer came from the answer cache, "
                          "asked of the model named in their keys"}


class OnDemand:
    """A chat client (``create``, ``settings``, ``ledger``) whose requests go to a
    :class:`Server`, started at this client's first request.

    Args:
        server: the shared endpoint.
        settings: this client's request settings (decoding, seed); the address is
            the server's.
    """

    def __init__(self, server: Server, settings):
        from sim.agents.llm import TokenLedger

        self.server, self.settings = server, settings
        self.ledger = TokenLedger()
        self._inner = None

    def create(self, messages, **kw):
        """:meth:`sim.agents.llm.ChatClient.create`, starting the server first."""
        url = self.server.base_url(self.settings)
        if self._inner is None:
            self._inner = _client(dataclasses.replace(self.settings, base_url=url))
            self._inner.ledger = self.ledger
        self._inner.settings = dataclasses.replace(self.settings, base_url=url)
        return self._inner.create(messages, **kw)


class AnswerClient:
    """A :class:`sim.agents.answer_cache.CachedClient` whose :attr:`ledger` counts
    every answer used at what it cost when it was produced (tokens the endpoint
    reported, seconds), whether it was asked now or replayed from the cache: an
    episode's token counts and seconds are the same in the run that asked and in a
    replay. :attr:`model_ledger` counts the calls really made now.

    Args:
        client: the client misses go to (``create``, ``settings``, ``ledger``).
        cache: the shared :class:`sim.agents.answer_cache.AnswerCache`.
    """

    def __init__(self, client, cache):
        from sim.agents.answer_cache import CachedClient
        from sim.agents.llm import TokenLedger

        self._cached = CachedClient(client, cache)
        self.ledger = TokenLedger()

    @property
    def settings(self):
        return self._cached.settings

    @settings.setter
    def settings(self, value) -> None:  # LLMAgent.reset sets the sampling seed
        self._cached.settings = value

    @property
    def model_ledger(self):
        """The inner client's ledger: the calls really made."""
        return self._cached.ledger

    def create(self, messages: list[dict], **kw) -> dict:
        """The cached ``create``; the answer's recorded cost goes to :attr:`ledger`
        (an answer whose cost the cache does not know counts as a request only; a
        sampled answer, never cached, at its own cost)."""
        used, led = self._cached.used, self.model_ledger
        before, called = dict(used), (led.prompt, led.completion, led.seconds)
        answer = self._cached.create(messages, **kw)
        if used["answers"] == before["answers"]:   # sampled: never cached, its own cost
            self.ledger.add({"prompt_tokens": led.prompt - called[0],
                             "completion_tokens": led.completion - called[1]},
                            led.seconds - called[2])
        elif used["known"] > before["known"]:
            self.ledger.add({"prompt_tokens": used["prompt_tokens"] - before["prompt_tokens"],
                             "completion_tokens": used["completion_tokens"]
                             - before["completion_tokens"]},
                            used["seconds"] - before["seconds"])
        else:
            self.ledger.add(None, 0.0)
        return answer

    def ask_json(self, *args, **kwargs):
        """:meth:`sim.agents.llm.ChatClient.ask_json` over the cached ``create``."""
        from sim.agents.llm import ChatClient

        return ChatClient.ask_json(self, *args, **kwargs)

    def with_repairs(self, *args, **kwargs):
        """:meth:`sim.agents.llm.ChatClient.with_repairs` over the cached ``create``."""
        from sim.agents.llm import ChatClient

        return ChatClient.with_repairs(self, *args, **kwargs)


class AnsweredModel:
    """One run's model: a :class:`Server` and an answer cache shared by every client
    it makes (:meth:`client`); ``path`` is the answer file as the run named it (a
    ``.gz`` is read through a temporary file). Made by :func:`answered_model`."""

    def __init__(self, server: Server, cache, path=None):
        self.server, self.cache, self.path = server, cache, path
        self.clients: list[AnswerClient] = []

    @property
    def settings(self):
        """The base request settings (the endpoint's; the address may still be
        unknown)."""
        return self.server.settings

    def client(self, **overrides) -> AnswerClient:
        """A new :class:`AnswerClient` at the base settings with ``overrides``
        (``max_tokens``, ``max_repairs``, ``temperature``...)."""
        c = AnswerClient(OnDemand(self.server, dataclasses.replace(self.settings,
                                                                   **overrides)),
                         self.cache)
        self.clients.append(c)
        return c

    def record(self) -> dict:
        """The endpoint's provenance and what the run's answers took: model calls
        made now, answers replayed from the cache, and the answer file."""
        calls = sum(c.model_ledger.requests for c in self.clients)
        return {**self.server.provenance(), "model_calls": calls,
                "cache_hits": self.cache.hits,
                "answer_file": str(self.path) if self.path else None}


def answered_model(args, stack: contextlib.ExitStack, path) -> AnsweredModel:
    """The run's :class:`AnsweredModel` with its answers in ``path`` (a JSON-lines
    file, gzip-compressed when its name ends in ``.gz``; None: in memory), opened on
    ``stack``: the file is written back when the stack closes."""
    from sim.agents.answer_cache import AnswerCache

    cache = AnswerCache(stack.enter_context(answer_file(path)))
    return AnsweredModel(Server(args, stack, path), cache, path)
