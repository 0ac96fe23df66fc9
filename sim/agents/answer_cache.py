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


class ReplayMiss(Exception):
    """A request its answers lack, in a run that may only replay them: the run must
    stop. Code that counts a failed model call and goes on (a reflector, an editor)
    re-raises it, so a missing answer can never pass for a failed call in a replay
    check."""


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
        #: key -> what producing the answer cost (:meth:`store`'s ``cost``), if known
        self.costs: dict[str, dict] = {}
        self.hits = self.misses = 0
        #: the file ends inside a line (an interrupted write): the next store starts
        #: a new line, or its record would join the torn one and be lost
        self._torn = False
        if self.path and self.path.is_file():
            # utf-8-sig: a file saved with a byte-order mark keeps its first answer
            text = self.path.read_text(encoding="utf-8-sig")
            self._torn = bool(text) and not text.endswith("\n")
            for line in text.splitlines():
                try:
                    rec = json.loads(line)
                    self._answers[rec["key"]] = rec["answer"]
                    if rec.get("cost"):
                        self.costs[rec["key"]] = rec["cost"]
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

    def store(self, request: Any, answer: Any, cost: dict | None = None) -> None:
        """Remember ``answer`` for ``request`` (and append it to the file), with
        ``cost``, what producing it took (e.g. tokens and seconds), if given."""
        k = self.key(request)
        self._answers[k] = copy.deepcopy(answer)
        if cost:
            self.costs[k] = dict(cost)
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write("\n" * self._torn
                        + json.dumps({"key": k, "answer": answer, "cost": cost}) + "\n")
            self._torn = False

    def cost(self, request: Any) -> dict | None:
        """What producing the stored answer to ``request`` cost, or None if unknown."""
        return self.costs.get(self.key(request))

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
        #: what the answers used so far cost when they were produced (cached ones
        #: included, where the cache knows): answers, known, prompt and completion
        #: tokens, seconds
        self.used = dict.fromkeys(("answers", "known", "prompt_tokens",
                                   "completion_tokens", "seconds"), 0)

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
            self._use(self.cache.cost(request))
            return answer
        led = self.ledger
        before = (led.prompt, led.completion, led.seconds)
        answer = self._inner.create(messages, tools=tools, schema=schema,
                                    max_tokens=max_tokens)
        cost = {"prompt_tokens": led.prompt - before[0],
                "completion_tokens": led.completion - before[1],
                "seconds": round(led.seconds - before[2], 3)}
        self.cache.store(request, answer, cost)
        self._use(cost)
        return answer

    def _use(self, cost: dict | None) -> None:
        self.used["answers"] += 1
        if cost:
            self.used["known"] += 1
            for k in ("prompt_tokens", "completion_tokens", "seconds"):
                self.used[k] += cost.get(k, 0)

    def ask_json(self, *args, **kwargs):
        """:meth:`sim.agents.llm.ChatClient.ask_json` over the cached ``create``."""
        return _chat_client().ask_json(self, *args, **kwargs)

    def with_repairs(self, *args, **kwargs):
        """:meth:`sim.agents.llm.ChatClient.with_repairs` over the cached ``create``."""
        return _chat_client().with_repairs(self, *args, **kwargs)
