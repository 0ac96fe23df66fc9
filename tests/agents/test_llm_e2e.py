"""End to end with the embedded real model (marker ``llm``; ``.ci/run`` runs it after
installing the extra): start the local server, play a tiny task through the block
workspace, and check that each tool call the model made was parsed, applied, and kept
the workspace invariants (budget truth, protocol validity, lossless payloads).

Deselected by default (``addopts -m "not llm"``); ``pytest -m llm`` runs it, and it
skips with a reason when llama-cpp-python or the model parts are not installed.
Short on purpose (two requests of ~500 tokens; 20-40 s on 2 CPUs).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from sim.agents import llm_server as ls

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(not ls.llama_cpp_installed(),
                       reason=f"llama-cpp-python[server] not installed ({ls.BUILD_HINT})"),
    pytest.mark.skipif(not ls.parts_installed(),
                       reason=f"model parts not installed ({ls.BUILD_HINT})"),
]


@pytest.fixture(scope="module")
def server():
    with ls.local_server(n_ctx=2048, ready_timeout=240) as info:
        yield info


def check_invariants(ws) -> None:
    """Protocol validity, dashboard truth (stated totals equal the counted ones) and
    lossless payloads (sha256-checked reads) of ``ws``."""
    from sim.workspace import BlockStatus, validate_chat_request
    from sim.workspace.dashboard import MESSAGE_TOKENS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        req = ws.assemble(strict=False)
        fresh = ws.assemble(strict=False, incremental=False)
    validate_chat_request(req.to_openai())
    assert req.messages == fresh.messages and req.total == fresh.total
    assert req.dashboard == MESSAGE_TOKENS + ws.tokenizer.count(req.dashboard_text)
    stated = re.search(r"\(~([\d,]+) / ([\d,]+) tokens\)", req.dashboard_text)
    assert int(stated.group(1).replace(",", "")) == req.total
    for b in ws.blocks.values():
        if b.status is not BlockStatus.DELETED:
            assert ws.store.read(b.handle) == b.data


def test_tiny_episode_with_the_real_model(server, tmp_path):
    from sim.agents.llm import LLMAgent, LLMSettings
    from sim.agents.protocol import ANSWER, ARCHIVE, DELETE, RECOVER, TASK
    from sim.cost import EpisodeResult
    from sim.program_context import ProgramContext
    from sim.policies import make_program
    from sim.tasks.base import FINAL, OBSERVE, Fact, Step, Task
    from sim.workspace import Workspace
    from sim.workspace.assembly import default_system_prompt

    content = "order id: QX-4471\nstatus: shipped\ncarrier: north\n"
    task = Task("e2e/1", "e2e", 0, 0, "Look up the order, then answer with its exact "
                "order id.\n", (Step(OBSERVE, "lookup_order", '{"customer": "c7"}', content,
                                    14, ("order id",)),
                               Step(FINAL, "answer", needs=("order id",))),
                {"order id": Fact("order id", "QX-4471", 0)})
    budget = 1500
    agent = LLMAgent(LLMSettings(base_url=server.base_url, model=server.model,
                                 max_tokens=48, timeout=240, max_repairs=1))
    agent.reset(task, seed=0)
    program = make_program("vista")
    ws = Workspace(tmp_path / "ws", budget=budget, strict=False, sync=True,
                   dashboard=program.dashboard, system_prompt=default_system_prompt(budget))
    ctx = ProgramContext(ws, program, agent, budget, np.random.default_rng(0),
                         EpisodeResult(task.task_id, "vista", False))
    ws.register({"role": "user", "content": task.statement}, pinned=True)
    check_invariants(ws)
    kinds, answer = [], None
    for n in range(4):
        view, _ = ctx.view()
        action = agent.act(view)  # raises rather than returning a guessed action
        kinds.append(action.kind)
        if action.kind == ARCHIVE:
            ws.archive(action.block_ids, action.replacement)
        elif action.kind == DELETE:
            ws.delete(action.block_ids, action.replacement)
        elif action.kind == RECOVER:
            ws.read_payload(action.handle)
        else:
            step = task.steps[agent.pos - 1]
            cid = f"call_{n}"
            ws.register({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {
                    "name": step.tool, "arguments": action.args or "{}"}}]})
            ws.register({"role": "tool", "tool_call_id": cid,
                         "content": step.content or "ok\n"})
        check_invariants(ws)
        if action.kind == ANSWER:
            answer = action.values["order id"]
            break
    assert kinds[0] in (TASK, ARCHIVE) and ANSWER in kinds, kinds
    assert isinstance(answer, str) and answer
    assert agent.ledger.requests >= len(kinds) and agent.ledger.completion > 0
    print(f"actions {kinds}, answer {answer!r}, ledger {agent.ledger.as_dict()}")
    ws.close()


def test_the_real_model_as_reflector_writes_a_lesson_that_is_parsed_or_refused(server):
    """Evo-Harness's ``--reflector llm`` with the embedded model (issue 32): one failed
    execution at standard feedback is one model call; the answer is a lesson the
    grammar plays (then the harness line is the model's text) or a counted NONE with
    the reason; asking again is answered from the cache."""
    from sim.agents.llm import ChatClient, LLMSettings
    from sim.evolve.evoharness.lessons import edits_of
    from sim.evolve.evoharness.propose import NEW, NONE, Execution, evaluate
    from sim.evolve.evoharness.reflector import LLMReflector

    ex = Execution(task_id="loca/lab_results/s0/8000", topic="lab_results",
                   statement="Task (lab_results): look up record LAB-1234 total",
                   solved=False, believes_solved=True, answer={"total": "1.6"},
                   expected={"total": "1.5"}, signals={"requests": 9, "archives": 3},
                   unseen=("total",), answer_tokens=5200, seed=1)
    rf = LLMReflector(ChatClient(LLMSettings(base_url=server.base_url, model=server.model,
                                             seed=0, max_tokens=96, timeout=300)))
    out = rf(ex, evaluate(ex, "standard"), [])
    [lesson] = rf.lessons
    assert isinstance(lesson["lesson"], str) and len(out) in (1, 2)
    for p in out:
        if p.op == NONE:
            assert p.reason in ("no instruction the lesson grammar plays",
                                "generic advice", "replay of one task")
        else:
            assert p.op == NEW and p.body == f"do: {lesson['lesson']}\n"
            assert [e.verb for e in edits_of(p.body)] == [lesson["verb"]] == [p.directive]
    assert rf(ex, evaluate(ex, "standard"), []) == out
    assert (rf.ledger()["model_calls"], rf.ledger()["repeated_questions"]) == (1, 1)
