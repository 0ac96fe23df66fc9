"""Replayed real trajectories as task streams (AMA-Bench style; VISTA §3.6).

Each tool result of a real trajectory (``sim/data/trajectories``, read by the
workspace's importers) becomes an observe step with its exact text; questions ask
for exact values that occurred in early outputs: lines of the form ``key: value``
whose key is unique in the trajectory (a file path, an error field, a setting).
"""

from __future__ import annotations

import pathlib
import re

import numpy as np

from sim.tasks.base import FINAL, OBSERVE, Fact, Step, Task
from sim.tasks.tokens import count_tokens

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "trajectories"
_LINE = re.compile(r"^([A-Za-z][^:\n=]{2,60}): (\S[^\n]{2,120})$", re.M)


def trajectory_files() -> list[pathlib.Path]:
    """The bundled trajectory files (sorted)."""
    return sorted(p for p in DATA.iterdir() if p.suffix in (".traj", ".json", ".jsonl"))


def replay_task(path: str | pathlib.Path, n_facts: int = 3, seed: int = 0) -> Task:
    """A task stream from a trajectory file.

    Raises:
        ValueError: if the trajectory has no tool output with a usable exact value.
    """
    from sim.workspace import load_trajectory

    path = pathlib.Path(path)
    msgs = load_trajectory(path)
    steps: list[Step] = []
    for m in msgs:
        if m.get("role") != "tool":
            continue
        text = m.get("content") or ""
        text = text if isinstance(text, str) else str(text)
        steps.append(Step(OBSERVE, "replayed_tool", f'{{"step": {len(steps)}}}', text,
                          count_tokens(text), phase=len(steps) // 6))
    counts: dict[str, int] = {}
    cands = []
    for i, s in enumerate(steps):
        for mm in _LINE.finditer(s.content):
            counts[mm.group(1)] = counts.get(mm.group(1), 0) + 1
            cands.append((i, mm.group(1), mm.group(2).strip()))
    cands = [c for c in cands if counts[c[1]] == 1 and c[0] < max(1, len(steps) // 2)
             and f"{c[1]}: {c[2]}\n" in steps[c[0]].content + "\n"]
    if not cands:
        raise ValueError(f"{path.name}: no exact-value question found")
    rng = np.random.default_rng([seed, len(steps)])
    pick = sorted(rng.choice(len(cands), size=min(n_facts, len(cands)), replace=False))
    facts = {}
    for j in pick:
        i, key, value = cands[j]
        facts[key] = Fact(key, value, i)
        steps[i] = Step(OBSERVE, steps[i].tool, steps[i].args, steps[i].content,
                        steps[i].tokens, steps[i].facts + (key,), phase=steps[i].phase)
    steps.append(Step(FINAL, "answer", needs=tuple(facts), phase=len(steps) // 6))
    statement = (f"Replay of {path.name}: answer with the exact values of "
                 f"{', '.join(facts)} as they appeared in the tool outputs.\n")
    return Task(f"replay/{path.stem}/s{seed}", path.stem, seed, 0, statement,
                tuple(steps), facts)
