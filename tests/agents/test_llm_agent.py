"""The LLM agent against recorded server responses (a scripted OpenAI-compatible
server on 127.0.0.1): parsing, retries and errors, each a clear error or a bounded
retry, never a silent wrong action; and one episode through the workspace."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("openai")

from sim.agents.llm import (ChatClient, LLMAgent, LLMResponseError, LLMSettings,  # noqa: E402
                            LLMTransportError, TokenLedger)
from sim.agents.llm_parse import ParseError, check_block_spec, parse_call, union_schema  # noqa: E402
from sim.agents.protocol import ANSWER, ARCHIVE, RECOVER, TASK, Entry, View  # noqa: E402
from sim.tasks.base import FINAL, OBSERVE, Fact, Step, Task  # noqa: E402


def completion(content=None, tool_calls=None, usage=(100, 20, 10), choices=True):
    """A chat-completions response body as an OpenAI-compatible server sends it."""
    msg = {"role": "assistant", "content": content}
    if tool_calls:
        msg["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                              "function": {"name": n, "arguments": json.dumps(a)}}
                             for i, (n, a) in enumerate(tool_calls)]
    prompt, cached, out = usage
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}]
            if choices else [],
            "usage": {"prompt_tokens": prompt, "completion_tokens": out,
                      "total_tokens": prompt + out,
                      "prompt_tokens_details": {"cached_tokens": cached}}}


def call(tool, **arguments):
    """A JSON-mode answer body."""
    return completion(json.dumps({"tool": tool, "arguments": arguments}))


class FakeServer:
    """Serves ``POST /v1/chat/completions`` from a script: each item is a response
    body (200), ``(status, body)``, ``("sleep", seconds)`` or a callable taking the
    request body. Records the request bodies."""

    def __init__(self, script):
        self.script, self.requests = list(script), []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                item = fake.script.pop(0) if len(fake.script) > 1 else fake.script[0]
                status = 200
                if callable(item):
                    item = item(body)
                if isinstance(item, tuple) and item[0] == "sleep":
                    time.sleep(item[1])
                    item = completion("{}")
                elif isinstance(item, tuple):
                    status, item = item
                data = json.dumps(item).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve():
    servers = []

    def make(script, **settings):
        srv = FakeServer(script)
        servers.append(srv)
        sleeps = []
        s = LLMSettings(base_url=srv.url, model="m", **settings)
        return srv, ChatClient(s, sleep=sleeps.append), sleeps

    yield make
    for s in servers:
        s.close()


TASK_ = Task("t/1", "t", 0, 0, "Find the code.\n", (
    Step(OBSERVE, "lookup", '{"id": 1}', "code: X-17\nnoise\n", 8, ("code",)),
    Step(FINAL, "answer", needs=("code",))), {"code": Fact("code", "X-17", 0)})


def view(tools=frozenset({"archive", "recover", "task"}), handle=None):
    entries = (Entry("B1", "user_message", "pinned", "Find the code.\n", 6),
               Entry("B2", "tool_call", "visible", "", 10),
               Entry("B3", "tool_result", "visible", "code: X-17\nnoise\n", 8,
                     source_call='lookup({"id": 1})'))
    if handle:
        entries += (Entry("B4", "tool_result", "archived", "old page", 30, handle,
                          "fetch(2)"),)
    return View(entries, 2000, dashboard="<context_workspace_status>...", tools=tools,
                turn=2)


def agent_for(client, pos=0):
    a = LLMAgent(client=client)
    a.reset(TASK_, seed=3)
    a.pos = pos
    return a


# ----------------------------------------------------------------------- parsing
def test_valid_json_call_becomes_the_action_and_feeds_the_ledger(serve):
    srv, client, _ = serve([call("lookup")])
    action = agent_for(client).act(view())
    assert (action.kind, action.tool, action.args) == (TASK, "lookup", '{"id": 1}')
    body = srv.requests[0]
    assert body["response_format"]["type"] == "json_object"
    names = [a["properties"]["tool"]["enum"][0] for a in body["response_format"]["schema"]
             ["anyOf"]]
    assert names == ["lookup", "context_workspace_archive"]  # no handle shown: no read
    assert client.ledger.as_dict()["prompt_tokens"] == 100
    assert (client.ledger.cached, client.ledger.completion) == (20, 10)
    assert 0 < client.ledger.cost() < 1e-3


def test_final_answer_values_are_exact_strings(serve):
    _, client, _ = serve([call("answer", code="X-17")])
    action = agent_for(client, pos=1).act(view())
    assert action.kind == ANSWER and action.values == {"code": "X-17"}


def test_malformed_json_is_repaired_once_with_the_error_shown(serve):
    srv, client, _ = serve([completion('{"tool": "lookup", "argu'), call("lookup")])
    action = agent_for(client).act(view())
    assert action.kind == TASK and client.ledger.repairs == 1
    last = srv.requests[1]["messages"][-1]["content"]
    assert last.startswith("ERROR: the answer is not valid JSON")


def test_malformed_json_twice_is_a_clear_error(serve):
    _, client, _ = serve([completion("archive B3 please")])
    with pytest.raises(LLMResponseError) as err:
        agent_for(client).act(view())
    assert err.value.reason == "json" and "archive B3 please" in str(err.value)


def test_unknown_tool_is_an_error_naming_the_tools(serve):
    _, client, _ = serve([call("rm_rf", path="/")])
    a = agent_for(client)
    with pytest.raises(LLMResponseError, match="unknown tool 'rm_rf'") as err:
        a.act(view())
    assert err.value.reason == "unknown_tool" and a.pos == 0


@pytest.mark.parametrize("spec,bad", [("B99", "B99"), ("B1", "B1"), ("B2-B9", "B4"),
                                      ("B3,oops", "oops")])
def test_unknown_or_pinned_block_id_is_never_applied(serve, spec, bad):
    _, client, _ = serve([call("context_workspace_archive", block_id=spec)])
    a = agent_for(client)
    with pytest.raises(LLMResponseError, match=bad) as err:
        a.act(view())
    assert err.value.reason == "block_id" and a.archives == 0


def test_archive_of_visible_blocks_is_accepted(serve):
    _, client, _ = serve([call("context_workspace_archive", block_id="B2-B3",
                               replacement="lookup result")])
    action = agent_for(client).act(view())
    assert (action.kind, action.block_ids, action.replacement) == (
        ARCHIVE, "B2,B3", "lookup result")


def test_read_payload_needs_a_shown_handle(serve):
    _, client, _ = serve([call("read_payload", path="../../etc/passwd", key="code")])
    with pytest.raises(LLMResponseError, match="unknown payload path") as err:
        agent_for(client).act(view(handle="ab/abcd"))
    assert err.value.reason == "handle"
    _, client, _ = serve([call("read_payload", path="ab/abcd", key="code")])
    action = agent_for(client).act(view(handle="ab/abcd"))
    assert (action.kind, action.handle, action.key) == (RECOVER, "ab/abcd", "code")


def test_missing_and_extra_arguments_are_errors(serve):
    _, client, _ = serve([call("answer")])
    with pytest.raises(LLMResponseError, match="missing required"):
        agent_for(client, pos=1).act(view())
    _, client, _ = serve([call("answer", code="X-17", guess="y")])
    with pytest.raises(LLMResponseError, match="unknown argument"):
        agent_for(client, pos=1).act(view())


def test_empty_choices_are_retried_then_an_error(serve):
    srv, client, _ = serve([completion(choices=False)])
    with pytest.raises(LLMResponseError, match="no choices") as err:
        agent_for(client).act(view())
    assert err.value.reason == "empty" and len(srv.requests) == 2
    srv, client, _ = serve([completion(choices=False), call("lookup")])
    assert agent_for(client).act(view()).kind == TASK


def test_native_tool_calls_mode(serve):
    srv, client, _ = serve([completion(tool_calls=[("lookup", {})])], structured="tools")
    action = agent_for(client).act(view())
    assert action.kind == TASK
    assert srv.requests[0]["tool_choice"] == "required" and "response_format" not in \
        srv.requests[0]
    _, client, _ = serve([completion(tool_calls=[("lookup", {}), ("lookup", {})])],
                         structured="tools", max_repairs=0)
    with pytest.raises(LLMResponseError, match="2 tool calls"):
        agent_for(client).act(view())


# ----------------------------------------------------------------------- transport
def test_http_500_is_retried_with_backoff(serve):
    srv, client, sleeps = serve([(500, {"error": {"message": "boom"}}), call("lookup")])
    assert agent_for(client).act(view()).kind == TASK
    assert sleeps == [1.0] and client.ledger.retries == 1 and len(srv.requests) == 2


def test_http_500_forever_is_a_transport_error_after_bounded_retries(serve):
    srv, client, sleeps = serve([(500, {"error": {"message": "boom"}})])
    with pytest.raises(LLMTransportError) as err:
        agent_for(client).act(view())
    assert err.value.status == 500 and err.value.attempts == 3
    assert sleeps == [1.0, 2.0] and len(srv.requests) == 3


def test_http_400_is_not_retried(serve):
    srv, client, sleeps = serve([(400, {"error": {"message": "bad schema"}})])
    with pytest.raises(LLMTransportError, match="400") as err:
        agent_for(client).act(view())
    assert err.value.status == 400 and sleeps == [] and len(srv.requests) == 1


def test_timeout_is_retried_then_an_error(serve):
    srv, client, sleeps = serve([("sleep", 1.0)], timeout=0.2, max_retries=1)
    t0 = time.monotonic()
    with pytest.raises(LLMTransportError, match="Timeout"):
        agent_for(client).act(view())
    assert len(srv.requests) == 2 and sleeps == [1.0] and time.monotonic() - t0 < 5


def test_settings_validation_and_env(monkeypatch):
    with pytest.raises(ValueError, match="structured"):
        LLMSettings(structured="xml")
    monkeypatch.setenv("CTXSIM_LLM_BASE_URL", "http://h:1/v1")
    monkeypatch.setenv("CTXSIM_LLM_STRUCTURED", "tools")
    s = LLMSettings.from_env(model="x")
    assert (s.base_url, s.structured, s.model) == ("http://h:1/v1", "tools", "x")


def test_ledger_without_cached_details():
    led = TokenLedger()
    led.add({"prompt_tokens": 10, "completion_tokens": 2}, 0.5)
    led.add(None, 0.1)
    assert (led.requests, led.prompt, led.cached, led.completion) == (2, 10, 0, 2)


# ----------------------------------------------------------------------- parser
def test_parser_units():
    tools = [{"type": "function", "function": {"name": "a", "parameters": {
        "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"],
        "additionalProperties": False}}}]
    assert union_schema(tools)["properties"]["tool"]["enum"] == ["a"]
    assert parse_call({"content": '```json\n{"tool": "a", "arguments": {"x": "1"}}\n```'},
                      tools, "json") == ("a", {"x": "1"})
    with pytest.raises(ParseError, match="must be a string"):
        parse_call({"content": '{"tool": "a", "arguments": {"x": 1}}'}, tools, "json")
    with pytest.raises(ParseError, match="must be"):
        parse_call({"content": '["a"]'}, tools, "json")
    assert check_block_spec("B2-B3, G1", {"B2", "B3", "G1"}, "archive") == ["B2", "B3", "G1"]


# ----------------------------------------------------------------------- an episode
def oracle(body):
    """A fake model: calls the first offered tool, copying ``key: value`` lines from
    the prompt for each required argument."""
    schema = body["response_format"]["schema"]
    first = schema["anyOf"][0] if "anyOf" in schema else schema
    name = first["properties"]["tool"]["enum"][0]
    text = "\n".join(m["content"] for m in body["messages"][1:])  # not the tool list
    found = {k: re.search(re.escape(k) + r": (\S+)", text)
             for k in first["properties"]["arguments"].get("required", [])}
    args = {k: m.group(1) if m else "unknown" for k, m in found.items()}
    return call(name, **args)


def test_episode_through_the_workspace_is_solved(serve):
    from sim.harness import run_episode
    from sim.policies import make_program
    from sim.tasks.loca import loca_task

    task = loca_task(0, 0, 2000)
    srv, client, _ = serve([oracle])
    agent = LLMAgent(client=client)
    r = run_episode(task, make_program("vista"), agent, budget=4000, seed=1)
    assert r.solved and r.requests == len(task.steps)
    assert agent.ledger.requests == len(task.steps)
    first = srv.requests[0]["messages"]
    assert "CONTEXT MANAGEMENT PROTOCOL" in first[0]["content"]
    assert first[-1]["content"].startswith("<context_workspace_status>")



def test_per_turn_text_comes_last_so_the_prefix_is_cacheable(serve):
    """System prompt and stream do not depend on the step or the offered tools."""
    _, client, _ = serve([call("lookup")])
    a = agent_for(client)
    m0 = a.messages_for(view(), a.tools_for(view()))
    a.pos = 1
    v = view(handle="ab/abcd")
    m1 = a.messages_for(v, a.tools_for(v))
    assert m0[0] == m1[0] and m0[1] == m1[1]
    assert m1[2]["content"].startswith(m0[2]["content"])
    assert "read_payload" in m1[-1]["content"] and "read_payload" not in m0[-1]["content"]
