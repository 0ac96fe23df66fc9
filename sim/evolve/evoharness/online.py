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
from collections.abc import Callable
from dataclasses import dataclass, field

from sim.evolve.evoharness.propose import Evolver, Execution, check_level, evaluate, propose
from sim.evolve.evoharness.select import check_b, select, skill_block
from sim.evolve.evoharness.lesson_agent import SkillAwareAgent
from sim.evolve.evoharness.lesson_program import LessonProgram, spec_for
from sim.evolve.evoharness.skill_harness import SkillHarness
from sim.evolve.split import split_tasks
from sim.plugin_spec import PluginRuntimeError

MODES = ("online", "train-split", "none")


def episode_seed(seed: int, task_id: str) -> int:
    """The episode seed of ``task_id`` in replicate ``seed`` (the same in every arm)."""
    return (int(seed) * 1_000_003 + zlib.crc32(task_id.encode())) & 0x7FFFFFFF


@dataclass(frozen=True)
class StreamConfig:
    """What one stream runs under (the numbers and levels; :class:`StreamParts` holds
    the objects it plays with).

    Attributes:
        mode: ``online``, ``train-split`` or ``none`` (module docstring).
        feedback: ``self``, ``minimal`` or ``standard``
            (:func:`sim.evolve.evoharness.propose.evaluate`).
        budget: context budget of every episode (tokens).
        b: skills selected per task (>= 0).
        seed: replicate seed (episode seeds: :func:`episode_seed`).
        profile: synthetic agent profile name (the default agent's).
        batch: tasks per update batch ``|B_i|`` (>= 1; 1: per-task updating).
        reflect: solver-side proposal (False: the No-Propose ablation,
            :func:`sim.evolve.evoharness.propose.propose`).
        evolver: the reflection model's parameters.

    Raises:
        ValueError: from the constructor, for an unknown mode or feedback level,
            ``b`` < 0 or ``batch`` not an int >= 1 (each named).
    """

    mode: str
    feedback: str
    budget: int
    b: int
    seed: int
    profile: str = "medium"
    batch: int = 1
    reflect: bool = True
    evolver: Evolver = Evolver()

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; expected one of {list(MODES)}")
        check_level(self.feedback)
        check_b(self.b)
        if isinstance(self.batch, bool) or not isinstance(self.batch, int) \
                or self.batch < 1:
            raise ValueError(f"batch must be an int >= 1, got {self.batch!r}")


@dataclass(frozen=True)
class StreamParts:
    """The objects a stream plays with.

    Attributes:
        program_factory: builds a fresh context program per episode.
        curator: a :class:`~sim.evolve.evoharness.curate.Curator` or ``AddOnlyCurator``.
        harness: the starting harness (changed in place).
        agent_factory: builds the agent (None: :class:`SkillAwareAgent` of the
            config's profile).
        run_episode: the episode runner (None: :func:`sim.harness.run_episode`).
        observer: ``observer(stage, task_ids)`` called at ``"propose"`` and
            ``"curate"`` (instrumentation; None: none).
        reflector: ``reflector(execution, evaluation, skill_names)`` -> proposals,
            the solver-side proposal in place of the rules
            (:func:`sim.evolve.evoharness.propose.propose`), e.g. a model
            (:class:`sim.evolve.evoharness.reflector.LLMReflector`); None: the rules.
            The No-Propose ablation (``reflect=False``) uses neither.
    """

    program_factory: Callable
    curator: object
    harness: SkillHarness
    agent_factory: Callable | None = None
    run_episode: Callable | None = None
    observer: Callable | None = None
    reflector: Callable | None = None


@dataclass(frozen=True)
class TaskRecord:
    """One scored test task.

    Attributes:
        task_id, topic: the task and its type (LOCA family name).
        solved: 1 or 0; tokens: the episode's input tokens.
        skills_shown: skills in its pinned block; skills_read: skills the agent read.
        harness_skills, harness_tokens: the harness's size after the task's update.
    """

    task_id: str
    topic: str
    solved: int
    tokens: int
    skills_shown: int
    skills_read: int
    harness_skills: int
    harness_tokens: int


@dataclass(frozen=True)
class UpdateRecord:
    """The harness after one update (one batch ``B_i``).

    Attributes:
        phase: ``train`` (held-in, train-split) or ``test`` (online).
        step: 1, 2, ... over the stream's updates.
        skills, tokens: the harness's size after the update.
        budget_decisions: budget-forced curation decisions so far (cumulative).
    """

    phase: str
    step: int
    skills: int
    tokens: int
    budget_decisions: int


@dataclass
class StreamResult:
    """Records of the test tasks and the harness trace.

    Attributes:
        rows: one :class:`TaskRecord` per test task, in stream order.
        trace: one :class:`UpdateRecord` per harness update.
        decisions: curation decisions in order (``(task_ids, Decision)``).
        harness: the final harness.
    """

    rows: list[TaskRecord] = field(default_factory=list)
    trace: list[UpdateRecord] = field(default_factory=list)
    decisions: list = field(default_factory=list)
    harness: SkillHarness | None = None


