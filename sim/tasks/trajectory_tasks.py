"""Recorded real trajectories as task streams (AMA-Bench style; VISTA §3.6).

Each tool interaction of a real trajectory (``sim/data/trajectories``, read by the
workspace's importers) becomes an observe step with its exact call and output: tool
messages answering tool calls (function-calling SWE-agent, pi), or, for trajectories
that put observations in user messages (mini-swe-agent, SWE-agent without function
calling), the command in the assistant's last fenced code block and the next user
message as its output. Questions ask for exact values from the first half of the
stream, one of each type where the trajectory has one:

* ``command``: the command that contained a distinctive word (read from the call);
* ``path``: the full path of a file named in an output;
* ``line``: the output line that followed a given line;
* ``field``: the value of a ``key: value`` line whose key occurs once.

Every question is unambiguous: its answer pattern gives exactly one distinct value in
the whole stream (outputs, calls and the statement), checked by :func:`replay_task`;
the value may recur later (a path printed twice), which is still one exact answer.
"""

from __future__ import annotations

import ast
import json
import pathlib
import re

import numpy as np

from sim.tasks.base import FINAL, OBSERVE, Fact, Step, Task
from sim.tasks.tokens import count_tokens

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "trajectories"
#: question kinds, in the order one of each is picked (see the module docstring)
QUESTION_TYPES = ("command", "path", "line", "field")
_FIELD = re.compile(r"^([A-Za-z][^:\n=]{2,60}): (\S[^\n]{2,120})$", re.M)
_PATH = re.compile(
    r"(?<![\w/.-])((?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+\.[A-Za-z]{1,5})(?![\w/])")
_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_WORD = re.compile(r"[A-Za-z_][\w.-]{4,}")
_SAFE = re.compile(r'^[^"\\\n\r;]{3,120}$')


def trajectory_files() -> list[pathlib.Path]:
    """The bundled trajectory files (sorted)."""
    return sorted(p for p in DATA.iterdir() if p.suffix in (".traj", ".json", ".jsonl"))


def _text(content) -> str:
    return content if isinstance(content, str) else "" if content is None else str(content)


def interactions(msgs: list[dict]) -> list[tuple[str, str, str]]:
    """``(tool, arguments JSON, output)`` for each tool interaction of ``msgs``
    (OpenAI-format messages from :func:`sim.workspace.load_trajectory`)."""
    out: list[tuple[str, str, str]] = []
    calls: dict[str, tuple[str, str]] = {}
    seen_assistant = False
    pending: str | None = None  # a fenced command waiting for its user observation
    for m in msgs:
        role = m.get("role")
        if role == "assistant":
            seen_assistant = True
            tc = m.get("tool_calls")
            if isinstance(tc, str):
                try:
                    tc = ast.literal_eval(tc)
                except (ValueError, SyntaxError):
                    tc = None
            if tc:
                for c in tc:
                    fn = c.get("function", {})
                    calls[c.get("id")] = (fn.get("name", "tool"), fn.get("arguments", "{}"))
                pending = None
            else:
                blocks = _FENCE.findall(_text(m.get("content")))
                pending = blocks[-1].strip() if blocks else None
        elif role == "tool":
            name, args = calls.get(m.get("tool_call_id"), ("tool", "{}"))
            out.append((name, args, _text(m.get("content"))))
        elif role == "user" and seen_assistant and pending is not None \
                and not m.get("_demo"):
            out.append(("bash", json.dumps({"command": pending}), _text(m.get("content"))))
            pending = None
    return out


def _unique(pattern: str, texts: list[str]) -> bool:
    """Whether ``pattern`` has exactly one answer in ``texts`` (it may recur, always
    with the same value: there is still one correct exact answer)."""
    rx = re.compile(pattern, re.M)
    return len({v for t in texts for v in rx.findall(t)}) == 1


