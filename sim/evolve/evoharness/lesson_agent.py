"""A synthetic agent that reads the pinned skill block and plays its lessons
(Evo-Harness §3; ContextEvo §6 "three limits of skill evolution").

The agent sees skills only as text: the pinned ``<skills>`` block in its view
(:func:`sim.evolve.evoharness.select.skill_block`). :class:`SkillAwareAgent` parses it
into edits (:mod:`sim.evolve.evoharness.lessons`); nothing is keyed by a program or an
arm name, and with no skill block it acts exactly like its base agent (same common
random numbers, the same episode).

Per skill in the block (each draw a common random number keyed by the episode seed,
the skill name and the decision point; parameters: :class:`SkillUse`):

1. **Reading** (invocation gap). At a decision point the agent reads a skill with
   ``P = read_max * (1 - pressure_drop * min(1, u))``, ``u`` = its perceived request
   tokens / budget. Start edits are read at the first view showing the block (low
   pressure), ``verify`` at the final answer (high pressure in long tasks).
2. **Following**. Each read instruction is followed with probability ``follow``.
3. **Playing**. A followed edit changes what the agent does in this episode (the
   grammar's table of behaviours, :mod:`sim.evolve.evoharness.lessons`): its note
   rate, its recovery search, what it archives and when, or a re-read of each
   answered value against its evidence line, or (``program``) an edit of the context
   program played from then on (:meth:`SkillAwareAgent.bind_program`: the episode's
   :class:`~sim.evolve.evoharness.lesson_program.LessonProgram`; unbound, a program
   lesson changes nothing). A re-read needs the evidence in the
   final request and succeeds with the agent's own ``Profile.p_use`` at that
   request's length (the world's degradation curve), so a re-check repairs a value
   missed in view only where the world lets it; a context-free failure
   (``base_error``) is by the world's definition not a reading error, and no re-read
   undoes it.
   A topic skill's edits act only in tasks of its topic.

There are no failure kinds and no outcome the agent is told to change: the base
agent's context-free failure (``base_error``) spoils a value as before, and whether a
lesson helps, or hurts (its tokens in every request, a kept block that forces
other archives), is what the episode gives.
"""

from __future__ import annotations

from sim.agents.protocol import ANSWER, Action, View
from sim.agents.synthetic import SyntheticAgent, find_value
from sim.evolve.evoharness.lessons import Edit, parse_block
from sim.evolve.evoharness.select import BLOCK_OPEN
from sim.evolve.evoharness.uptake import SkillUse


def unseen_keys(task, view: View, answer) -> tuple[str, ...]:
    """The keys of ``answer`` whose evidence line (``task.facts[key]``) the final
    request ``view`` does not show: what a trajectory's last request tells about
    where a value was lost."""
    return tuple(k for k in answer if find_value(view.entries, task.facts[k]) is None)


def block_text(view: View) -> str:
    """The pinned skill block's text in ``view`` (``""`` without one)."""
    return next((e.text for e in view.entries
                 if e.status == "pinned" and e.text.startswith(BLOCK_OPEN)), "")


