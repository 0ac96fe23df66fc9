"""A real-LLM agent over any OpenAI-compatible chat endpoint (DESIGN.md "Agents",
"Real LLMs").

:class:`ChatClient` sends chat-completions requests with the ``openai`` client, with a
per-request timeout, bounded retries with exponential backoff on transport failures
(timeouts, connection errors, HTTP 429 and 5xx), and a :class:`TokenLedger` fed from
each response's ``usage`` (prompt, cached and completion tokens, priced by
:func:`sim.cost.cost_usd`). :class:`LLMAgent` implements the same protocol as the
synthetic agents (:class:`~sim.agents.protocol.View` in,
:class:`~sim.agents.protocol.Action` out): it renders the view as chat messages (block
ids in brackets, the dashboard last so the prefix stays cacheable), offers the next
task step and the workspace's context tools (VISTA's archive/delete schemas, plus a
payload read for recovery), and parses the answer strictly
(:mod:`sim.agents.llm_parse`). An invalid answer (malformed JSON, unknown tool,
unknown block id, empty choices) is shown back to the model for at most
``max_repairs`` more tries, then raises :class:`LLMResponseError`: the agent never
guesses an action.

Settings come from arguments or the environment: ``CTXSIM_LLM_BASE_URL``,
``CTXSIM_LLM_MODEL``, ``CTXSIM_LLM_API_KEY`` (or ``OPENAI_API_KEY``) and
``CTXSIM_LLM_STRUCTURED``. Structured-output modes: ``"tools"`` (native function
calling, hosted APIs and vLLM), ``"json_schema"`` (OpenAI ``response_format`` JSON
schema, also llama.cpp's C++ server), ``"llamacpp"`` (llama-cpp-python's
``{"type": "json_object", "schema": ...}``, the embedded default) and ``"none"`` (no
constraint; the strict parser alone).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from sim.agents.llm_parse import (ParseError, check_block_spec, parse_call, tools_prompt,
                                  union_schema)
from sim.agents.protocol import ANSWER, ARCHIVE, DELETE, RECOVER, TASK, Action, View

MODES = ("tools", "json_schema", "llamacpp", "none")
READ_PAYLOAD = "read_payload"
_ARCHIVED = ("archived", "offloaded_placeholder")


class LLMError(RuntimeError):
    """Base class of the LLM agent's errors."""


class LLMTransportError(LLMError):
    """The endpoint failed: an HTTP error status (``status``), a timeout or a
    connection error, after the bounded retries where the failure is transient."""

    def __init__(self, message: str, status: int | None = None, attempts: int = 1):
        super().__init__(message)
        self.status, self.attempts = status, attempts


class LLMResponseError(LLMError):
    """The model's answers could not be turned into a valid action within the allowed
    repairs. ``reason`` is the last :class:`~sim.agents.llm_parse.ParseError` tag and
    ``raw`` the last answer text."""

    def __init__(self, message: str, reason: str, raw: str = ""):
        super().__init__(message)
        self.reason, self.raw = reason, raw


@dataclass(frozen=True)
class LLMSettings:
    """Endpoint and decoding settings.

    Attributes:
        base_url: OpenAI-compatible base URL (``.../v1``).
        model: model name sent with each request.
        api_key: key sent as a bearer token (local servers ignore it).
        structured: one of :data:`MODES`.
        timeout: seconds per HTTP request.
        max_retries: extra tries after a transient transport failure.
        backoff: seconds before the first retry, doubled each time.
        max_repairs: extra tries after an invalid answer.
        temperature: sampling temperature (0: greedy).
        max_tokens: completion tokens per answer.
        seed: sampling seed sent to the server (None: omit).
    """

    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "qwen2.5-coder-1.5b-instruct-q4_k_m"
    api_key: str = "sk-no-key"
    structured: str = "llamacpp"
    timeout: float = 300.0
    max_retries: int = 2
    backoff: float = 1.0
    max_repairs: int = 1
    temperature: float = 0.0
    max_tokens: int = 160
    seed: int | None = 0

    def __post_init__(self):
        if self.structured not in MODES:
            raise ValueError(f"structured must be one of {MODES}, got {self.structured!r}")
        if self.max_retries < 0 or self.max_repairs < 0 or self.timeout <= 0:
            raise ValueError("max_retries and max_repairs must be >= 0 and timeout > 0, "
                             f"got {self.max_retries}, {self.max_repairs}, {self.timeout}")

    @classmethod
    def from_env(cls, **overrides: Any) -> "LLMSettings":
        """Defaults, overridden by the ``CTXSIM_LLM_*`` environment, then by
        ``overrides`` (None values are ignored)."""
        env = {"base_url": os.environ.get("CTXSIM_LLM_BASE_URL"),
               "model": os.environ.get("CTXSIM_LLM_MODEL"),
               "api_key": os.environ.get("CTXSIM_LLM_API_KEY")
               or os.environ.get("OPENAI_API_KEY"),
               "structured": os.environ.get("CTXSIM_LLM_STRUCTURED")}
        vals = {k: v for k, v in {**env, **overrides}.items() if v is not None}
        return cls(**vals)


