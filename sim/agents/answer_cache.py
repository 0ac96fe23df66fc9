"""Answers cached by prompt hash: a model decoding greedily (temperature 0, a fixed
seed) gives the same answer to the same request, so asking again spends a call on
nothing (issue 11's ContextEvo back-end, issue 21's calibration probes).

:class:`AnswerCache` maps the SHA-256 of a request's canonical JSON (sorted keys) to
its answer, in memory and optionally in a JSON-lines file that later runs reload.
:class:`CachedClient` puts one in front of a :class:`sim.agents.llm.ChatClient` (or
any object with its ``create``/``settings``/``ledger``): ``create``, and so
``ask_json``, ``with_repairs`` and :class:`sim.agents.llm.LLMAgent`, answer a
repeated request from the cache; ``ledger`` counts only the calls really made.
"""

from __future__ import annotations

import copy
import hashlib
import json
import pathlib
from typing import Any


class AnswerCache:
    """Request -> answer, keyed by a SHA-256 of the request's canonical JSON.

    Args:
        path: a JSON-lines file (one ``{"key": ..., "answer": ...}`` per line) read at
            start and appended to by :meth:`store`; None keeps the cache in memory.

    Attributes:
        hits: lookups answered from the cache.
        misses: lookups that were not.
    """

    def __init__(self, path: str | pathlib.Path | None = None):
        self.path = pathlib.Path(path) if path else None
        self._answers: dict[str, Any] = {}
        self.hits = self.misses = 0
        if self.path and self.path.is_file():
            for line in self.path.read_text().splitlines():
                try:
                    rec = json.loads(line)
                    self._answers[rec["key"]] = rec["answer"]
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line (an interrupted run) is skipped

    @staticmethod
    def key(request: Any) -> str:
        """The SHA-256 hex digest of ``request``'s canonical JSON (sorted keys;
        tuples as lists).

        Raises:
            TypeError: for a request that is not JSON-serialisable.
        """
        text = json.dumps(request, sort_keys=True, separators=(",", ":"), default=list)
        return hashlib.sha256(text.encode()).hexdigest()

    def lookup(self, request: Any) -> tuple[bool, Any]:
        """``(True, a copy of the answer)`` when ``request`` was stored, else
        ``(False, None)``; counts a hit or a miss."""
        k = self.key(request)
        if k in self._answers:
            self.hits += 1
            return True, copy.deepcopy(self._answers[k])
        self.misses += 1
        return False, None

    def store(self, request: Any, answer: Any) -> None:
        """Remember ``answer`` for ``request`` (and append it to the file)."""
        k = self.key(request)
        self._answers[k] = copy.deepcopy(answer)
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write(json.dumps({"key": k, "answer": answer}) + "\n")

    def __len__(self) -> int:
        return len(self._answers)


def _chat_client():
    from sim.agents.llm import ChatClient

    return ChatClient


class CachedClient:
    """A chat client whose ``create`` answers repeated requests from an
    :class:`AnswerCache`.

    The request key holds the model, the structured-output mode, temperature, seed,
    max_tokens, the messages, tools and schema (not the base URL: a local server's
    port changes between runs). Only greedy decoding is cached (temperature 0);
    a sampled answer is always requested.

    Args:
        client: the client to forward misses to (``create``, ``settings``,
            ``ledger``).
        cache: the cache (default: a new in-memory one).
    """

    def __init__(self, client, cache: AnswerCache | None = None):
        self._inner = client
        self.cache = cache if cache is not None else AnswerCache()

    @property
    def settings(self):
        return self._inner.settings

    @settings.setter
    def settings(self, value) -> None:  # LLMAgent.reset sets the sampling seed
        self._inner.settings = value

    @property
    def ledger(self):
        return self._inner.ledger

    def create(self, messages: list[dict], *, tools: list[dict] | None = None,
               schema: dict | None = None, max_tokens: int | None = None) -> dict:
        """:meth:`sim.agents.llm.ChatClient.create`, from the cache when the same
        request was answered before (greedy decoding only)."""
        s = self.settings
        if s.temperature != 0:
            return self._inner.create(messages, tools=tools, schema=schema,
                                      max_tokens=max_tokens)
        request = {"model": s.model, "structured": s.structured, "seed": s.seed,
                   "max_tokens": max_tokens or s.max_tokens, "messages": messages,
                   "tools": tools, "schema": schema}
        hit, answer = self.cache.lookup(request)
        if hit:
            return answer
        answer = self._inner.create(messages, tools=tools, schema=schema,
                                    max_tokens=max_tokens)
        self.cache.store(request, answer)
        return answer

    def ask_json(self, *args, **kwargs):
        """:meth:`sim.agents.llm.ChatClient.ask_json` over the cached ``create``."""
        return _chat_client().ask_json(self, *args, **kwargs)

    def with_repairs(self, *args, **kwargs):
        """:meth:`sim.agents.llm.ChatClient.with_repairs` over the cached ``create``."""
        return _chat_client().with_repairs(self, *args, **kwargs)