class SkillAwareAgent(SyntheticAgent):
    """A :class:`SyntheticAgent` that plays the lessons of the pinned skill block
    (module docstring).

    Args:
        profile: profile or name (as the base agent).
        use: a :class:`SkillUse` (default :class:`SkillUse()`, every profile).
        channel: as the base agent.

    After an episode: ``skills_shown`` (names in the block), ``skills_read``,
    ``followed`` (the verbs followed and acting in this task), ``rechecked`` (keys
    whose value a re-read replaced), ``answer`` (the final values given), ``unseen``
    (answered keys whose evidence line was not in the final request),
    ``answer_tokens`` (the tokens of that request) and
    ``believes_solved`` (its own view: every value found, none answered unknown),
    ``program_played`` (the program edits that changed the bound program).
    """

    def __init__(self, profile="medium", use: SkillUse | None = None,
                 channel: str = "auto"):
        super().__init__(profile, channel)
        self.use = use or SkillUse()
        self.base_profile = self.profile
        self._program = None

    def bind_program(self, program) -> None:
        """The :class:`~sim.evolve.evoharness.lesson_program.LessonProgram` the next
        episode plays (None: unbound); followed program lessons edit it. Kept across
        :meth:`reset` (bind before the episode starts)."""
        self._program = program

    def reset(self, task, seed: int) -> None:
        self.profile = self.base_profile
        super().reset(task, seed)
        self.topic = task.family
        self.skills_shown: list[str] = []
        self.skills_read: list[str] = []
        self.followed: list[str] = []
        self.rechecked: list[str] = []
        self._skills: list | None = None
        self._final_done = False
        self._verify = False
        self.keep_evidence = False
        self.answer: dict[str, str] = {}
        self.unseen: tuple[str, ...] = ()
        self.answer_tokens = 0
        self.program_played: list = []

    # -- reading the block -------------------------------------------------------------
    def _pressure(self, view: View) -> float:
        return min(1.0, self.total(view) / max(1, view.budget))

    def _reads(self, view: View, name: str, point: str) -> bool:
        p = self.use.read_max * (1.0 - self.use.pressure_drop * self._pressure(view))
        read = self._u("skill-read", name, point) < p
        if read and name not in self.skills_read:
            self.skills_read.append(name)
        return read

    def _taken_up(self, view: View, when: str) -> list[Edit]:
        """The edits acting at ``when`` that the agent reads and follows here."""
        out = []
        for name, _topic, edits in self._skills:
            mine = [e for e in edits if e.when == when and e.applies(self.topic)]
            if not mine or not self._reads(view, name, when):
                continue
            # the follow draw is keyed by the instruction (a verb, or a program
            # edit's text), so a merged skill's instructions are followed independently
            out += [e for e in mine
                    if self._u("skill-follow", name, f"{when}:{e.key}") < self.use.follow]
        self.followed += [e.verb for e in out]
        return out

    def _first_view(self, view: View) -> None:
        self._skills = parse_block(block_text(view))
        self.skills_shown = [s[0] for s in self._skills]
        p, use = self.profile, self.use
        taken = self._taken_up(view, "start")
        program = [e.program for e in taken if e.program is not None]
        if program and self._program is not None:
            self.program_played = self._program.follow(program)
        for verb in dict.fromkeys(e.verb for e in taken):
            if verb == "notes":
                p = p.with_(p_note=1.0)             # "restate every evidence line"
            elif verb == "recover":
                p = p.with_(max_attempts=p.max_attempts + use.extra_reads, p_retry=1.0)
            elif verb == "shorten":
                p = p.with_(archive_at=p.archive_at * use.shorten_factor,
                            archive_to=p.archive_to * use.shorten_factor)
            elif verb == "keep":
                self.keep_evidence = True
        self.profile = p

    # -- behaviour -------------------------------------------------------------------
    def _candidates(self, view, protect=None):
        cands = super()._candidates(view, protect)
        if not self.keep_evidence:
            return cands
        facts = self.task.facts.values()
        return [e for e in cands if not any(f.extract(e.text) is not None for f in facts)]

    def _recheck(self, view: View, action: Action) -> Action:
        """The answer after re-reading each value against the evidence line the
        request shows: a re-read succeeds with ``Profile.p_use`` at this request's
        length, and a successful re-read that differs replaces the value."""
        p_read = self.profile.p_use(self.request_tokens(view))
        values = dict(action.values)
        for key, given in action.values.items():
            seen = find_value(view.entries, self.task.facts[key])
            if seen is not None and seen != given and \
                    self._u("recheck", key) < p_read:
                values[key] = seen
                self.rechecked.append(key)
        if values == action.values:
            return action
        args = ", ".join(f"{k}={v}" for k, v in values.items())
        return Action(action.kind, tool=action.tool, args=args, values=values)

    def act(self, view: View) -> Action:
        if self._skills is None:
            self._first_view(view)
        if self.task.steps[self.pos].kind == "final" and not self._final_done:
            # read once, at the first view of the final step (recovery reads for
            # the answer may come before it)
            self._final_done = True
            self._verify = bool(self._taken_up(view, "final"))
        action = super().act(view)
        if action.kind == ANSWER:
            if self._verify:
                action = self._recheck(view, action)
            self.answer = dict(action.values)
            self.unseen = unseen_keys(self.task, view, self.answer)
            self.answer_tokens = self.request_tokens(view)
        return action

    @property
    def believes_solved(self) -> bool:
        """The agent's own verdict: it found every value it answered with."""
        return bool(self.answer) and all(v != "unknown" for v in self.answer.values())