@dataclass
class TokenLedger:
    """Tokens the endpoint reported (``usage``), summed over requests: ``prompt``
    (input, cached included), ``cached`` (``prompt_tokens_details.cached_tokens``; 0
    where the server does not report it), ``completion`` (output), plus ``requests``,
    ``retries`` (transport), ``repairs`` (invalid answers re-asked) and ``seconds``
    (wall time in requests)."""

    requests: int = 0
    prompt: int = 0
    cached: int = 0
    completion: int = 0
    retries: int = 0
    repairs: int = 0
    seconds: float = 0.0

    def add(self, usage: Any, seconds: float) -> None:
        """Add one response's ``usage`` (object or dict; None counts the request
        only)."""
        self.requests += 1
        self.seconds += seconds
        if usage is None:
            return
        get = usage.get if isinstance(usage, dict) else lambda k, d=None: getattr(usage, k, d)
        self.prompt += int(get("prompt_tokens", 0) or 0)
        self.completion += int(get("completion_tokens", 0) or 0)
        det = get("prompt_tokens_details", None)
        if det is not None:
            c = det.get("cached_tokens") if isinstance(det, dict) else getattr(
                det, "cached_tokens", None)
            self.cached += int(c or 0)

    def cost(self, prices: dict[str, float] | None = None) -> float:
        """Dollars at ``prices`` per 1M tokens (default THEORY.md §4 prices)."""
        from sim.cost import PRICES, cost_usd

        return cost_usd(self.prompt, min(self.cached, self.prompt), self.completion,
                        prices or PRICES)

    def as_dict(self) -> dict:
        """The counters and the dollar cost, JSON-able."""
        return {"requests": self.requests, "prompt_tokens": self.prompt,
                "cached_tokens": self.cached, "completion_tokens": self.completion,
                "retries": self.retries, "repairs": self.repairs,
                "seconds": round(self.seconds, 2), "cost_usd": round(self.cost(), 6)}


def _retryable(exc: Exception) -> tuple[bool, int | None]:
    import openai

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return True, None
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        return code == 429 or code >= 500, code
    return False, None