def _candidates(steps: list[tuple[str, str, str]], texts: list[str], half: int,
                cap: int = 40):
    """Unambiguous questions per type: ``type -> [(step, key, value, pattern)]``,
    at most about ``cap`` per type (each check scans the whole stream, so a long
    session would otherwise cost seconds)."""
    out: dict[str, list] = {t: [] for t in QUESTION_TYPES}
    for i, (_tool, args, output) in enumerate(steps[:half]):
        if all(len(v) >= cap for v in out.values()):
            break
        try:
            cmd = json.loads(args).get("command")
        except (ValueError, AttributeError):
            cmd = None
        if isinstance(cmd, str) and _SAFE.match(cmd):
            first = cmd.split()[0]
            pat = rf'"command": ?"({re.escape(first)}(?: [^"\\\n]*)?)"'
            if _unique(pat, texts):
                out["command"].append((i, f"command starting with {first}", cmd, pat))
            for word in _WORD.findall(cmd):
                pat = rf'"command": ?"([^"\\\n]*{re.escape(word)}[^"\\\n]*)"'
                if _unique(pat, texts):
                    out["command"].append((i, f"command containing {word}", cmd, pat))
                    break
        for m in _PATH.finditer(output if len(out["path"]) < cap else ""):
            path = m.group(1)
            base = path.rsplit("/", 1)[-1]
            pat = rf"(?<![\w/.-])((?:\.{{0,2}}/)?(?:[\w.-]+/)+{re.escape(base)})(?![\w/])"
            if _unique(pat, texts):
                out["path"].append((i, f"full path of {base}", path, pat))
        lines = output.replace("\r\n", "\n").split("\n")
        for prev, line in zip(lines, lines[1:]):
            if len(out["line"]) >= cap:
                break
            prev, line = prev.strip(), line.strip()
            if len(prev) < 12 or not 8 <= len(line) <= 120:
                continue
            pat = re.escape(prev) + r"[ \t]*\r?\n[ \t]*([^\r\n]*[^\s])"
            if _unique(pat, texts):
                out["line"].append((i, f"line after {prev[:60]}", line, pat))
        for m in _FIELD.finditer(output):
            key, value = m.group(1), m.group(2).strip()
            if Fact(key, value, i).answers(texts) == {value}:
                out["field"].append((i, key, value, ""))
    return out


def _statement(name: str, keys: list[str]) -> str:
    return (f"Replay of {name}: report exactly, as they appeared in the "
            f"trajectory: {'; '.join(keys)}.\n")


def replay_task(path: str | pathlib.Path, n_facts: int = 4, seed: int = 0,
                format: str | None = None) -> Task:
    """A task stream from a trajectory file with up to ``n_facts`` questions (at most
    one per type of :data:`QUESTION_TYPES`, so at most four), drawn with ``seed``.
    One scope (phase 0): a recorded session has no task phases.

    Args:
        path: the trajectory file (any format :func:`sim.workspace.load_trajectory`
            reads).
        n_facts: questions to ask, >= 1.
        seed: which unambiguous question of each type is asked.
        format: the trajectory format (None: detected).

    Raises:
        ValueError: if the trajectory has no unambiguous exact-value question.
        sim.workspace.WorkspaceError: for a file that cannot be read as a trajectory.
    """
    from sim.workspace import load_trajectory

    path = pathlib.Path(path)
    inter = interactions(load_trajectory(path, format=format))
    texts = [o for _, _, o in inter] + [a for _, a, _ in inter]
    cands = _candidates(inter, texts, max(1, len(inter) // 2))
    rng = np.random.default_rng([seed, len(inter)])
    picked: list[tuple] = []
    for qtype in QUESTION_TYPES:
        pool = [c for c in cands[qtype] if c[1] not in {p[1] for p in picked}]
        if pool and len(picked) < n_facts:
            picked.append(pool[int(rng.integers(len(pool)))])
    if not picked:
        raise ValueError(f"{path.name}: no exact-value question found")
    # the statement is part of the stream: a question must stay unambiguous with it
    # (and the statement asks only the questions kept, so drop until none changes)
    while True:
        statement = _statement(path.name, [k for _, k, _, _ in picked])
        kept = [p for p in picked if Fact(p[1], p[2], p[0], pattern=p[3]).answers(
            texts + [statement]) == {p[2]}]
        if len(kept) == len(picked):
            break
        picked = kept
    if not picked:
        raise ValueError(f"{path.name}: no exact-value question stays unambiguous "
                         "beside the task statement")
    # one scope: a recorded session has no task phases (scopes invented every few
    # calls would make context folding fold a session that no scope ended)
    steps = [Step(OBSERVE, tool, args, out, count_tokens(out), phase=0)
             for tool, args, out in inter]
    facts = {}
    for i, key, value, pat in picked:
        facts[key] = Fact(key, value, i, source_known=False, pattern=pat)
        s = steps[i]
        steps[i] = Step(OBSERVE, s.tool, s.args, s.content, s.tokens, s.facts + (key,),
                        phase=s.phase)
    steps.append(Step(FINAL, "answer", needs=tuple(facts), phase=0))
    return Task(f"replay/{path.stem}/s{seed}", path.stem, seed, 0, statement,
                tuple(steps), facts)
