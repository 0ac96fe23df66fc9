"""The answer file of a real-model run (:mod:`experiments.answers`): a run asks the
model once, a rerun from the file asks nothing, starts no server and writes the same
files; each answer counts at the cost it had when it was asked."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re

import pytest

from sim.agents.llm import ChatClient, LLMSettings, TokenLedger


class Model:
    """A stand-in model: for each request a deterministic answer chosen by the
    request's hash among the offered tools (its required arguments a block id of the
    prompt or a word, so some are refused and repaired), a lesson for the reflector's
    schema, an enum value (else a word) for each field of another schema, or text that
    is not JSON; every
    call costs tokens and 0.25 s by the ledger."""

    def __init__(self):
        self.settings = LLMSettings(model="stand-in", base_url="http://x/v1")
        self.ledger = TokenLedger()
        self.calls = 0

    with_repairs = ChatClient.with_repairs
    ask_json = ChatClient.ask_json

    def create(self, messages, *, tools=None, schema=None, max_tokens=None):
        self.calls += 1
        text = json.dumps([messages, schema], sort_keys=True)
        h = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
        self.ledger.add({"prompt_tokens": len(text) // 4, "completion_tokens": 7}, 0.25)
        props = (schema or {}).get("properties", {})
        if "lesson" in props:
            answer = {"lesson": ["archive old results", "pin the task"][h % 2]}
        elif props and "tool" not in props:   # ContextEvo's annotator and editor
            answer = {k: v["enum"][h % len(v["enum"])] if "enum" in v else "noted"
                      for k, v in props.items()}
        elif h % 5 == 0:
            return {"content": "{not json", "tool_calls": [], "finish_reason": "stop"}
        else:
            alts = [a for a in (schema or {}).get("anyOf", [schema or {}])
                    if "tool" in a.get("properties", {})] or [{}]
            alt = alts[h % len(alts)]
            # required arguments: a block id, a payload path of the prompt, or a word
            found = {"id": re.findall(r"\bB\d+\b", text) or ["B1"],
                     "path": re.findall(r"\b[0-9a-f]{2}/[0-9a-f]{64}\b", text) or ["x"]}
            spec = alt.get("properties", {}).get("arguments", {})
            answer = {"tool": alt.get("properties", {}).get("tool", {}).get("enum", ["x"])[0],
                      "arguments": {a: next((v[h % len(v)] for k, v in found.items()
                                             if k in a), "x")
                                    for a in spec.get("required", [])}}
        return {"content": json.dumps(answer), "tool_calls": [], "finish_reason": "stop"}


@pytest.fixture
def model(monkeypatch):
    """The stand-in behind :mod:`experiments.answers`; counts server starts."""
    import experiments.answers as A

    started, clients = [], []

    @contextlib.contextmanager
    def endpoint(args):
        started.append(1)
        yield Model().settings, {"model": "stand-in", "server": "test"}

    def client(settings):
        clients.append(Model())
        return clients[-1]

    monkeypatch.setattr(A, "_endpoint", endpoint)
    monkeypatch.setattr(A, "_client", client)
    monkeypatch.setattr(A, "embedded_settings",
                        lambda seed: LLMSettings(model="stand-in", base_url="", seed=seed))
    return started, clients


def test_answer_client_counts_a_replayed_answer_at_its_recorded_cost():
    from experiments.answers import AnswerClient
    from sim.agents.answer_cache import AnswerCache

    cache = AnswerCache()
    first, second = AnswerClient(Model(), cache), AnswerClient(Model(), cache)
    msgs = [{"role": "user", "content": "q"}]
    a = first.create(msgs)
    b = second.create(msgs)
    assert a == b and cache.hits == 1
    assert first.model_ledger.requests == 1 and second.model_ledger.requests == 0
    assert first.ledger.as_dict() == second.ledger.as_dict()
    assert second.ledger.prompt > 0 and second.ledger.seconds == 0.25
    # sampled decoding is never cached: each call is asked and counted at its own cost
    import dataclasses

    hot = AnswerClient(Model(), cache)
    hot.settings = dataclasses.replace(hot.settings, temperature=0.7)
    hot.create(msgs)
    hot.create(msgs)
    assert hot.model_ledger.requests == 2 and hot.ledger.requests == 2
    assert hot.ledger.prompt == hot.model_ledger.prompt > 0
    # an answer the cache holds without its cost counts as a request only
    cold = AnswerCache()
    cold.store({"model": "stand-in", "structured": "llamacpp", "seed": 0,
                "max_tokens": 160, "messages": msgs, "tools": None, "schema": None},
               {"content": "{}"})
    c = AnswerClient(Model(), cold)
    assert c.create(msgs) == {"content": "{}"}
    assert (c.ledger.requests, c.ledger.prompt, c.model_ledger.requests) == (1, 0, 0)


def test_evoharness_llm_replays_from_its_answer_file_without_a_server(tmp_path, model):
    import gzip

    from experiments.cli import run_command

    started, clients = model
    cache = tmp_path / "answers.jsonl.gz"
    argv = ["run", "evoharness", "--backend", "llm", "--quick", "--reflector", "llm",
            "--cache", str(cache), "--no-progress"]
    assert run_command([*argv, "--out", str(tmp_path / "a")]) == 0
    asked = sum(c.calls for c in clients)
    rec = json.loads((tmp_path / "a" / "evoharness_llm.json").read_text())
    assert started == [1] and asked > 0
    assert rec["model_calls"] == asked and rec["answer_file"] == str(cache)
    lines = gzip.decompress(cache.read_bytes()).decode().splitlines()
    assert len(lines) == len({json.loads(x)["key"] for x in lines}) > 0
    first = cache.read_bytes()

    started.clear()
    assert run_command([*argv, "--out", str(tmp_path / "b")]) == 0
    again = json.loads((tmp_path / "b" / "evoharness_llm.json").read_text())
    assert started == [] and sum(c.calls for c in clients) == asked
    assert again["model_calls"] == 0 and again["cache_hits"] >= len(lines)
    assert again["server"].startswith("not started")
    assert cache.read_bytes() == first
    for name in ("evoharness_llm.csv", "evoharness_llm_harness.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    rows = (tmp_path / "a" / "evoharness_llm.csv").read_text().splitlines()[1:]
    assert rows and all(int(r.split(",")[7]) > 0 for r in rows)   # prompt_tokens
    assert rec["call_ledger"] == again["call_ledger"]
    assert rec["reflection"] == again["reflection"]


@pytest.mark.parametrize("experiment", ["evoharness", "contextevo"])
@pytest.mark.parametrize("flag", [["--cache", "c.jsonl"], ["--no-cache"]])
def test_cache_options_are_refused_without_the_llm_backend(tmp_path, capsys, experiment,
                                                           flag):
    from experiments.cli import main

    assert main(["run", experiment, "--quick", *flag, "--out", str(tmp_path / "o"),
                 "--no-progress"]) == 2
    assert f"{flag[0]} only applies with --backend llm" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_contextevo_llm_replays_from_its_answer_file_without_a_server(tmp_path, model):
    from experiments.cli import run_command

    started, clients = model
    cache = tmp_path / "answers.jsonl.gz"
    argv = ["run", "contextevo", "--backend", "llm", "--quick", "--candidates", "2",
            "--llm-calls", "40", "--cache", str(cache), "--no-progress"]
    assert run_command([*argv, "--out", str(tmp_path / "a")]) == 0
    asked = sum(c.calls for c in clients)
    rec = json.loads((tmp_path / "a" / "contextevo_llm.json").read_text())
    assert started == [1] and 0 < asked and rec["model_calls"] == asked
    assert rec["client_ledger"]["requests"] >= asked
    first = cache.read_bytes()

    started.clear()
    assert run_command([*argv, "--out", str(tmp_path / "b")]) == 0
    again = json.loads((tmp_path / "b" / "contextevo_llm.json").read_text())
    assert started == [] and sum(c.calls for c in clients) == asked
    assert again["model_calls"] == 0 and again["server"].startswith("not started")
    assert again["client_ledger"] == rec["client_ledger"]
    assert cache.read_bytes() == first
    for name in ("contextevo_llm.csv", "contextevo_llm_spec.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def _records(*keys) -> bytes:
    return "".join(json.dumps({"key": k, "answer": k.upper(), "cost": None}) + "\n"
                   for k in keys).encode()


def _packed(data: bytes) -> bytes:
    import gzip
    import io

    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(data)
    return raw.getvalue()


def test_a_killed_runs_answers_are_taken_up_by_the_next_run(tmp_path):
    import gzip

    from experiments.answers import answer_file

    target = tmp_path / "a.jsonl.gz"
    target.write_bytes(_packed(_records("k1")))
    # what a run killed outright leaves: its working copy beside the file
    (tmp_path / "a.jsonl.gz.partial").write_bytes(_records("k1", "k2"))
    with answer_file(target) as work:
        assert work == tmp_path / "a.jsonl.gz.partial"
        assert work.read_bytes() == _records("k1", "k2")   # k1 once: not doubled
    assert gzip.decompress(target.read_bytes()) == _records("k1", "k2")
    assert not work.exists()
    # a leftover that is not a copy of the packed file is appended after it
    (tmp_path / "a.jsonl.gz.partial").write_bytes(_records("k3"))
    with answer_file(target):
        pass
    assert gzip.decompress(target.read_bytes()) == _records("k1", "k2", "k3")


def test_a_replay_leaves_the_packed_file_as_it_was(tmp_path):
    import os

    from experiments.answers import answer_file

    target = tmp_path / "a.jsonl.gz"
    target.write_bytes(_packed(_records("k1")) + b"")
    before = os.stat(target)
    with answer_file(target) as work:
        assert work.read_bytes() == _records("k1")
    after = os.stat(target)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    with answer_file(target) as work:   # an added answer is packed back
        with work.open("a") as f:
            f.write(_records("k2").decode())
    assert os.stat(target).st_ino != before.st_ino


def test_a_second_run_on_the_same_packed_file_is_refused(tmp_path):
    from experiments.answers import answer_file
    from experiments.arguments import UsageError

    target = tmp_path / "a.jsonl.gz"
    with answer_file(target) as work:
        work.write_bytes(_records("mine"))
        with pytest.raises(UsageError, match="another run is using it"):
            with answer_file(target):
                pass
    with answer_file(target) as work:   # free again once the first run ended
        assert work.read_bytes() == _records("mine")


def test_a_packed_file_in_a_directory_it_cannot_write_replays_from_a_copy(
        tmp_path, monkeypatch):
    import experiments.answers as A
    from experiments.arguments import UsageError

    target = tmp_path / "a.jsonl.gz"
    target.write_bytes(_packed(_records("k1")))
    monkeypatch.setattr(A.os, "access", lambda path, mode: False)
    with A.answer_file(target) as work:
        assert work.parent != tmp_path and work.read_bytes() == _records("k1")
    assert list(tmp_path.iterdir()) == [target]
    with pytest.raises(UsageError, match="not writable, so the answers"):
        with A.answer_file(target) as work:
            with work.open("a") as f:
                f.write(_records("k2").decode())


def _made(path, what):
    """``path`` after ``what(path)`` (a file or directory made there)."""
    what(path)
    return path


@pytest.mark.parametrize("make, why", [
    (lambda d: _made(d / "x.jsonl", lambda p: p.mkdir()), "is a directory"),
    (lambda d: _made(d / "f", lambda p: p.write_text("")) / "x.jsonl",
     "is not a directory"),
    (lambda d: _made(d / "x.jsonl.gz", lambda p: p.write_bytes(b"garbage")),
     "not a gzip-compressed answer file"),
    (lambda d: _made(d / "x.jsonl.gz", lambda p: p.write_bytes(_packed(b"\xff\xfe"))),
     "not a text answer file"),
    (lambda d: _made(d / "r.csv", lambda p: p.write_text("arm,task\na,b\n")),
     "holds no answer records"),
])
def test_a_path_that_is_no_answer_file_is_refused_naming_it(tmp_path, make, why):
    from experiments.answers import answer_file
    from experiments.arguments import UsageError

    path = make(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(UsageError, match=why) as err:
        with answer_file(path):
            pass
    assert repr(str(path)) in str(err.value)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_torn_last_line_does_not_swallow_the_next_answer(tmp_path):
    from sim.agents.answer_cache import AnswerCache

    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"key": AnswerCache.key({"q": 1}), "answer": 1}) + "\n"
                    + '{"key": "k2", "ans')
    cache = AnswerCache(path)
    assert cache.lookup({"q": 1}) == (True, 1)
    cache.store({"q": 3}, 3)
    again = AnswerCache(path)
    assert again.lookup({"q": 3}) == (True, 3) and again.lookup({"q": 1}) == (True, 1)


def test_a_users_endpoint_gets_its_own_default_answer_file():
    from experiments.answers import default_path

    embedded = default_path("evoharness")
    theirs = default_path("evoharness", "http://10.0.0.2:8080/v1")
    assert embedded.name == "evoharness_answers.jsonl"
    assert theirs.name == "evoharness_answers_10.0.0.2_8080_v1.jsonl"
    assert theirs.parent == embedded.parent


@pytest.mark.parametrize("argv, said", [
    (["--cache", "c.jsonl", "--no-cache"], "contradict each other"),
    (["--cache", ""], "expected the path of an answer file"),
])
@pytest.mark.parametrize("experiment", [
    ["evoharness", "--backend", "llm"], ["contextevo", "--backend", "llm"], ["calibrate"],
    ["perception"], ["presentation"], ["pressure", "--agent", "llm"]])
def test_contradicting_or_empty_cache_options_are_refused(tmp_path, capsys, experiment,
                                                         argv, said, model):
    from experiments.cli import main

    started, _ = model
    try:   # argparse's own refusal exits; the settings' check returns 2
        rc = main(["run", *experiment, "--quick", *argv, "--out", str(tmp_path / "o"),
                   "--no-progress"])
    except SystemExit as exc:
        rc = exc.code
    assert rc == 2 and said in capsys.readouterr().err
    assert not (tmp_path / "o").exists() and started == []


def test_replay_only_fails_a_request_the_file_lacks_without_starting_a_server(
        tmp_path, model, monkeypatch, capsys):
    from experiments.answers import REPLAY_ONLY
    from experiments.cli import main
    from experiments.figures_cli import _rerun_environment

    started, _ = model
    monkeypatch.setenv(REPLAY_ONLY, "1")
    assert main(["run", "evoharness", "--backend", "llm", "--quick", "--no-progress",
                 "--cache", str(tmp_path / "a.jsonl"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"a request not in the answer file {tmp_path / 'a.jsonl'}, and " \
        "CTXSIM_REPLAY_ONLY is set" in err
    assert started == [] and not (tmp_path / "o").exists()
    # --verify sets it for a figure whose answers ship, and only then
    assert _rerun_environment([], replay_only=True)[REPLAY_ONLY] == "1"
    monkeypatch.delenv(REPLAY_ONLY)
    assert REPLAY_ONLY not in _rerun_environment([])


@pytest.mark.parametrize("argv, files", [
    (["perception", "--quick"], ["perception.csv"]),
    (["presentation", "--quick"], ["presentation.csv"]),
    (["pressure", "--agent", "llm", "--quick"],
     ["pressure_llm.csv", "pressure_llm_episodes.csv"]),
])
def test_vista_probes_replay_from_their_answer_files_without_a_server(tmp_path, model,
                                                                       argv, files):
    from experiments.cli import run_command

    started, clients = model
    cache = tmp_path / "answers.jsonl.gz"
    run = ["run", *argv, "--cache", str(cache), "--no-progress"]
    assert run_command([*run, "--out", str(tmp_path / "a")]) == 0
    asked = sum(c.calls for c in clients)
    side = files[0].replace(".csv", ".json")
    rec = json.loads((tmp_path / "a" / side).read_text())
    assert started == [1] and asked > 0 and rec["model_calls"] == asked
    first = cache.read_bytes()

    started.clear()
    assert run_command([*run, "--out", str(tmp_path / "b")]) == 0
    again = json.loads((tmp_path / "b" / side).read_text())
    assert started == [] and sum(c.calls for c in clients) == asked
    assert again["model_calls"] == 0 and again["server"].startswith("not started")
    assert cache.read_bytes() == first
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_replay_only_asks_no_base_url_endpoint_what_the_file_lacks(tmp_path, model,
                                                                   monkeypatch, capsys):
    """A --base-url endpoint is open from the outset; under replay-only a request the
    file lacks still fails before it reaches the endpoint (the stand-in counts every
    client made: none is)."""
    from experiments.answers import REPLAY_ONLY
    from experiments.cli import main

    started, clients = model
    monkeypatch.setenv(REPLAY_ONLY, "1")
    cache = tmp_path / "a.jsonl"
    assert main(["run", "perception", "--quick", "--no-progress", "--cache", str(cache),
                 "--base-url", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"a request not in the answer file {cache}, and CTXSIM_REPLAY_ONLY" in err
    assert started == [1] and clients == []
    # without it the same run asks the endpoint
    monkeypatch.delenv(REPLAY_ONLY)
    assert main(["run", "perception", "--quick", "--no-progress", "--no-cache",
                 "--base-url", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "p")]) == 0
    assert clients


def _trimmed(src, dst, keep: int) -> None:
    """``dst``: the answer file ``src`` (a .gz) with only its first ``keep`` lines."""
    import gzip

    lines = gzip.decompress(src.read_bytes()).splitlines(keepends=True)
    dst.write_bytes(_packed(b"".join(lines[:keep])))


@pytest.mark.parametrize("argv, keep", [
    (["contextevo", "--backend", "llm", "--quick", "--candidates", "2", "--llm-calls",
      "40"], 2),
    # the reflector's answers come last: the agents' all replay, a lesson is missing
    (["evoharness", "--backend", "llm", "--quick", "--reflector", "llm"], -1)])
def test_a_replay_missing_an_answer_stops_instead_of_counting_a_failed_call(
        tmp_path, model, monkeypatch, capsys, argv, keep):
    """The loops count a failed model call and go on; an answer missing under
    replay-only is no failed call: the run stops (exit 2, naming the file), so a
    trimmed answer file can never pass ``figures --verify``."""
    from experiments.answers import REPLAY_ONLY
    from experiments.cli import main

    full = tmp_path / "full.jsonl.gz"
    assert main(["run", *argv, "--cache", str(full), "--no-progress",
                 "--out", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    part = tmp_path / "part.jsonl.gz"
    _trimmed(full, part, keep)
    monkeypatch.setenv(REPLAY_ONLY, "1")
    assert main(["run", *argv, "--cache", str(part), "--no-progress",
                 "--out", str(tmp_path / "b")]) == 2
    assert f"not in the answer file {part}" in capsys.readouterr().err
    # the whole file still replays under replay-only
    assert main(["run", *argv, "--cache", str(full), "--no-progress",
                 "--out", str(tmp_path / "c")]) == 0


def test_the_synthetic_grids_llm_reflector_is_refused_under_replay_only(
        tmp_path, model, monkeypatch, capsys):
    from experiments.answers import REPLAY_ONLY
    from experiments.cli import main

    started, _ = model
    monkeypatch.setenv(REPLAY_ONLY, "1")
    assert main(["run", "evoharness", "--quick", "--reflector", "llm", "--no-progress",
                 "--out", str(tmp_path / "o")]) == 2
    assert "--reflector llm with the synthetic backend asks the model with no answer " \
        "file" in capsys.readouterr().err
    assert started == []


def test_no_cache_under_replay_only_is_refused_before_the_run(tmp_path, model,
                                                             monkeypatch, capsys):
    from experiments.answers import REPLAY_ONLY
    from experiments.cli import main

    started, _ = model
    monkeypatch.setenv(REPLAY_ONLY, "1")
    assert main(["run", "perception", "--quick", "--no-cache", "--no-progress",
                 "--out", str(tmp_path / "o")]) == 2
    assert "--no-cache with CTXSIM_REPLAY_ONLY set" in capsys.readouterr().err
    assert started == [] and not (tmp_path / "o").exists()


def test_leftover_answers_the_packed_file_holds_are_not_added_again(tmp_path):
    """A run killed before the file was updated (a pull, say) leaves answers the
    file now holds: a replay takes none of them twice and leaves the file as it was."""
    from experiments.answers import answer_file

    target = tmp_path / "a.jsonl.gz"
    target.write_bytes(_packed(_records("k1", "k2", "k3")))
    before = target.read_bytes()
    (tmp_path / "a.jsonl.gz.partial").write_bytes(_records("k2", "k1"))
    with answer_file(target) as work:
        assert work.read_bytes() == _records("k1", "k2", "k3")
    assert target.read_bytes() == before


def test_a_linked_packed_file_is_locked_and_written_through_its_link(tmp_path):
    import gzip

    from experiments.answers import answer_file
    from experiments.arguments import UsageError

    target = tmp_path / "a.jsonl.gz"
    target.write_bytes(_packed(_records("k1")))
    link = tmp_path / "link.jsonl.gz"
    link.symlink_to(target)
    with answer_file(target):
        with pytest.raises(UsageError, match="another run is using it"):
            with answer_file(link):
                pass
    with answer_file(link) as work:
        with open(work, "ab") as f:
            f.write(_records("k2"))
    assert link.is_symlink()
    assert gzip.decompress(target.read_bytes()) == _records("k1", "k2")


def test_directories_made_for_an_answer_file_never_written_are_removed(tmp_path):
    from experiments.answers import answer_file

    target = tmp_path / "new" / "deeper" / "a.jsonl.gz"
    with pytest.raises(RuntimeError):
        with answer_file(target):
            raise RuntimeError("the run failed")
    assert not (tmp_path / "new").exists()
    with answer_file(target) as work:   # a run that adds an answer keeps them
        with open(work, "ab") as f:
            f.write(_records("k1"))
    assert target.is_file()


@pytest.mark.parametrize("make, why", [
    (lambda d: "/dev/null", "is not a regular file"),
    (lambda d: _made(d / "gz.jsonl", lambda p: p.write_bytes(_packed(_records("k1")))),
     "is gzip-compressed but its name does not end in .gz"),
])
def test_a_device_or_a_misnamed_gzip_is_refused(tmp_path, make, why):
    from experiments.answers import answer_file
    from experiments.arguments import UsageError

    path = make(tmp_path)
    with pytest.raises(UsageError, match=why):
        with answer_file(path):
            pass