class ChatClient:
    """Chat completions with timeouts, bounded retries and a token ledger.

    Args:
        settings: :class:`LLMSettings` (default :meth:`LLMSettings.from_env`).
        sleep: the backoff sleep (injectable for tests).
    """

    def __init__(self, settings: LLMSettings | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        import openai

        self.settings = settings or LLMSettings.from_env()
        self.ledger = TokenLedger()
        self._sleep = sleep
        # the client's own retries are off: ours are bounded, logged and testable
        self._client = openai.OpenAI(base_url=self.settings.base_url,
                                     api_key=self.settings.api_key,
                                     timeout=self.settings.timeout, max_retries=0)

    def create(self, messages: list[dict], *, tools: list[dict] | None = None,
               schema: dict | None = None, max_tokens: int | None = None) -> dict:
        """One completion; returns the first choice's message as a dict
        (``content``, ``tool_calls``) plus ``finish_reason``.

        ``schema`` constrains the answer per :attr:`LLMSettings.structured` (ignored in
        ``"none"`` and ``"tools"`` modes); ``tools`` are sent natively in ``"tools"``
        mode with ``tool_choice="required"``.

        Raises:
            LLMTransportError: after ``max_retries`` transient failures, or at once
                for a non-retryable HTTP status (4xx other than 429).
            ParseError: ``reason="empty"`` when the response has no choices.
        """
        s = self.settings
        body: dict[str, Any] = {"model": s.model, "messages": messages,
                                "temperature": s.temperature,
                                "max_tokens": max_tokens or s.max_tokens}
        if s.seed is not None:
            body["seed"] = s.seed
        if s.structured == "tools" and tools:
            body["tools"], body["tool_choice"] = tools, "required"
        elif schema is not None and s.structured == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "answer", "schema": schema}}
        elif schema is not None and s.structured == "llamacpp":
            body["response_format"] = {"type": "json_object", "schema": schema}
        delay = s.backoff
        for attempt in range(s.max_retries + 1):
            t0 = time.monotonic()
            try:
                resp = self._client.chat.completions.create(**body)
            except Exception as exc:  # noqa: BLE001 - classified just below
                retry, code = _retryable(exc)
                what = f"HTTP {code}" if code else type(exc).__name__
                if not retry:
                    if code is None and not _is_openai_error(exc):
                        raise
                    hint = (f" (structured={s.structured!r}; if the server rejects "
                            "response_format or tools, set CTXSIM_LLM_STRUCTURED to "
                            "'json_schema', 'tools' or 'none')"
                            if code == 400 and s.structured != "none" else "")
                    raise LLMTransportError(f"{s.base_url}: {what}: {exc}{hint}", code,
                                            attempt + 1) from None
                if attempt == s.max_retries:
                    raise LLMTransportError(f"{s.base_url}: {what} after {attempt + 1} "
                                            f"attempt(s): {exc}", code, attempt + 1) from None
                self.ledger.retries += 1
                self._sleep(delay)
                delay *= 2
                continue
            self.ledger.add(getattr(resp, "usage", None), time.monotonic() - t0)
            if not resp.choices:
                raise ParseError("the server returned no choices", "empty")
            choice = resp.choices[0]
            msg = choice.message
            calls = [{"id": c.id, "type": "function",
                      "function": {"name": c.function.name, "arguments": c.function.arguments}}
                     for c in (msg.tool_calls or [])]
            return {"content": msg.content, "tool_calls": calls,
                    "finish_reason": choice.finish_reason}
        raise AssertionError("unreachable")  # pragma: no cover

    def ask_json(self, messages: list[dict], schema: dict,
                 check: Callable[[Any], Any] | None = None,
                 max_tokens: int | None = None) -> Any:
        """A JSON answer under ``schema`` (a probe question), validated by ``check``
        (which raises :class:`ParseError` or returns the value to keep). Invalid
        answers are re-asked up to ``max_repairs`` times.

        Raises:
            LLMResponseError: when no valid answer came within the repairs.
            LLMTransportError: as :meth:`create`.
        """
        from sim.agents.llm_parse import extract_json

        def parse(msg):
            val = extract_json(msg["content"])  # probes answer in content, even in tools mode
            return check(val) if check else val

        return self.with_repairs(messages, lambda m: self.create(
            m, schema=schema, max_tokens=max_tokens), parse)

    def with_repairs(self, messages: list[dict], send: Callable[[list[dict]], dict],
                     parse: Callable[[dict], Any]) -> Any:
        """``parse(send(messages))``; on a :class:`ParseError` the model's answer and
        the error are appended (except for empty answers, which are simply re-sent)
        and it is asked again, at most ``max_repairs`` more times.

        Raises:
            LLMResponseError: with the last error's reason and answer text.
        """
        msgs = list(messages)
        last: ParseError | None = None
        raw = ""
        for attempt in range(self.settings.max_repairs + 1):
            if attempt:
                self.ledger.repairs += 1
            try:
                msg = send(msgs)
                raw = msg.get("content") or json.dumps(msg.get("tool_calls"))
                return parse(msg)
            except ParseError as err:
                last = err
                if err.reason != "empty":  # show the model its own answer and the error
                    msgs = msgs + [{"role": "assistant", "content": raw or ""},
                                   {"role": "user", "content": f"ERROR: {err} "
                                    "Reply again with one valid answer."}]
        raise LLMResponseError(f"no valid answer after {self.settings.max_repairs + 1} "
                               f"tries; last error: {last}", last.reason, raw)


