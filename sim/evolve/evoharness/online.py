"""Online harness learning over a task stream (Evo-Harness §3.1, Algorithm 1, §4.5).

:func:`run_stream` plays test tasks with skills selected from the current harness
(``Select(x, H; b)``, a pinned block in the workspace), and updates the harness after
each batch ``B_i`` (``batch=1``: per-task updating) by reflection (:mod:`propose`) and
curation (:mod:`curate`). Modes:

* ``online``: the test stream itself updates the harness as it goes;
* ``train-split``: the held-in tasks of :func:`sim.evolve.split.split_tasks` evolve
  the harness, which is then frozen and evaluated on the held-out (test) tasks: no
  held-out task ever reaches proposal or curation (``observer`` sees every call);
* ``none``: no evolution (the No-Evolve baseline).

Every task's episode seed depends only on ``(seed, task id)``, so all arms face the
same agent luck on the same task (common random numbers) and differ only through the
skill block the agent observes.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from sim.evolve.evoharness.propose import Evolver, Execution, check_level, evaluate, propose
from sim.evolve.evoharness.select import check_b, select, skill_block
from sim.evolve.evoharness.skill_effects import SkillAwareAgent
from sim.evolve.evoharness.skill_harness import SkillHarness
from sim.evolve.split import split_tasks

MODES = ("online", "train-split", "none")


def episode_seed(seed: int, task_id: str) -> int:
    """The episode seed of ``task_id`` in replicate ``seed`` (the same in every arm)."""
    return (int(seed) * 1_000_003 + zlib.crc32(task_id.encode())) & 0x7FFFFFFF


@dataclass
class StreamResult:
    """Rows of the test tasks and the harness trace.

    Attributes:
        rows: one dict per test task (task_id, topic, solved, tokens, skills, ...).
        trace: one dict per harness update (step, phase, skills, tokens).
        decisions: curation decisions in order (``(task_ids, Decision)``).
        harness: the final harness.
    """

    rows: list = field(default_factory=list)
    trace: list = field(default_factory=list)
    decisions: list = field(default_factory=list)
    harness: SkillHarness | None = None


def play(task, harness, *, program_factory, agent, budget: int, b: int, seed: int,
         run_episode):
    """Run one task with the skills ``Select(statement, harness; b)`` pinned.
    Returns ``(EpisodeResult, Execution)``."""
    chosen = select(task.statement, harness.skills, b) if harness is not None else []
    block = skill_block(chosen)
    es = episode_seed(seed, task.task_id)
    res = run_episode(task, program_factory(), agent, budget=budget, seed=es,
                      pinned=(block,) if block else ())
    signals = {"requests": res.requests, "archives": res.agent_archives,
               "recoveries": res.recoveries, "failed_reads": res.failed_reads,
               "offloaded": res.offloaded}
    ex = Execution(task.task_id, task.family, task.statement, bool(res.solved),
                   agent.believes_solved, agent.slip, dict(agent.answer),
                   tuple(f.value for f in task.facts.values()), signals,
                   tuple(agent.skills_shown), es, tuple(agent.unseen),
                   tuple(k for k, v in agent.answer.items() if v != task.facts[k].value))
    return res, ex


def run_stream(test_tasks, *, mode: str, feedback: str, profile: str, program_factory,
               budget: int, b: int, seed: int, curator, harness: SkillHarness,
               train_tasks=(), batch: int = 1, evolver: Evolver = Evolver(),
               observer=None, agent_factory=None, run_episode=None,
               reflect: bool = True) -> StreamResult:
    """Evaluate ``test_tasks`` under ``mode`` (module docstring).

    Args:
        test_tasks: the tasks scored (in stream order).
        mode: ``online``, ``train-split`` or ``none``.
        feedback: ``self``, ``minimal`` or ``standard``.
        profile: synthetic agent profile name.
        program_factory: builds a fresh context program per episode.
        budget: context budget (tokens).
        b: skills per task.
        seed: replicate seed.
        curator: a :class:`~sim.evolve.evoharness.curate.Curator` or ``AddOnlyCurator``.
        harness: the starting harness (changed in place).
        train_tasks: the held-in tasks (``train-split`` only).
        batch: tasks per update batch ``|B_i|``.
        observer: ``observer(stage, task_ids)`` called at ``"propose"`` and
            ``"curate"`` (instrumentation).
        agent_factory: builds the agent (default :class:`SkillAwareAgent`).
        run_episode: the episode runner (default :func:`sim.harness.run_episode`).
        reflect: solver-side proposal (False: the No-Propose ablation,
            :func:`sim.evolve.evoharness.propose.propose`).

    Raises:
        ValueError: for an unknown mode or feedback level, ``b`` < 0, ``batch`` < 1.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {list(MODES)}")
    check_level(feedback)
    check_b(b)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError(f"batch must be an int >= 1, got {batch!r}")
    if run_episode is None:
        from sim.harness import run_episode
    agent = (agent_factory or (lambda: SkillAwareAgent(profile)))()
    out = StreamResult(harness=harness)
    kw = dict(program_factory=program_factory, agent=agent, budget=budget, b=b,
              seed=seed, run_episode=run_episode)

    def learn(pending, phase):
        ids = [ex.task_id for ex, _ in pending]
        if observer:
            observer("propose", ids)
        proposals = []
        for ex, shown in pending:
            ev = evaluate(ex, feedback, evolver)
            if shown:
                harness.record([n for n in shown if n in harness], ev.verdict,
                               ex.task_id)
            proposals += propose(ex, ev, [s.name for s in harness.skills], evolver,
                                 reflect=reflect)
        if observer:
            observer("curate", ids)
        for d in curator.curate(harness, proposals):
            out.decisions.append((ids, d))
        out.trace.append({"phase": phase, "step": len(out.trace) + 1,
                          "skills": len(harness), "tokens": harness.total_tokens,
                          "budget_decisions": sum(d.budget for _, d in out.decisions)})

    def stream(tasks, phase, score):
        pending = []
        for task in tasks:
            res, ex = play(task, harness, **kw)
            if score:
                out.rows.append({"task_id": task.task_id, "topic": task.family,
                                 "solved": int(res.solved), "tokens": res.input_tokens,
                                 "skills_shown": len(ex.skills_shown),
                                 "skills_read": len(agent.skills_read),
                                 "harness_skills": len(harness),
                                 "harness_tokens": harness.total_tokens})
            if phase is not None:
                pending.append((ex, ex.skills_shown))
                if len(pending) >= batch:
                    learn(pending, phase)
                    pending = []
        if pending:
            learn(pending, phase)

    if mode == "train-split":
        stream(train_tasks, "train", score=False)
        stream(test_tasks, None, score=True)
    elif mode == "online":
        stream(test_tasks, "test", score=True)
    else:
        stream(test_tasks, None, score=True)
    return out


def split_stream(tasks, seed: int = 15):
    """``(held_in, held_out)`` task lists by :func:`split_tasks` on the task ids."""
    by = {t.task_id: t for t in tasks}
    sp = split_tasks(list(by), seed=seed)
    return [by[n] for n in sp.held_in], [by[n] for n in sp.held_out]
