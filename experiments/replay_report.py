"""A real trajectory's questions played under a context program, question by question
(``ctxsim workspace replay FILE --program NAME``).

:func:`sim.tasks.trajectory_tasks.replay_task` turns a recorded session into a task: every tool
interaction an observe step, and up to four exact-value questions about its first
half (VISTA §3.6, AMA-Bench style). :func:`play` runs that task under a program
(a built-in or a plugin, :mod:`sim.plugins`) and an agent at a budget, and reports
for each question what was asked, the exact answer, what the agent answered, where
the evidence was when it answered, and why a wrong answer was wrong:

* **in view**: an item of the final request shows the exact value (the source
  result, a recovered copy, a restatement, or the call an archive's index names);
* **archived**: the source result is archived under a handle the agent is shown, so
  a recovery could have brought it back;
* **lost**: the source result was deleted (the harness's hard trim, a program's
  delete) or replaced irreversibly (masked, cleared, summarized or folded: an
  archive whose handle is never shown).

A wrong answer with the evidence in view has an agent cause (the synthetic agent's
model, :mod:`sim.agents.synthetic`): the value missed in a long request
(``Profile.p_use``), a wrong copy newest in view (an inexact restatement), or a
failure unrelated to context (``base_error``). A plugin agent's wrong answer with the
evidence in view is reported as such.
"""

from __future__ import annotations

import dataclasses
import pathlib

#: where the evidence was at answer time
IN_VIEW, ARCHIVED, LOST = "in view", "archived", "lost"


@dataclasses.dataclass(frozen=True)
class Question:
    """One question of a replay and what became of it.

    Attributes:
        key: what was asked (``full path of reproduce.py``).
        truth: the exact answer, as the trajectory shows it.
        answered: what the agent answered (``unknown``: it abstained).
        correct: ``answered == truth``.
        evidence: :data:`IN_VIEW`, :data:`ARCHIVED` or :data:`LOST`.
        source_call: the call whose result holds the answer (``tool(args)``).
        source_block: that result's block id, and its status at answer time.
        why: why the answer is wrong ("" when correct).
    """

    key: str
    truth: str
    answered: str
    correct: bool
    evidence: str
    source_call: str
    source_block: str
    source_status: str
    why: str