def _is_openai_error(exc: Exception) -> bool:
    import openai

    return isinstance(exc, openai.OpenAIError)


# ---------------------------------------------------------------------- the agent
def _entry_text(e) -> str:
    head = f"[{e.id} {e.type}"
    if e.status != "visible":
        head += f" {e.status}"
    if e.source_call and e.status == "visible" and e.type == "tool_result":
        head += f" of {e.source_call}"
    if e.status in _ARCHIVED:
        what = e.source_call or e.text
        head += f": {what.strip()[:200]}" if what else ""
        head += f" | payload: {e.handle}]" if e.handle else " | no payload]"
        return head
    return f"{head}]\n{e.text}" if e.text else head + "]"


class LLMAgent:
    """A real model behind the agent protocol.

    Args:
        settings: endpoint settings (default :meth:`LLMSettings.from_env`).
        client: a ready :class:`ChatClient` (tests, shared ledgers); overrides
            ``settings``.
        max_context_actions: context-tool calls allowed before each task step; after
            that only the task step is offered (stops archive loops).

    After each episode, ``ledger`` holds the endpoint-reported tokens and ``log`` one
    record per action (tool name, arguments, repairs).
    """

    def __init__(self, settings: LLMSettings | None = None, client: ChatClient | None = None,
                 max_context_actions: int = 2):
        self.client = client or ChatClient(settings)
        self.settings = self.client.settings
        self.max_context_actions = max_context_actions
        self.name = f"llm-{self.settings.model}"
        self.failed_base = False
        self.archives = self.recoveries = 0

    @property
    def ledger(self) -> TokenLedger:
        """The client's :class:`TokenLedger`."""
        return self.client.ledger

    def reset(self, task, seed: int) -> None:
        """Start ``task`` (a :class:`sim.tasks.base.Task`); ``seed`` is sent to the
        server as the sampling seed."""
        self.task, self.pos = task, 0
        self.context_actions = 0
        self.archives = self.recoveries = 0
        self.log: list[dict] = []
        self.client.settings = self.settings = replace(self.settings, seed=int(seed) % 2**31)

    # -- the offered tools -----------------------------------------------------------
    def tools_for(self, view: View) -> list[dict]:
        """The OpenAI-format tools offered for ``view``: the next task step, and the
        context tools the program grants (archive, delete, and a payload read when a
        handle is shown) unless ``max_context_actions`` is used up."""
        from sim.workspace.tools import context_tool_schemas

        step = self.task.steps[self.pos]
        if step.kind == "observe":
            params = {"type": "object", "properties": {}, "additionalProperties": False}
            desc = f"Run the next task call {step.tool}({step.args})."
        else:
            params = {"type": "object", "properties": {
                k: {"type": "string", "description": f"exact value of {k}"}
                for k in step.needs}, "required": list(step.needs),
                "additionalProperties": False}
            desc = ("Give the final answer" if step.kind == "final" else
                    "Write the record") + ": the exact values, copied from the context."
        tools = [{"type": "function", "function": {"name": step.tool, "description": desc,
                                                   "parameters": params}}]
        if self.context_actions >= self.max_context_actions:
            return tools
        ctx = {t["function"]["name"]: t for t in context_tool_schemas()}
        if "archive" in view.tools:
            tools.append(ctx["context_workspace_archive"])
        if "delete" in view.tools:
            tools.append(ctx["context_workspace_delete"])
        if "recover" in view.tools and any(e.handle for e in view.entries):
            tools.append({"type": "function", "function": {
                "name": READ_PAYLOAD, "description": "Read the line containing `key` "
                "from an archived payload file (byte-exact recovery).",
                "parameters": {"type": "object", "properties": {
                    "path": {"type": "string", "description": "payload path shown"},
                    "key": {"type": "string", "description": "text to find"}},
                    "required": ["path", "key"], "additionalProperties": False}}})
        return tools

    def messages_for(self, view: View, tools: list[dict]) -> list[dict]:
        """The chat messages for ``view``: system (VISTA's protocol and budget notice
        when a dashboard or context tools are present), the task statement, the
        stream with block ids, and a last message with the dashboard, any harness
        notice, the tool list (JSON modes) and the next step."""
        from sim.workspace.assembly import default_system_prompt

        managed = view.dashboard is not None or bool({"archive", "delete"} & view.tools)
        system = (default_system_prompt(view.budget) if managed else
                  "You are a tool-using agent. Complete the task with the tools provided; "
                  "report exact values.")
        stream = "\n\n".join(_entry_text(e) for e in view.entries
                             if e.type != "user_message" or e.status != "pinned")
        step = self.task.steps[self.pos]
        if step.kind == "observe":
            todo = f"Next task step: call {step.tool} (it runs {step.tool}({step.args}))."
        else:
            todo = (f"Next task step: call {step.tool} with the exact values of "
                    f"{', '.join(step.needs)}, copied from the context (read an archived "
                    "payload first if a value is only there).")
        # everything that changes per turn goes last, after the stream, so the
        # server's KV cache reuses the whole prefix (system, task, stream so far)
        tools_text = tools_prompt(tools) if self.settings.structured != "tools" else ""
        tail = [view.dashboard or "", f"NOTICE: {view.notice}" if view.notice else "",
                tools_text, todo]
        return [{"role": "system", "content": system},
                {"role": "user", "content": self.task.statement},
                {"role": "user", "content": "Context so far:\n\n" + (stream or "(empty)")},
                {"role": "user", "content": "\n".join(t for t in tail if t)}]

    # -- turning a call into an action -------------------------------------------------
    def to_action(self, name: str, args: dict, view: View) -> Action:
        """The protocol action for a parsed call.

        Raises:
            ParseError: ``reason="block_id"`` for an id that is not a visible unpinned
                block of ``view``; ``"handle"`` for a payload path the view does not
                show.
        """
        step = self.task.steps[self.pos]
        if name == step.tool:
            self.pos += 1
            self.context_actions = 0
            if step.kind == "observe":
                return Action(TASK, tool=step.tool, args=step.args)
            values = {k: str(args[k]).strip() for k in step.needs}
            text = ", ".join(f"{k}={v}" for k, v in values.items())
            return Action(ANSWER if step.kind == "final" else TASK, tool=step.tool,
                          args=text, values=values)
        if name in ("context_workspace_archive", "context_workspace_delete"):
            verb = "archive" if name.endswith("archive") else "delete"
            allowed = {e.id for e in view.entries if e.status == "visible"
                       and e.id.startswith("B")}
            ids = check_block_spec(args["block_id"], allowed, verb)
            self.context_actions += 1
            if verb == "archive":
                self.archives += 1
                return Action(ARCHIVE, block_ids=",".join(ids),
                              replacement=args.get("replacement") or "archived by agent")
            return Action(DELETE, block_ids=",".join(ids), replacement=args["reason"])
        if name == READ_PAYLOAD:
            handles = {e.handle for e in view.entries if e.handle}
            if args["path"] not in handles:
                raise ParseError(f"unknown payload path {args['path']!r}; shown paths: "
                                 f"{sorted(handles)}", "handle")
            if not args["key"].strip():
                raise ParseError("read_payload needs a non-empty key", "arguments")
            self.context_actions += 1
            self.recoveries += 1
            return Action(RECOVER, handle=args["path"], key=args["key"].strip())
        raise ParseError(f"tool {name!r} is not available now", "unknown_tool")

    def act(self, view: View) -> Action:
        """Ask the model for one action on ``view``.

        Raises:
            LLMResponseError: when no valid call came within ``max_repairs`` repairs.
            LLMTransportError: when the endpoint failed beyond the retries.
        """
        tools = self.tools_for(view)
        schema = union_schema(tools)
        mode = self.settings.structured

        def parse(msg):
            name, args = parse_call(msg, tools, "tools" if mode == "tools" else "json")
            action = self.to_action(name, args, view)
            self.log.append({"turn": view.turn, "tool": name, "arguments": args})
            return action

        return self.client.with_repairs(
            self.messages_for(view, tools),
            lambda m: self.client.create(m, tools=tools, schema=schema), parse)

    def write_notes(self, view: View, round_: int) -> str:
        """Knowledge-block writing is not offered to the real model (the summarizing
        baselines use synthetic agents); raises NotImplementedError."""
        raise NotImplementedError("LLMAgent does not write knowledge blocks; run the "
                                  "summarizing programs with synthetic agents")