def play(task, harness, *, program_factory, agent, budget: int, b: int, seed: int,
         run_episode):
    """Run one task with the skills ``Select(statement, harness; b)`` pinned; a
    program with a spec form plays as a :class:`LessonProgram` bound to the agent
    (program lessons edit it; without one it plays unchanged).
    Returns ``(EpisodeResult, Execution)``."""
    chosen = select(task.statement, harness.skills, b) if harness is not None else []
    block = skill_block(chosen)
    es = episode_seed(seed, task.task_id)
    program = program_factory()
    spec = spec_for(program)
    if spec is not None:
        program = LessonProgram(program, spec)
    if hasattr(agent, "bind_program"):
        agent.bind_program(program if spec is not None else None)
    try:  # a plugin (guarded) that raises or breaks its protocol: name the task
        res = run_episode(task, program, agent, budget=budget, seed=es,
                          pinned=(block,) if block else ())
    except PluginRuntimeError as exc:
        raise PluginRuntimeError(f"{exc} on task {task.task_id} (Evo-Harness replicate "
                                 f"{seed})") from exc.__cause__
    signals = {"requests": res.requests, "archives": res.agent_archives,
               "recoveries": res.recoveries, "failed_reads": res.failed_reads,
               "offloaded": res.offloaded}
    # what a verifier and the trajectory show: the answer, the expected values, the
    # final request; never the simulator's own account of why a run failed
    ex = Execution(task_id=task.task_id, topic=task.family, statement=task.statement,
                   solved=bool(res.solved), believes_solved=agent.believes_solved,
                   answer=dict(agent.answer),
                   expected={k: f.value for k, f in task.facts.items()},
                   signals=signals, skills_shown=tuple(agent.skills_shown), seed=es,
                   unseen=tuple(agent.unseen), answer_tokens=agent.answer_tokens)
    return res, ex


class _Stream:
    """One stream's state: the agent, the episode runner and the result so far."""

    def __init__(self, config: StreamConfig, parts: StreamParts):
        self.config, self.parts = config, parts
        self.harness = parts.harness
        if parts.run_episode is None:
            from sim.harness import run_episode
        else:
            run_episode = parts.run_episode
        self.agent = (parts.agent_factory or (lambda: SkillAwareAgent(config.profile)))()
        self.out = StreamResult(harness=parts.harness)
        self.play_options = dict(program_factory=parts.program_factory, agent=self.agent,
                                 budget=config.budget, b=config.b, seed=config.seed,
                                 run_episode=run_episode)

    def learn(self, pending: list, phase: str) -> None:
        """Reflect on the ``pending`` executions, curate, and trace the update."""
        cfg, harness, observer = self.config, self.harness, self.parts.observer
        ids = [ex.task_id for ex, _ in pending]
        if observer:
            observer("propose", ids)
        proposals = []
        for ex, shown in pending:
            ev = evaluate(ex, cfg.feedback, cfg.evolver)
            if shown:
                harness.record([n for n in shown if n in harness], ev.verdict,
                               ex.task_id)
            names = [s.name for s in harness.skills]
            if cfg.reflect and self.parts.reflector is not None:
                proposals += self.parts.reflector(ex, ev, names)
            else:
                proposals += propose(ex, ev, names, cfg.evolver, reflect=cfg.reflect)
        if observer:
            observer("curate", ids)
        decisions = self.out.decisions
        for d in self.parts.curator.curate(harness, proposals):
            decisions.append((ids, d))
        self.out.trace.append(UpdateRecord(
            phase, len(self.out.trace) + 1, len(harness), harness.total_tokens,
            sum(d.budget for _, d in decisions)))

    def stream(self, tasks, phase: str | None, score: bool) -> None:
        """Play ``tasks`` in order; score them (``score``) and, with a ``phase``,
        update the harness after every ``batch`` of them."""
        harness, pending = self.harness, []
        for task in tasks:
            res, ex = play(task, harness, **self.play_options)
            if score:
                self.out.rows.append(TaskRecord(
                    task.task_id, task.family, int(res.solved), res.input_tokens,
                    len(ex.skills_shown), len(self.agent.skills_read), len(harness),
                    harness.total_tokens))
            if phase is not None:
                pending.append((ex, ex.skills_shown))
                if len(pending) >= self.config.batch:
                    self.learn(pending, phase)
                    pending = []
        if pending:
            self.learn(pending, phase)


def run_stream(test_tasks, config: StreamConfig, parts: StreamParts,
               train_tasks=()) -> StreamResult:
    """Evaluate ``test_tasks`` (scored, in stream order) under ``config`` with
    ``parts`` (module docstring); ``train_tasks``: the held-in tasks
    (``train-split`` only). Returns the :class:`StreamResult`."""
    run = _Stream(config, parts)
    if config.mode == "train-split":
        run.stream(train_tasks, "train", score=False)
        run.stream(test_tasks, None, score=True)
    elif config.mode == "online":
        run.stream(test_tasks, "test", score=True)
    else:
        run.stream(test_tasks, None, score=True)
    return run.out


def split_stream(tasks, seed: int = 15):
    """``(held_in, held_out)`` task lists by :func:`split_tasks` on the task ids."""
    by = {t.task_id: t for t in tasks}
    sp = split_tasks(list(by), seed=seed)
    return [by[n] for n in sp.held_in], [by[n] for n in sp.held_out]