@dataclasses.dataclass(frozen=True)
class Report:
    """A replay played under a program: the questions and the episode's totals
    (tokens are the workspace tokenizer's, cl100k_base)."""

    file: str
    program: str
    agent: str
    budget: int
    seed: int
    steps: int
    observation_tokens: int
    questions: tuple[Question, ...]
    solved: bool
    requests: int
    mean_active: float
    recoveries: int
    program_edits: int
    deletes: int
    #: the largest request, and how many requests were over ``budget`` (tokens): a
    #: budget below what the pinned task and the program's fixed parts take cannot
    #: be held, and the report says so rather than pass it as a valid episode
    max_request: int = 0
    over_budget: int = 0

    @property
    def correct(self) -> int:
        """Questions answered exactly."""
        return sum(q.correct for q in self.questions)

    def as_dict(self) -> dict:
        """The report as JSON-ready data (``--json``)."""
        d = dataclasses.asdict(self)
        d["correct"] = self.correct
        return d

    def lines(self) -> list[str]:
        """The report as text, one block per question."""
        out = [f"replay      {self.file}: {self.steps} calls, {self.observation_tokens:,} "
               f"tokens of tool results",
               f"program     {self.program}   agent {self.agent}   budget "
               f"{self.budget:,}   seed {self.seed}",
               f"episode     {self.requests} requests, mean request {self.mean_active:,.0f} "
               f"tokens, largest {self.max_request:,} ({self.over_budget} over the "
               f"budget), {self.program_edits} program edits, {self.deletes} deletes, "
               f"{self.recoveries} recoveries",
               "blocks      ids are this run's workspace's (the task's system prompt, "
               "statement, calls and results), not the plain replay's numbering"]
        for i, q in enumerate(self.questions, 1):
            mark = "correct" if q.correct else "WRONG"
            out += [f"Q{i} {mark:<8}{q.key}",
                    f"   answer    {q.truth!r}",
                    f"   answered  {q.answered!r}",
                    f"   evidence  {q.evidence} (source {q.source_block}, now "
                    f"{q.source_status}; call {_cut(q.source_call, 80)})"]
            if q.why:
                out.append(f"   why       {q.why}")
        out.append(f"score       {self.correct} of {len(self.questions)} questions answered "
                   f"exactly; task {'solved' if self.solved else 'not solved'} (solved "
                   "means: every answer exact and no failure unrelated to context)")
        return out


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, an ellipsis marking a cut."""
    return text if len(text) <= width else text[:width - 1] + "\u2026"


class _Recorder:
    """Wraps the program: the result block of each observe step, and the context."""

    def __init__(self, program):
        object.__setattr__(self, "_program", program)
        object.__setattr__(self, "results", [])
        object.__setattr__(self, "ctx", None)

    def __getattr__(self, attr):
        return getattr(self._program, attr)

    def __setattr__(self, attr, value):
        setattr(self._program, attr, value)

    def observation_entry(self, ctx, block):
        object.__setattr__(self, "ctx", ctx)
        self.results.append(block.id)
        return self._program.observation_entry(ctx, block)


class _Watcher:
    """Wraps the agent: the view and action of its answer, and its found values."""

    def __init__(self, agent):
        object.__setattr__(self, "_agent", agent)
        object.__setattr__(self, "answer", None)

    def __getattr__(self, attr):
        return getattr(self._agent, attr)

    def __setattr__(self, attr, value):
        setattr(self._agent, attr, value)

    def act(self, view):
        action = self._agent.act(view)
        if action.kind == "answer":
            object.__setattr__(self, "answer", (view, action))
        return action


def play(path: str | pathlib.Path, program: str, budget: int, *, seed: int = 0,
         questions: int = 4, agent: str = "synthetic", profile: str = "medium",
         format: str | None = None) -> Report:
    """Play trajectory ``path``'s questions under ``program`` at ``budget`` tokens.

    Args:
        path: a trajectory file (any format :func:`sim.workspace.load_trajectory` reads).
        program: a program name or plugin spec (:func:`sim.policies.make_program`).
        budget: the context budget B in tokens.
        seed: which questions are drawn, and the agent's common random numbers.
        questions: at most this many questions (one per type, at most four).
        agent: ``synthetic`` or an agent plugin spec (:mod:`sim.agents.registry`).
        profile: the synthetic agent's profile (a name of
            :data:`sim.agents.profiles.PROFILES`, or a Profile).
        format: the trajectory format (None: detected).

    Raises:
        ValueError: the trajectory has no unambiguous exact-value question.
        sim.workspace.WorkspaceError: a file that cannot be read as a trajectory, or a
            budget below the program's fixed overhead.
    """
    from sim.agents.profiles import get_profile
    from sim.harness import run_episode
    from sim.plugins import PluginRuntimeError, make_agent, make_program
    from sim.tasks.trajectory_tasks import replay_task

    path = pathlib.Path(path)
    task = replay_task(path, n_facts=questions, seed=seed, format=format)
    prof = get_profile(profile) if isinstance(profile, str) else profile
    prog = _Recorder(make_program(program))
    watcher = _Watcher(make_agent(agent, prof))
    try:
        result = run_episode(task, prog, watcher, budget=budget, seed=seed)
    except PluginRuntimeError as exc:
        raise PluginRuntimeError(f"{exc} on the replay of {path.name}") from exc.__cause__
    if watcher.answer is None:
        raise RuntimeError(f"the agent never answered the replay of {path.name}")
    view, action = watcher.answer
    qs = tuple(_question(task, key, view, action, prog, watcher, prof)
               for key in task.facts)
    return Report(str(path), program, agent, budget, seed, len(task.steps) - 1,
                  task.observation_tokens, qs, result.solved, result.requests,
                  round(result.mean_active, 1), result.recoveries, result.program_edits,
                  result.deletes, max(result.active_tokens, default=0),
                  sum(t > budget for t in result.active_tokens))


def _question(task, key, view, action, prog, watcher, profile) -> Question:
    from sim.agents.synthetic import find_value
    from sim.tasks.base import call_text

    fact = task.facts[key]
    step = task.steps[fact.source]
    answered = action.values.get(key, "")
    # what the model reads: every entry's text (a placeholder's too: an archive index
    # names the calls it holds) and the call it shows, newest first
    seen = find_value(view.entries, fact)
    bid = prog.results[fact.source] if fact.source < len(prog.results) else "?"
    ctx = prog.ctx
    block = ctx.ws.blocks.get(bid) if ctx is not None else None
    status = block.status.value if block is not None else "?"
    hidden = ctx is not None and (bid in ctx.hidden or ctx.ws.top_group(bid) in ctx.hidden)
    if seen == fact.value or status in ("visible", "pinned"):
        evidence = IN_VIEW
    elif status in ("archived", "offloaded_placeholder") and not hidden:
        evidence = ARCHIVED
    else:
        evidence = LOST
    if status in ("archived", "offloaded_placeholder") and hidden:
        status = f"{status}, handle never shown"
    why = "" if answered == fact.value else _why(
        evidence, fact, answered, seen, block, hidden, prog, watcher, profile, view)
    return Question(key, fact.value, answered, answered == fact.value, evidence,
                    call_text(step.tool, step.args), bid, status, why)


def _why(evidence, fact, answered, seen, block, hidden, prog, watcher, profile,
         view) -> str:
    name = prog.name
    if evidence == LOST:
        if block is not None and block.status.value == "deleted":
            return (f"the evidence was deleted ({block.reason or 'no reason given'}) "
                    f"under {name}; nothing can bring it back")
        text = _cut(block.replacement if block is not None else "", 60)
        return (f"{name} replaced the evidence irreversibly (placeholder {text!r}; no "
                "handle shown, so no recovery)")
    if evidence == ARCHIVED:
        tools = prog.agent_tools
        if "recover" not in tools:
            return (f"the evidence is archived, but {name} offers the agent no recover "
                    "tool")
        from sim.agents.synthetic import SyntheticAgent

        if not isinstance(watcher._agent, SyntheticAgent):   # its reasons are unknown
            return ("the evidence is archived under a handle the agent was shown, but "
                    "the agent did not recover it")
        return ("the evidence is archived under a handle the agent was shown, but it did "
                "not recover it (its archive index did not name this question, or its "
                "recovery reads ran out)")
    found = getattr(watcher._agent, "found_values", None)
    if not isinstance(found, dict) or not hasattr(profile, "p_use"):
        return f"the evidence was in view; the agent ({watcher.name}) answered otherwise"
    if seen != fact.value and seen is not None:
        return (f"the newest copy in view was wrong ({seen!r}: an inexact restatement, "
                f"p_note_exact = {profile.p_note_exact})")
    if found.get(fact.key) == fact.value:
        return (f"a failure unrelated to context spoiled this value (the agent's base "
                f"error, rate {profile.base_error})")
    tokens = sum(e.tokens for e in view.entries)
    return (f"missed in a long request: P(use) = {profile.p_use(tokens):.2f} at "
            f"{tokens:,} request tokens (long-context degradation)")
