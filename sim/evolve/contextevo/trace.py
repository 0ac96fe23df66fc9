"""Recording an episode's trajectory, and the simulator's true cause of a failure.

:func:`run_traced` plays one task with a compiled spec and a synthetic agent wrapped
by a :class:`RecordingAgent`, which sees exactly the views the model sees and the
actions it takes. It returns two things kept apart by construction:

* a :class:`Trajectory`: what a reviewer of the run could read (calls, their results,
  the request size at each call, context changes between calls, harness notices);
  stages 1-3 receive only this;
* a :class:`Truth`: the simulator's knowledge of why the episode failed, one of
  :data:`CAUSES`, which only the scorer (:func:`sim.evolve.contextevo.judge.attribution_scores`)
  reads, after the judge has committed:

  - ``evidence_removed``: a value the failing step needed was irreversibly gone from
    the model's reach before its use (trimmed or deleted, or replaced by a hidden
    placeholder, a summary or a knowledge block that lost it);
  - ``budget_overflow``: the value was archived recoverably but its recovery was
    refused because it would not fit, or its result was offloaded on entry;
  - ``context_degradation``: the value was in the request (its newest record in view
    showed the right value) and the agent misused it: the long-context degradation
    draw (``Profile.p_use`` of the request's length), the only way the synthetic
    agent misuses a value it can read;
  - ``agent_error``: the value was within reach but not read (recoverable and not
    recovered, or a stale record newest in view) and the agent got it wrong, or the
    task failed for reasons unrelated to context (the profile's base error).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from sim.agents.protocol import ANSWER, ARCHIVE, DELETE, RECOVER, TASK
from sim.agents.synthetic import find_value

CAUSES = ("evidence_removed", "budget_overflow", "context_degradation", "agent_error")
_GONE = ("archived", "offloaded_placeholder")


@dataclass
class Call:
    """One model call as a reviewer sees it.

    Attributes:
        index: 1-based call number.
        kind: the action (``task``, ``answer``, ``archive``, ``delete``, ``recover``).
        text: the call as written (``tool(args)``, or the context action).
        result: the tool result the call produced, as the run's log has it (a task
            call's full output, also when the harness offloaded it on entry; a
            recovery's re-admitted text from the next view).
        shown: whether the model saw the result in the next request (False: it was
            offloaded on entry and the model saw a placeholder).
        request_tokens: tokens of the request the call was decided on.
        removed: ``(block id, new status or "gone", placeholder text (80 chars),
            tokens)`` for blocks visible in the previous request and not visible in
            this one (context shrink); ``"+handle"`` marks a shown handle.
        notice: the harness notice shown with this request, if any.
    """

    index: int
    kind: str
    text: str
    result: str = ""
    request_tokens: int = 0
    removed: list[tuple[str, str, str, int]] = field(default_factory=list)
    notice: str = ""
    writes: bool = False
    shown: bool = True
    #: for each ``removed`` block (same order), the call whose result it held (0:
    #: not a tool result): where the request showed it, which a reviewer reads
    removed_from: list[int] = field(default_factory=list)


@dataclass
class Trajectory:
    """What a reviewer can read of one episode: ``task_id``, ``statement``,
    ``reward`` (1 solved, 0 not), ``calls`` (:class:`Call`), ``final_tokens`` (the
    last request's size), ``composition`` (its tokens by kind) and ``decision`` (the
    recorded request at the first wrong decision, for replay; None if none). No cause
    is stored here (see :class:`Truth`)."""

    task_id: str
    statement: str
    reward: int
    calls: list[Call]
    final_tokens: int
    program: str = ""
    composition: dict[str, int] = field(default_factory=dict)
    decision: "DecisionPoint | None" = None
    #: graded reward in [0, 1]: the share of needed values written correctly over
    #: every use/answer step (partial credit per needed value; 1.0 iff all exact)
    score: float = 0.0
    budget: int = 0
    #: the run-time error that ended the episode ("" for none)
    error: str = ""


@dataclass
class DecisionPoint:
    """A recorded model-visible request (``view``) at the first step whose values
    were wrong, the recorded ``action``, and a copy of the acting agent's state
    before it acted (the same fixed model, for single-point replay only)."""

    call: int
    view: object
    action: object
    agent: object
    #: block id -> the text an earlier request showed for it, for every block not
    #: visible at this decision point (what the recorded requests held; replay's
    #: restore treatment puts some of it back)
    earlier: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Truth:
    """The simulator's cause of a failed episode (None when solved); the loop never
    reads it."""

    task_id: str
    cause: str | None


def _snapshot(agent):
    """A copy of ``agent`` whose mutable episode state is its own (the task and the
    read-only draws are shared)."""
    c = copy.copy(agent)
    for k, v in vars(agent).items():
        if isinstance(v, (dict, set, list)):
            setattr(c, k, copy.deepcopy(v))
    return c


def _tokens(view) -> int:
    return int(view.used_tokens) if view.used_tokens is not None else \
        sum(e.tokens for e in view.entries)


class RecordingAgent:
    """Wraps an agent; records each view and action without changing either (every
    attribute not defined here is the wrapped agent's)."""

    def __init__(self, agent):
        self._agent = agent
        self.calls: list[Call] = []
        self._visible: dict[str, int] = {}
        self._truth: str | None = None
        self._refused: set[str] = set()
        self.decision: DecisionPoint | None = None
        self.composition: dict[str, int] = {}

    def __getattr__(self, name):
        return getattr(self._agent, name)

    def reset(self, task, seed: int) -> None:
        self._agent.reset(task, seed)
        self.task = task
        self.calls, self._visible, self._truth, self._refused = [], {}, None, set()
        self.decision, self.composition = None, {}
        self._texts: dict[str, str] = {}
        self._origin: dict[str, int] = {}
        self.needed = sum(len(s.needs) for s in task.steps if s.kind != "observe")
        self.correct = 0

    def write_notes(self, view, round_: int) -> str:
        return self._agent.write_notes(view, round_)

    def act(self, view):
        before = self._agent.last_recover
        if before and view.notice and view.notice.startswith("recovery refused"):
            self._refused.add(before[0])
        ag = self._agent
        deciding = self.decision is None and ag.task.steps[ag.pos].kind != "observe"
        snapshot = _snapshot(ag) if deciding else None
        step = ag.task.steps[ag.pos]
        action = self._agent.act(view)
        if step.kind != "observe" and action.kind not in (ARCHIVE, DELETE, RECOVER):
            # the grader's partial credit: each needed value written exactly
            self.correct += sum((action.values or {}).get(k) == self.task.facts[k].value
                                for k in step.needs)
        # an observe step's output as the run's log records it
        raw = step.content if action.kind == TASK and step.kind == "observe" else ""
        self._record(view, action, snapshot, raw)
        return action

    def _record(self, view, action, snapshot, raw: str = "") -> None:
        visible = {e.id: e.tokens for e in view.entries if e.status == "visible"}
        status = {e.id: (e.status + ("+handle" if e.handle else ""), e.text[:80])
                  for e in view.entries}
        comp: dict[str, int] = {}
        for e in view.entries:
            k = e.type if e.status == "visible" else "placeholder"
            comp[k] = comp.get(k, 0) + e.tokens
        self.composition = comp
        removed = [(b, *status.get(b, ("gone", "")), t) for b, t in self._visible.items()
                   if b not in visible]
        if self.calls:
            prev = self.calls[-1]
            fresh = [e for e in view.entries if e.id not in self._visible
                     and e.status == "visible" and e.type == "tool_result"]
            for e in fresh:
                self._origin.setdefault(e.id, prev.index)
            new = [e.text for e in fresh]
            if prev.result:
                prev.shown = bool(new)
            elif new:
                prev.result = "\n".join(new)
        self._visible = visible
        for e in view.entries:
            if e.status == "visible" and e.id:
                self._texts[e.id] = e.text
        if action.kind in (ARCHIVE, DELETE):
            text = f"{action.kind}({action.block_ids})"
        elif action.kind == RECOVER:
            text = f"recover({action.handle})"
        else:
            text = f"{action.tool}({action.args})"
        self.calls.append(Call(len(self.calls) + 1, action.kind, text,
                               request_tokens=_tokens(view), removed=removed,
                               notice=view.notice or "", writes=bool(action.values),
                               result=raw,
                               removed_from=[self._origin.get(b, 0) for b, *_ in removed]))
        if action.values and self._truth is None:
            self._truth = self._cause(view, action)
            if self._truth is not None and snapshot is not None:
                self.decision = DecisionPoint(len(self.calls), view, action, snapshot, {
                    b: t for b, t in self._texts.items() if b not in visible})

    def _cause(self, view, action) -> str | None:
        """The true cause at a use/answer step whose values are wrong (None if right)."""
        task, agent = self.task, self._agent
        wrong = []
        for k, v in action.values.items():
            if action.kind == ANSWER and agent.failed_base:
                v = agent.found_values.get(k, v)  # judge the value the agent found
            if v != task.facts[k].value:
                wrong.append(k)
        if not wrong:
            return "agent_error" if (action.kind == ANSWER and agent.failed_base) else None
        for k in wrong:
            if k in self._refused:
                return "budget_overflow"
        for k in wrong:
            fact = task.facts[k]
            src = task.steps[fact.source]
            call = f"{src.tool}({src.args})"
            holders = [e for e in view.entries if e.type == "tool_result"
                       and e.source_call == call]
            if any(e.status == "offloaded_placeholder" for e in holders):
                return "budget_overflow"
            reachable = any(e.status == "visible" or (e.status in _GONE and e.handle)
                            for e in holders)
            # an archived group holds it when its index names the call
            reachable = reachable or any(e.id.startswith("G") and e.handle and call in e.text
                                         for e in view.entries)
            if not reachable:
                return "evidence_removed"
        for k in wrong:
            # the agent read the right value and wrote another: its use of a value in
            # view failed the degradation draw (SyntheticAgent._use)
            if find_value(view.entries, task.facts[k]) == task.facts[k].value:
                return "context_degradation"
        return "agent_error"


def run_traced(task, spec, *, budget: int, seed: int, profile: str = "medium",
               tokenizer=None) -> tuple[dict, Trajectory, Truth]:
    """Play ``task`` with the compiled ``spec`` and a recorded synthetic agent.

    Returns:
        ``(row, trajectory, truth)``: ``row`` has ``task_id``, ``program``, ``solved``
        (0/1), ``requests``, ``mean_active``, ``total_tokens``; the trajectory is what
        stages 1-3 may read; the truth is for scoring only.
    """
    from sim.agents import SyntheticAgent
    from sim.evolve.contextevo.compile import compile_spec
    from sim.harness import run_episode

    agent = RecordingAgent(SyntheticAgent(profile))
    r = run_episode(task, compile_spec(spec), agent, budget=budget, seed=seed,
                    tokenizer=tokenizer)
    calls = agent.calls
    final = calls[-1].request_tokens if calls else 0
    score = 1.0 if r.solved else (agent.correct / agent.needed if agent.needed else 0.0)
    traj = Trajectory(task.task_id, task.statement, int(r.solved), calls, final, spec.name,
                      agent.composition, agent.decision, round(min(score, 1.0), 4), budget)
    cause = None if r.solved else (agent._truth or "agent_error")
    row = {"task_id": task.task_id, "program": spec.name, "solved": int(r.solved),
           "score": traj.score,
           "requests": r.requests, "mean_active": round(r.mean_active, 1),
           "total_tokens": r.total_tokens}
    return row, traj, Truth(task.task_id, cause)
